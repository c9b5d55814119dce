"""Drop-check audit (issue 19): facts a quality check used to drop are repaired and kept, in
their repaired form; what the checks are for is still dropped. Unit level (no database), plus
bench/fact_drops.py's hook: `fact_quality.AUDIT` records every dropped fact with its reason."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from arandu_pipelines.write import drop_repair
from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.fact_quality import AUDIT
from arandu_pipelines.write.types import ExtractionContext

WHEN = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def texts(text: str, speaker: str, addressee: str) -> list[str]:
    return [f.fact_text for f in extract_offline(text, ExtractionContext(speaker, WHEN, addressee=addressee)).facts]


@pytest.mark.parametrize(("text", "speaker", "addressee", "kept"), [
    # addressee named only in a leading clause: the clause is cut (was dropped by `addressee`)
    ("Taking your advice, I'm sprucing up my biz plan and tweaking my pitch to investors.", "Jon", "Gina",
     "Jon is sprucing up his business plan and tweaking his pitch to investors"),
    # "it" acting on the speaker: what happened to them (was dropped by `subject_first`)
    ("It taught me self-acceptance and how to find support.", "Caroline", "Melanie",
     "Caroline learned self-acceptance and how to find support"),  # session 12: subject first
    # causative "It made X think ... we": not generic "we" (was dropped by `generic_we`)
    ("It made me think how much work we still have to do for LGBTQ rights.", "Caroline", "Melanie",
     "Caroline thought about how much work Caroline and others still have to do for LGBTQ rights"),
    # causative "It's made X appreciate ...": not thanks (was dropped by `talk`)
    ("It's made me appreciate how lucky I am to have my friends and family.", "Caroline", "Melanie",
     "Caroline appreciates how lucky she is to have her friends and family"),
    # what one imagines is not an ability modal (was dropped by `unanchored`)
    ("I can picture waking up to nature every day.", "Caroline", "Melanie",
     "Caroline can picture waking up to nature every day"),
    # the speaker's own appraisal of what they do (was dropped by `subject_first`); since session 12
    # "inspiring" is one of stance.finds_it's feelings, which keeps the clause after the comma too
    ("It's been so inspiring to work with my young dancers, seeing their passion and commitment.", "Jon", "Gina",
     "Jon finds it inspiring to work with his young dancers, seeing their passion and commitment"),
    # an empty-pronoun head before ", but" is cut (was dropped by `subject_first`)
    ("It's been stressful, but dancing has kept me going.", "Jon", "Gina", "Dancing has kept Jon going"),
    # a pointer to a photo of one's own things is cut to what it shows (was dropped by `subject_first`)
    ("Here's a pic of my family camping at the beach.", "Melanie", "Caroline",
     "Melanie's family camping at the beach"),
])
def test_repaired_instead_of_dropped(text, speaker, addressee, kept):
    assert kept in texts(text, speaker, addressee)


@pytest.mark.parametrize(("text", "speaker", "addressee"), [
    ("It's great that you're doing this.", "Gina", "Jon"),  # expletive + about the addressee: talk
    ("Here's a pic of your dog, so cute.", "Gina", "Jon"),  # the addressee's things: their turn says it
    ("It's been a long week, but it was worth it.", "Jon", "Gina"),  # the tail is another empty pronoun
    ("You're doing an amazing job with the studio.", "Gina", "Jon"),  # a compliment
    ("Music brings us together.", "Caroline", "Melanie"),
    ("I can't imagine how hard that was.", "Caroline", "Melanie"),  # empathy, not what she imagines
    ("I can't imagine it.", "Caroline", "Melanie"),
    ("I can do this.", "Caroline", "Melanie"),  # an ability modal with no content
    ("It's awesome to see the difference we can make in each other's lives.", "Jon", "Gina"),  # generic "we"  # generic "we" without a causative
    ("Thanks so much for the support!", "Caroline", "Melanie"),  # thanks
])
def test_still_dropped(text, speaker, addressee):
    assert texts(text, speaker, addressee) == []


def test_lead_clause_keeps_the_check_when_the_rest_still_names_the_addressee():
    assert drop_repair.lead_clause("Jon took Gina's advice, Jon is thanking Gina", "Jon", "Gina") is None
    assert drop_repair.lead_clause("Gina's shop, Jon loves it", "Jon", "Gina") is None  # too short
    assert drop_repair.lead_clause("After Gina called, Jon booked the venue for the showcase",
                                   "Jon", "Gina") == "Jon booked the venue for the showcase"


def test_causative_needs_the_subject_as_object():
    assert drop_repair.causative("It made Caroline reflect on her journey", "Caroline")
    assert drop_repair.causative("It made the news last week", "Caroline") is None
    assert drop_repair.causative("It's so peaceful here", "Caroline") is None


def test_audit_hook_records_each_drop_with_its_reason():
    audit: list[tuple[str, str]] = []
    token = AUDIT.set(audit)
    try:
        texts("Here's a pic of your dog, so cute.", "Gina", "Jon")
    finally:
        AUDIT.reset(token)
    assert audit and audit[0][0] == "addressee" and "Jon's dog" in audit[0][1], audit
    assert AUDIT.get() is None  # off by default: no cost for the pipeline


def test_cap_ranks_a_causative_fact_as_about_its_subject():
    """The 2-per-subject cap prefers facts that open with their subject; "It made Caroline
    reflect ..." is about her too, so a repaired causative fact is not the first one capped."""
    from arandu_pipelines.write.fact_quality import _rank
    from arandu_pipelines.write.types import ExtractedFact

    causative = ExtractedFact("Caroline", "It made Caroline reflect on how far Caroline has come")
    other = ExtractedFact("Caroline", "Some days with Caroline are hard")
    assert _rank(causative)[0] == 1
    assert _rank(other)[0] == 0

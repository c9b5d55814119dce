"""Session 12 (cov12): "It was great to VP" / "It's awesome VP-ing" -- the speaker's own activity
judged through an expletive "it" -- is a `finds it` fact, in the tense the speaker used."""

from __future__ import annotations

from datetime import UTC, datetime

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext

WHEN = datetime(2023, 5, 8, 13, 0, tzinfo=UTC)


def texts(text: str) -> list[str]:
    r = extract_offline(text, ExtractionContext("Priya", WHEN, addressee="Daniel"))
    return [f.fact_text for f in r.facts]


def test_a_past_activity_judged_great_is_found_great():
    assert "Priya found it great to unplug and hike with the dogs" in texts(
        "We went up north last weekend. It was great to unplug and hike with the dogs.")


def test_a_gerund_activity_is_read_like_the_infinitive():
    assert "Priya finds it awesome watching the kids learn to sail" in texts(
        "It's awesome watching the kids learn to sail.")
    assert "Priya finds it awesome seeing the kids get excited about the garden" in texts(
        "It's awesome seeing the kids get excited about the garden!")


def test_states_reactions_and_generic_you_stay_out():
    for text in ("It's great to have a supporter!", "It's nice to be part of something positive.",
                 "It's great to see how far the project has come.", "It was so cool seeing how kind people are.",
                 "It's awesome seeing your hard work pay off.", "It was nice hearing from you.",
                 "It's great hiking when you need a break.", "It was so nice watching them play in the park."):
        assert not any(" it " in t for t in texts(text)), (text, texts(text))

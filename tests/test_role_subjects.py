"""News about a role the speaker dealt with (write/role_subjects.py): "The inspector said ...",
"The floor guy finished ..." are filed on the speaker with the subject kept as written. Invented
sentences only (Ann speaks to Bob), through the real extractor."""

from __future__ import annotations

from datetime import UTC, datetime

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractedFact, ExtractionContext


def run(text: str, prev: list[tuple[str | None, str]] | None = None, speaker: str = "Ann",
        addressee: str = "Bob") -> list[ExtractedFact]:
    ctx = ExtractionContext(speaker_name=speaker, occurred_at=datetime(2024, 5, 8, 12, tzinfo=UTC),
                            addressee=addressee, previous_turns=prev or [])
    return list(extract_offline(text, ctx).facts)


def texts(text: str, prev: list[tuple[str | None, str]] | None = None) -> list[str]:
    return [f.fact_text for f in run(text, prev)]


def on(facts: list[ExtractedFact], start: str) -> ExtractedFact | None:
    return next((f for f in facts if f.fact_text.startswith(start)), None)


# ---- positive cases (no fact on base 0c4ed78) --------------------------------------------------

def test_reported_speech_of_a_role_is_the_speakers_news():
    out = run("The inspector said it was one of the cleanest trucks she has seen.")
    f = on(out, "The inspector said it was one of the cleanest trucks")
    assert f is not None and f.subject == "Ann", [(x.subject, x.fact_text) for x in out]
    assert "Ann's inspector" not in f.fact_text, f.fact_text  # "she" (the inspector) reads "the inspector"


def test_she_in_the_next_sentence_is_the_role():
    out = run("The plumber came by on Tuesday. She said the pipes were fine.")
    f = on(out, "The plumber said the pipes were fine")
    assert f is not None and f.subject == "Ann", [(x.subject, x.fact_text) for x in out]


def test_editor_reported_speech_keeps_the_whole_sentence():
    out = run("The editor said the story made her laugh and cry.")
    f = on(out, "The editor said the story made her laugh and cry")
    assert f is not None and f.subject == "Ann", [(x.subject, x.fact_text) for x in out]


def test_compound_guy_is_a_role():
    out = run("The floor guy finished on April 20th, a few days late, but the oak practically glows now.")
    f = on(out, "The floor guy finished")
    assert f is not None and f.subject == "Ann", [(x.subject, x.fact_text) for x in out]


def test_unchanged_role_with_my_in_the_sentence():
    """Guard: "my" already filed it on the speaker on base; the subject stays as written."""
    out = run("The health inspector gave my truck a perfect score last week.")
    f = on(out, "The health inspector gave Ann's truck a perfect score")
    assert f is not None and f.subject == "Ann", [(x.subject, x.fact_text) for x in out]


def test_unchanged_role_with_my_and_a_past_verb():
    """Guard: the same on base (the "my" in the sentence)."""
    out = texts("The plumber finally fixed the leak under my sink yesterday.")
    assert any(f.startswith("The plumber finally fixed the leak under Ann's sink") for f in out), out


def test_the_listeners_own_role_is_the_listeners():
    """Read as "Your coach ...": Bob's coach, never filed on Ann (the addressee check then treats
    it as it treats "Your coach called me ...")."""
    from arandu_pipelines.write.fact_quality import AUDIT

    prev = [("Bob", "My coach wants me to run the half marathon in June.")]
    audit: list[tuple[str, str]] = []
    AUDIT.set(audit)
    out = run("The coach called me yesterday about the relay team.", prev)
    assert not any("coach" in f.fact_text and f.subject == "Ann" for f in out), [(x.subject, x.fact_text) for x in out]
    said = [f.fact_text for f in out] + [str(a) for a in audit]
    assert any("Bob's coach called Ann" in t for t in said), said
    assert said == [str(a) for a in audit] or all(f.subject == "Bob" for f in out if "coach" in f.fact_text)


def test_discourse_opener_before_the_role():
    out = run("Honestly the vet was so kind to Max.")
    f = on(out, "The vet was so kind to Max")
    assert f is not None and f.subject == "Ann", [(x.subject, x.fact_text) for x in out]


def test_a_role_the_message_introduced_with_a():
    out = run("We hired a contractor in March. The contractor finished the deck last week.")
    f = on(out, "The contractor finished the deck")
    assert f is not None and f.subject == "Ann", [(x.subject, x.fact_text) for x in out]


def test_present_news_without_a_habit_adverb():
    out = run("The landlord finally agreed to replace the fridge.")
    assert on(out, "The landlord finally agreed to replace the fridge") is not None, [x.fact_text for x in out]


# ---- guards (the same on base and now) ----------------------------------------------------------

def test_generic_habit_is_left_alone():
    assert texts("The doctor is always late.") == []
    assert not any(f.startswith(("The coach", "Ann's coach")) for f in texts("The coach never listens to anyone."))


def test_questions_and_which_one_phrases_are_left_alone():
    assert not any("inspector" in f for f in texts("The inspector said what about the truck?"))
    assert not any("Ann's nurse" in f or f.startswith("The nurse") for f in
                   texts("The nurse at the front desk was rude to everyone."))


def test_adjective_guy_and_noun_modifier_are_no_roles():
    assert not any(f.startswith(("The old guy", "Ann's old guy")) for f in texts("The old guy finished the job."))
    assert not any("doctor" in f for f in texts("The doctor visit was long."))


def test_another_owner_in_the_message_is_kept():
    out = texts("Your editor called me. The editor said the story made her laugh.")
    assert not any(f.startswith(("The editor", "Ann's editor")) for f in out), out


def test_listener_named_the_noun_without_my_is_left_alone():
    prev = [("Bob", "Did you see the inspector on the news?")]
    out = run("The inspector said the bridge was unsafe.", prev)
    assert not any(f.subject in ("Ann", "Bob") and "inspector" in f.fact_text for f in out), \
        [(x.subject, x.fact_text) for x in out]


def test_possessive_role_unchanged():
    assert "Ann's editor sent her notes" in texts("Our editor sent her notes last week.")


# ---- through the write path into the database -----------------------------------------------

async def test_write_files_the_role_news_on_the_speaker(memory):
    when = datetime(2024, 5, 8, 12, tzinfo=UTC)
    await memory.write("u1", "How did the food truck inspection go?", speaker_name="Ben", session_id="s1",
                       occurred_at=when)
    r = await memory.write("u1", "The inspector said it was one of the cleanest trucks she has seen.",
                           speaker_name="Ana", session_id="s1", occurred_at=when)
    added = [f for f in r.facts_added if f.fact_text.startswith("The inspector said")]
    assert added, [f.fact_text for f in r.facts_added]
    assert added[0].entity_key == "person:ana", added[0]

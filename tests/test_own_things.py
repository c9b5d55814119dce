"""The speaker's own thing named with a bare "the" (write/own_things.py, asked by
write/demonstrative_subjects.py), "The store's ..." with a contracted verb, and a thing asked about
as a conjunct of a question's subject. Invented sentences only (Nadia speaks, Tom is the other
speaker), through the real extractor: the thing was said as Nadia's two or more turns back, out of
the previous-turn window demonstrative_subjects already reads."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.own_things import (
    OwnThingsTracker,
    for_context,
    owner,
    phrases,
)
from arandu_pipelines.write.types import ExtractionContext


def facts(text: str, prev: list[tuple[str | None, str]] | None = None, speaker: str = "Nadia",
          own: list | None = None) -> list[str]:
    ctx = ExtractionContext(speaker_name=speaker, occurred_at=datetime(2024, 3, 4, 12, tzinfo=UTC),
                            addressee="Tom" if speaker == "Nadia" else "Nadia", previous_turns=prev or [],
                            own_things=own)
    return [f.fact_text for f in extract_offline(text, ctx).facts]


def back(said: str) -> list[tuple[str | None, str]]:
    """Nadia said `said`, then two more turns: the previous turn no longer holds the thing."""
    return [("Nadia", said), ("Tom", "Nice, good luck with that."), ("Nadia", "Thanks!"),
            ("Tom", "Hi Nadia, how was your week?")]


# ---- resolved (each failed before: no fact, or a fact about no one) --------------------------------
def test_a_thing_the_speaker_organised_sessions_ago():
    out = facts("The bake sale last Sunday raised nine hundred dollars for the animal shelter!",
                back("I'm organising a bake sale at the library next month."))
    assert any(f.startswith("Nadia's bake sale") and "nine hundred dollars" in f for f in out), out


def test_a_thing_the_speaker_called_my_or_our():
    out = facts("The bakery finally passed its health inspection.",
                back("We opened a little bakery on Main Street in March."))
    assert "Nadia's bakery finally passed its health inspection" in out, out
    out = facts("The team won the championship!", back("I joined a soccer team at work."))
    assert "Nadia's team won the championship" in out, out
    out = facts("The novel got its first five-star review.", back("My own novel is almost done."))
    assert "Nadia's novel got its first five-star review" in out, out


def test_the_record_the_pipeline_gives_is_used():
    own = phrases("I started a podcast about local history.")
    out = facts("The podcast hit a thousand listeners this week.", [("Tom", "Hey! What's new?")], own=own)
    assert any(f.startswith("Nadia's podcast hit a thousand listeners") for f in out), out


def test_contracted_verb_after_the_asked_about_thing():
    out = facts("The store's doing great! It's a wild ride.", [("Tom", "Hey! How's the store going?")])
    assert "Nadia's store is doing great" in out, out


def test_a_conjunct_of_the_question_subject_is_asked_about():
    out = facts("The puppies are nine weeks old and chewing everything.",
                [("Tom", "How are Daisy and the puppies?")])
    assert "Nadia's puppies are nine weeks old and chewing everything" in out, out


def test_tracker_per_speaker_across_sessions():
    ev = [SimpleNamespace(agent_id="a", speaker="Nadia", text="I'm hosting a quiz night at the pub."),
          SimpleNamespace(agent_id="a", speaker="Tom", text="My van broke down."),
          SimpleNamespace(agent_id="a", speaker="Nadia", text="The quiz night was packed.")]
    got = OwnThingsTracker().assign(ev)
    assert got[0] == [] and got[1] == []
    assert got[2] == [("my", ("quiz", "night"))]
    assert owner("night", ["quiz"], got[2]) == "my"
    assert owner("van", [], got[2]) is None


# ---- unchanged -----------------------------------------------------------------------------------------
def test_phrases_grammar():
    assert phrases("I opened my own bakery!") == [("my", ("bakery",))]
    assert phrases("My dad's truck is old.") == [("my", ("dad's", "truck"))]
    assert owner("truck", [], phrases("My dad's truck is old.")) is None  # dad's, not the speaker's
    assert owner("garden", ["old"], phrases("I love my new garden.")) is None  # another garden
    assert phrases("I have been fostering kittens.") == []  # no article: nothing said as one thing
    assert for_context(ExtractionContext(speaker_name="Nadia", occurred_at=datetime(2024, 3, 4, tzinfo=UTC),
                                  previous_turns=[("Tom", "My bakery is busy.")])) == []


def test_not_the_speakers_thing_stays():
    # another thing of the same kind: a phrase after the noun
    out = facts("The car in front of me braked suddenly.", back("My car is finally fixed."))
    assert not any(f.startswith("Nadia's car") for f in out), out
    # a relative's thing
    out = facts("The truck needs new tires.", back("My dad's truck is old."))
    assert not any(f.startswith("Nadia's truck") for f in out), out
    # a reaction stays a reaction
    out = facts("The garden looks amazing.", back("I love my garden."))
    assert not any(f.startswith("Nadia's garden") for f in out), out
    # nothing said as hers
    out = facts("The store was out of milk again.", back("I love my garden."))
    assert not any(f.startswith("Nadia's store") for f in out), out


def test_the_other_speakers_thing_is_not_the_speakers():
    prev = [("Tom", "We opened a little bakery on Main Street."), ("Nadia", "Wow!"), ("Tom", "Busy week!")]
    out = facts("The bakery finally passed its health inspection.", prev)
    assert not any(f.startswith("Nadia's bakery") for f in out), out


# ---- through the write path -------------------------------------------------------------------------
async def test_write_reads_the_speakers_own_thing_from_the_database(memory, fresh_db_url, embeddings):
    at = datetime(2024, 3, 4, 12, tzinfo=UTC)
    said = [("Nadia", "I'm organising a bake sale at the library next month."),
            ("Tom", "Count me in for cookies!"), ("Nadia", "Great, thanks!")]
    for i, (who, text) in enumerate(said):
        await memory.write("u1", text, speaker_name=who, session_id="s1", occurred_at=at.replace(minute=i))
    # a new process (its own pipeline, nothing tracked), a later session: the phrase comes from the database
    from arandu_pipelines.client import MemoryClient

    fresh = MemoryClient(fresh_db_url, embeddings=embeddings)
    await fresh.initialize()
    try:
        await fresh.write("u1", "Hi Nadia, how was your week?", speaker_name="Tom", session_id="s2",
                          occurred_at=at.replace(day=20))
        r = await fresh.write("u1", "The bake sale last Sunday raised nine hundred dollars for the animal shelter!",
                              speaker_name="Nadia", session_id="s2", occurred_at=at.replace(day=20, minute=1))
        # the other speaker's "The bake sale" stays as it was: the record is per speaker
        r2 = await fresh.write("u1", "The bake sale ended early, I heard.", speaker_name="Tom", session_id="s2",
                               occurred_at=at.replace(day=20, minute=2))
    finally:
        await fresh.close()
    texts = [f.fact_text for f in r.facts_added]
    assert any(t.startswith("Nadia's bake sale") and "nine hundred dollars" in t for t in texts), texts
    assert not any(f.fact_text.startswith("Tom's bake sale") for f in r2.facts_added), r2.facts_added

"""Who the speaker's "we" is (write/we_group.py, issue 19, session 12): "we" becomes "<S> and
<group>" when the message or the speaker's previous turn names the group ("my kids", "my husband
and I", "our family"), and stays "<S> and others" when nothing says who, when it is a generic
object "us", or when the group is already named in the clause. Sentences are invented (no dev
conversation names); unit level through `extract_offline` (the real spaCy pipeline), no database."""

from __future__ import annotations

from datetime import UTC, datetime

from arandu_pipelines.write import we_group
from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext

WHEN = datetime(2023, 9, 14, 18, 30, tzinfo=UTC)


def texts(text: str, speaker: str = "Priya", previous: list[tuple[str | None, str]] | None = None) -> list[str]:
    ctx = ExtractionContext(speaker, WHEN, addressee="Daniel", previous_turns=previous or [])
    return [f.fact_text for f in extract_offline(text, ctx).facts]


def test_we_is_the_speaker_and_the_kids_named_in_the_same_message() -> None:
    got = texts("My kids are so excited about the holidays! We're planning a trip to the lake next month.")
    assert any(t.startswith("Priya and her kids are planning a trip to the lake") for t in got), got
    assert not any("and others" in t for t in got), got


def test_coordination_with_the_speaker_names_a_single_relative() -> None:
    got = texts("My husband and I love gardening. We planted tomatoes and basil in the backyard.")
    assert any(t.startswith("Priya and her husband planted tomatoes") for t in got), got


def test_we_takes_the_group_from_the_speakers_previous_turn() -> None:
    previous = [("Priya", "I took my family to the coast last weekend, it was lovely."),
                ("Daniel", "Sounds great! What did you do there?")]
    got = texts("We explored the cliffs and ate fresh seafood by the harbour.", previous=previous)
    assert any(t.startswith("Priya and her family explored the cliffs") for t in got), got


def test_the_other_speakers_turn_does_not_name_the_speakers_group() -> None:
    previous = [("Daniel", "I took my family to the coast last weekend, it was lovely.")]
    got = texts("We explored the cliffs and ate fresh seafood by the harbour.", previous=previous)
    assert any(t.startswith("Priya and others explored the cliffs") for t in got), got


def test_nothing_says_who_keeps_and_others() -> None:
    got = texts("We explored the cliffs and ate fresh seafood by the harbour.")
    assert any(t.startswith("Priya and others explored the cliffs") for t in got), got


def test_group_already_named_in_the_clause_is_not_said_twice() -> None:
    got = texts("I had a quiet weekend after we went hiking with my kids in the hills.")
    assert not any("Priya's kids went hiking with" in t for t in got), got


def test_object_us_stays_generic() -> None:
    assert we_group.name_group("Music is awesome for bringing Priya and others together", "Priya",
                               "Priya's kids") == "Music is awesome for bringing Priya and others together"


def test_two_groups_in_one_message_are_ambiguous() -> None:
    assert we_group.antecedent("My kids loved it and my team too. We went out.", "Priya", []) is None


def test_caption_is_not_the_speakers_words() -> None:
    assert we_group.antecedent("We went to the park! [shared a photo: the kids on a swing]", "Priya", []) is None


def test_generic_apposition_keeps_and_others() -> None:
    assert we_group.name_group("Priya and others trans people deserve respect", "Priya",
                               "Priya's friends") == "Priya and others trans people deserve respect"


def test_the_speaker_and_the_listener_are_not_the_group() -> None:
    for text in ("A lot happened since Priya and others last talked", "Priya and others both love jazz",
                 "Priya and others are both on different paths"):
        assert we_group.name_group(text, "Priya", "Priya's kids") == text


def test_the_group_as_the_conversation_said_it() -> None:
    assert we_group.antecedent("Had a day out with the gang - we went biking.", "Priya", []) == "the gang"
    assert we_group.antecedent("I love our family trips.", "Priya", []) == "Priya's family"
    assert we_group.antecedent("Me and my fam went out.", "Priya", []) == "Priya's family"


def test_group_named_earlier_in_the_fact_is_not_repeated() -> None:
    assert we_group.name_group("Priya had a day out with the gang - Priya and others went biking", "Priya",
                               "the gang") == "Priya had a day out with the gang - Priya and others went biking"


async def test_write_in_a_new_process_takes_the_group_from_the_stored_previous_turn(fresh_db_url, embeddings):
    """A single write() (a new process: nothing tracked) whose "we" needs the speaker's previous
    turn: the turns come from the database (antecedents.fill_from_history now looks them up for a
    "we" too, not only for an "it")."""
    from arandu_pipelines.client import MemoryClient

    at = datetime(2023, 5, 8, 12, tzinfo=UTC)
    first = MemoryClient(fresh_db_url, embeddings=embeddings)
    await first.initialize()
    try:
        await first.write("u1", "I took my family to the coast last weekend.", speaker_name="Priya",
                          session_id="s1", occurred_at=at)
    finally:
        await first.close()
    fresh = MemoryClient(fresh_db_url, embeddings=embeddings)
    await fresh.initialize()
    try:
        r = await fresh.write("u1", "We explored the cliffs and ate fresh seafood by the harbour.",
                              speaker_name="Priya", session_id="s1", occurred_at=at.replace(minute=5))
    finally:
        await fresh.close()
    got = [f.fact_text for f in r.facts_added]
    assert any(t.startswith("Priya and her family explored the cliffs") for t in got), got


async def test_import_chunk_boundary_does_not_cut_the_window(memory):
    """The importer runs each chunk on a new pipeline: a chunk's second turn used to see only the
    chunk's first one. Here the chunk opens with Daniel's reply (nothing to resolve) and Priya's
    "we" comes next: its window still reaches her previous turn, stored in the chunk before."""
    rows = [("Daniel", "How was the weekend?"), ("Priya", "Lovely! I took my family to the coast."),
            ("Daniel", "Sounds lovely."), ("Priya", "We explored the cliffs and ate fresh seafood by the harbour.")]
    report = await memory.import_messages([
        {"agent_id": "u1", "session_id": "s1", "speaker": who, "text": text, "message_id": f"m{i}",
         "occurred_at": f"2023-05-08T12:0{i}:00+00:00"} for i, (who, text) in enumerate(rows)], chunk_size=2)
    assert report.events_extracted == 4
    page = await memory.get_all("u1", limit=50)
    got = [f.fact_text for f in page.facts]
    assert any(t.startswith("Priya and her family explored the cliffs") for t in got), got

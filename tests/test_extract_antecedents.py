"""Cross-turn antecedents (write/antecedents.py): a reply's "it" resolved to the one thing the
previous turn named, and left alone whenever that is not clear. Invented dialogue only."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from arandu_pipelines.write.antecedents import PreviousTurnTracker, replacements
from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext


def ctx(prev: list[tuple[str | None, str]] | None = None, recent: list[str] | None = None) -> ExtractionContext:
    return ExtractionContext(speaker_name="Melanie", occurred_at=datetime(2023, 5, 8, 12, tzinfo=UTC),
                             addressee="Caroline", previous_turns=prev or [], recent_messages=recent or [])


def facts(text: str, c: ExtractionContext) -> list[str]:
    return [f.fact_text for f in extract_offline(text, c).facts]


def test_it_resolves_to_what_the_other_speakers_question_was_about():
    c = ctx([("Caroline", "How did the pottery class go?")])
    assert [(r.original, r.text) for r in replacements("Honestly I loved it, the teacher was so patient.", c)] \
        == [("it", "the pottery class")]
    assert any(f.startswith("Melanie loved the pottery class") for f in facts(
        "Honestly I loved it, the teacher was so patient.", c))


def test_a_judgement_of_the_thing_becomes_a_fact_about_the_speaker():
    text = "Yeah, I love to. It's peaceful and special."
    assert facts(text, ctx([("Caroline", "Do you like painting animals?")])) == [
        "Melanie finds painting animals peaceful and special"]
    assert facts(text, ctx()) == []  # the same reply with nothing before it says nothing


def test_the_phrase_moves_into_the_speakers_mouth():
    out = facts("It was so relaxing and I made a bowl for my mom.",
                ctx([("Caroline", "How did your pottery class go?")]))
    # "your class" in Caroline's question is the speaker's own; write/readability.py then says
    # "their" for a possessive repeating the clause's subject.
    assert any(f.startswith("Melanie found her pottery class") for f in out), out
    assert not any("Caroline" in f for f in out)


def test_subject_pronoun_takes_the_subject_of_a_statement():
    out = facts("This has been great for my mental health.",
                ctx([("Caroline", "Running can really boost your mood.")]))
    assert out == ["Running has been great for Melanie's mental health"]


def test_ambiguous_antecedent_is_left_alone():
    text = "I finished it yesterday, it took me all week."
    c = ctx([("Caroline", "Did you finish the painting or the vase?")])
    assert replacements(text, c) == []
    assert facts(text, c) == facts(text, ctx())


def test_antecedent_inside_the_message_wins():
    c = ctx([("Caroline", "How did the pottery class go?")])
    assert replacements("I bought a new easel last week. I love it.", c) == []


def test_expletive_and_idiomatic_it_are_not_resolved():
    c = ctx([("Caroline", "How did the pottery class go?")])
    assert replacements("It was great to see everyone there.", c) == []
    assert replacements("I'm gonna make it happen, keep it up!", c) == []
    assert replacements("It's beautiful!", c) == []  # a reaction to what was shown


def test_first_turn_of_a_session_is_unchanged():
    text = "It was so relaxing and I made a bowl for my mom."
    assert replacements(text, ctx()) == []
    assert facts(text, ctx()) == [f.fact_text for f in extract_offline(
        text, ExtractionContext(speaker_name="Melanie", occurred_at=datetime(2023, 5, 8, 12, tzinfo=UTC),
                                addressee="Caroline")).facts]


def test_recent_messages_are_the_previous_turns_when_the_caller_gives_them():
    c = ctx(recent=["How did the pottery class go?"])
    assert [r.text for r in replacements("Honestly I loved it.", c)] == ["the pottery class"]
    # whose "your" it was is unknown there: such a phrase is not taken
    assert replacements("Honestly I loved it.", ctx(recent=["How did your pottery class go?"])) == []


@dataclass
class _E:
    agent_id: str
    session_id: str
    speaker: str
    text: str


def test_tracker_gives_each_turn_its_sessions_previous_turns():
    t = PreviousTurnTracker()
    out = t.assign([_E("a", "s1", "Caroline", "q1"), _E("a", "s2", "Jon", "x"), _E("a", "s1", "Melanie", "r1")])
    assert out == [[], [], [("Caroline", "q1")]]
    assert t.assign([_E("a", "s1", "Caroline", "q2")]) == [[("Caroline", "q1"), ("Melanie", "r1")]]
    assert t.assign([_E("b", "s1", "Caroline", "new agent")]) == [[]]
    long = "x" * 5000 + " What do you think of the pottery class?"
    t.assign([_E("c", "s1", "Caroline", long)])
    (turn,), = t.assign([_E("c", "s1", "Melanie", "reply")])
    assert turn[1].endswith("pottery class?") and len(turn[1]) <= 2000  # only the parsed tail is kept


async def test_write_resolves_it_from_the_previous_message_of_the_session(memory, fresh_db_url, embeddings):
    at = datetime(2023, 5, 8, 12, tzinfo=UTC)
    await memory.write("u1", "How did the pottery class go?", speaker_name="Caroline", session_id="s1",
                       occurred_at=at)
    r = await memory.write("u1", "Honestly I loved it, the teacher was so patient.", speaker_name="Melanie",
                           session_id="s1", occurred_at=at.replace(minute=1))
    assert any("pottery class" in f.fact_text for f in r.facts_added), r.facts_added

    # a new process (its own pipeline, nothing tracked): the previous turn comes from the database
    from arandu_pipelines.client import MemoryClient

    other = MemoryClient(fresh_db_url, embeddings=embeddings)
    await other.initialize()
    try:
        await other.write("u1", "Do you like painting animals?", speaker_name="Caroline", session_id="s2",
                          occurred_at=at.replace(hour=13))
        fresh = MemoryClient(fresh_db_url, embeddings=embeddings)
        await fresh.initialize()
        try:
            r2 = await fresh.write("u1", "Yeah, I love to. It's peaceful and special.", speaker_name="Melanie",
                                   session_id="s2", occurred_at=at.replace(hour=13, minute=1))
        finally:
            await fresh.close()
    finally:
        await other.close()
    assert [f.fact_text for f in r2.facts_added] == ["Melanie finds painting animals peaceful and special"]


# ---- attitude facts (write/attitudes.py) ---------------------------------------------------------------
def _facts(text: str, speaker: str = "Jon") -> list[str]:
    c = ExtractionContext(speaker_name=speaker, occurred_at=datetime(2023, 5, 8, 12, tzinfo=UTC), addressee="Gina")
    return [f.fact_text for f in extract_offline(text, c).facts]


def test_determination_not_to_be_stopped_is_kept():
    assert "Jon is determined not to let anything or anyone stop him" in _facts(
        "Thanks Gina! I'm not gonna let anything or anyone stop me.")


def test_staying_positive_is_an_outlook_fact():
    assert "Jon is staying positive and looking ahead" in _facts(
        "Handling changes has been hard, but I'm staying positive and looking ahead.")


def test_looking_forward_to_a_concrete_event_is_kept_and_a_vague_one_is_not():
    assert "Jon is looking forward to when his studio starts welcoming dancers of all ages" in _facts(
        "I can't wait 'til my studio starts welcoming dancers of all ages!")
    assert _facts("I can't wait for the trip!") == []


def test_bare_resolve_and_promises_about_the_chat_stay_dropped():
    assert _facts("I won't give up. I'm gonna keep going!") == []
    assert _facts("I'll keep ya posted!") == []


def test_agreeing_with_a_statement_is_not_the_speakers_own_judgement():
    c = ctx([("Caroline", "Pottery is a great way to relax.")])
    assert [r.text for r in replacements("Yeah, it's so calming.", c)] == ["pottery is"]
    assert facts("Yeah, it's so calming.", c) == []  # no "Melanie finds pottery so calming"

"""He/she news about someone the session named more than two turns back (write/session_names.py):
person_antecedents' 2-turn window holds no compatible candidate, and the session's record of named
people and pets holds exactly one. Invented conversations only, through extract_offline (the
caller's longer previous_turns, as bench/facts.py's context and /work/briefs conv.py give them)
and through the real write path (memory fixture), including a new pipeline that must read the
session's earlier names from the database."""

from __future__ import annotations

from datetime import UTC, datetime

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.person_antecedents import pick_named as pick
from arandu_pipelines.write.session_names import Named, NamedTracker, named_in
from arandu_pipelines.write.types import ExtractionContext

AT = datetime(2024, 3, 4, 12, tzinfo=UTC)

NAVY = [
    ("Dale", "My son Tyler enlisted in the Navy."),
    ("Priya", "Wow! How are you and Patty taking it?"),
    ("Dale", "Patty cried for a day, then made a list of everything."),
    ("Priya", "Did he say what he wants to do?"),
]
PUPPY = [
    ("Ana", "We adopted a puppy named Rufus last week!"),
    ("Ben", "Aww, congrats!"),
    ("Ana", "Thanks! How was your trip?"),
    ("Ben", "Great, the beach was lovely."),
    ("Ana", "Glad to hear it. Anything new at work?"),
    ("Ben", "Not much, same old."),
]


def facts(text: str, prev: list[tuple[str | None, str]], speaker: str, addressee: str,
          named_before: list[Named] | None = None) -> list[str]:
    ctx = ExtractionContext(speaker_name=speaker, occurred_at=AT, addressee=addressee, previous_turns=prev,
                            named_before=named_before)
    return [f.fact_text for f in extract_offline(text, ctx).facts]


# ---- positive cases (each gave nothing or a wrong person on base 70a6e31) ----------------------------
def test_a_son_named_four_turns_back_is_he_when_the_window_only_holds_a_woman():
    out = facts("He wants to be a hospital corpsman.", NAVY, "Dale", "Priya")
    assert "Tyler wants to be a hospital corpsman" in out, out


def test_a_pet_named_at_the_start_of_the_session_is_he_six_turns_later():
    out = facts("He chewed through my favourite shoes on Monday.", PUPPY, "Ana", "Ben")
    assert any(f.startswith("Rufus chewed through Ana's favourite shoes") for f in out), out


def test_the_pipeline_record_is_read_when_the_window_is_only_two_turns():
    # what the write pipeline gives: 2 previous turns, and the tracker's record of the session
    record = NamedTracker().assign([_E("a", "s", sp, t) for sp, t in [*NAVY, ("Dale", "x")]])[-1]
    out = facts("He wants to be a hospital corpsman.", NAVY[-2:], "Dale", "Priya", named_before=record)
    assert "Tyler wants to be a hospital corpsman" in out, out


def test_a_daughter_named_earlier_is_she_after_turns_about_a_man():
    prev = [("Nadia", "My daughter Emma starts college in the fall."), ("Tom", "Exciting! How is your dad?"),
            ("Nadia", "Dad is fine, his knee is better."), ("Tom", "Good to hear. Has she picked a major?")]
    out = facts("She picked biology and joined the rowing team.", prev, "Nadia", "Tom")
    assert any(f.startswith("Emma picked biology") for f in out), out


# ---- guards (same on base and now) --------------------------------------------------------------
def test_two_compatible_names_in_the_record_leave_it_unresolved():
    prev = [("Dale", "My son Tyler enlisted in the Navy. My nephew Sean is jealous."), *NAVY[1:]]
    out = facts("He wants to be a hospital corpsman.", prev, "Dale", "Priya")
    assert not any("corpsman" in f for f in out), out


def test_a_compatible_candidate_in_the_window_wins_over_the_record():
    prev = [NAVY[0], ("Priya", "Wow! How is your brother taking it?"), ("Dale", "My brother is proud."),
            ("Priya", "Did he say what he wants to do?")]
    out = facts("He wants to be a hospital corpsman.", prev, "Dale", "Priya")
    assert "Dale's brother wants to be a hospital corpsman" in out, out
    prev = [("Dale", "My daughter Mia enlisted in the Navy."), ("Priya", "Wow! How is Patty taking it?"),
            ("Dale", "Patty cried for a day."), ("Priya", "What does she want to do?")]
    out = facts("She wants to be a hospital corpsman.", prev, "Dale", "Priya")
    assert "Patty wants to be a hospital corpsman" in out, out


def test_a_name_after_a_place_preposition_only_makes_it_ambiguous():
    prev = [("Nadia", "My daughter Emma starts college in the fall."), ("Tom", "Nice! We just got back from Florence."),
            ("Nadia", "How was it?"), ("Tom", "Lovely, the food was great. Has she picked a major?")]
    out = facts("She picked biology and joined the rowing team.", prev, "Nadia", "Tom")
    assert not any("biology" in f for f in out), out
    prev = [("Nadia", "My son Leo starts college in the fall."), *prev[1:3], ("Tom", "Lovely, the food was great.")]
    out = facts("She loved it.", prev, "Nadia", "Tom")
    assert not any(f.startswith("Florence") for f in out), out


def test_a_name_older_than_the_record_is_not_taken():
    prev = [("Ana", "We adopted a puppy named Rufus last week!"), ("Ben", "Aww!"), *PUPPY[2:], ("Ana", "Ok."),
            ("Ben", "Right.")]
    out = facts("He chewed through my favourite shoes on Monday.", prev, "Ana", "Ben")
    assert not any("Rufus" in f for f in out), out


# ---- the record itself ----------------------------------------------------------------------------
def test_named_in_reads_appositions_and_listed_names():
    got = {n.name: (n.kind, n.gender, n.strong) for n in named_in(
        "My son Tyler enlisted. We adopted a puppy named Rufus, and I met Sarah at the gym in Jordan.")}
    assert got["Tyler"] == ("person", "m", True)
    assert got["Rufus"] == ("pet", None, False)
    assert got["Sarah"] == ("person", "f", False)
    assert "We" not in got
    assert got["Jordan"] == ("person", None, False)  # after "in": it counts, but is never taken
    assert [n.name for n in named_in("I saw Taylor Swift last night.")] == ["Taylor Swift"]
    assert named_in("Thanks, Mel! Hey Jo, you rock, Sam.") == []  # vocatives address a speaker
    assert named_in("My brother Nikita is in town.")[0].gender == "m"  # the noun beats the list
    assert named_in("Thankfully, my son is fine.") == []  # a capitalised first word is no name
    assert [n.name for n in named_in("Rufus, my dog, is a beagle.")] == ["Rufus"]


def test_pick_needs_exactly_one_compatible_entry_and_never_a_speaker():
    rec = [Named("Tyler", "person", "m", True), Named("Patty", "person", "f")]
    assert pick(rec, "m", set()) == rec[0]
    assert pick(rec, "m", {"tyler"}) is None
    assert pick([*rec, Named("Sam", "person", None)], "m", set()) is None
    assert pick([Named("Florence", "person", "f", taken=False), rec[0]], "f", set()) is None
    assert pick([Named("Florence", "person", "f", taken=False), rec[1]], "f", set()) is None  # two: ambiguous


class _E:
    def __init__(self, agent: str, session: str, speaker: str, text: str) -> None:
        self.agent_id, self.session_id, self.speaker, self.text = agent, session, speaker, text


def test_tracker_keeps_the_last_turns_per_session():
    t = NamedTracker()
    first = t.assign([_E("a", "s1", "Ana", "We adopted a puppy named Rufus!"), _E("a", "s2", "Bo", "Hi"),
                      *[_E("a", "s1", "Ben", f"turn {i}") for i in range(6)]])
    assert [n.name for n in first[2]] == ["Rufus"] and first[1] == []
    assert [n.name for n in first[-1]] == ["Rufus"]  # five turns later: still in the last six
    assert t.assign([_E("a", "s1", "Ana", "next")]) == [[]]  # six turns later: gone


# ---- through the write path ---------------------------------------------------------------------
async def test_write_resolves_he_from_a_name_four_turns_back(memory, fresh_db_url, embeddings):
    for i, (who, said) in enumerate(NAVY):
        await memory.write("u1", said, speaker_name=who, session_id="s1", occurred_at=AT.replace(minute=i))
    r = await memory.write("u1", "He wants to be a hospital corpsman.", speaker_name="Dale", session_id="s1",
                           occurred_at=AT.replace(minute=9))
    assert "Tyler wants to be a hospital corpsman" in [f.fact_text for f in r.facts_added], r.facts_added

    # a new process (its own pipeline, nothing tracked): the session's names come from the database
    from arandu_pipelines.client import MemoryClient

    for i, (who, said) in enumerate(PUPPY):
        await memory.write("u1", said, speaker_name=who, session_id="s2", occurred_at=AT.replace(hour=13, minute=i))
    fresh = MemoryClient(fresh_db_url, embeddings=embeddings)
    await fresh.initialize()
    try:
        r2 = await fresh.write("u1", "He chewed through my favourite shoes on Monday.", speaker_name="Ana",
                               session_id="s2", occurred_at=AT.replace(hour=13, minute=9))
    finally:
        await fresh.close()
    assert any(f.fact_text.startswith("Rufus chewed through") for f in r2.facts_added), r2.facts_added


async def test_an_import_gives_each_message_its_own_names(memory):
    """One import chunk: each message reads the names said before it, not the chunk's last message's
    (session 18: a merge moved the assignment out of its loop, and every message of a chunk got the
    names of the last one; here "He" would then also see Raj, named only later, and stay a pronoun)."""
    said = [*NAVY, ("Dale", "Anyway, how is your family?"), ("Priya", "Good!"),
            ("Dale", "He wants to be a hospital corpsman."),
            ("Priya", "My cousin Raj visited last week."), ("Dale", "Nice."), ("Priya", "He loved the lake.")]
    rows = [{"agent_id": "u1", "session_id": "s1", "speaker": who, "text": text, "message_id": f"m{i}",
             "occurred_at": AT.replace(minute=i).isoformat()} for i, (who, text) in enumerate(said)]
    await memory.import_messages(rows, chunk_size=64)
    texts = [f.fact_text for f in await memory.get_all("u1")]
    assert "Tyler wants to be a hospital corpsman" in texts, texts

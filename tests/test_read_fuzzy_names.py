"""Names in questions that differ from the speaker labels: a misspelling ("Muhammad" for the speaker
"Muhhamed"), a nickname ("Kate" for "Katherine"), a short form ("Jon" for "John") resolve to the
right speaker and retrieve that speaker's messages; unrelated capitalised words ("Paris",
"Monday") do not fuzzily become a person.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from arandu_pipelines.read.entities import EntityResolution, _Row, interpret
from arandu_pipelines.read.name_match import Candidate, best_match

T0 = datetime(2025, 6, 2, 18, 0, tzinfo=UTC)

# Every speaker talks about the same topics in the same words, so only the speaker tells the
# messages apart (small talk in between keeps neighbouring turns from lending each other score).
CHAT = [
    ("Muhhamed", "weekend plans: repainting the garage door, blue this time"),
    ("John", "lol ok"),
    ("Katherine", "haha nice"),
    ("Katherine", "weekend plans: bouldering at the old quarry with the climbing group"),
    ("Muhhamed", "sounds fun"),
    ("John", "cool cool"),
    ("John", "weekend plans: sleeping, honestly, and maybe a movie"),
    ("Katherine", "😂"),
    ("Muhhamed", "fair"),
    ("Muhhamed", "my hobbies: chess club on thursdays and baking sourdough"),
    ("John", "nice"),
    ("Katherine", "ooh"),
    ("Katherine", "my hobbies: the cello and pottery on sundays"),
    ("Muhhamed", "wow"),
    ("John", "same"),
    ("John", "my hobbies: fantasy football and running along the canal before work"),
    ("Katherine", "👍"),
    ("Muhhamed", "ok"),
]


async def _write_chat(memory) -> None:
    for i, (speaker, msg) in enumerate(CHAT):
        r = await memory.write("grp", msg, speaker_name=speaker, session_id="s1",
                               occurred_at=T0 + timedelta(minutes=i), message_id=f"m{i}")
        assert r.success, r.error


def _speakers_of(memory_result, n: int = 3) -> list[str]:
    return [s.speaker for s in memory_result.sources[:n]]


async def test_misspelt_and_nicknamed_speakers_resolve_and_retrieve_their_messages(memory) -> None:
    await _write_chat(memory)
    cases = [
        ("What are Muhammad's weekend plans?", "Muhhamed", "phonetic", "garage"),
        ("What are Kate's weekend plans?", "Katherine", "nickname", "bouldering"),
        ("What are Jon's hobbies?", "John", "nickname", "canal"),
        ("What hobbies does Mohammed have?", "Muhhamed", "phonetic", "chess"),
        ("What are Mo's hobbies?", "Muhhamed", "nickname", "chess"),  # via Muhammad, spelt otherwise
    ]
    for question, speaker, method, expected_word in cases:
        r = await memory.retrieve("grp", question, verbose=True)
        sources = r.pipeline.get("plan").data["entities_sources"]
        assert speaker in sources["speakers"], (question, sources)
        assert sources["speaker_methods"][speaker] == method, (question, sources)
        top = r.sources[0]
        assert top.speaker == speaker, (question, _speakers_of(r))
        if expected_word:
            assert expected_word in top.text, (question, top.text)


async def test_unrelated_capitalised_words_do_not_become_people(memory) -> None:
    await _write_chat(memory)
    for question in ("What happened in Paris on Monday?", "Did anyone go to Mumbai in March?",
                     "Who mentioned Jonah or Joan?"):
        r = await memory.retrieve("grp", question, verbose=True)
        sources = r.pipeline.get("plan").data["entities_sources"]
        assert sources["speakers"] == [], (question, sources)
        assert "speaker_methods" not in sources


def test_ambiguous_or_distant_names_are_not_resolved() -> None:
    pool = [Candidate("Daniel", None, True), Candidate("Danielle", None, True),
            Candidate("Melanie", None, True), Candidate("Parisa Khan", "person:parisa_khan", False)]
    assert best_match("Dan", pool) is None  # Daniel and Danielle: two people, no guess
    assert best_match("Monday", pool) is None
    assert best_match("Melany", pool) == ([pool[2]], "phonetic")
    assert best_match("Mel", pool) == ([pool[2]], "nickname")
    assert best_match("Ed", pool) is None and best_match("Al", pool) is None  # 2 letters: table only


def test_exact_match_wins_over_fuzzy_and_fuzzy_is_recorded() -> None:
    rows = [_Row("speaker", "John", None, "John"), _Row("pool_speaker", "John", None, "John"),
            _Row("pool_speaker", "Katherine", None, "Katherine"),
            _Row("pool_person", "Katherine Lee", "person:katherine_lee", "Katherine Lee")]
    res: EntityResolution = interpret("Did John meet Kate?", rows)
    assert res.speakers == ["John", "Katherine"]  # John exact; Kate is the speaker and the entity
    assert "John" not in res.speaker_methods and res.speaker_methods == {"Katherine": "nickname"}
    assert res.keys == ["person:katherine_lee"] and res.methods["person:katherine_lee"] == "nickname"
    assert res.to_dict()["speaker_methods"] == {"Katherine": "nickname"}
    # Two different people behind one nickname: no guess.
    rows2 = rows[:3] + [_Row("pool_speaker", "Kathryn", None, "Kathryn")]
    res2 = interpret("Did John meet Kate?", rows2)
    assert res2.speakers == ["John"] and res2.speaker_methods == {}

"""Chat register out of facts (write/chat_forms.py): shouting, chat spellings, laughter, emoji,
stretched letters, a dangling "tho", requests with "pls"; the message itself stays verbatim.
Unit level through the offline extractor (what get_all() would show), plus one write() check
that the stored message is untouched."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext

WHEN = datetime(2024, 3, 8, 13, 56, tzinfo=UTC)


def facts(text: str, previous: list[tuple[str | None, str]] | None = None) -> list[str]:
    ctx = ExtractionContext("Ana", WHEN, addressee="John", previous_turns=previous or [])
    return [f.fact_text for f in extract_offline(text, ctx).facts]


@pytest.mark.parametrize(("text", "expected"), [
    ("OMG I GOT THE JOB", ["Ana got the job"]),  # was no fact at all: the shouted sentence did not parse
    ("I FINISHED 🏃‍♀️ 1:58:40!!! under 2 hours", ["Ana finished 1:58:40"]),  # was "Ana FINISHED 1:58:40"
    ("I work at the NHS and I love it", ["Ana works at the NHS"]),  # an initialism keeps its capitals
])
def test_shouting_is_written_in_sentence_case(text, expected):
    assert facts(text) == expected


def test_a_shouted_name_known_from_the_session_keeps_its_case():
    prev = [("Ana", "sent a few applications, one to Kestrel Labs")]
    assert facts("KESTREL LABS OFFERED ME THE JOB 🎉🎉", prev) == ["Kestrel Labs offered Ana the job"]


@pytest.mark.parametrize(("text", "expected"), [
    ("I dont eat meat", ["Ana doesn't eat meat"]),  # was "Ana donts eat meat"
    ("I bought a new bike w my savings", ["Ana bought a new bike with their savings"]),
    ("I went bouldering with ppl from work", ["Ana went bouldering with people from work"]),
    ("I joined a running club bc my doctor said so", ["Ana joined a running club because Ana's doctor said so"]),
    ("my sister is coming up tmrw pls dont tell her", ["Ana's sister is coming up tomorrow"]),  # request cut
    ("work was rough btw, Northwind Freight is restructuring the backend team again",
     ["Ana's work was rough, Northwind Freight is restructuring the backend team again"]),  # was "Ana works was"
])
def test_chat_spellings_are_written_out(text, expected):
    assert facts(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I joined a chess club lol", ["Ana joined a chess club"]),
    ("I love my new flat haha", ["Ana loves their new flat"]),
    ("I joined a running club tho", ["Ana joined a running club"]),
    ("I'm sooo tired of my job tbh", ["Ana is so tired of their job"]),
    ("I finally got my driving licence yesss", ["Ana finally got their driving licence"]),
    ("i started a pottery class and its sooo good", ["Ana started a pottery class and it's so good"]),
    ("I started learning japanese on duolingo", ["Ana started learning Japanese on duolingo"]),
])
def test_laughter_tags_stretches_and_dangling_tho_are_removed(text, expected):
    assert facts(text) == expected


def test_a_typed_request_is_still_a_request():
    assert facts("remnid me on friday") == []  # was "Remnid Ana on friday"


def test_ur_is_resolved_by_its_neighbour_then_to_the_addressee():
    from arandu_pipelines.write.chat_forms import tidy

    assert tidy("Ana thinks ur right") == "Ana thinks you're right"
    assert tidy("Ana loves ur flat") == "Ana loves your flat"
    assert tidy("u r the best") == "You are the best"
    assert tidy("Ana mudou para Lisboa kkkk") == "Ana mudou para Lisboa"  # Portuguese laughter
    # a fact holding "ur" now resolves the second person (fact_quality._second_person)
    assert facts("I met ur brother Carlos at the gym") == facts("I met your brother Carlos at the gym") != []
    assert facts("i think ur right") == facts("i think you're right")


def test_careful_text_is_left_alone():
    from arandu_pipelines.write.chat_forms import tidy, unshout

    for text in ["Caroline went to an LGBTQ support group", "Melanie signed up for a pottery class",
                 "Jon lost his job as a banker", "Ana may march in the parade", "Maria sat with her kids"]:
        assert tidy(text, text.split()[0]) == text
    assert unshout("I joined NASA in 2020") == "I joined NASA in 2020"
    assert len(unshout("WE WENT TO THE BBC")) == len("WE WENT TO THE BBC")
    assert unshout("WE WENT TO THE BBC") == "we went to the BBC"


@pytest.mark.slow
async def test_the_stored_message_stays_verbatim(memory):
    text = "OMG I GOT THE JOB at Kestrel Labs lol 🎉"
    res = await memory.write("a", text, speaker_name="Ana")
    assert res.success
    page = await memory.get_all("a")
    assert [f.fact_text for f in page.facts] == ["Ana got the job at Kestrel Labs"]
    from sqlalchemy import text as sql

    async with memory.engine.connect() as conn:
        stored = (await conn.execute(sql("SELECT text FROM memory_events WHERE agent_id = 'a'"))).scalar_one()
    assert stored == text

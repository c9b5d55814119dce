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
    ("I bought a new bike w my savings", ["Ana bought a new bike with her savings"]),
    ("I went bouldering with ppl from work", ["Ana went bouldering with people from work"]),
    ("I joined a running club bc my doctor said so", ["Ana joined a running club because her doctor said so"]),
    ("my sister is coming up tmrw pls dont tell her", ["Ana's sister is coming up tomorrow"]),  # request cut
    ("work was rough btw, Northwind Freight is restructuring the backend team again",
     ["Ana's work was rough", "Northwind Freight is restructuring the backend team again"]),  # was "Ana works was";
    # the comma splice is two facts (write/comma_splices.py, session 17)
])
def test_chat_spellings_are_written_out(text, expected):
    assert facts(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I joined a chess club lol", ["Ana joined a chess club"]),
    ("I love my new flat haha", ["Ana loves her new flat"]),
    ("I joined a running club tho", ["Ana joined a running club"]),
    ("I'm sooo tired of my job tbh", ["Ana is so tired of her job"]),
    ("I finally got my driving licence yesss", ["Ana finally got her driving licence"]),
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


# ---- session 12 (spell12): chat words kept in LoCoMo facts, dash tails, "I'm" for "I've" ----------
@pytest.mark.parametrize(("text", "expected"), [
    ("Melanie loves camping trips with their fam, 'cause nature brings such peace",
     "Melanie loves camping trips with their family, because nature brings such peace"),
    ("Gina wants 'em to feel like they're in a cool oasis", "Gina wants them to feel like they're in a cool oasis"),
    ("Jon is livin' their dreams now", "Jon is living their dreams now"),
    ("Jon is still working on their biz", "Jon is still working on their business"),
    ("Veggies are Oliver's fave", "Veggies are Oliver's favorite"),
    ("Drawing flowers is one of Caroline's faves", "Drawing flowers is one of Caroline's favorites"),
    ("Melanie's fam's been awesome", "Melanie's family's been awesome"),  # a possessive / "is" keeps its 's
    ("Ana sent a pic of the convo", "Ana sent a picture of the conversation"),
])
def test_chat_words_with_one_meaning_are_written_out(text, expected):
    from arandu_pipelines.write.chat_forms import tidy

    assert tidy(text) == expected


def test_look_alikes_of_chat_words_stay():
    from arandu_pipelines.write.chat_forms import tidy

    for text in ["Ana went to Berlin", "Ana found the cause of the leak", "Ana saw Emma in Dublin",
                 "Ana plays the violin", "Ana read 'Going to Berlin'", "Ana is super excited about the trip"]:
        assert tidy(text, "Ana") == text


@pytest.mark.parametrize(("text", "expected"), [
    # a subjectless exclamation after the dash is cut
    ("Caroline is having an LGBTQ art show with Caroline's paintings - can't wait",
     "Caroline is having an LGBTQ art show with Caroline's paintings"),
    ("Caroline went to a pride parade and it was awesome - so much energy and love everywhere",
     "Caroline went to a pride parade and it was awesome"),
    ("Ana moved to Lisbon - it's amazing", "Ana moved to Lisbon"),
    # a clause with its own subject is kept after a semicolon
    ("Caroline went to a poetry reading - it was really powerful",
     "Caroline went to a poetry reading; it was really powerful"),
    ("Melanie's family's been great - their love and support really helped Melanie",
     "Melanie's family's been great; their love and support really helped Melanie"),
    ("Caroline took the first step towards becoming a mom - Caroline applied to adoption agencies",
     "Caroline took the first step towards becoming a mom; Caroline applied to adoption agencies"),
    ("Melanie wants to be brave for their family- they motivate Melanie",
     "Melanie wants to be brave for their family; they motivate Melanie"),
    ("Dance is just Gina -- Gina can't picture life without it", "Dance is just Gina; Gina can't picture life without it"),
    # a coordinator keeps its clause after a comma; "so" only before a subject
    ("Gina's own business has had its ups and downs - but it's been an amazing ride",
     "Gina's own business has had its ups and downs, but it's been an amazing ride"),
    ("Ana missed the bus - so Ana walked", "Ana missed the bus, so Ana walked"),
    # a participle after a comma, a noun phrase or a list after a colon
    ("Jon is working on some new dance routines - rehearsing hard for an upcoming show",
     "Jon is working on some new dance routines, rehearsing hard for an upcoming show"),
    ("Caroline has got lots of kids' books- classics, stories from different cultures",
     "Caroline has got lots of kids' books: classics, stories from different cultures"),
    ("This necklace is special to Caroline - a gift from Caroline's grandma in Sweden",
     "This necklace is special to Caroline: a gift from Caroline's grandma in Sweden"),
])
def test_dash_tails_become_punctuation_or_are_cut(text, expected):
    from arandu_pipelines.write.chat_forms import tidy

    assert tidy(text, text.split()[0].removesuffix("'s")) == expected


@pytest.mark.parametrize(("speaker", "text", "expected"), [
    # a pointer to a photo and a question after the dash are talk (were ": here's ..." / kept)
    ("Caroline", "I've been busy painting - here's something I just finished.", ["Caroline has been busy painting"]),
    ("Caroline", "I went to a poetry reading last Fri - it was really powerful! Ever been to one?",
     ["Caroline went to a poetry reading; it was really powerful"]),
    # a head that only presents keeps its dash, so the announcement stays talk
    ("Gina", "Things have been tough. But here's some good news - I've got something to share!", []),
    # the date phrase removed after the dash was joined leaves no space before the semicolon
    ("Caroline", "I had a wicked day out with the gang last weekend - we went biking.",
     ["Caroline had a wicked day out with the gang; Caroline and others went biking"]),
])
def test_dash_tails_in_whole_turns(speaker, text, expected):
    ctx = ExtractionContext(speaker, WHEN, addressee="Melanie", previous_turns=[])
    assert [f.fact_text for f in extract_offline(text, ctx).facts] == expected


def test_a_parenthetical_between_two_dashes_is_set_off():
    from arandu_pipelines.write.dash_tails import join_dashes

    assert join_dashes("Ana - the new manager - joined the team in May") == "Ana, the new manager, joined the team in May"
    # a list between two dashes keeps them: later checks cut at commas
    assert join_dashes("Ana bought three things - a lamp, a rug and a chair - for the flat") == \
        "Ana bought three things - a lamp, a rug and a chair - for the flat"
    ctx = ExtractionContext("Melanie", WHEN, addressee="Caroline", previous_turns=[])
    text = ("Yeah, it's tough. So I'm carving out some me-time each day - running, reading, or playing my violin"
            " - which refreshes me and helps me stay present for my fam!")
    assert [f.fact_text for f in extract_offline(text, ctx).facts] == ["Melanie is carving out some me-time each day"]


def test_hyphens_ranges_and_short_heads_stay():
    from arandu_pipelines.write.dash_tails import join_dashes

    for text in ["Ana loves her me-time", "Ana worked a 9-5 as a banker", "Ana booked 10 - 12 rooms",
                 "Time flies- feels like yesterday"]:  # a cut would leave two words
        assert join_dashes(text) == text


def test_dash_tails_through_the_extractor():
    ctx = ExtractionContext("Caroline", WHEN, addressee="Melanie", previous_turns=[])
    got = [f.fact_text for f in extract_offline("Yay! Next month I'm having an LGBTQ art show with my paintings - can't wait!", ctx).facts]
    # "their": an initialism ("LGBTQ") no longer stops readability's pronoun (session 16, defects16)
    # "Next month": the month stays in the text since session 18 (write/coarse_dates.py)
    assert got == ["In April 2024 Caroline is having an LGBTQ art show with her paintings"]


@pytest.mark.parametrize(("text", "expected"), [
    # "I'm" typed for "I've" before a participle and its object (was "Jon is sunk tons of time")
    ("I'm sunk tons of time into the studio lately", ["Jon has sunk tons of time into the studio lately"]),
    ("I'm been practicing every night", ["Jon has been practicing every night"]),
    ("I'm given a chance to lead the team", ["Jon is given a chance to lead the team"]),  # a passive stays
    ("I'm done with my exams", ["Jon is done with his exams"]),
])
def test_im_before_a_participle_with_an_object_is_have(text, expected):
    ctx = ExtractionContext("Jon", WHEN, addressee="Gina", previous_turns=[])
    assert [f.fact_text for f in extract_offline(text, ctx).facts] == expected

"""Chat kept as facts (session 14, branch chat14): turn-taking, news announcements, cheers,
"my" interjections and leave-taking with a reason, through the real offline extractor.
Every case of the DROPS tables gave a fact on the base commit (stg14)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from arandu_pipelines.write import small_talk
from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext

WHEN = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def texts(text: str) -> list[str]:
    return [f.fact_text for f in extract_offline(text, ExtractionContext("Maria", WHEN, addressee="John")).facts]


# (message, a word that must appear in no fact)
DROPS = [
    ("Enough about me!", "Enough"),
    ("Enough about me. How's the clinic going?", "Enough"),
    ("Okay, enough about me.", "Enough"),
    ("My news is a bit bigger than I expected.", "news"),
    ("Go Bulldogs!", "Bulldogs"),
    ("Go team!", "team"),
    ("Oh my gosh, I finished my first marathon!", "gosh"),
    ("My god, that sounds amazing.", "god"),
    ("I have to go. I've got a team meeting to run.", "meeting"),
    ("I'm heading there right after this chat. Gotta run!", "heading"),
    ("I have game film to watch before practice. Talk soon!", "film"),
    ("I should get going, I have a presentation to prepare for my boss. Talk later!", "presentation"),
    ("Take care! I have a big exam to study for.", "exam"),
    ("Oh my, I adopted a puppy last week!", "Maria's,"),
]


@pytest.mark.parametrize("text,word", DROPS)
def test_chat_is_not_kept_as_a_fact(text, word):
    assert not [t for t in texts(text) if word in t], texts(text)


# guards: what each mechanism must leave alone
KEEPS = [
    ("I have big news about my job: I got promoted.", "got promoted"),
    ("Big news! I got promoted.", "got promoted"),
    ("Go after your dreams!", "encourages John to go after"),
    ("Go chase your dreams!", "encourages John to go chase"),
    ("Oh my goodness, I finished my first marathon!", "Maria finished"),
    ("I have game film to watch before practice.", "game film"),  # no goodbye in the turn
    ("I've got a team meeting to run and I'm nervous about it.", "team meeting"),
    ("Oh my, I adopted a puppy last week!", "Maria adopted a puppy"),
]


@pytest.mark.parametrize("text,part", KEEPS)
def test_near_forms_keep_their_fact(text, part):
    assert any(part in t for t in texts(text)), texts(text)


def test_interjection_is_no_possessive():
    """"Oh my goodness, I ..." was "Maria's goodness, Maria finished ..." on the base commit."""
    assert not [t for t in texts("Oh my goodness, I finished my first marathon!") if "goodness" in t]


def test_my_word_as_a_noun_stays():
    assert small_talk.drop_reason("Maria's word is final on the menu", "Maria", "John") is None


@pytest.mark.parametrize("text", ["Talk soon!", "Gotta run, the kids are up.", "I have to go, sorry!", "Bye for now.",
                                  "Ok, catch you later!"])
def test_closing_turns(text):
    assert small_talk.closing_turn(text)


@pytest.mark.parametrize("text", ["I have to go to the dentist tomorrow.", "We talked later about it.",
                                  "I got to go to Paris last year!", "See you at the race on Sunday?"])
def test_not_closing_turns(text):
    assert not small_talk.closing_turn(text)


def test_leave_reason_only_in_a_closing_turn():
    fact = "Maria has game film to watch before practice"
    assert small_talk.drop_reason(fact, "Maria", "John", closing=True) == "leave_reason"
    assert small_talk.drop_reason(fact, "Maria", "John", closing=False) is None
    assert small_talk.drop_reason(fact, "Maria", "John", dated=True, closing=True) is None  # a plan


@pytest.mark.parametrize("fact", ["Maria has some big news", "Maria has got news to share with John",
                                  "Maria has exciting news", "Maria's news is bigger than Maria expected"])
def test_news_teasers(fact):
    assert small_talk.drop_reason(fact, "Maria", "John") == "news_teaser"


def test_news_teaser_without_an_addressee():
    assert small_talk.drop_reason("Maria has big news to share with everyone", "Maria", None) == "news_teaser"


@pytest.mark.parametrize("fact", ["Maria has news about Maria's job: Maria got promoted",
                                  "Maria's news is that Maria got promoted", "Maria reads the news every morning"])
def test_news_that_names_itself_stays(fact):
    assert small_talk.drop_reason(fact, "Maria", "John") is None


@pytest.mark.parametrize("fact", ["Enough about Maria", "But enough about Maria", "Anyway, enough about Maria and others"])
def test_turn_taking(fact):
    assert small_talk.drop_reason(fact, "Maria", "John") == "turn_taking"


def test_enough_about_someone_else_stays():
    assert small_talk.drop_reason("Maria has had enough of Maria's boss", "Maria", "John") is None


def test_my_word_as_the_subject_is_not_stripped():
    """"My word is my bond" is a sentence about the speaker's word, not the interjection "My word!"."""
    from arandu_pipelines.write.extract_rules import _LEAD_RE

    assert not _LEAD_RE.match("My word is my bond")
    assert _LEAD_RE.match("My word, that was close").end() == len("My word, ")

"""One table of discourse lead words (lexicon.LEAD_WORDS, session 15): every module that strips the
words a sentence opens with picks classes from it, so a cry, a laugh or an answer particle known to
one module is known to all of them. The positive cases below failed on base 0c4ed78 (each module
had its own partial list); the guards are sentences whose first word is content."""

from __future__ import annotations

import re

import pytest

from arandu_pipelines.write import (
    advice,
    grammar_defects,
    reply_forms,
    speech_acts,
    stance,
)
from arandu_pipelines.write import lexicon as L


def test_table_keys_have_classes_and_markers_stay_literal() -> None:
    assert all(c for c in L.LEAD_WORDS.values())
    assert all(re.fullmatch(r"[\w\s]+", m) for m in L.DISCOURSE_MARKERS)  # word sets are built from them
    assert "by the way" in L.DISCOURSE_MARKERS and "please" not in L.DISCOURSE_MARKERS


@pytest.mark.parametrize("strip,text,rest", [
    (grammar_defects.strip_openers, "Oh my gosh, do you paint?", "do you paint?"),  # "my" was extract_rules' only
    (grammar_defects.strip_openers, "Whoa, did you paint that?", "did you paint that?"),
    (grammar_defects.strip_openers, "Haha yep, do you still paint?", "do you still paint?"),
    (grammar_defects.strip_openers, "Yup, like 3 hours", "like 3 hours"),
    (reply_forms.strip_lead, "Yeah so tell Bob about it", "tell Bob about it"),
    (reply_forms.strip_lead, "Hmm, now tell Bob", "tell Bob"),
    (reply_forms.strip_lead, "Dude, come visit Bob", "come visit Bob"),
])
def test_openers_known_to_every_module(strip, text: str, rest: str) -> None:
    assert strip(text) == rest


def test_grammar_defects_checks_see_past_new_openers() -> None:
    assert grammar_defects.inverted_question("Whoa, did you paint that?")
    assert grammar_defects.is_shoutout("Yay, shoutout to my coach!")


def test_reply_forms_imperative_after_vocative_lead() -> None:
    assert reply_forms.imperative_to("Dude, come visit Bob in Porto", "Bob")


@pytest.mark.parametrize("text,rest", [("Wow, try yoga!", "try yoga"), ("Haha, seriously, take a break.", "take a break")])
def test_advice_lead(text: str, rest: str) -> None:
    assert advice._strip(text, "Ben") == rest


def test_speech_acts_and_stance_lead() -> None:
    assert speech_acts._LEAD_RE.sub("", "Haha, thanks so much, I will") == "I will"
    assert stance._LEAD_RE.sub("", "Oh my gosh, I love that") == "I love that"


@pytest.mark.parametrize("text", ["My word is final", "Nowhere to go", "Justin called", "Sorry I'm late",
                                  "Okayama is lovely", "Mankind needs water", "Honestly Yours is a book"])
def test_guards_content_first_words_stay(text: str) -> None:
    assert grammar_defects.strip_openers(text) == text
    if not text.startswith("Honestly"):
        assert reply_forms.strip_lead(text) == text
        assert advice._strip(text, "Ben") == text


@pytest.mark.parametrize("word", ["now", "so", "then", "just", "please", "and", "oh", "okay", "ok", "well", "hey",
                                  "alright", "all right", "anyway", "also", "but", "come on", "go on", "c'mon",
                                  "actually", "seriously", "honestly", "wow", "whoa", "omg", "aww", "yay", "ooh",
                                  "ah", "haha", "lol"])
def test_reply_forms_keeps_every_former_lead_word(word: str) -> None:
    assert reply_forms.strip_lead(f"{word}, tell Bob") == "tell Bob"

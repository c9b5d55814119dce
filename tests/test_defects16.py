"""Facts carrying a defect marker (session 16, branch defects16), tested on invented sentences:
laughter and a repeated subject possessive in the facts added after `fact_quality.refine`
(write/chat_forms.unlaugh, write/readability.pronouns in extract_rules' last loop), two requests the
imperative test missed (write/reply_forms.imperative_to), and three bench/facts.py markers narrowed
where the pattern is plainly wrong for every such text."""

from datetime import datetime

import pytest

from arandu_pipelines.write.chat_forms import unlaugh
from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.reply_forms import imperative_to
from arandu_pipelines.write.types import ExtractionContext
from bench.facts import defects_of


def _texts(text: str, previous: list[tuple[str | None, str]] | None = None, speaker: str = "Tomas",
           addressee: str = "Lucia") -> list[str]:
    ctx = ExtractionContext(speaker_name=speaker, occurred_at=datetime(2023, 5, 8), addressee=addressee,
                            previous_turns=previous or [])
    return [f.fact_text for f in extract_offline(text, ctx).facts]


# 1. a speech act's fact ("You're X" -> "S thinks A is X") is made after refine: laughter stayed
@pytest.mark.parametrize("text", [
    "He told the whole class that a real painter trained him. You're a celebrity haha.",
    "Honestly you're a genius lol",
])
def test_speech_act_facts_lose_laughter(text: str) -> None:
    facts = _texts(text)
    assert facts and all("Tomas thinks Lucia is" in f for f in facts)
    assert not any(defects_of(f) for f in facts), facts
    assert not any(w in f.lower() for f in facts for w in ("haha", "lol"))


def test_unlaugh_leaves_other_text_alone() -> None:
    assert unlaugh("Tomas thinks Lucia is famous haha") == "Tomas thinks Lucia is famous"
    assert unlaugh("Lucia is famous lol, truly") == "Lucia is famous, truly"
    for same in ("Tomas visited Lolland and Haarlem", "Tomas thinks Lucia is a celebrity", "Tomas lolls about"):
        assert unlaugh(same) == same


# 2. a question-and-answer fact (write/qa_pairs.py) repeated the speaker's name as a possessive
def test_qa_answer_does_not_repeat_the_subject_possessive() -> None:
    previous = [("Tomas", "My stamps are all over the desk!"),
                ("Lucia", "Whoa, that's a lot of stamps! How do you keep track of all of them?")]
    facts = _texts("Little labeled envelopes and a lot of photos.", previous)
    assert any("keeps track of all of his stamps" in f for f in facts), facts
    assert not any("Tomas's stamps" in f for f in facts), facts


# 3. requests the imperative test missed
@pytest.mark.parametrize("text", [
    "The last puppy? Please don't tell me another one stayed.",  # the speaker's name read as a verb
    "Perfect, I'll ask for the day off tomorrow. Good night, Lucia, and give Biscuit and the puppies a scratch from me.",
])
def test_requests_are_no_facts(text: str) -> None:
    facts = _texts(text)
    assert not any(f.startswith(("Please", "And give", "Give")) for f in facts), facts


@pytest.mark.parametrize(("text", "want"), [
    ("Please don't tell Tomas another one stayed", True),
    ("And give Biscuit and the puppies a scratch from Tomas", True),
    ("Say hi to Marco from Tomas!", False),  # small_talk's `regards` row drops it (and counts it)
    ("Tell Tomas about Lisbon", True),  # unchanged (session 14)
    ("Come visit Tomas in Porto", True),  # two bare verbs (session 14)
    # must not fire: the speaker as the source of something, not a message passed on
    ("Tomas got a lovely card from Lucia", False),
    ("Borrowed the ladder from Marco", False),
    ("Please don't tell Marco about the party", False),  # the object is not the speaker
    ("Give Marco a call sometime", False),
    # a time word or subordinator is no bare verb (the name after it is the subject)
    ("Recently Tomas had a setback", False),
    ("Since Tomas lost Tomas's job at the bakery, things have been tough", False),
    ("Lately Tomas has been networking and it's gotten Tomas some good leads", False),
    ("Recently Lucia got a card from Tomas", False),
    ("Yesterday Marco borrowed a drill from Tomas", False),
])
def test_imperative_to(text: str, want: bool) -> None:
    assert imperative_to(text, "Tomas") is want


def test_statements_with_from_the_speaker_stay() -> None:
    assert _texts("My sister borrowed a book from me last week.") == ["Tomas's sister borrowed a book from Tomas"]


# 4. bench/facts.py markers: false alarms narrowed, real defects still flagged
@pytest.mark.parametrize("text", [
    "Hannah signed up to volunteer at a clinic in Honduras this October",  # a month is a time phrase
    "Ana is busy this Friday",
    "Ana moves out this May",
    "Megan fostered five kittens and three got adopted",  # a passive ends its clause
    "Ana was adopted",
    "Dale always knew people cared about where they come from",  # a stranded preposition
    "Lena's dad sang in a quartet, which Lena had completely forgotten about",
])
def test_markers_do_not_flag_whole_facts(text: str) -> None:
    assert defects_of(text) == []


@pytest.mark.parametrize(("text", "marker"), [
    ("Ana made this painting", "demonstrative"),
    ("This may help Ana with the move", "demonstrative"),
    ("A buddy of Ana's adopted", "truncated_end"),
    ("Ana bought", "truncated_end"),
    ("Caroline has been painting since", "date_remnant"),
    ("Caroline moved here from", "date_remnant"),
    ("Caroline started about ; it is fun", "date_remnant"),
    ("Ana knows what it is about; it was great", "date_remnant"),
])
def test_markers_still_flag_defects(text: str, marker: str) -> None:
    assert marker in defects_of(text)


# 5. an initialism between the subject and its repeat names no other owner (write/readability.py)
@pytest.mark.parametrize(("text", "want"), [
    ("Caroline is having an LGBTQ art show with Caroline's paintings",
     "Caroline is having an LGBTQ art show with her paintings"),
    ("Caroline moved to NYC with Caroline's dog", "Caroline moved to NYC with her dog"),
    # must not change: a name, or a two-letter nickname, may be the owner
    ("Caroline met Ana at Caroline's house", "Caroline met Ana at Caroline's house"),
    ("Caroline met JJ at Caroline's house", "Caroline met JJ at Caroline's house"),
])
def test_initialism_does_not_block_the_pronoun(text: str, want: str) -> None:
    from arandu_pipelines.write.readability import pronouns

    assert pronouns(text, "Caroline") == want


def test_negative_imperative_names_any_speaker() -> None:
    # a name `conj_en` would inflect ("Lucia" -> "Lucias") was read as a second bare verb
    assert imperative_to("Please don't tell Lucia another one stayed", "Lucia")
    assert imperative_to("So don't tell Joel about the party", "Joel")
    assert not imperative_to("Don't tell Marco about the party", "Joel")

"""Broken facts the defect markers did not flag (session 14, branch defects14), tested on invented
sentences: second person after a fronted adverbial (write/second_person.py via extract_rules'
rewriter), imperatives after a discourse word, wishes, echoes of the listener's news
(write/reply_forms.py via fact_quality), and bench/facts.py's new markers."""

from datetime import datetime

import pytest

from arandu_pipelines.write.extract_rules import _Who, extract_offline, rewrite_en
from arandu_pipelines.write.reply_forms import echoes_listener, is_wish, strip_lead
from arandu_pipelines.write.second_person import you_is_subject
from arandu_pipelines.write.types import ExtractionContext
from bench.facts import defects_of


def _texts(text: str, previous: list[tuple[str | None, str]] | None = None) -> list[str]:
    ctx = ExtractionContext(speaker_name="Tomas", occurred_at=datetime(2023, 5, 8), addressee="Lucia",
                            previous_turns=previous or [])
    return [f.fact_text for f in extract_offline(text, ctx).facts]


def _en(text: str) -> str:
    return rewrite_en(text, _Who(speaker="Tomas", addr="Lucia"))


# 1. "you" after a fronted adverbial is the subject: its verb takes the third person singular
@pytest.mark.parametrize(("text", "want"), [
    ("Not long ago you were scared of the pool", "Not long ago Lucia was scared of the pool"),
    ("Back then you have been so busy with the shop", "Back then Lucia has been so busy with the shop"),
    ("Lately you don't sleep much", "Lately Lucia doesn't sleep much"),
    ("Two years ago you weren't even swimming", "Two years ago Lucia wasn't even swimming"),
    ("Now you live in Porto with the twins", "Now Lucia lives in Porto with the twins"),
    ("Honestly you really are a great baker", "Honestly Lucia really is a great baker"),
    ("Last summer you were in Crete", "Last summer Lucia was in Crete"),
])
def test_you_after_an_adverbial_is_conjugated(text: str, want: str) -> None:
    assert _en(text) == want


def test_you_after_an_adverbial_in_a_fact() -> None:
    assert "Now Lucia lives in Porto with the twins" in _texts("Now you live in Porto with the twins!")


# guards: "you" as an object, an inverted subject, or plural keeps the verb after it
@pytest.mark.parametrize(("text", "want"), [
    ("I'll let you have the bike", "Tomas will let Lucia have the bike"),
    ("Did you have fun in Crete", "Did Lucia have fun in Crete"),
    ("Thank you have a great trip", "Thank Lucia have a great trip"),
    ("I made you do the dishes", "Tomas made Lucia do the dishes"),
    ("Last year you both were in Rome", "Last year Lucia both were in Rome"),
    ("I gave you the keys", "Tomas gave Lucia the keys"),
])
def test_you_as_object_or_inverted_keeps_its_verb(text: str, want: str) -> None:
    assert _en(text) == want


def test_you_is_subject_signals() -> None:
    assert you_is_subject("ago", "were")
    assert you_is_subject("summer", "were")  # a subject-only form after any noun
    assert you_is_subject("finally", "got")  # an "-ly" adverbial before the clause
    assert not you_is_subject("summer", "got")  # no signal: left as before
    assert not you_is_subject("let", "have")
    assert not you_is_subject("ago", "both")


# 2. an imperative after a discourse word is a request, not a fact
@pytest.mark.parametrize("text", [
    "Now tell me about Lisbon!",
    "Then give me a call when the boat is back.",
    "Then come visit me in Porto next summer!",
    "Now help me with the move",
    "Please don't tell my mom about another foster fail.",  # a negative imperative (seen at the merge)
])
def test_imperative_after_discourse_word_is_dropped(text: str) -> None:
    assert not [t for t in _texts(text) if t.lower().split()[0] in ("now", "then", "please", "come", "tell", "give", "don't",
                                                                      "show", "help")], _texts(text)


def test_strip_lead() -> None:
    assert strip_lead("Now tell Bob about Lisbon") == "tell Bob about Lisbon"
    assert strip_lead("So, send Bob the pictures") == "send Bob the pictures"
    assert strip_lead("Tomas lives in Porto") == "Tomas lives in Porto"


def test_statements_after_discourse_words_stay() -> None:
    assert any("Porto" in t for t in _texts("Now I live in Porto with my sister."))
    assert any("showed" in t for t in _texts("Then my sister showed me her garden in Porto."))
    assert any("helped" in t for t in _texts("Then my sister helped me with the move to Porto."))
    assert any("visit Tomas" in t for t in _texts("My sister came to visit me in Porto."))


# 3. a wish is not a fact
@pytest.mark.parametrize("text", [
    "Happy early birthday!",
    "Happy Mother's Day to your mom!",
    "Happy 40th, old friend!",
    "Merry Christmas to you and the kids!",
])
def test_wish_is_dropped(text: str) -> None:
    assert not [t for t in _texts(text) if "happy" in t.lower() or "merry" in t.lower()], _texts(text)


@pytest.mark.parametrize(("text", "word"), [
    ("Happy with the new job so far.", "job"),
    ("Happy to be home after the trip to Chile.", "home"),
])
def test_happy_with_a_complement_stays(text: str, word: str) -> None:
    assert any(word in t for t in _texts(text)), _texts(text)


def test_is_wish_needs_the_formula_in_the_source() -> None:
    assert is_wish("Tomas is happy early birthday", "Happy early birthday!")
    assert not is_wish("Tomas is happy with the job", "Happy with the job!")
    assert not is_wish("Tomas is happy early birthday", "I said happy birthday")
    assert is_wish("Good luck to Lucia at the race", None)
    assert not is_wish("Tomas wished Lucia good luck at the race", None)


# 4. a gerund fragment repeating the listener's last turn takes up their news
_PREV = [("Lucia", "I passed thirty people on the bike leg!")]


def test_echo_of_the_listeners_news_is_dropped() -> None:
    text = "Passing thirty people, that's the old bike paying off!"
    assert any("passing thirty people" in t for t in _texts(text)), "base: the fragment is filed as Tomas's act"
    assert not any("passing thirty people" in t for t in _texts(text, _PREV)), _texts(text, _PREV)


def test_echo_naming_a_third_person_is_dropped_too() -> None:
    text = "Passing thirty people on the bike leg in Porto, that's Marco's old bike paying off!"
    assert not any("passing thirty people" in t for t in _texts(text, _PREV)), _texts(text, _PREV)


_PREV_RUN = [("Lucia", "I finished the marathon in under four hours yesterday!")]


@pytest.mark.parametrize(("text", "gone"), [
    ("Finished in under four hours! So proud of you", "finished in under four hours"),
    ("Wow, finishing a marathon in under four hours!", "finishing a marathon"),
])
def test_past_or_interjected_echo_is_dropped(text: str, gone: str) -> None:
    assert not any(gone in t for t in _texts(text, _PREV_RUN)), _texts(text, _PREV_RUN)


def test_own_past_fragment_stays() -> None:
    text = "Finished my own first 10k last Sunday, in Porto"
    assert any("10k" in t for t in _texts(text, _PREV_RUN)), _texts(text, _PREV_RUN)


def test_fragment_answering_the_listeners_question_stays() -> None:
    prev = [("Lucia", "Sounds like a great plan! Need help with anything?")]
    text = "Need help with marketing strategies for the bakery"
    assert any("marketing" in t for t in _texts(text, prev)), _texts(text, prev)
    assert not echoes_listener("Needed help with the bakery", "Tomas", [("Lucia", "Need help with anything?")])


def test_gerund_of_own_news_stays() -> None:
    text = "Passing the citizenship exam last week, finally!"
    assert any("citizenship" in t for t in _texts(text, _PREV)), _texts(text, _PREV)


def test_echoes_listener() -> None:
    assert echoes_listener("Running the whole marathon, wow!", "Tomas", [("Lucia", "I ran the whole marathon")])
    assert not echoes_listener("Running the whole marathon, wow!", "Tomas", [("Tomas", "I ran the whole marathon")])
    assert not echoes_listener("Running the trail, wow!", "Tomas", [("Lucia", "I ran the whole marathon")])
    assert not echoes_listener("I ran the whole marathon", "Tomas", [("Lucia", "I ran the whole marathon")])


# bench/facts.py markers for these classes
@pytest.mark.parametrize(("text", "marker"), [
    ("Not long ago Lucia were scared of the pool", "agreement"),
    ("Lucia have been to Paris twice", "agreement"),
    ("Lucia don't like spicy food", "agreement"),
    ("Now tell Tomas about Lisbon", "imperative"),
    ("Show Tomas the garden", "imperative"),
    ("Then come visit Tomas in Porto", "imperative"),
    ("Tomas is happy early birthday to Lucia", "wish"),
    ("Tomas is good luck with the exam", "wish"),
])
def test_markers_flag(text: str, marker: str) -> None:
    assert marker in defects_of(text)


@pytest.mark.parametrize("text", [
    "Lucia and Tomas were in Rome", "Kids were loud at the park", "Tomas is happy with the new job",
    "Lucia has been to Paris twice", "Tomas told Lucia about Lisbon", "Lucia was scared of the pool",
    "Tomas's sister came to visit Tomas in Porto",
])
def test_markers_leave_good_facts(text: str) -> None:
    assert not {"agreement", "imperative", "wish"} & set(defects_of(text))


# 5. the object of "sent me a photo of ..." is kept; a caption glued to the sentence is cut, not the fact
@pytest.mark.parametrize("text", [
    "My cousin sent me a photo of the church",
    "My cousin just sent me a pic of the church she got married in.",
    "Not long ago my cousin sent me a photo of the church, it looks amazing",
])
def test_photo_object_is_kept(text: str) -> None:
    assert any("sent Tomas a p" in t and "of the church" in t for t in _texts(text)), _texts(text)


def test_caption_glued_to_a_sentence_is_cut() -> None:
    texts = _texts("My cousin sent me a photo of the church [shared a photo: a white church with a steeple]")
    assert "Tomas's cousin sent Tomas a photo of the church" in texts, texts


@pytest.mark.parametrize("text", [
    "[shared a photo: a white church with a steeple]",
    "Look at this [shared a photo: a white church with a steeple]",
])
def test_caption_alone_is_no_fact(text: str) -> None:
    assert not [t for t in _texts(text) if "church" in t], _texts(text)


# 1b. fact_quality's late pass over a "you" left in a fact conjugates a subject's verb too
@pytest.mark.parametrize(("text", "want"), [
    ("Not long ago you were scared of the pool", "Not long ago Lucia was scared of the pool"),
    ("Lately you haven't slept much", "Lately Lucia hasn't slept much"),
    ("Tomas thinks you were right about the boat", "Tomas thinks Lucia was right about the boat"),
])
def test_late_second_person_pass_conjugates(text: str, want: str) -> None:
    from arandu_pipelines.write.fact_quality import _second_person
    from arandu_pipelines.write.types import ExtractedFact

    ctx = ExtractionContext(speaker_name="Tomas", occurred_at=datetime(2023, 5, 8), addressee="Lucia")
    got = _second_person(ExtractedFact("Tomas", text), ctx)
    assert got is not None and got.fact_text == want


@pytest.mark.parametrize(("text", "want"), [
    ("Tomas let you have the bike", "Tomas let Lucia have the bike"),
    ("Tomas gave you the keys", "Tomas gave Lucia the keys"),
    ("Thanks to you, Tomas finished the race", "Thanks to Lucia, Tomas finished the race"),
])
def test_late_second_person_pass_guards(text: str, want: str) -> None:
    from arandu_pipelines.write.fact_quality import _second_person
    from arandu_pipelines.write.types import ExtractedFact

    ctx = ExtractionContext(speaker_name="Tomas", occurred_at=datetime(2023, 5, 8), addressee="Lucia")
    got = _second_person(ExtractedFact("Tomas", text), ctx)
    assert got is not None and got.fact_text == want


def test_a_verbless_echo_of_the_listeners_news_is_no_fact() -> None:
    """Lead's merge fix (session 15): once "his" resolved, "Second in his class, wow!" became the
    fact "Second in Tyler's class"; every word of it is the listener's last turn."""
    prev = [("Lucia", "How is Tyler doing at corpsman school?"),
            ("Tomas", "He scored second in his class on the anatomy exam last week.")]
    ctx = ExtractionContext(speaker_name="Lucia", occurred_at=datetime(2024, 3, 4, 12), addressee="Tomas",
                            previous_turns=prev)
    out = [f.fact_text for f in extract_offline("Second in his class, wow! You must be so proud.", ctx).facts]
    assert not any("class" in f for f in out), out


def test_news_of_the_speaker_with_the_listeners_words_stays() -> None:
    """Guard: the speaker's own news stays even when its words were said by the listener."""
    prev = [("Tomas", "I adopted a rescue dog last week!")]
    ctx = ExtractionContext(speaker_name="Lucia", occurred_at=datetime(2024, 3, 4, 12), addressee="Tomas",
                            previous_turns=prev)
    out = [f.fact_text for f in extract_offline("I adopted a rescue dog too, back in May.", ctx).facts]
    assert any(f.startswith("Lucia adopted a rescue dog") for f in out), out

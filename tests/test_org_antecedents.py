"""Organisation and thing antecedents (write/org_antecedents.py): "they"/"them" for the one
organisation named before it, a sentence-initial "It" for the speaker's one thing of the previous
sentence, and nothing whenever another reading is possible. Invented sentences only (Nadia
speaks, Tom is the other speaker)."""

from __future__ import annotations

from datetime import UTC, datetime

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext


def ctx(prev: list[tuple[str | None, str]] | None = None) -> ExtractionContext:
    return ExtractionContext(speaker_name="Nadia", occurred_at=datetime(2024, 3, 4, 12, tzinfo=UTC),
                             addressee="Tom", previous_turns=prev or [])


def facts(text: str, prev: list[tuple[str | None, str]] | None = None) -> list[str]:
    return [f.fact_text for f in extract_offline(text, ctx(prev)).facts]


def test_they_after_an_organisation_noun_in_the_same_message():
    out = facts("Oh, news from the library. They asked me to start a book club for seniors.")
    assert "The library asked Nadia to start a book club for seniors" in out, out
    out = facts("I volunteer at the animal shelter downtown. They gave me a badge last week.")
    assert any(f.startswith("The animal shelter gave Nadia a badge") for f in out), out


def test_they_for_a_workplace_name_and_the_verb_agrees():
    out = facts("My internship at Quillbridge ended Friday and they want me back next summer.")
    assert any("Quillbridge wants Nadia back next summer" in f for f in out), out
    assert not any(" they " in f for f in out), out


def test_them_as_an_object_and_a_second_they():
    out = facts("I emailed the museum last week and they finally wrote back. I'm meeting them on Friday "
                "about the mural job.")
    assert any("the museum finally wrote back" in f for f in out), out
    assert "Nadia is meeting the museum on Friday about the mural job" in out, out


def test_they_from_the_previous_turn_when_the_message_names_nothing():
    out = facts("Yes! They offered me the night shift.", [("Tom", "Did the clinic ever call you back?")])
    assert any(f.startswith("The clinic offered Nadia the night shift") for f in out), out
    # the previous turn names the clinic AND people: "they" is not the clinic (a plural "they" for
    # the cousins is write/antecedents.py's)
    out = facts("Yes! They offered me the night shift.",
                [("Tom", "Did the clinic or your cousins ever call you back?")])
    assert not any("clinic" in f for f in out), out


def test_another_possible_antecedent_leaves_they_alone():
    reply = "I called the clinic and then my parents. They said to come in Monday."
    out = facts(reply)
    assert not any("The clinic said" in f for f in out), out
    # a name may be a singular "they": not resolved to the cafe
    out = facts("I had lunch with Priya at the cafe. They loved the soup.")
    assert not any("cafe loved" in f for f in out), out
    # two organisations
    out = facts("I applied at the bank and the bakery. They both called me back.")
    assert not any("bank called" in f or "bakery called" in f for f in out), out
    # ... while one alone is resolved
    out = facts("I applied at the bakery on Elm Street. They called me back today.")
    assert any(f.startswith("The bakery called Nadia back") for f in out), out


def test_it_for_the_speakers_thing_of_the_previous_sentence():
    out = facts("We finally bought a used camper. It sleeps four and has a tiny stove.")
    assert any(f.startswith("Nadia's camper sleeps four") for f in out), out
    out = facts("I got a new bike last month. It has ten gears and a basket.")
    assert any(f.startswith("Nadia's bike has ten gears") for f in out), out


def test_it_is_left_alone_when_the_thing_is_not_clearly_the_speakers_one_object():
    # another thing in the sentence (the market): ambiguous
    out = facts("I bought a bike at the market. It has ten gears.")
    assert not any("bike has" in f or "market has" in f for f in out), out
    # not the speaker's (saw a movie); an expletive "It's ... to"
    out = facts("I saw a great movie. It was about a lost dog.")
    assert not any("movie was" in f for f in out), out
    out = facts("I got a new bike last month. It's great to ride to work again.")
    assert not any("bike is great" in f for f in out), out
    # a copula or a verb of experience judges the doing the sentence told, not the thing
    from arandu_pipelines.write.org_antecedents import replacements

    for text in ("Last week I built a new website for customers. It's been a wild ride but I love it.",
                 "I got a temp job to cover rent. It's tough, but worth it.",
                 "We finally bought a camper. It took us months to decide."):
        assert replacements(text, ctx()) == [], text
    # ... while the speaker's one thing is resolved
    out = facts("I built a treehouse for my kids. It has a rope ladder.")
    assert any(f.startswith("Nadia's treehouse has a rope ladder") for f in out), out


def test_the_speakers_are_never_an_organisation():
    # spaCy may tag a speaker's name as ORG; "they" is not Tom
    from arandu_pipelines.write.org_antecedents import replacements

    prev = [("Tom", "Guess what I heard!")]
    text = "Tom told me about the gallery. They open again in May."
    reps = {(r.original, r.text) for r in replacements(text, ctx(prev))}
    assert reps == {("They", "the gallery"), ("open", "opens")}, reps
    # someone who is not a speaker may be the singular "they": left alone
    assert replacements(text.replace("Tom", "Priya"), ctx(prev)) == []


def test_replacement_agrees_contractions_and_negation():
    from arandu_pipelines.write.org_antecedents import replacements

    text = "I applied at a bakery near my place. They're hiring and they don't need experience."
    reps = {(r.original, r.text) for r in replacements(text, ctx())}
    assert ("They're", "the bakery is") in reps, reps
    assert ("they", "the bakery") in reps and ("do", "does") in reps, reps

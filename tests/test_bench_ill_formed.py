"""bench/ill_formed.py (session 17, branch wfbench17): the parse checks behind bench/facts.py's
"ill-formed" figure, on invented sentences. Each check has broken forms that must fire and
well-formed neighbours that must not (the checks are meant to be precise: a clean fact the tagger
misreads must not count). Needs the project's spaCy pipeline; skipped without it."""

from __future__ import annotations

import pytest

from bench.facts import Fact, Gold, Scored, ill_formed_line, summary
from bench.ill_formed import CHECKS, ill_formed, pipeline

NLP = pipeline()
pytestmark = pytest.mark.skipif(NLP is None, reason="no spaCy pipeline installed")


def _checks(text: str) -> list[str]:
    return ill_formed([text], NLP)[0]


BROKEN = {
    "no_finite_verb": [
        "Ingrid's new job at a bakery",
        "Tomasz's first rescue fail",
        "With a charity called Open Doors",
        "Mostly during Bruno's night shifts",
        "Ingrid's cat, which she adopted in March",
    ],
    "glued_verbs": [
        "Bruno is nothing beats a long hike",
        "Ingrid is loves painting",
        "Bruno was the trip was amazing",
        "Bruno is coaching lets Bruno stay fit",
        "Bruno is gardening makes Bruno calm",
    ],
    "comma_splice": [
        "Ingrid adopted a parrot, it talks all day",
        "Bruno sold the boat, Bruno is looking for a smaller one",
        "Ingrid moved to Porto, she says it is lovely",
    ],
    "no_subject": [
        "Is Bruno's fortieth birthday, so Ingrid is baking a cake",
        "Makes Ingrid feel at home",
        "Was Ingrid at the party",
    ],
    "elided_verb": [
        "Bruno did, 3-1 over the Hawks",
        "Ingrid did, but the team lost on Sunday",
        "Bruno does too",
    ],
    "dangling_end": [
        "Ingrid is a retired",
        "Bruno wants to give the dog a safe",
        "Ingrid bought the",
        "Bruno visited Lyon and",
    ],
    "imperative": [
        "Send the photos to Ingrid",
        "Now tell Bruno about Lyon",
        "Write Ingrid a letter from Bruno too",
        "Bruno is fine to drive, don't worry",
        "Ingrid will email it but don't read it yet",
    ],
    "agreement": [
        "Ingrid hate mornings",
        "Bruno were scared of the storm",
        "The kids loves the beach",
        "Ingrid and Bruno has a dog",
        "Sometimes Bruno just sits there and stare",
        "Bruno reads books and write poems",
    ],
    "reflexive_mismatch": [
        "Bruno is restoring the boat themselves",
        "Ingrid and Bruno painted the house himself",
    ],
}

WELL_FORMED = {
    "no_finite_verb": [
        "Ingrid works at a bakery",
        "Bruno scrambled eggs",  # the tagger calls "scrambled" an adjective: a name opening is left alone
        "A friend of Ingrid's adopted in 2021",  # "adopted/VBN" with a subject is a past tense
        "Ingrid's kids are excited about the summer",
        "Ingrid's friend Bruno, who lives in Lyon, is visiting",
    ],
    "glued_verbs": [
        "Ingrid thinks the trip was amazing",
        "Bruno is sure nothing beats a long hike",
        "Ingrid's point is nothing beats family",  # a noun's "is" + clause: ordinary English
        "Bruno is painting the fence",
        "Walking helps Bruno relax",
        "Ingrid has news: Bruno graduates in June",  # a colon's news is no glued verb
    ],
    "comma_splice": [
        "Ingrid adopted a parrot, and it talks all day",
        "When Bruno moved, Ingrid was sad",
        "Ingrid is tired, Bruno says",
        "Bruno got a good rating, the highest one",
        "Ingrid thinks, honestly, the trip was great",
    ],
    "no_subject": [
        "Bruno is turning forty",
        "Now Ingrid loves the beach",
        "Ingrid was at the party",
        "There is a lake near Bruno's house",
    ],
    "elided_verb": [
        "Bruno did it",
        "Ingrid did great at the race",
        "Bruno does yoga on Sundays",
        "Ingrid did not like the film",
    ],
    "dangling_end": [
        "Ingrid is a retired nurse",
        "Bruno swims like a pro",
        "Ingrid cried a little",
        "Bruno hopes for the best",
        "Ingrid wants to help others do the same",
        "Bruno loves that",
    ],
    "imperative": [
        "Ingrid sends Bruno the photos",
        "Bruno told Ingrid about Lyon",
        "Now Ingrid writes letters",
        "Ingrid and Bruno eat fish but don't eat meat",
        "Bruno doesn't eat meat",
        "Ingrid told Bruno not to worry",
    ],
    "agreement": [
        "Ingrid loves painting",
        "Ingrid and Bruno were scared",
        "The kids love the beach",
        "A couple of scouts have started showing up",
        "Ingrid swam four hundred meters",  # the tagger's "swam/VBP" is a past tense
        "Bruno likes to sing and dance",
        "Ingrid uses a whiteboard to stay on track, plan goals and track wins",
        "Bruno has the skills, passion, and drive",
        'Ingrid wants a new title, "Fox and the Long Night" instead',
    ],
    "reflexive_mismatch": [
        "Bruno is restoring the boat himself",
        "Ingrid and Bruno painted the house themselves",
        "Ingrid hurt herself",
    ],
}


@pytest.mark.parametrize(("check", "text"), [(c, t) for c, ts in BROKEN.items() for t in ts])
def test_broken_forms_fire(check: str, text: str) -> None:
    assert check in _checks(text), (text, _checks(text))


@pytest.mark.parametrize(("check", "text"), [(c, t) for c, ts in WELL_FORMED.items() for t in ts])
def test_well_formed_neighbours_do_not_fire(check: str, text: str) -> None:
    assert check not in _checks(text), (text, _checks(text))


def test_plain_statements_are_not_ill_formed() -> None:
    for text in ("Ingrid works at a bakery in Lyon", "Bruno's sister Mara is a nurse",
                 "Ingrid and Bruno got married in June", "Bruno is planning a trip to Porto with Ingrid",
                 "Ingrid has been learning the cello since 2019"):
        assert _checks(text) == [], text


def test_every_check_has_cases() -> None:
    assert set(BROKEN) == set(CHECKS) == set(WELL_FORMED)


def test_summary_adds_the_figure_and_keeps_the_others() -> None:
    facts = [Fact("D1:1", "Ingrid works at a bakery"), Fact("D1:1", "Ingrid's new job at a bakery"),
             Fact("D1:2", "Bruno does too"), Fact("D1:2", "Bruno loves Lyon")]
    s = Scored("x", [Gold("D1:1", "Ingrid works at a bakery")], facts, [True], [True, False, False, False])
    plain = summary(s)
    assert "ill_formed" not in plain
    ill = ill_formed([f.text for f in facts], NLP)
    sm = summary(s, ill)
    assert {k: sm[k] for k in plain} == plain
    assert sm["ill_formed"] == 0.5
    assert sm["ill_formed_checks"] == {"no_finite_verb": 0.25, "elided_verb": 0.25}
    assert [f["text"] for f in sm["ill_formed_facts"]] == ["Ingrid's new job at a bakery", "Bruno does too"]
    assert ill_formed_line(sm) == "ill-formed 0.500: no_finite_verb 0.250, elided_verb 0.250"
    assert ill_formed_line({"ill_formed": None}) == "ill-formed n/a (no spaCy pipeline)"

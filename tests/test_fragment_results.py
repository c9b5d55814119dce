"""Fragment answers that `qa_pairs` skipped before session 16 (branch frag16): a result ("How did
the race go?" + "Third place!"), a comparison sentence after it ("Under my goal!"), a bare "yes"
followed by the names asked for ("Do they have names?" + "Of course! Mochi and Bean."), and a place
answer to "Where did you end up going?" / "Where are you going to move?". Invented dialogues
(write/qa_results.py, write/qa_pairs.py). The positive cases fail on the base (49b0c8b); the
guards (reactions, judgements, a "no", a third person's race) give nothing on both."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.qa_results import and_units, is_result
from arandu_pipelines.write.types import ExtractionContext

WHEN = datetime(2024, 3, 9, 18, 0, tzinfo=UTC)


def facts(answer: str, *previous: tuple[str, str], speaker: str = "Ines") -> list[str]:
    ctx = ExtractionContext(speaker, WHEN, addressee="Omar", previous_turns=list(previous))
    return [f.fact_text for f in extract_offline(answer, ctx).facts]


@pytest.mark.parametrize(("previous", "answer", "expected"), [
    # a time: "finished <the thing> in <time>", the units joined by "and"
    ([("Omar", "Look at that medal! How did the triathlon go?")],
     "Three hours, forty minutes! Ahead of my sister.",
     "Ines finished the triathlon in three hours and forty minutes, ahead of her sister"),
    # a place in a ranking, the comparison after it
    ([("Omar", "How did the chess tournament go?")],
     "Second place! Out of sixty players.", "Ines finished the chess tournament in second place, out of sixty players"),
    # "it" is the one thing the answerer's previous turn named
    ([("Ines", "I ran the city marathon this morning!"), ("Omar", "Whoa! How did it go?")],
     "Just under two hours. My arms are jelly.", "Ines finished the city marathon in just under two hours"),
    # "it" with no antecedent: the thing is left out
    ([("Omar", "How did it go?")], "5th overall!", "Ines finished in 5th place overall"),
    # "your N" is the answerer's: "the N"
    ([("Omar", "How did your first 10K go?")], "52 minutes!", "Ines finished the first 10K in 52 minutes"),
    # the comparison also goes with a time that fills a "what" slot
    ([("Omar", "What was your time in the relay?")], "Eleven minutes, 20 seconds. Below my target!",
     "Ines's time in the relay is eleven minutes and 20 seconds, below Ines's target"),
    # "end up going": the place goes after the gerund, with "to"
    ([("Omar", "Where did you end up going?")], "Crete, for ten days. Pure bliss.",
     "Ines ended up going to Crete, for ten days"),
    ([("Omar", "Where are you going to move?")], "Ghent, probably.", "Ines is going to move to Ghent"),
    # a bare yes, then the names asked for; the apposition after them is cut
    ([("Ines", "We took in two rabbits on Sunday."), ("Omar", "Aww. Do they have names?")],
     "Of course! Mochi and Bean, my fluffy menaces. They hate carrots.", "Ines's rabbits are named Mochi and Bean"),
    ([("Ines", "I adopted a puppy."), ("Omar", "Does it have a name yet?")],
     "Yes! Waffles.", "Ines's puppy is named Waffles"),
    ([("Omar", "Do you have any pets?")], "Yep! A grumpy hamster.", "Ines has a grumpy hamster"),
    # "you two": the one person the answerer paired themselves with (their turn, or the asker's words)
    ([("Ines", "My uncle and I have a card night every Monday."), ("Omar", "Fun! What do you two play?")],
     "Canasta mostly, and he always cheats.", "Ines's uncle and Ines play canasta mostly"),
    ([("Omar", "You and Dario look so tanned! Where did you two go?")], "Sardinia!", "Dario and Ines went to Sardinia"),
])
def test_composed(previous: list[tuple[str, str]], answer: str, expected: str) -> None:
    assert expected.casefold() in [f.casefold() for f in facts(answer, *previous)]


@pytest.mark.parametrize(("previous", "answer"), [
    ([("Omar", "How did the race go?")], "Wow, amazing!"),
    ([("Omar", "How did the race go?")], "Great, honestly!"),
    ([("Omar", "How did it go?")], "Not really my day."),
    ([("Omar", "How did it go?")], "Same here, rough."),
    ([("Omar", "How did the date go?")], "Third time lucky, haha."),
    ([("Omar", "How did Karim's race go?")], "Second place!"),  # a third person's race
    ([("Omar", "How was the flight?")], "Nine hours!"),  # "be", not "go": no "finished"
    ([("Ines", "We got two kittens."), ("Omar", "Do they have names?")], "Not yet!"),
    ([("Ines", "We got two kittens."), ("Omar", "Do they have names?")], "Yes! We argue about it daily."),
    ([("Ines", "We got two kittens."), ("Omar", "Do they have names?")], "Yes! Two silly ones."),
    ([("Omar", "Are you excited?")], "Yes! So excited."),
    # "you two" with no one pair, three people, or "how"
    ([("Omar", "What do you two play?")], "Canasta mostly."),
    ([("Ines", "My uncle, my aunt and I have a card night."), ("Omar", "What do you two play?")], "Canasta."),
    ([("Ines", "My uncle and I met up."), ("Omar", "How did you two get there?")], "Night bus."),
])
def test_nothing_composed(previous: list[tuple[str, str]], answer: str) -> None:
    got = facts(answer, *previous)
    assert not any(w in f for f in got for w in ("finished", "named", "play", "got there", "Ines has")), got


@pytest.mark.parametrize(("text", "expected"), [
    ("4 hours, 12 minutes", True), ("one hour and thirty-eight minutes", True), ("2:09:45", True),
    ("Third place", True), ("12th", True), ("So fun", False), ("a few hours of fun", False), ("Third time", False),
])
def test_is_result(text: str, expected: bool) -> None:
    assert is_result(text) is expected


def test_and_units() -> None:
    assert and_units("Ines finished in 4 hours, 12 minutes") == "Ines finished in 4 hours and 12 minutes"

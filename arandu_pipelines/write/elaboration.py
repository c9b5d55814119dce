"""Elaborations: a message's later free-text fact that only comments on what it already said.

A chat turn often states something and then reacts to it: "I went to a pride parade. It showed
me how much my community has grown, it was amazing." The rules keep both sentences as facts
("Caroline went to an LGBTQ+ pride parade", "It showed Caroline how much Caroline's community
has grown"). The second one opens with no subject of its own: a bare pronoun ("It ...", "That
made ..."), a subjectless fragment ("Pretty proud of ...", "Makes Caroline feel connected") or a
gerund evaluating an experience ("Seeing the kids' faces ... was the best"). What it points at
is the message's earlier fact, which already carries the knowledge; a careful person writes the
event down, not the reaction.

`drop(facts, free)` removes a free-text fact of one of the `KINDS` below. A `fragment` is dropped
only when ANOTHER fact of the same message precedes it: as a message's first fact its missing
subject is the speaker and it is often the turn's only knowledge ("Reminds Jon how much Jon loves
performing"). A `pronoun` or `gerund` fact is dropped wherever it stands: its subject is an
unresolved "it" or an evaluation of an experience, never a person; the causatives that name what
an experience did to the person ("It made S even more determined to adopt", "It taught S ...")
are not of the kind and stay, as write/drop_repair.py keeps them.

| kind      | a free-text fact opening with ...                                                   |
|-----------|-------------------------------------------------------------------------------------|
| pronoun   | "It/This/That" + a verb ("It showed S ...", "It inspires S ...", "That is ..."), or |
|           | "Stuff/Things/Moments like this/that"; "This necklace is ..." names its thing and   |
|           | stays, and so does a causative ("It made S reflect on ...", "It taught S ..."):     |
|           | what an experience did to the person is what annotators write down                  |
| fragment  | a verb or degree word with no subject before it ("Makes ...", "Reminds ...",        |
|           | "Pretty proud of ...", "Almost as silly as ...")                                    |
| gerund    | a gerund of perceiving or being with someone ("Seeing", "Being", "Having" ...) as   |
|           | subject and nothing after it but an evaluation ("Seeing X was the best", "Being     |
|           | around people who back S up is beyond words"); an activity as subject stays:        |
|           | "Dancing is where Jon is most alive" is a fact about Jon                            |

Measured on the dev pair (bench/facts.py, database mode, docs/facts.md "Elaborations"). The
patterns are English word classes (pronouns, -s verbs, -ing forms), not phrases of any
conversation; Portuguese facts never open with these words, so the rule leaves them alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from arandu_pipelines.write.types import ExtractedFact

# verbs that follow a demonstrative subject ("That made me ...", "This is ...")
_DEMONSTRATIVE_VERBS = (r"is|was|'s|’s|has|had|made|makes|gave|gives|got|gets|showed|shows|taught|teaches|reminds|"
                        r"reminded|helps|helped|inspires|inspired|means|meant|keeps|kept|brings|brought|felt|feels")
# a verb's third-person form or a degree word as a fact's first word: the subject is missing
_FRAGMENT_WORDS = (r"makes|reminds|gives|helps|keeps|brings|shows|means|feels|inspires|motivates|pretty|almost|"
                   r"so|kinda|really|totally|definitely|such")


@dataclass(frozen=True)
class Kind:
    """One kind of elaboration: its name (the drop reason) and the pattern over the fact's text."""

    name: str
    pattern: re.Pattern[str]
    anywhere: bool  # False: only when another fact of the message precedes it


KINDS: tuple[Kind, ...] = (
    Kind("pronoun", re.compile(
        r"^(?:It(?:['’]s)?|This|That)\s+(?!(?:has\s+)?(?:made|makes|taught|teaches)\b)"
        r"(?:(?:also|really|just|even|all|still|totally|definitely)\s+)?(?:" + _DEMONSTRATIVE_VERBS + r")\b"
        r"|^It\s+(?:(?:also|really|just|even|all|still|totally|definitely)\s+)?(?!makes\b)[a-z]+s\b"
        r"|^(?:Stuff|Things|Moments)\s+like\s+(?:this|that)\b"), anywhere=True),
    Kind("fragment", re.compile(r"^(?:" + _FRAGMENT_WORDS + r")\b", re.IGNORECASE), anywhere=False),
    Kind("gerund", re.compile(
        r"^(?:Seeing|Watching|Hearing|Being|Having|Talking|Knowing|Showing|Getting)\s+[^,;]*?\s(?:was|is|has\s+been)"
        r"\s+(?:(?:so|really|just|truly|absolutely)\s+)*(?:the\s+best(?:\s+thing\s+ever)?|beyond\s+words|awesome|amazing"
        r"|great|incredible|priceless|everything)[.!]*$"), anywhere=True),
)


def kind_of(text: str, after_another: bool = True) -> str | None:
    """The name of the first `KINDS` row the fact's text opens with, or None; `after_another`:
    whether another fact of the message precedes it (else only `anywhere` kinds apply)."""
    stripped = text.strip()
    return next((k.name for k in KINDS if (k.anywhere or after_another) and k.pattern.match(stripped)), None)


def drop(facts: list[ExtractedFact], free: Callable[[ExtractedFact], bool]
         ) -> tuple[list[ExtractedFact], list[tuple[str, ExtractedFact]]]:
    """The message's facts without its free-text elaborations, and the dropped ones with their
    kind (for the refine trace and bench/fact_drops.py's audit). A fragment after a dropped
    elaboration continues that one's unresolved subject ("It helps Jon keep track of ideas.
    Gives Jon a visual of Jon's progress"), so a dropped fact counts as preceding it."""
    kept: list[ExtractedFact] = []
    dropped: list[tuple[str, ExtractedFact]] = []
    for f in facts:
        kind = kind_of(f.fact_text, after_another=bool(kept or dropped)) if free(f) else None
        if kind is None:
            kept.append(f)
        else:
            dropped.append((kind, f))
    return kept, dropped

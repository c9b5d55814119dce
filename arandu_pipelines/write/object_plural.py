"""What an object "them" is when it is things: the one plural thing the message said just before.

write/object_them.py names an object "them" that is people ("help them learn" -> "help Jon's
students learn"); a "them" for things stayed: "I bought new winter tires. I put them on myself"
gives "Nadia put them on herself". write/object_it.py reads the message for an object "it" and
calls this module for the candidates of a "them" stretch, with the same care: one candidate or
nothing, the same idiom and judgement verbs ("love them" stays). A candidate is a plural common
noun phrase ("new winter tires", "my old records", "three jars of jam" is "three jars"); people,
pets and names in the stretch ("my kids", "the kittens", "Pepper and Basil") compete and are never
named (a "them" for people is object_them.py's), so is "our/his/their X" (whose is another
module's question), and so is an earlier "they/them" before the thing ("They ate them": which is
which). Quantity words are dropped and the phrase made definite: "so many lines" -> "the lines",
"some cookies" -> "the cookies", "my records" -> "<speaker>'s records".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arandu_pipelines.write.antecedents import _VAGUE
from arandu_pipelines.write.object_people import _PETS
from arandu_pipelines.write.org_antecedents import _PERSON_NOUNS, _TIME_NOUNS

_QUANTITY = frozenset({"so", "many", "much", "few", "several", "lots", "lot", "of", "all", "both", "some", "these",
                       "those", "the", "a", "any", "more", "most", "too", "such", "plenty", "bunch", "couple"})
_OWN_DETS = frozenset({"my", "your"})
_OTHER_DETS = frozenset({"our", "his", "her", "their", "its", "no", "every", "each", "which", "what", "whose"})
_NUMERIC = frozenset({"DATE", "TIME", "MONEY", "QUANTITY", "PERCENT", "CARDINAL"})
COMPETES: tuple[list[Any], bool] = ([], False)  # a plural that is never named: people, pets, "our X"


def _singular(low: str) -> str:
    return low[:-3] + "y" if low.endswith("ies") else low.removesuffix("s")


def plural_thing(chunk: Any) -> tuple[list[Any], bool] | None:
    """(words, usable) of a plural noun phrase "them" may stand for; COMPETES for people, pets and
    names; None for no plural at all (or a time: "three weeks")."""
    root = chunk.root
    if root.tag_ == "NNPS" or (root.tag_ == "NNP" and any(c.dep_ == "conj" for c in root.children)):
        return COMPETES  # "Pepper and Basil"
    if root.tag_ != "NNS":
        return None
    low = root.lower_
    if low in _TIME_NOUNS or _singular(low) in _TIME_NOUNS or root.ent_type_ in _NUMERIC - {"CARDINAL"}:
        return None
    if low in _PERSON_NOUNS or _singular(low) in _PERSON_NOUNS or _singular(low) in _PETS or low in _VAGUE:
        return COMPETES
    words = [t for t in chunk if not t.is_punct and not t.is_space]
    first = words[0].lower_ if words else ""
    if first in _OTHER_DETS or root.dep_ == "pobj" and root.head.head.pos_ in ("NOUN", "PROPN", "PRON"):
        return COMPETES  # "our tires"; "a bag of apples", "all of them": part of another phrase
    return words, root.dep_ in ("dobj", "nsubj", "nsubjpass", "conj", "attr", "appos")


def stretch(tokens: list[Any], left_out: Callable[[Any], bool]) -> list[Any]:
    """The plural candidates of a stretch (`left_out`: the pronoun's own verb's arguments, a relative
    clause's nouns); a "they/them" before the first one makes the stretch ambiguous."""
    chunks = {c.root.i: c for c in tokens[0].doc.noun_chunks} if tokens else {}
    seen: list[Any] = []
    early = False
    for t in tokens:
        if t.lower_ in ("they", "them") and t.pos_ == "PRON" and not seen:
            early = True
        elif t.i in chunks and not left_out(t) and (found := plural_thing(chunks[t.i])) is not None:
            seen.append(found)
    return seen + [COMPETES] if seen and early else seen


def render(words: list[Any], owner: str, listener: str, join: Callable[[list[Any]], list[str]]) -> str | None:
    """"the new tires", "Nadia's records", "the three jars": definite, quantity words dropped;
    `join`: the words' texts with a possessive kept on its noun ("grandma's")."""
    first = words[0].lower_
    if first in _OWN_DETS:
        who = owner if first == "my" else listener
        rest = " ".join(join(words[1:]))
        return f"{who}'s {rest}" if who and rest else None
    i = 0
    while i < len(words) - 1 and (words[i].lower_ in _QUANTITY or words[i].pos_ == "ADV"):
        i += 1
    rest = " ".join(join(words[i:]))
    return f"the {rest}" if rest else None

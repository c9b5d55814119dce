"""A person introduced by an indefinite noun and a name is that name as the subject (session 18,
branch miss18).

Chat introduces someone new as "an old fellow named Earl has been carving for sixty years" or "One
fellow, Arthur, is 91 and served in Korea": the subject is an indefinite noun phrase ("an old
fellow"), which the rules read as nobody ("a man", "one fellow" are no one's: the fact is
talk), so the news about the named person gave no fact, or the whole sentence was dropped by
`subject_first` when the form sat after ", and". The name is what a careful person writes down:

| said                                                              | the rules read                 |
|-------------------------------------------------------------------|--------------------------------|
| "A woman named Ruth has been playing for fifty years."            | "Ruth has been playing ..."     |
| "It's mostly old men, and a woman named Ruth has been playing ..." | "..., and Ruth has been playing ..." |
| "One fellow, Arthur, is 91 and served in Korea."                  | "Arthur is 91 and served ..."   |
| "A coworker of mine named Priya got promoted."                    | "My coworker Priya got promoted." |
| "The fifth one, Moose, has a heart murmur." (session 18, polish18)| "Moose has a heart murmur."     |

Only where the noun phrase is the subject: at the start of the sentence (after an optional "and /
so / but / also") or after ", and / but / so", with the name right before a lower-case word (the
verb). The noun is a word for a person or an animal (kin, role, occupation, pet, or an anyone-noun
such as "guy", "fellow"; a relation noun such as "coworker", "cousin" keeps the relation as the
speaker's, "my coworker Priya", as people_forms reads "A coworker dragged me"), so "a place called Cedar Table" (a thing) and "my sister named ..." (not
indefinite) stay as they are; an object ("I met a guy named Sam") is not touched. Regular
expressions only; no parse.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["gate", "rewrite_sentence"]

# anyone-nouns the kin / role / pet tables do not hold
_ANYONE = frozenset({"fellow", "gentleman", "chap", "dude", "kid", "person", "member", "volunteer", "regular",
                     "customer", "neighbor", "neighbour", "coworker", "co-worker", "colleague", "friend", "buddy",
                     "guy", "man", "woman", "lady", "girl", "boy", "teenager", "veteran", "retiree", "stranger"})

_NAME = r"(?P<name>[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)"
_MODS = r"(?P<mods>(?:[a-z][a-z'’-]*\s+){0,3}?)"
# where a subject noun phrase starts: the sentence start (after a linking word) or ", and/but/so"
_AT = r"(?P<at>^\s*(?:(?:[Aa]nd|[Ss]o|[Bb]ut|[Aa]lso|[Pp]lus|[Tt]hen|[Aa]nd\s+then)\s+)?|,\s+(?:and|but|so)\s+)"
# words that show the name is no subject before its verb: "A friend called Sam yesterday" (a verb
# "called"), "A friend, Sam, and I went" (a list)
_NOT_VERB = (r"(?:and|or|yesterday|today|tonight|last|this|next|on|at|in|to|about|back|again|for|from|with|"
             r"up|over|out|earlier|twice|once)")
# "a/an/one/this <mods> <noun> named/called <Name> <verb>"
_NAMED_RE = re.compile(_AT + r"(?P<det>[Aa]n?|[Oo]ne|[Tt]his)\s+" + _MODS + r"(?P<noun>[a-z][a-z-]*)"
                       r"(?:\s+of\s+(?:mine|ours))?\s+(?:named|called)\s+" + _NAME + r"(?=\s+[a-z])(?!\s+" + _NOT_VERB + r"\b)")
# "One/A/This <mods> <noun>, <Name>, <verb>" (and "The <mods> one, <Name>, <verb>"): the name in apposition
_APPOSED_RE = re.compile(_AT + r"(?P<det>[Aa]n?|[Oo]ne|[Tt]his|[Tt]he)\s+" + _MODS + r"(?P<noun>[a-z][a-z-]*)"
                         r",\s+" + _NAME + r",\s+(?=[a-z])(?!" + _NOT_VERB + r"\b)")
_GATE_RE = re.compile(r"\b(?:named|called)\s+[A-Z]|\b(?:[Oo]ne|[Aa]n?|[Tt]his|[Tt]he)\s+(?:[a-z'’-]+\s+){0,3}[a-z-]+,\s+[A-Z][a-z]+,")


@lru_cache(maxsize=1)
def _nouns() -> frozenset[str]:
    """Words for one person or animal (imported late: person_antecedents imports the forms)."""
    from arandu_pipelines.write.person_antecedents import ANIMATE_NOUNS

    return ANIMATE_NOUNS | _ANYONE


# a relation the speaker has: "a coworker (of mine) named Priya" is "my coworker Priya" (the relation
# is news too); an anyone-noun ("a woman", "one fellow") or a pet says no relation: the name alone
_RELATION = frozenset({"coworker", "co-worker", "colleague", "neighbor", "neighbour", "classmate", "teammate",
                       "roommate", "friend", "buddy", "pal", "boss", "manager", "mentor", "coach", "teacher",
                       "cousin", "aunt", "uncle", "niece", "nephew", "student", "client", "patient", "tutor",
                       "trainer", "therapist", "doctor", "vet", "landlord", "landlady", "tenant"})


def gate(text: str) -> bool:
    """Cheap test whether `rewrite_sentence` may change a sentence of `text`."""
    return _GATE_RE.search(text) is not None


def _person(noun: str, mods: str, det: str = "a") -> bool:
    """The noun is a person / animal word and no modifier is a name or a possessive. After "the"
    only "one" ("The fifth one, Moose, has a heart murmur", session 18): one of a set the chat
    counted, whatever it is, its name is the subject; "The vet, Dr. Lee, ..." and other "the"
    nouns are left to the rules as before."""
    if det.lower() == "the":
        return noun == "one" and not re.search(r"['’]s?\s", mods)
    return noun in _nouns() and not re.search(r"['’]s?\s", mods)


def rewrite_sentence(s: str) -> str:
    """`s` with each introduced subject replaced by its name (`s` itself when none)."""
    out = s
    for rx in (_NAMED_RE, _APPOSED_RE):
        m = rx.search(out)
        while m is not None:
            if _person(m["noun"], m["mods"] or "", m["det"]):
                at = m["at"]
                name = m["name"]
                said = name
                if m["noun"] in _RELATION:
                    said = f"{'My' if not at.strip() else 'my'} {m['mods'] or ''}{m['noun']} {name}"
                out = out[:m.start()] + at + said + " " + out[m.end():].lstrip()  # "And " / ", and " kept
                m = rx.search(out, m.start() + len(at) + len(said))
            else:
                m = rx.search(out, m.end())
    return out if out != s else s

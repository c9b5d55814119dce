"""A person's name with a contracted "is" / "has" opens a clause (session 18, branch miss18).

"Nora's great, she smiled for the first time last Tuesday", "Maya's doing great, but ... she
turned sixteen": chat contracts "is" onto a name as onto a pronoun. The rules (and spaCy's small
model) read "<Name>'s" as a possessive, so the sentence had no subject: nothing came out, and the
"she" after it had no antecedent. Written out ("Nora is great, she smiled ..."), the rules read the
name as the subject, the comma splice splits, and "she" is Nora.

`rewrite_sentence` writes "<Name> is" / "<Name> has" at the start of a sentence (after an optional
"and / so / but / oh / yes") when the word after "'s" can only follow a verb:

| after "'s"                                              | becomes                 |
|---------------------------------------------------------|-------------------------|
| doing, going, getting, gonna, still, already, finally,  | "<Name> is ..."         |
| just, also, always, never, not, so, really, very, ...   |                         |
| been, got                                               | "<Name> has ..."        |
| great / good / fine / well / home / back ... then a     | "<Name> is ..."         |
| comma, a full stop, "!" or "and / but / too / now"      |                         |

A short state before ", but" ("Maya's doing great, but my new worry is ...") is left: the rules keep
the clause after "but", the news; written out, the state would join it in one fact.
"Nora's great aunt", "Maya's good friend", "Nora's back hurts" (an adjective or "back" before a
noun) and "Nora's bike" stay possessives. The name must be a person's: NER typed it PERSON, the
session named it, or the first-name table lists it ("Store's going good", "Life's been busy" are
not names). Regular expressions only; no parse.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["gate", "rewrite_sentence"]

_LEAD = r"(?P<lead>\s*(?:(?:[Aa]nd|[Ss]o|[Bb]ut|[Oo]h|[Yy]es|[Yy]eah|[Ww]ell)\s*,?\s+)?)"
_VERBAL = (r"doing|going|getting|gonna|still|already|finally|just|also|always|never|not|so|really|very|super|"
           r"totally|definitely|officially|feeling|loving|starting|back\s+(?:home|at|to|in|on)")
_HAS = r"been|got"
_STATE = (r"great|good|fine|okay|ok|well|amazing|awesome|healthy|happy|busy|excited|thriving|home|back|"
          r"better|alright|all\s+right|perfect|wonderful|fantastic|safe|ready")
_RX = re.compile(
    r"^" + _LEAD + r"(?P<name>[A-Z][a-z]+)['’]s\s+(?=(?P<verbal>(?:" + _VERBAL + r")\b)|(?P<has>(?:" + _HAS
    + r")\b)|(?P<state>(?:" + _STATE + r")(?=\s*[,.!;]|\s*$|\s+(?:and|but|too|now|though|again)\b)))")
# a short state clause before ", but": the rules already keep the clause after "but" as the news
_PREFACE_RE = re.compile(r"[^,.!?]{0,24},\s+but\b")
_GATE_RE = re.compile(r"\b[A-Z][a-z]+['’]s\s+(?:" + _VERBAL + "|" + _HAS + "|" + _STATE + r")\b")
# capitalised words that are no one: pronouns, question words, things said at a sentence start
_NOT_NAMES = frozenset({"it", "that", "what", "he", "she", "there", "here", "everything", "everyone", "everybody",
                        "nobody", "who", "where", "how", "life", "work", "this", "today", "tomorrow", "now",
                        "let", "mom", "dad", "grandma", "grandpa"})


def gate(text: str) -> bool:
    """Cheap test whether `rewrite_sentence` may change a sentence of `text`."""
    return _GATE_RE.search(text) is not None


def _person(name: str, ctx: Any) -> bool:
    """NER typed it a person, the session named it a person / pet, or the first-name table lists it."""
    low = name.casefold()
    if low in _NOT_NAMES:
        return False
    ner = getattr(ctx, "ner", None) or {}
    if ner.get(low) == "PERSON":
        return True
    for n in getattr(ctx, "named_before", None) or []:
        if str(getattr(n, "name", "")).casefold() == low:
            return True
    from arandu_pipelines.write import name_gender

    return name_gender.listed(low)


def rewrite_sentence(s: str, ctx: Any = None) -> str:
    """`s` with a sentence-opening "<Name>'s" written "<Name> is" / "<Name> has" (`s` itself when none)."""
    m = _RX.match(s)
    if m is None or not _person(m["name"], ctx):
        return s
    if _PREFACE_RE.match(s[m.end():]):
        return s  # "Maya's doing great, but my worry is ...": a how-are-they preface, the news follows "but"
    verb = "has" if m["has"] else "is"
    return f"{m['lead']}{m['name']} {verb} {s[m.end():]}"

"""Who "them" is: an object pronoun for people, named from the message or the previous turn.

The restating rules rewrite the speaker's sentence subject first and resolve "I/my/you", but an
object "them" stays: "It's awesome to help them learn" -> "Jon finds it awesome to help them
learn", "I want 'em to feel like they're in a cool oasis" -> "Gina wants them to feel ...". Read
alone (get_all(), the "Known facts" section) the fact does not say who. The conversation usually
does, a sentence earlier: "Seeing my students succeed motivates me", "Making my spot inviting for
my customers is key", "the young people were so strong".

Rule (English, regex only, no parse), for a free-text or event fact that opens with its subject:

- "them" is the object of a verb that takes a person (`_PERSON_VERBS`: help, support, guide,
  teach, want ... to, let, tell, encourage ...): "I framed them" or "watered them" (things) are
  left alone;
- its antecedent is the LAST plural noun phrase naming people (`_PEOPLE_PLURAL`: students,
  customers, kids, young people, friends, ...; or a noun in "-ists"/"-ians": artists, musicians) with a determiner ("my/your/the/these/those"), in the
  message before the pronoun (earlier sentences and the pronoun's own sentence up to it), else
  in the previous turn; a phrase with "our" is left alone (who "we" are is write/we_group.py's);
- the phrase is put in the speaker's mouth: "my students" -> "Jon's students", "your customers"
  (the other speaker's words to Gina) -> "Gina's customers", "the young people" as it is;
- no such phrase: the fact is left as it is (the message text, which stays searchable, has it).

Runs in `extract_offline` after speech acts and the "we" group, on the whole message, so a
pronoun in the second window still sees the first window's sentences.
"""

from __future__ import annotations

import re

from arandu_pipelines.write import lexicon as L
from arandu_pipelines.write.types import ExtractedFact

_PEOPLE_PLURAL = sorted({*(w + "s" for w in L.REL_TERMS_EN if not w.endswith("s")),
                         "kids", "children", "friends", "parents", "people", "folks", "guys", "students", "dancers",
                         "members", "customers", "clients", "artists", "teens", "youngsters", "patients",
                         "players", "fans", "readers", "followers", "neighbors", "neighbours", "colleagues",
                         "coworkers", "co-workers", "employees", "volunteers", "mentees", "pupils", "trainees",
                         "participants", "attendees", "men", "women", "girls", "boys", "babies", "siblings"},
                        key=len, reverse=True)
_NP_RE = re.compile(
    r"(?i)(?<![\w'’])(?P<det>my|your|the|these|those|our)\s+(?P<mods>(?:[a-z][\w-]*\s+){0,2}?)"
    r"(?P<noun>" + "|".join(re.escape(w) for w in _PEOPLE_PLURAL) + r"|[a-z]{3,}(?:ists|ians))(?![\w'’])")
# a verb that takes a person as its object, then "them" ("help them learn", "guiding and
# supporting them", "wants them to feel")
_PERSON_VERBS = (r"help|support|guid|teach|taught|encourag|want|let|tell|told|motivat|inspir|mentor|coach|remind"
                 r"|invit|thank|meet|met|visit|miss|rais|hug|cheer|show|train|comfort|reassur|empower")
_THEM_RE = re.compile(rf"(?i)\b(?:{_PERSON_VERBS})(?:e|es|ed|s|ing|ting)?\s+them(?![\w'’])")
_SRC_THEM_RE = re.compile(r"(?i)(?<![\w'’])(?:them|['’]em)(?![\w'’])")


def _in_mouth(m: re.Match[str], owner: str, other: str) -> str | None:
    """The phrase as the current speaker's fact writes it. `owner`: who "my" is; `other`: who
    "your" is (None-like "" when not known)."""
    det, rest = m.group("det").lower(), f"{m.group('mods')}{m.group('noun')}"
    if det == "our":
        return None
    if det in ("my", "your"):
        who = owner if det == "my" else other
        return f"{who}'s {rest}" if who else None
    return f"{det} {rest}"


def antecedent(before: str, speaker: str, addressee: str,
               previous_turns: list[tuple[str | None, str]]) -> str | None:
    """The people "them" stands for: the last plural people phrase of `before` (the message up
    to the pronoun), else of the previous turn; None when neither names any."""
    found = list(_NP_RE.finditer(before))
    if found:
        return _in_mouth(found[-1], speaker, addressee)
    if previous_turns:
        who, prev = previous_turns[-1]
        found = list(_NP_RE.finditer(prev or ""))
        if found:
            if who and who.strip() and who.strip() != speaker:
                return _in_mouth(found[-1], who.strip(), speaker)  # their "your" is the speaker's
            m = found[-1]
            return _in_mouth(m, "", "") if m.group("det").lower() not in ("my", "your") else None
    return None


def apply(facts: list[ExtractedFact], text: str, speaker: str, addressee: str,
          previous_turns: list[tuple[str | None, str]]) -> int:
    """Name the people of an object "them" in each free-text fact; returns how many changed."""
    changed = 0
    for f in facts:
        if f.attribute_key not in (None, "event") or not f.fact_text.startswith(f.subject) or f.subject != speaker:
            continue
        verbs = list(_THEM_RE.finditer(f.fact_text))
        if len(verbs) != 1 or len(re.findall(r"(?i)\bthem\b", f.fact_text)) != 1:
            continue
        src = (f.source_text or "").strip()
        at = text.find(src) if src else -1
        pron = _SRC_THEM_RE.search(src) if at >= 0 else None
        if pron is None:
            continue
        who = antecedent(text[: at + pron.start()], speaker, addressee, previous_turns)
        if not who:
            continue
        m = verbs[0]
        f.fact_text = f.fact_text[: m.end() - 4] + who + f.fact_text[m.end():]
        changed += 1
    return changed

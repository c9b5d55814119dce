"""Repairs before a drop: the part of a free-text fact that a quality check would drop it for is
cut, and the fact is kept, when what remains is a plain statement of its own subject.

Found by bench/fact_drops.py (docs/architecture.md, "Drop-check audit"): the `addressee` and
`subject_first` checks of write/fact_quality.py dropped first-person facts the rules had
extracted well, because of a clause around them:

- `lead_clause`: "Jon is taking Gina's advice, Jon is sprucing up Jon's biz plan" (speaker Jon,
  addressee Gina): the addressee is named only in a leading clause before a comma, and the rest
  opens with the speaker again -> "Jon is sprucing up Jon's biz plan", or with the speaker's own
  thing ("Gina is right, Jon's oven only reaches 400 degrees" -> "Jon's oven only reaches ...",
  session 16). `agreed_lead` does the same for the speaker's "You're right, ..." when the fact's
  subject is the addressee ("Gina is right, Jon's oven ..." -> the speaker's "Jon's oven ..."). A fact that still names
  the addressee after the cut is left to the check (it is about the two of them).
- `causative`: "It made Caroline reflect on how far Caroline has come", "It taught Caroline
  self-acceptance": an "it" whose verb acts on the subject reports what happened to the subject,
  so the empty-pronoun opening does not make it talk ("It's great that ..." still does); nor
  does a "we" inside it make it generic (`generic_we`), nor "appreciate" make it thanks (`talk`).
- `shown_own`: "Here's a pic of Melanie's family camping at the beach" -> "Melanie's family
  camping at the beach": a pointer to a shared photo of the subject's own things is cut to
  what it shows, up to the first comma or dash.
- `finds`: "It's been so inspiring to work with Jon's young dancers, seeing ..." (speaker Jon) ->
  "Jon finds it inspiring to work with Jon's young dancers": an evaluation of an activity that
  names the speaker is the speaker's own appraisal (not for a generic "we", kept generic).
- `but_tail`: "It's been stressful, but dancing has kept Jon going": an expletive head before
  ", but" is cut when the tail names the subject -> "Dancing has kept Jon going"; after ", and"
  when the tail opens with its own subject ("The tournament is in Cleveland, and the coach asked
  Frank to drive the team van" -> "The coach asked Frank ...", session 17).

Each repair returns the new text or None (no repair: the check decides as before).
"""

from __future__ import annotations

import re

__all__ = ["agreed_lead", "but_tail", "causative", "finds", "lead_clause", "shown_own"]


def _names(text: str, who: str) -> bool:
    return re.search(rf"\b{re.escape(who)}\b", text) is not None


def lead_clause(text: str, subject: str, addressee: str) -> str | None:
    """Cut a leading clause that alone names the addressee, when the rest opens with `subject`."""
    head, sep, tail = text.partition(", ")
    tail = tail.strip()
    if not sep or not _names(head, addressee) or _names(tail, addressee):
        return None
    # the rest opens with the subject or the subject's own thing ("Walt's oven only reaches ...")
    if not tail.startswith((subject + " ", subject + "'s ", subject + "’s ")) or len(tail.split()) < 4:
        return None
    return tail


# "Gina is right", "Gina is so right", "Gina was spot on": the speaker agreeing, said before a comma
_AGREED_RE = re.compile(r"^(?:is|was)\s+(?:(?:so|totally|absolutely|completely|quite|100%)\s+)?(?:right|correct|spot\s+on)$")


def agreed_lead(text: str, addressee: str, speaker: str) -> str | None:
    """Cut "<addressee> is right, " (the speaker's "You're right, ...") when the rest opens with
    the speaker or the speaker's own thing: "Gina is right, Jon's oven only reaches 400 degrees"
    -> "Jon's oven only reaches 400 degrees" (the fact is then the speaker's)."""
    head, sep, tail = text.partition(", ")
    tail = tail.strip()
    if not sep or not head.startswith(addressee + " ") or not _AGREED_RE.match(head[len(addressee) + 1:]):
        return None
    if not tail.startswith((speaker + " ", speaker + "'s ", speaker + "’s ")) or len(tail.split()) < 4:
        return None
    return tail


# "it" acting on the subject: made/makes/let (+ verb), taught/helped/reminded/showed/gave ...
_CAUSATIVE_RE = re.compile(
    r"^(?:It|This|That)(?:\s+|['’]s\s+)(?:has\s+|had\s+|really\s+|also\s+)?(?:made|makes|taught|teaches|helped|helps|reminded"
    r"|reminds|showed|shows|gave|gives|inspired|inspires|pushed|pushes|encouraged|encourages|let|lets)\s+")


def causative(text: str, subject: str) -> str | None:
    """Keep "It made <subject> ..." / "It taught <subject> ..." as it is (None when not one)."""
    m = _CAUSATIVE_RE.match(text)
    if not m or not text[m.end():].startswith(subject + " "):
        return None
    return text


_BUT_RE = re.compile(r",\s+(?P<link>but|and)\s+")


def but_tail(text: str, subject: str) -> str | None:
    """Cut an expletive head before ", but" when the tail is a clause naming the subject. After ",
    and" (session 17) only a tail that opens with its own subject noun phrase ("the coach asked
    Frank to drive the van", "Frank's van ...", "Frank ..."): an imperative ("and keep Joel posted")
    or a fragment ("and now a choir at ...") is no clause of its own."""
    m = _BUT_RE.search(text)
    if m is None:
        return None
    tail = text[m.end():].strip()
    if not _names(tail, subject) or len(tail.split()) < 4 or "," in tail:
        return None
    if re.match(r"(?i)(?:it|that|this|there|here)\b", tail):
        return None  # "but it was worth it": another empty pronoun
    if m.group("link") == "and" and not re.match(rf"(?:[Tt]he\s|{re.escape(subject)}(?:['’]s)?\s)", tail):
        return None
    return tail[:1].upper() + tail[1:]


_HERE_RE = re.compile(r"(?i)^here['’]?s\s+(?:a\s+|another\s+|one\s+more\s+)?(?:(?:pic|picture|photo|snap|shot)\s+"
                      r"(?:of\s+)?|one\s+of\s+)")


def shown_own(text: str, subject: str) -> str | None:
    """"Here's a pic of <subject>'s X ..." -> "<subject>'s X ..." (cut at a comma or dash)."""
    m = _HERE_RE.match(text)
    if not m:
        return None
    rest = re.split(r"\s*(?:,|\s[-–—]+\s)", text[m.end():], maxsplit=1)[0].strip(" .!")
    if not rest.startswith(subject + "'s ") or len(rest.split()) < 3:
        return None
    return rest


_WHEN_RE = re.compile(r"(?i)^(?:here['’]?s|that['’]?s|this\s+is)\s+(?:a\s+|another\s+|one\s+more\s+|the\s+)?"
                      r"(?:pic|picture|photo|snap|shot)\s+(?:is\s+)?from\s+(?:when|the\s+time)\s+"
                      r"|^(?:that|this)\s+(?:pic|picture|photo|snap|shot)(?:['’]s|\s+is|\s+was)\s+from\s+(?:when|the\s+time)\s+")


def shown_when(text: str, subject: str) -> str | None:
    """"Here's a pic from when Gina was dancing - it was a tough road" -> "Gina was dancing - it
    was a tough road": the pointer to a shared photo is talk, what the photo shows happening to
    the subject is the fact (the clause must open with the subject)."""
    m = _WHEN_RE.match(text)
    if not m:
        return None
    rest = text[m.end():].strip(" .!")
    head = re.match(rf"{re.escape(subject)}(?:['’]s|\s+and\s+others)?\s", rest)
    if not head or len(rest[head.end():].split()) < 3:
        return None  # "from when Caroline and others met up": nothing to keep
    return rest


_FINDS_RE = re.compile(r"^It['’]s\s+(?:been\s+)?(?:(?:so|really|very|super|truly)\s+)?(?P<adj>[a-z]+)\s+"
                       r"(?P<vp>to\s+[a-z]+|[a-z]+ing)\s+(?P<rest>.+)$")


def finds(text: str, subject: str, speaker: str) -> str | None:
    """"It's been so inspiring to work with Jon's dancers" (speaker Jon) -> "Jon finds it
    inspiring to work with Jon's dancers": the speaker's own appraisal of what they do."""
    m = _FINDS_RE.match(text)
    if not m or subject != speaker or not _names(text, subject) or f"{subject} and others" in text:
        return None  # a generic "we" ("It's awesome to see the difference we can make") stays generic
    rest = re.split(r",\s+|\s[-–—]+\s", m["rest"], maxsplit=1)[0]
    return f"{subject} finds it {m['adj']} {m['vp']} {rest}"

"""Fact shape: a free-text fact names its subject, has a resolved subject and does not stop mid-phrase.

Reading all active facts of the dev pair (session 12) showed restated sentences that kept the
chat's dropped or pronoun subject, or lost their end, and which no defect marker counted:

| class                 | example (as stored before)                    | what happens here               |
|-----------------------|-----------------------------------------------|---------------------------------|
| causative "it"        | "It made Caroline feel connected and gave ..." | "Caroline felt connected"       |
|                       | "It taught Caroline self-acceptance"           | "Caroline learned ..."          |
|                       | "It made Caroline even more determined to ..." | "Caroline became even more ..." |
| subjectless fragment  | "Makes Caroline feel connected"                | "Caroline feels connected"      |
|                       | "Reminds Jon how much Jon loves performing"    | "Jon is reminded how much ..."  |
|                       | "Pretty proud of Melanie's pottery project"    | "Melanie is pretty proud of ..."|
|                       | "Still following Jon's passion for dance"      | "Jon is still following ..."    |
| unresolved possessive | "Their encouragement made Caroline who ..."    | dropped (whose? unknown)        |
| or personal pronoun   | "She gave it to Caroline when ..."             | dropped                         |
| unresolved "one"      | "Gina has been one 'cause Gina lost her job"   | "Gina lost her job" (the reason |
|                       |                                               | clause is the fact)             |
| truncated end         | "... so Melanie is planning a few"             | cut at the clause boundary      |
|                       |                                               | before it, else dropped         |

The causative repair keeps what the experience did to the person (the fact about them) and
lets go of the unresolved "it"; what "it" was is in the message text, which stays searchable.
The second coordinated verb of the causative ("... and gave Caroline a lot of hope") had "it"
as its subject too, so it is cut rather than given to the person. Every fact passes through
`shape` (a check), but a rule's fact opens with its subject, so only the truncated-end step can
touch it; the causative and fragment rewrites (`name_subject`) run on free-text facts after
write/elaboration.py has dropped the fragments that only comment on an earlier fact of the
message (session 11's choice stays: "I finished my pottery. Pretty proud of it!" keeps one fact).
English patterns only: the Portuguese rules write their facts subject first.
"""

from __future__ import annotations

import re

from arandu_pipelines.write.language import conj_en

# bare verbs that follow "made/makes <person>" ("it made me realize ..."); anything else after
# the person is a predicate adjective ("it made me even more determined") and takes "became"
_BARE_AFTER_MAKE: dict[str, str] = {
    "feel": "felt", "realize": "realized", "realise": "realised", "reflect": "reflected", "remember": "remembered",
    "think": "thought", "want": "wanted", "appreciate": "appreciated", "grow": "grew", "understand": "understood",
    "see": "saw", "love": "loved", "laugh": "laughed", "smile": "smiled", "cry": "cried", "wonder": "wondered",
    "believe": "believed", "consider": "considered", "decide": "decided", "know": "knew", "value": "valued",
    "miss": "missed", "care": "cared", "rethink": "rethought", "question": "questioned", "notice": "noticed",
}
_ADVERB = r"(?:(?:really|also|just|even|definitely|truly|totally|always)\s+)?"
_CAUSATIVE_RE = re.compile(
    rf"(?i)^(?:it|this|that)(?P<aux>\s+has|\s+had|['’]s)?\s+{_ADVERB}(?P<verb>made|makes|taught|teaches)\s+")
_FRAGMENT_VERB_RE = re.compile(rf"(?i)^{_ADVERB}(?P<verb>makes|made|reminds|reminded)\s+")
_FEELING_RE = re.compile(
    r"(?i)^(?:(?:pretty|so|really|very|super|totally|kinda|kind\s+of)\s+)?"
    r"(?:proud|glad|happy|excited|grateful|thankful|stoked|thrilled|pumped)\s+(?:of|about|to|for|with|that)\b")
_GERUND_FRAGMENT_RE = re.compile(r"(?i)^(?:still|just|finally|now|really|currently)\s+[a-z]+ing\b")
_UNRESOLVED_RE = re.compile(r"(?i)^(?:their|his|her|she|he|they|they['’]re)\b")
_ONE_BECAUSE_RE = re.compile(r"(?i)^(?P<s>.+?)\s+(?:has\s+been|is|was|['’]s\s+been)\s+ones?\s*,?\s+"
                             r"(?:because|['’]cause|since)\s+(?P<tail>.+)$")
# lower case only: a rule's fact may end in a name ("works at Loja Vila The"); "her"/"his" may
# be an object ("it reminds Maria of her"), so only possessives that cannot stand alone count
_TRUNCATED_RE = re.compile(
    r"(?:\b(?:a|an|the|a\s+few|several|their|our|its|and|or|but|because)"
    r"|\b(?:made|started|did|built|painted|drew|wrote|bought|found)\s+this)\s*[.!]?$")
_BOUNDARY_RE = re.compile(r"(?i),\s+|\s+(?:so|and|but)\s+")
_SECOND_VERB_TPL = r",?\s+and\s+(?:even\s+|also\s+)?[a-z]+\s+{s}\b"


def shape(text: str, subject: str) -> str | None:
    """A check (`fact_quality.CHECKS`): an unresolved pronoun subject or "one", or a cut-off
    end, is repaired or the fact dropped (None). Returns `text` unchanged when it is neither."""
    if not subject or not text:
        return text
    for step in (_unresolved, _truncated):
        out = step(text, subject)
        if out is None:
            return None
        text = out
    return text


def name_subject(text: str, subject: str) -> str | None:
    """The last step of `fact_quality.refine`, after `elaboration.drop` has removed the
    fragments that only comment on the message's earlier fact: a causative "It made S ..." or a
    subjectless fragment that is kept is rewritten with `subject` first. None: what is left
    once the causative's second verb is cut is a bare verb ("It's made Jon grow, and even got
    Jon out of ..." -> "Jon grows"), no fact."""
    if not subject or not text:
        return text
    group = f"{subject} and others"
    m = _CAUSATIVE_RE.match(text) or _FRAGMENT_VERB_RE.match(text)
    if m and text[m.end():].startswith(group + " "):
        subject = group  # "It made us think ..." is "S and others": a plural subject (session 14, we14)
    out = _causative(text, subject)
    if subject == group:
        out = _plural(out, group)
    if out == text:
        out = _fragment(text, subject)
        if subject == group:
            out = _plural(out, group)
        return text if out == text else _thick(out, subject)
    return out if len(out[len(subject):].split()) >= 2 and _thick(out, subject) else None


# a state verb the rewrite put in place of "it made/makes S": with one word after it ("Caroline
# felt connected", "Jon becomes calm") the cause was the fact's content and it is gone with the "it"
_STATE_VERBS = frozenset(["feel", "feels", "felt", "become", "becomes", "became"])


def _thick(text: str, subject: str) -> str | None:
    """`text` unless the rewrite left a bare state: "S felt connected" (connected to what the
    unresolved "it" was; session 12, branch defect12b) is no fact a reader would keep."""
    rest = text[len(subject):].split()
    return None if rest and rest[0].lower() in _STATE_VERBS and len(rest) < 3 else text


def _causative(text: str, subject: str) -> str:
    m = _CAUSATIVE_RE.match(text)
    rest = text[m.end():] if m else ""
    if not m or not rest.startswith(subject + " "):
        return text
    rest = re.split(_SECOND_VERB_TPL.format(s=re.escape(subject)), rest[len(subject) + 1:], maxsplit=1)[0]
    verb, aux = m.group("verb").lower(), (m.group("aux") or "").strip().lower()
    present = verb in ("makes", "teaches") or aux in ("has", "'s", "’s")
    if verb in ("taught", "teaches"):
        return f"{subject} {'learns' if present else 'learned'} {rest}"
    first, _, tail = rest.partition(" ")
    low = first.lower()
    if low in _BARE_AFTER_MAKE:
        head = conj_en(low) if present else _BARE_AFTER_MAKE[low]
        if low == "think" and re.match(r"(?i)(?:how|what|why|where|who)\b", tail):
            head += " about"  # "made me think how much ..." -> "thought about how much ..."
        return f"{subject} {head} {tail}".rstrip()
    return f"{subject} {'becomes' if present else 'became'} {rest}"


_PLURAL_FORMS = {"becomes": "become", "learns": "learn", "is": "are", "was": "were"}


def _plural(text: str, group: str) -> str:
    """The verb the rewrite wrote after "<S> and others" agrees with a plural subject: "S and
    others become", "S and others feel" (not "S and others feels")."""
    if not text.startswith(group + " "):
        return text
    first, _, tail = text[len(group) + 1:].partition(" ")
    low = first.lower()
    bare = _PLURAL_FORMS.get(low) or next((b for b in _BARE_AFTER_MAKE if conj_en(b) == low), None)
    return f"{group} {bare} {tail}".rstrip() if bare else text


def _fragment(text: str, subject: str) -> str:
    m = _FRAGMENT_VERB_RE.match(text)
    if m and text[m.end():].startswith(subject + " "):
        rest = text[m.end() + len(subject) + 1:]
        verb = m.group("verb").lower()
        if verb.startswith("remind"):
            return f"{subject} {'is' if verb == 'reminds' else 'was'} reminded {rest}"
        first, _, tail = rest.partition(" ")
        low = first.lower()
        if low not in _BARE_AFTER_MAKE:
            return f"{subject} {'becomes' if verb == 'makes' else 'became'} {rest}"
        head = conj_en(low) if verb == "makes" else _BARE_AFTER_MAKE[low]
        return f"{subject} {head} {tail}".rstrip()
    if _FEELING_RE.match(text) or _GERUND_FRAGMENT_RE.match(text):
        return f"{subject} is {text[:1].lower()}{text[1:]}"
    return text


def _unresolved(text: str, subject: str) -> str | None:
    if _UNRESOLVED_RE.match(text):
        return None  # whose encouragement, who "she" is: not in the fact
    m = _ONE_BECAUSE_RE.match(text)
    if m and m.group("s") == subject and m.group("tail").startswith(subject + " "):
        return m.group("tail")  # "one" of what? unresolved; the reason clause is the fact
    return text


def _truncated(text: str, subject: str) -> str | None:
    if not _TRUNCATED_RE.search(text):
        return text
    cuts = [m.start() for m in _BOUNDARY_RE.finditer(text)]
    for cut in reversed(cuts):
        head = text[:cut].rstrip(" ,")
        if head.startswith(subject + " ") and len(head.split()) >= 4 and not _TRUNCATED_RE.search(head):
            return head
    return None


# "A reminder to follow my passions" after "Got the tattoo a few years ago, ...": the reminder is
# the thing the sentence before named first (session 12, branch defect12b)
_REMINDER_RE = re.compile(r"^A\s+(?:reminder|sign|symbol)\s+(?:to|of|that)\b")
_FIRST_THING_RE = re.compile(r"(?i)(?<![\w'’])(?P<d>my|the)\s+(?P<n>[a-z]{3,})\b(?![\s]+(?:of|and|or)\b)")
_NOT_THINGS = frozenset(["best", "same", "other", "first", "last", "most", "whole", "only", "next", "way", "time",
                         "day", "week", "year", "end", "rest", "moment", "thing", "world", "people", "kids"])


def name_reminder(text: str, subject: str, message: str, source: str | None) -> str:
    """"A reminder to X" -> "The tattoo is a reminder to X" (or "S's N" for "my N") when the
    sentence before it in `message` names a thing first; `text` unchanged otherwise."""
    if not _REMINDER_RE.match(text) or not source:
        return text
    at = message.find(source.strip())
    if at <= 0:
        return text
    before = re.split(r"(?<=[.!?…])\s+", message[:at].strip())[-1]
    m = next((m for m in _FIRST_THING_RE.finditer(before) if m.group("n").lower() not in _NOT_THINGS), None)
    if m is None:
        return text
    thing = f"{subject}'s {m.group('n')}" if m.group("d").lower() == "my" else f"The {m.group('n')}"
    return f"{thing} is {text[:1].lower()}{text[1:]}"

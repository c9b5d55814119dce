"""Stance rule kinds: what a speaker feels about the person they talk to, or about doing something.

The restating rules of `extract_rules` see a compliment ("I'm so proud of you for ...") as a
sentence about the addressee and `fact_quality` drops it as talk; a feeling put through an
expletive "it" ("It's so freeing to express myself") has no person as its subject and gives no
fact either. Some of these carry what LoCoMo's annotators (and a careful reader) keep: what the
speaker admires in the other, is proud of them for, draws inspiration from, and what the
speaker finds freeing, rewarding or hard to do. This module is a table of such rule kinds.

| kind              | sentence (after greetings/vocatives)              | fact                                       |
|-------------------|---------------------------------------------------|--------------------------------------------|
| proud_of          | I'm (so) proud of you for X                       | S is proud of A for X                      |
| admires           | I'm in awe of / impressed by / I admire / respect | S admires X (your -> A's)                  |
|                   |   for X; It's (so) sweet/great to see your X /    |                                            |
|                   |   how ... you are                                 |                                            |
|                   | Respect for X-ing / I admire you for X-ing        | S admires A for X-ing                      |
| inspired_by       | Your X (really) inspires/motivates me (to Y)      | A's X inspires/motivates S (to Y)          |
| values_friendship | (I) appreciate/value/cherish our friendship       | S values S's friendship with A             |
| finds_it          | It's/It was (so) <feeling adj> to VP              | S finds it <adj> to VP                     |
|                   |   (not "to see/hear/know/chat/me": reactions;     |   (value words -- "important", "key" --    |
|                   |   not with generic "you")                         |   stay extract_rules' "S believes ...")    |
| enjoyed_it        | It's (so) great, awesome, nice, fun ... to VP or  | S finds it <adj> to VP / VP-ing;           |
|                   |   VP-ing; It was ... to VP (the speaker's         |   S found it <adj> to VP (tense kept:      |
|                   |   activity: not have/be, not "seeing how/you",    |   "It was great to unplug" happened)       |
|                   |   no "you")                                       |                                            |

Only kinds whose facts matched an annotator's observation of the same turn at least about as
often as the rest of the offline facts on the dev conversations are listed (bench/facts.py,
docs/retrieval.md "Offline fact extraction"): bare encouragement ("Keep it up!"), thanks,
"your support means a lot" and generic compliments ("You're awesome") matched 4-30 % of the
time and are left out -- they stay in the message text, which retrieval searches.

Needs the addressee (`ExtractionContext.addressee`); English only (Portuguese chat is left to
the restating rules). Facts are rule facts: `fact_quality` repairs them (second person, dates,
long clauses) but does not apply the talk checks meant for restated sentences.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from arandu_pipelines.write import lexicon as L
from arandu_pipelines.write.language import detect_language
from arandu_pipelines.write.types import (
    ExtractedFact,
    ExtractionContext,
    ExtractionResult,
)

# (sentence, speaker, addressee) -> the sentence in the third person: extract_rules' rewriter,
# passed in by extract_rules (the two modules do not import each other).
Rewriter = Callable[[str, str, str], str]

_INT = r"(?:(?:so|really|super|very|truly|always|extra|just|incredibly)\s+)*"
_FEELING_ADJ = (
    "empowering|freeing|liberating|rewarding|fulfilling|healing|therapeutic|cathartic|comforting|calming"
    "|relaxing|satisfying|meaningful|humbling|scary|nerve-wracking|tough|hard|challenging|special"
    # synonyms of the same feelings (session 12, stance12): how doing something felt to the speaker
    "|gratifying|enriching|uplifting|soothing|peaceful|stressful|overwhelming|exhausting|nerve-racking"
    "|helpful|inspiring|encouraging|enlightening|eye-opening|reassuring"
)
# "to see/hear/know/chat/talk/have you": a reaction to the other speaker, not the speaker's feeling
# "to me/us" is who finds it so, not what is done: "It's special to me" names no activity
# ... but "to talk to/with <someone else>" is the speaker's own activity ("so gratifying to talk to the kids")
_NOT_OWN = r"(?!see\b|hear\b|know\b|chat\b|talk\b(?!\s+(?:to|with)\s+(?!you\b|u\b|ya\b)\w)|read\b|have\s+you\b|meet\s+you\b|me\b|us\b|you\b|them\b|him\b|her\b)"

_GOOD_ADJ = "great|awesome|amazing|wonderful|nice|cool|fun|lovely|exciting|incredible"
# "great to have a supporter", "nice to be part of it": a state, no activity the speaker did
_NO_ACTIVITY = r"(?!have\b|be\b|having\b|being\b)"
_NOT_OWN_ING = (r"(?!seeing\s+(?:how|what|that|it|this|you)\b|hearing\b|knowing\b|chatting\b|talking\b|reading\b"
                r"|meeting\s+you\b)(?=\w+ing\b)")


@dataclass(frozen=True)
class StanceRule:
    kind: str
    pattern: re.Pattern[str]
    template: str  # {S} speaker, {A} addressee, named groups of the pattern (rewritten)


def _rule(kind: str, pattern: str, template: str) -> StanceRule:
    return StanceRule(kind, re.compile(pattern, re.IGNORECASE), template)


RULES: tuple[StanceRule, ...] = (
    _rule("proud_of", rf"^i['’]?m\s+{_INT}proud\s+of\s+you\s+for\s+(?P<x>\w.+)$", "{S} is proud of {A} for {x}"),
    _rule("admires", rf"^(?:i['’]?m\s+{_INT}(?:in\s+awe\s+of|impressed\s+(?:by|with))|i\s+{_INT}admire"
                     r"|(?:much\s+|big\s+|so\s+much\s+)?respect\s+for)\s+(?P<x>(?:your\b|how\b[^.]*\byou\b).+)$",
          "{S} admires {x}"),
    # "to see your hard work paying off": what is admired is the object seen, not its participle
    _rule("admires", rf"^(?:it['’]s|it\s+is)\s+{_INT}(?:awesome|great|amazing|sweet|inspiring|wonderful|lovely)"
                     r"\s+to\s+see\s+(?P<x>your(?:\s+(?!(?:to|for|of|in|about|with|at|on|by|and)\b)[\w'’-]+)+?)"
                     r"\s+\w+ing\b.*$", "{S} admires {x}"),
    _rule("admires", rf"^(?:it['’]s|it\s+is)\s+{_INT}(?:awesome|great|amazing|sweet|inspiring|wonderful|lovely)"
                     r"\s+to\s+see\s+(?P<x>(?:your\b|how\b[^.]*\byou\b).+)$", "{S} admires {x}"),
    _rule("admires", r"^(?:(?:much|big|so\s+much|mad)\s+)?(?:respect|props|kudos)\s+(?:to\s+you\s+)?for\s+"
                     r"(?P<x>\w+ing\b.+)$|^i\s+(?:really\s+)?admire\s+you\s+for\s+(?P<y>\w+ing\b.+)$",
          "{S} admires {A} for {x}{y}"),
    _rule("inspired_by", r"^your\s+(?P<n>[\w'’ -]{2,40}?)\s+(?:really\s+|always\s+|truly\s+)?"
                         r"(?P<v>inspires|motivates)\s+me\b(?P<x>.*)$", "{A}'s {n} {v} {S}{x}"),
    _rule("values_friendship", rf"^(?:i\s+)?{_INT}(?:appreciate|value|cherish)\s+our\s+friendship\b",
          "{S} values {S}'s friendship with {A}"),
    _rule("finds_it", rf"^(?:it['’]s|it\s+is|it['’]s\s+been|it\s+has\s+been)\s+{_INT}"
                      # generic "you" ("hard to run a business when you ...") is nobody's feeling
                      rf"(?P<a>{_FEELING_ADJ})\s+(?P<x>to\s+{_NOT_OWN}(?![^.]*\byou(?:r|rs|rself)?\b)\w.+)$", "{S} finds it {a} {x}"),
    # "It was so gratifying to talk to ...": the tense kept, as enjoyed_it does
    _rule("finds_it", rf"^it\s+was\s+{_INT}"
                      rf"(?P<a>{_FEELING_ADJ})\s+(?P<x>to\s+{_NOT_OWN}(?![^.]*\byou(?:r|rs|rself)?\b)\w.+)$", "{S} found it {a} {x}"),
    # past: the infinitive only; "It was so nice seeing them play" paints the scene of an event the
    # turn already tells (measured on the dev pair: 0 of 2 annotated)
    _rule("enjoyed_it", rf"^(?:it\s+was)\s+{_INT}"
                        rf"(?P<a>{_GOOD_ADJ})\s+(?P<x>to\s+{_NOT_OWN}{_NO_ACTIVITY}(?![^.]*\byou(?:r|rs|rself)?\b)\w.+)$",
          "{S} found it {a} {x}"),
    _rule("enjoyed_it", rf"^(?:it['’]s|it\s+is|it['’]s\s+been|it\s+has\s+been)\s+{_INT}"
                        rf"(?P<a>{_GOOD_ADJ})\s+(?P<x>(?:to\s+{_NOT_OWN}|{_NOT_OWN_ING}){_NO_ACTIVITY}(?![^.]*\byou(?:r|rs|rself)?\b)\w.+)$",
          "{S} finds it {a} {x}"),
)

# lead words (lexicon.LEAD_WORDS) and thanks before the stance
_LEAD_CLASSES = ("interjection", "laughter", "vocative", "answer", "connective", "stance")
_LEAD_RE = re.compile(rf"(?i)^(?:(?:{L.lead_alternation(*_LEAD_CLASSES)}|thanks|thank\s+you)\b[\s,!.…:-]*)+")
_CUT_RE = re.compile(r"\s+[-–—]+\s+|[;:]\s|\s*\[shared a photo.*$|,\s+(?:but|and\s+it|which)\s+")




def _strip(sentence: str, addressee: str) -> str:
    s = _LEAD_RE.sub("", sentence)
    voc = re.match(rf"^{re.escape(addressee.split()[0])}[a-z]*\s*[,!.]\s*", s) if addressee else None
    if voc:
        s = _LEAD_RE.sub("", s[voc.end():])
    s = re.sub(rf",\s*{re.escape(addressee.split()[0])}[a-z]*\s*(?=[!.]*$)", "", s) if addressee else s
    return s.strip().rstrip("!.… ").strip()


def _rewrite(x: str, speaker: str, addressee: str, rewrite: Rewriter) -> str:
    x = _CUT_RE.split(x, maxsplit=1)[0].strip().rstrip("!.… ")
    out = rewrite(x, speaker, addressee)
    # "you are" -> "A are": the verb agrees with the name
    for a, b in ((" are", " is"), (" were", " was"), (" have", " has"), ("'re", " is"), ("'ve", " has")):
        out = out.replace(f"{addressee}{a}", f"{addressee}{b}")
    return out


_STOP = frozenset(["a", "an", "the", "and", "or", "of", "to", "in", "on", "at", "by", "for", "with", "from", "as", "is", "are", "was", "were", "be", "been", "it", "its", "this", "that", "these", "those", "them", "they", "so", "very", "really", "just", "also", "too", "all", "up", "out", "about", "how", "what", "his", "her", "their", "our", "my", "your", "me", "him", "she", "he", "we", "us", "i"])


def _content(text: str, *names: str) -> int:
    return L.count_content(text, _STOP, names, min_len=2)


def apply(result: ExtractionResult, text: str, ctx: ExtractionContext, *, sentences: list[str],
          rewrite: Rewriter) -> list[ExtractedFact]:
    """Add the facts of `RULES` found in `text` to `result` (at most one per kind per message);
    returns them. No addressee, or a Portuguese message: nothing."""
    addressee = (ctx.addressee or "").strip()
    speaker = (ctx.speaker_name or "").strip()
    if not addressee or not speaker or addressee == speaker:
        return []
    if detect_language(text) != "en":
        return []
    added: list[ExtractedFact] = []
    kinds: set[str] = set()
    for sentence in sentences:
        if "?" in sentence or sentence.startswith("["):
            continue
        s = _strip(sentence, addressee)
        for rule in RULES:
            m = rule.pattern.match(s)
            if not m or rule.kind in kinds:
                continue
            groups = {k: (_rewrite(v, speaker, addressee, rewrite) if v else "") if k in ("x", "y", "n") else (v or "").lower()
                      for k, v in m.groupdict().items()}
            if "x" in groups and groups["x"] and not groups["x"].startswith(" ") and rule.template.endswith("}{x}"):
                groups["x"] = " " + groups["x"]
            said = " ".join(groups.get(k, "") for k in ("n", "x", "y"))
            if m.groupdict() and _content(said, speaker, addressee) < 2:
                continue  # "proud of you for sticking with it": nothing named to keep
            fact_text = re.sub(r"\s{2,}", " ", rule.template.format(S=speaker, A=addressee, **groups)).strip()
            if len(fact_text.split()) < 4:
                continue
            f = ExtractedFact(speaker, fact_text[:1].upper() + fact_text[1:], None, None, "specific_event", 0.8,
                              mentions=[addressee], source_text=sentence, rule_kind=f"stance.{rule.kind}")
            result.facts.append(f)
            added.append(f)
            kinds.add(rule.kind)
            break
    return added

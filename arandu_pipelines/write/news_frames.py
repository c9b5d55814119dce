"""News said inside a frame, and a pledge said as an idiom (session 16, branch miss16).

Two chat forms gave no fact, or a fact about the frame instead of the news; each sentence is put
back into the plain statement it stands for, inside `people_forms.rewrite` (like
write/news_forms.py), so `people_forms.restore` gives each fact the sentence as written:

| form (`FRAMES`, in order) | said | rewritten |
|---|---|---|
| news label | "And good news, Maya read the draft!" | "Maya read the draft!" |
| own news (session 17) | "Now, my news: I got the part!", "I've got big news too: Tyler graduates ..." | "I got the part!", "Tyler graduates ..." |
| turns out | "Turns out my neighbour sold the house." | "My neighbour sold the house." |
| hearsay | "I heard Tom and Rose got married." | "Tom and Rose got married." |
| asked news | "Did you hear Sam quit the band?" | "Sam quit the band." |
| pledge | "Put me down for $100!" | "I pledged $100!" |
| sign-up | "Sign me up for the 5K!", "Count me in for the hike" | "I'm joining the 5K!" |
| sign-up, slot from the invitation | ["... a bake sale on Saturday, want to help?"] "Count me in!" / "I'm in!" | "I'm joining the bake sale!" |

Why: the rules read the first clause of a sentence; a frame ("I heard", "Turns out", "Good
news,") made them write the frame ("Ben heard Tom quit the band", "Turns out Ana's neighbour
...") or nothing, and "Did you hear X?" is dropped as a question although X is the news. A pledge
is an imperative ("Put me down for ...") that the rules kept as "Put Ana down for $100 too".

Guards: the rest after a frame must be a clause of its own (spaCy: a finite verb whose subject
opens it and is no wh-word, no empty "it/that/there" and no "you"), so "Did you hear about it?",
"Did you hear what happened?", "I heard back from them", "It turned out great" stay as they were;
so does news whose subject is no one's (a name, a personal pronoun, "my/her X"): "I heard the
new cafe closed down" keeps the rules' "S heard the new cafe closed down" (the checks drop a
thing's sentence of its own). A
sign-up whose slot is only a time ("Count me in for Saturday") or bare ("I'm in!") needs the
other speaker's last turn to be an invitation (a question with want/join/come ...) naming an
event as the object of a verb; else nothing changes. "Count me out", "Put me down" (no "for")
and "I'm in the kitchen" are no pledge. English only.
"""

from __future__ import annotations

import re
from typing import Any

STAGE = "news_frames"
PARSE = "parse"

_LEAD = r"(?P<lead>(?:(?:and|so|oh|but|also|plus|okay|ok|hey|well)\s*,?\s+)?)"
_END = r"(?P<end>[!.…]*)\s*$"

# news label: "(And) good news, X", "Big news - X", "Some exciting news: X"
_LABEL_RE = re.compile(
    r"(?i)^\s*" + _LEAD + r"(?:(?:some|the|more|other)\s+)?(?:(?:really|super|very)\s+)?(?:good|great|big|exciting|happy|"
    r"amazing|awesome|huge|fun|wonderful|fantastic|bad|sad|terrible|crazy|wild)\s+news(?:\s+(?:too|though|here|first))?"
    r"\s*(?:[,:]|\s[—–-])\s*(?P<rest>[^\s,].*?)\s*" + _END)
# the speaker's own news announced before it (session 17, wellformed17): "Now, my news: X",
# "I've got big news too: X", "We have some news - X" (the rules wrote "S's news: X")
_OWN_NEWS_RE = re.compile(
    r"(?i)^\s*" + _LEAD + r"(?:now\s*,?\s+)?(?:(?:my|our)\s+(?:(?:own|big|good|great|latest|exciting)\s+)?news"
    r"|(?:I|we)(?:['’]ve|\s+have|\s+had)?\s+(?:got\s+)?(?:(?:some|more|big|good|great|exciting|huge|fun)\s+)*news"
    r"(?:\s+(?:too|as\s+well|of\s+(?:my|our)\s+own))?)\s*(?::|\s[—–-])\s*(?P<rest>[^\s,].*?)\s*" + _END)
# "Turns out X", "It turned out that X"
_TURNS_OUT_RE = re.compile(
    r"(?i)^\s*" + _LEAD + r"(?:it\s+)?(?:turns|turned)\s+out\s*,?\s+(?:that\s+)?(?P<rest>[^\s,].*?)\s*" + _END)
# "I heard X", "We just heard that X", "I've heard X"
_HEARD_RE = re.compile(
    r"(?i)^\s*" + _LEAD + r"(?:I|we)\s+(?:(?:just|also|recently|finally)\s+)?(?:heard|['’]ve\s+heard|have\s+heard)\s+"
    r"(?:that\s+)?(?P<rest>[^\s,].*?)\s*" + _END)
# "Did you hear X?", "Have you heard that X?"
_ASKED_RE = re.compile(
    r"(?i)^\s*" + _LEAD + r"(?:did|have)\s+you\s+(?:(?:guys|all|even|already)\s+)?(?:hear|heard)\s+(?:that\s+)?"
    r"(?P<rest>[^\s,?][^?]*?)\s*(?P<end>\?[!?]*)\s*$")

# the frames whose rest must be a clause of its own, in order
FRAMES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("label", _LABEL_RE), ("own_news", _OWN_NEWS_RE), ("turns_out", _TURNS_OUT_RE), ("hearsay", _HEARD_RE), ("asked", _ASKED_RE))

# pledge and sign-up idioms: (verb, particle) pairs; "put me down for $100" pledges its object
_PLEDGE_RE = re.compile(
    r"(?i)^\s*" + _LEAD + r"(?:(?:just|definitely|totally|absolutely|please)\s+)?(?P<verb>count|put|sign|pencil)\s+"
    r"(?P<who>me|us)\s+(?P<part>in|down|up)\b(?:\s+(?:too|as\s+well))?\s*(?:,?\s+for\s+(?P<obj>[^!.?…,]+?))?"
    r"(?:\s+(?:too|as\s+well))?\s*" + _END)
_PAIRS = frozenset({("count", "in"), ("put", "down"), ("sign", "up"), ("pencil", "in")})
_IM_IN_RE = re.compile(
    r"(?i)^\s*" + _LEAD + r"(?P<who>I['’]m|I\s+am|we['’]re|we\s+are)\s+(?:(?:so|totally|definitely|absolutely|"
    r"def|100%)\s+)?in\s*(?:,?\s+for\s+(?P<obj>[^!.?…,]+?))?\s*" + _END)
_TIME_RE = re.compile(
    r"(?i)^(?:(?:this|next|on)\s+)?(?:(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?"
    r"(?:\s+(?:morning|afternoon|evening|night))?|weekend|tonight|tomorrow|today|the\s+\d{1,2}(?:st|nd|rd|th)?"
    r"|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?|it|that|this|both|all)$")
# the other speaker's turn invites: a question that asks to join, come, help or sign up
_INVITE_RE = re.compile(
    r"(?i)\b(?:want|wanna|would\s+you\s+like|care|interested|up\s+for|join|come|coming|help|sign\s+up|in\?|you\s+in)\b")
# the verbs whose object is the event invited to, as written (the chunk parse has no lemmas)
_EVENT_VERBS = frozenset(
    f"{v}{e}" for v in ("run", "host", "do", "organiz", "organis", "hav", "throw", "plann", "hold", "join", "com",
                        "sign", "start", "putt", "help", "try", "attend", "go", "enter")
    for e in ("", "e", "s", "es", "ing", "ning")) | frozenset({"ran", "have", "plan", "put", "organize", "organise",
                                                               "came"})
_EVENT_NOUNS_NOT = frozenset({"time", "day", "week", "weekend", "morning", "night", "evening", "way", "thing", "one",
                              "lot", "bit", "hand", "help", "fun", "idea", "chance", "plan", "plans"})
_DETS = frozenset({"my", "our", "your", "his", "her", "their", "a", "an", "this", "that", "the"})
_WH = frozenset({"what", "who", "whom", "which", "how", "why", "where", "when", "it", "that", "this", "there",
                 "about", "anything", "something"})
_FINITE = frozenset({"VBD", "VBZ", "VBP", "MD"})
_PERSONAL = frozenset({"i", "we", "he", "she"})  # an unresolved "they" is mostly nobody in particular


def gate(text: str) -> bool:
    """Cheap test whether `rewrite_sentence` may change a sentence of `text`."""
    return bool(re.search(r"(?i)\bnews\b|\b(?:turns|turned)\s+out\b|\bheard?\b|\b(?:count|put|sign|pencil)\s+(?:me|us)\b"
                          r"|\b(?:I['’]m|I\s+am|we['’]re|we\s+are)\s+(?:\w+\s+)?in\b", text))


def _is_clause(rest: str, parses: Any) -> bool:
    """Whether `rest` is a clause of its own: a finite verb with a subject (not a wh-word, an
    empty "it/that/there" or "you"), so "about it", "what happened", "back from them" are not."""
    if parses is None:
        return False
    doc = parses.doc(rest[:1].upper() + rest[1:] + ".", PARSE, STAGE)
    if doc is None:
        return False
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None or root.pos_ not in ("VERB", "AUX"):
        return False
    finite = root.tag_ in _FINITE or any(c.dep_ in ("aux", "auxpass") and c.tag_ in _FINITE for c in root.children)
    subj = next((c for c in root.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if not finite or subj is None:
        return False
    # the subject opens the clause, or an adverbial does ("Sam quit", "Last week Sam quit")
    if subj.left_edge.i != 0 and doc[0].dep_ not in ("advmod", "npadvmod", "prep"):
        return False
    if subj.lower_ in _WH or subj.lower_ == "you":
        return False
    if root.tag_ == "VBP" and subj.tag_ in ("NN", "NNP"):
        return False  # "Did you hear Tom sing?": a bare infinitive after "hear", no news of its own
    # someone's news: a name, a personal pronoun or someone's thing ("my neighbour"); "The new cafe
    # closed down" as a sentence of its own is dropped by the checks, the frame's fact is kept
    named = rest[subj.idx:subj.idx + 1].isupper()  # as written (spaCy's small model tags "Tessa" NN)
    return subj.lower_ in _PERSONAL or named or any(c.dep_ == "poss" for c in subj.children)


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def framed(s: str, parses: Any) -> str | None:
    """The news a frame carries as its own sentence ("I heard Tom quit." -> "Tom quit."), or None."""
    for _name, rx in FRAMES:
        m = rx.match(s)
        if m is None:
            continue
        rest = m.group("rest")
        if not _is_clause(rest, parses):
            return None
        end = m.group("end")
        end = "." if "?" in end or not end else end
        return _cap(rest) + end
    return None


def _invited_event(ctx: Any, parses: Any) -> str | None:
    """The event the other speaker's last turn invites to ("a bake sale" of "We're running a bake
    sale on Saturday, want to help?") as "the bake sale", or None."""
    turns = getattr(ctx, "previous_turns", None) or []
    me = (getattr(ctx, "speaker_name", None) or "").strip().casefold()
    if not turns or parses is None:
        return None
    who, text = turns[-1]
    if not who or who.strip().casefold() == me or "?" not in (text or "") or not _INVITE_RE.search(text):
        return None
    doc = parses.doc(text, PARSE, STAGE)
    if doc is None:
        return None
    for chunk in doc.noun_chunks:
        root = chunk.root
        head = root.head.head if root.dep_ == "pobj" else root.head
        if root.dep_ not in ("dobj", "pobj") or head.lower_ not in _EVENT_VERBS:
            continue
        if root.pos_ != "NOUN" or root.lower_ in _EVENT_NOUNS_NOT or root.ent_type_ in ("DATE", "TIME"):
            continue
        words = [t.text for t in chunk if not (t.i == chunk.start and t.lower_ in _DETS)]
        return "the " + " ".join(words)
    return None


def pledge(s: str, ctx: Any, parses: Any) -> str | None:
    """A pledge or sign-up idiom as the speaker's statement ("Put me down for $100!" -> "I pledged
    $100!"), or None (no idiom, or a slot the invitation does not name)."""
    m = _PLEDGE_RE.match(s)
    im = None if m else _IM_IN_RE.match(s)
    if m is None and im is None:
        return None
    mm = m or im
    assert mm is not None
    we = mm.group("who").lower().startswith(("us", "we"))
    subj, be = ("We", "are") if we else ("I", "am")
    obj = (mm.group("obj") or "").strip()
    end = mm.group("end") or "."
    if m is not None:
        if (m.group("verb").lower(), m.group("part").lower()) not in _PAIRS:
            return None
        if m.group("verb").lower() == "put" and obj and not _TIME_RE.match(obj):
            return f"{subj} pledged {obj}{end}"
    if im is not None and re.match(r"(?i)(?:a|an|some|quite)\b", obj):
        return None  # "I'm in for a treat / a long night": an idiom, no sign-up
    if obj and not _TIME_RE.match(obj):
        return f"{subj} {be} joining {obj}{end}"
    event = _invited_event(ctx, parses)
    if event is None:
        return None
    when = ""
    if obj and obj.lower() not in ("it", "that", "this", "both", "all"):
        when = " " + (obj if re.match(r"(?i)(?:this|next|on|tonight|tomorrow|today)\b", obj) else "on " + obj)
    return f"{subj} {be} joining {event}{when}{end}"


def rewrite_sentence(s: str, ctx: Any, parses: Any) -> str | None:
    """One sentence of the message as the plain statement it stands for, or None (unchanged)."""
    return framed(s, parses) or pledge(s, ctx, parses)


__all__ = ["FRAMES", "STAGE", "framed", "gate", "pledge", "rewrite_sentence"]

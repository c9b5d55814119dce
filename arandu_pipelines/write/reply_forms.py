"""Sentences that answer or address the listener in a form the fact checks did not know.

Three forms, found in the held-out output of session 13 and recognised by grammar, not topic
(checks of write/fact_quality.py, over free-text facts):

| form          | example (fact before the check)                              | what happens                 |
|---------------|--------------------------------------------------------------|------------------------------|
| lead words    | "Now tell Bob about Lisbon", "So, send Bob the pictures"     | `strip_lead` lets            |
|               | (an imperative after a discourse or time word)               | fact_quality's request check |
|               |                                                              | see the imperative: dropped  |
| imperative    | "Then come visit Bob in Porto" (any bare verb, or two, whose | dropped (`imperative_to`)    |
|               | object is the speaker: "come visit me")                      |                              |
| wish          | "Happy early birthday to you both!" -> "S is happy early     | dropped                      |
|               | birthday to ..." (the dropped-subject repair of a wish)      |                              |
| echo          | B: "I passed thirty people on the bike leg"; A: "Passing     | dropped, unless it names the |
|               | thirty people, that's ...!" -> "A is passing thirty people"  | listener (a statement about  |
|               |                                                              | them stays)                  |

A wish is "Happy"/"Merry" followed by a noun phrase (the formula "Happy birthday", "Merry
Christmas", "Happy 30th"); "Happy with X", "Happy to X", "Happy that ...", "Happy for you" are
the adjective with its complement and stay (a dropped "I'm": "S is happy with the new job").

An echo is a subjectless gerund (or past) fragment (the extractor's dropped-subject repair, rule kind
`generic.dropped_en*`) whose verb and at least one word of its object (or, for an irregular
verb whose past shares no stem, "ran" / "Running ...", two words of its object) repeat the other
speaker's previous turn, outside its questions (a fragment repeating a question's words answers it:
"Need help with marketing" after "Need help with anything?"): the speaker takes up the listener's news ("Passing thirty people, ..."),
which is no news about the speaker.
"""

from __future__ import annotations

import re

from arandu_pipelines.write import lexicon as L
from arandu_pipelines.write.language import conj_en

# discourse and time words before an imperative: "Now tell me", "So, send me", "Then give me"
# lead words before an imperative or a reply (lexicon.LEAD_WORDS)
_LEAD_CLASSES = ("connective", "sequencer", "urging", "stance", "interjection", "laughter", "answer", "vocative")
_LEAD_RE = re.compile(rf"(?i)^(?:(?:{L.lead_alternation(*_LEAD_CLASSES)})\b[,!]?\s+)+")

# "Happy"/"Merry" + a noun phrase; not the adjective with its complement or an adverb
_WISH_RE = re.compile(
    r"(?i)^(?:happy|merry)\s+(?!(?:to|that|for|with|about|because|as|now|enough|and|or|but|here|there|too|so"
    r"|again|when|if|since|being|seeing|knowing|overall|indeed|though|tho|already|at|in|on|by|either|myself"
    r"|yourself|ourselves|to\b)\b)[\w'’-]+")
# the dropped-subject repair made of it: "S is happy early birthday ..."
_WISH_FACT_RE = re.compile(
    r"(?i)^.{1,60}?\bis\s+(?:happy|merry)\s+(?!(?:to|that|for|with|about|because|as|now|enough|and|or|but|here"
    r"|there|too|so|again|when|if|since|being|seeing|knowing|overall|indeed|though|already|at|in|on|by)\b)"
    r"[\w'’-]+")

_GERUND_START_RE = re.compile(r"(?i)^\s*([a-z]+ing)\b([^,;.!?]*)")
# a subjectless past: "Finished in under four hours!" (the repair made it "S finished ...")
_PAST_START_RE = re.compile(r"(?i)^\s*([a-z]{2,}(?<!e)ed|" + "|".join(sorted(L.IRREGULAR_PAST_EN)) + r")\b([^,;.!?]*)")
_WORD_RE = re.compile(r"[a-z]+")
_STOP = frozenset(["a", "an", "the", "my", "your", "his", "her", "our", "their", "its", "of", "to", "in", "on",
                   "at", "for", "with", "by", "from", "and", "or", "so", "that", "this", "it", "up", "out",
                   "all", "some", "any", "just", "really", "very", "me", "you", "him", "them", "us"])


def strip_lead(text: str) -> str:
    """`text` without the discourse or time words before its first clause ("Now tell Bob" ->
    "tell Bob"); unchanged when it opens with none."""
    return _LEAD_RE.sub("", text, count=1)


# words `conj_en` would inflect that open a statement, never an imperative: subordinators and time
# words before the subject ("Since Tomas lost his job", "Yesterday Tomas ..."); an "-ly" adverb too
# (session 16, defects16: "Recently Tomas had a setback" read as "<verb> Tomas ...", a request)
_NOT_VERBS = frozenset(["since", "when", "while", "after", "before", "because", "if", "though", "although",
                        "once", "until", "till", "as", "whenever", "yesterday", "today", "tonight", "tomorrow",
                        "now", "then", "here", "there"])


def _base_verb(word: str) -> bool:
    """A word that reads as a bare verb: lower-case letters that `conj_en` would inflect, not
    itself inflected ("come", "visit", "help"; not "dogs", "painted", "running", "recently", "since")."""
    w = word.lower()
    return (w.isalpha() and not w.endswith(("s", "ing", "ed", "ly")) and w not in _NOT_VERBS
            and conj_en(w) != w)


_NEGATIVE_RE = re.compile(r"(?i)^(?:don['’]t|do\s+not)\s+")
# what an imperative passes on from the speaker closes it: "... a scratch from Bob", "... from Bob!"
_FROM_SPEAKER_RE = re.compile(r"\bfrom\s+(\S+?)(?:,?\s+(?:too|as\s+well|also))?[.!]*$")  # "... from me too" (session 17)
# verbs that pass something on to a third party: "give Luna a scratch from me", "say hi to Ana from me"
# "say/tell": "Say hello to Tessa from me" is small_talk's `regards` row, which drops and counts it
_PASSING_ON = frozenset(["give", "send", "pass", "wish", "hug", "kiss", "pet", "scratch", "write"])  # "write Tyler a line from me"


# "send / bring / show / mail X to me": the speaker as the receiver of the listener's deed (session 17)
_TO_SPEAKER_RE = re.compile(r"\bto\s+(\S+?)(?:,?\s+(?:too|as\s+well|later|tonight|tomorrow|asap|please))?[.!]*$")
_SENDING = frozenset(["send", "bring", "show", "mail", "forward", "text", "email", "give", "pass", "post"])


def imperative_to(text: str, subject: str) -> bool:
    """An imperative whose object is `subject` (the speaker, from "me"), after any lead words:
    "Then come visit Bob in Porto", "Now help Bob with the move", "Join Bob at the gym".
    Session 16 (defects16), two forms the test missed:
    - a negative imperative, whose verb the name follows: "Please don't tell Bob another foster
      fail" (the name had been read as a second bare verb, so its object was never found);
    - a passing-on verb whose text closes with "from <subject>" (from "... from me"): "And give
      Luna and the kittens a scratch from Bob", "Say hi to Ana from Bob"; a statement about the
      speaker as a source opens with no such verb ("Recently Ana got a card from Bob")."""
    lead = strip_lead(text)
    negative = _NEGATIVE_RE.match(lead)
    words = lead[negative.end():].split() if negative else lead.split()  # "Please don't tell Bob ..."
    if len(words) < 2 or not subject or not _base_verb(words[0]):
        return False
    if negative and words[1] == subject:
        return True
    sender = _FROM_SPEAKER_RE.search(lead)
    if words[0].lower() in _PASSING_ON and sender is not None and sender.group(1) == subject:
        return True
    to = _TO_SPEAKER_RE.search(lead)  # "Send it to me!" -> "Send video to Bob" (session 17)
    if words[0].lower() in _SENDING and to is not None and to.group(1) == subject:
        return True
    rest = words[2:] if _base_verb(words[1]) else words[1:]
    return " ".join(rest).startswith(subject)


# the closed class of well-wishing formulae, when a fact opens with one ("Merry Christmas to Ana
# and the kids", "Good luck to Ana at the race")
_FORMULA_RE = re.compile(
    r"(?i)^(?:good\s+luck|best\s+of\s+luck|congrats|congratulations|safe\s+travels?|cheers\s+to|here['’]s\s+to"
    r"|best\s+wishes|get\s+well\s+soon|fingers\s+crossed|break\s+a\s+leg|bon\s+voyage|many\s+happy\s+returns)\b")


def is_wish(fact_text: str, source: str | None) -> bool:
    """A wish formula ("Happy early birthday!") or the dropped-subject repair made of one, or a
    fact that opens with a wish ("Merry Christmas to Ana and the kids")."""
    text = strip_lead(fact_text)
    if _WISH_RE.match(text) or _FORMULA_RE.match(text):
        return True
    src = strip_lead((source or "").strip())
    return bool(_WISH_RE.match(src)) and bool(_WISH_FACT_RE.match(fact_text))


def _stem(word: str) -> str:
    """A crude common stem of a verb's forms: "passing"/"passed"/"passes" -> "pass",
    "making"/"made" are not joined (irregular forms only match themselves)."""
    w = word.lower()
    for suf in ("ing", "ed", "es", "s"):
        if len(w) > len(suf) + 2 and w.endswith(suf):
            w = w[: -len(suf)]
            break
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiousl":  # "running" -> "runn" -> "run"
        w = w[:-1]
    return w.rstrip("e")


def _content(text: str) -> set[str]:
    return {_stem(w) for w in _WORD_RE.findall(text.lower()) if w not in _STOP and len(w) > 2}


def echoes_listener(source: str | None, speaker: str, previous: list[tuple[str | None, str]]) -> bool:
    """Whether `source` opens (after lead words and interjections) with a gerund or a
    subjectless past whose verb and object repeat the previous turn of another speaker
    ("Passing thirty people, ..." after "I passed thirty people ...", "Finished in under four
    hours!" after "I finished the marathon in under four hours")."""
    src = strip_lead((source or "").strip())
    m = _GERUND_START_RE.match(src) or _PAST_START_RE.match(src)
    if not m:
        return False
    last = next((t for who, t in reversed(previous) if who and who.strip() != speaker.strip()), None)
    if not last:
        return False
    # what the listener asked is not news: "Need help with X" answers "Need help with anything?"
    said = _content(" ".join(x for x in re.split(r"(?<=[.!?])\s+", last) if not x.rstrip().endswith("?")))
    verb, obj = _stem(m.group(1)), _content(m.group(2))
    shared = obj & said
    return (verb in said and bool(shared)) or len(shared) >= 2  # "ran" -> "Running ...": irregular past


def repeats_listener(fact_text: str, subject: str, speaker: str,
                     previous: list[tuple[str | None, str]]) -> bool:
    """Whether every content word of a fact (its subject's name left out) was said in the previous
    turn of another speaker, two at least: "Second in his class, wow!" after "He scored second in
    his class" gives "Second in Tyler's class", which only takes up the listener's news (their
    own turn stored it). Lead's merge fix, session 15."""
    last = next((t for who, t in reversed(previous) if who and who.strip() != speaker.strip()), None)
    if not last:
        return False
    said = _content(" ".join(x for x in re.split(r"(?<=[.!?])\s+", last) if not x.rstrip().endswith("?")))
    names = {_stem(w) for w in _WORD_RE.findall(subject.lower())}
    words = {w for w in _content(fact_text) if w not in names and w.rstrip("'’s") not in names}
    return len(words) >= 2 and words <= said


__all__ = ["echoes_listener", "imperative_to", "is_wish", "repeats_listener", "strip_lead"]

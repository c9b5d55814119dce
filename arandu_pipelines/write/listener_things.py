"""The speaker's own action on the listener's thing is news, not talk (session 16, branch addr16).

`fact_quality._addressee` drops a free-text fact about the speaker and the addressee alone: in a
chat that is a compliment or an echo of the listener's own turn ("Maria loves John's painting",
"Maria is glad John's son is okay", "John's mom sounds amazing"). But "I made your lasagna recipe
last week!" is something the speaker did: "Frank made Ana's lasagna recipe" is a fact a careful
person writes down (LoCoMo's annotators keep "X cooked Y's recipe"), and so are "I finally read
your book", "I planted the seeds you gave me", "We went to the trail you recommended".

`speaker_action(text, subject, addressee)` is true when the fact opens with the speaker (alone or
"S and others/Name") and then a past or present-perfect form of an action verb from `_VERBS`
("made", "has made", "has been using", "was trying"), optionally after an adverb ("finally",
"just"). Stance and perception verbs (love, like, admire, saw, heard, noticed, think, hope, miss,
glad, proud) are not in the table, so those facts stay dropped; present forms ("Frank reads
Ana's blog") are not news of a deed either. Still talk, and still dropped:
- a "try/start to <verb>" form ("Frank tried to call Ana");
- the listener as the direct object ("Frank made Ana laugh", "Frank visited Ana"): an action on
  the listener, not on their thing;
- the listener's words and posts as the thing ("Frank read Ana's message", `_TALK_THINGS`;
  "Frank started doing what Ana said"): that is the conversation itself.
Rule tables are data; no parse is needed (facts are third-person restatements, so the verb sits
right after the subject).
"""

from __future__ import annotations

import re

# base, past, participle, -ing: actions a speaker does with a thing (cook it, use it, go to it)
_TABLE = """
make made made making
cook cooked cooked cooking
bake baked baked baking
try tried tried trying
use used used using
read read read reading
plant planted planted planting
visit visited visited visiting
fix fixed fixed fixing
repair repaired repaired repairing
wear wore worn wearing
borrow borrowed borrowed borrowing
finish finished finished finishing
start started started starting
begin began begun beginning
go went gone going
buy bought bought buying
build built built building
paint painted painted painting
play played played playing
watch watched watched watching
follow followed followed following
book booked booked booking
order ordered ordered ordering
join joined joined joining
adopt adopted adopted adopting
bring brought brought bringing
grow grew grown growing
sew sewed sewn sewing
knit knitted knitted knitting
install installed installed installing
download downloaded downloaded downloading
hike hiked hiked hiking
climb climbed climbed climbing
drive drove driven driving
ride rode ridden riding
run ran run running
test tested tested testing
practice practiced practiced practicing
practise practised practised practising
clean cleaned cleaned cleaning
eat ate eaten eating
taste tasted tasted tasting
hang hung hung hanging
frame framed framed framing
print printed printed printing
"""
_ROWS = [line.split() for line in _TABLE.strip().splitlines()]
_PAST = frozenset(r[1] for r in _ROWS)
_PARTICIPLE = frozenset(r[2] for r in _ROWS)
_ING = frozenset(r[3] for r in _ROWS)
_TAKES_INFINITIVE = frozenset({"tried", "started", "began", "begun", "trying", "starting", "beginning"})
# the conversation's own things: reading the listener's message is talk, not news
_TALK_THINGS = frozenset({"message", "messages", "text", "texts", "post", "posts", "comment", "comments",
                          "email", "emails", "note", "notes", "reply", "replies", "words", "update", "updates"})
_SAID = "said|says|suggested|told|recommended|advised|meant|wrote"
_ADVERBS = r"(?:(?:finally|just|also|already|recently|actually|even|first|really|totally|then|eventually|once)\s+)*"
_WORD_RE = re.compile(r"[\w'’-]+")


def speaker_action(text: str, subject: str, addressee: str) -> bool:
    """True when `text` says `subject` did an action (past or present perfect) on something of
    `addressee`'s ("Frank made Ana's lasagna recipe", "Frank has been using the app Ana
    recommended"); false for stances, perceptions, present habits and talk (module docstring)."""
    head = re.match(rf"{re.escape(subject)}(?:\s+and\s+[\w'’-]+)?\s+", text)
    if head is None:
        return False
    rest = text[head.end():]
    if (been_to := re.match(rf"(?i)(?:has|have|had)\s+{_ADVERBS}been\s+to\b", rest)) is not None:
        return not _talk(rest[been_to.end():], addressee)  # "Frank has been to the cafe Ana recommended"
    m = re.match(rf"(?i)(?:(has|have|had)\s+(?:(been)\s+)?|(was|were)\s+)?{_ADVERBS}([\w'’-]+)\b\s*(\S*)", rest)
    if m is None:
        return False
    aux, been, prog, verb, after = m.group(1), m.group(2), m.group(3), m.group(4).lower(), m.group(5).lower()
    if been or prog:
        forms = _ING
    elif aux:
        forms = _PARTICIPLE
    else:
        forms = _PAST
    if verb not in forms:
        return False
    if verb in _TAKES_INFINITIVE and after == "to":
        return False  # "Frank tried to call Ana"
    if after.rstrip(",.!") == addressee.lower():
        return False  # "Frank made Ana laugh", "Frank visited Ana": the listener, not their thing
    return not _talk(rest[m.end(4):], addressee)


def _talk(rest: str, addressee: str = "") -> bool:
    """The thing is the conversation itself: the listener's message or post, or their words
    ("doing what Ana said": following the listener's advice echoes it; the deed, if any, is
    said in a clause of its own)."""
    if addressee and re.search(rf"(?i)\bwhat\s+{re.escape(addressee)}\s+(?:{_SAID})\b", rest):
        return True
    return any(w.lower() in _TALK_THINGS for w in _WORD_RE.findall(rest))

"""Consequence and commentary tails joined to a fact (session 18, tails18).

The extractor restates a chat sentence whole, so a second clause the speaker joined with ", so",
", which" or ", but" lands in the same fact: "Priya and Marcus got engaged in Lisbon over
Christmas, so life has been a whirlwind", "Marcus's team now calls Marcus Spider-Lead, which is a
terrible pun", "Lena's dad was a carpenter for forty years, so Lena's dad keeps trying to fix
Lena's cabinets". A careful person writes the news, leaves out the comment, and writes a second
piece of news about a named person as a fact of its own.

`split` reads the last tail first (a ", which" comment closes the sentence) and returns the head
and what becomes of each tail, by the rows of `ROWS` (link word, form of the tail, action):

| row            | link  | tail                                                  | action           |
|----------------|-------|-------------------------------------------------------|------------------|
| which_comment  | which | copula + an evaluation ("which is nice", "which is a   | cut              |
|                |       | terrible pun", "which has been great for ..."), a      |                  |
|                |       | reaction ("which made S tear up", "which really lifts  |                  |
|                |       | his mood"), a judgement ("which he finds hilarious")   |                  |
| so_comment     | so    | an impersonal subject (it, life, things, a gerund, "the| cut              |
|                |       | <noun>") with a copula ("so life has been a whirlwind",|                  |
|                |       | "so leaving is bittersweet", "so the house has been    |                  |
|                |       | full"), or no verb at all ("so no bottles this time")  |                  |
| so_talk        | so    | talk about the conversation ("so S thought S would     | cut              |
|                |       | check in", "so S will keep it short")                  |                  |
| so_thin        | so    | the subject's verb and a bare "it/that" ("so S believes | cut              |
|                |       | it")                                                   |                  |
| since_reason   | since | a present-tense state ("since we're close to the water")| cut              |
|                |       | after a head with no perfect or stretch of time        |                  |
|                |       | (session 18, polish18)                                 |                  |
| and_evaluation | and   | a pronoun, a verb of appearance or a copula and an     | cut              |
|                |       | evaluation ("and they sound better every single week") |                  |
| but_imperative | but   | an order to the listener ("but don't read it until     | cut              |
|                | (comma| Friday"), not a stative verb of an elided "I" ("but    |                  |
|                | optional) don't have time")                            |                  |
| named_news     | so,   | a name (the head's subject or another, "X's <noun>",   | a fact of its own|
|                | but   | "X and others") with a finite verb and no word that    | (the head stays) |
|                |       | points back into the head (he, her, it, there, that...) |                  |

Left whole: a ", which" that describes a noun ("which is what studios use", "which is like a
medic", "which Melanie uses for ..."); a ", so" tail whose subject is the head's with a modal (a
purpose: "so S will be home most nights" is why S did the head); a tail that points back into the
head ("so Priya's dad is helping Priya replace it"); a ", but" tail that is not a named subject's
own news (a contrast reads only with its head: "Anita was nervous, but she merged like a pro").
Regular expressions only; no parse.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from arandu_pipelines.write import lexicon as L
from arandu_pipelines.write import name_gender

# words that point back into the head: a tail with one of them cannot be read alone
_BACK_RE = re.compile(r"(?i)\b(?:he|she|him|her|his|hers|it|its|they|them|their|there|that|this|these|those|then)\b")
_COPULA = (r"(?:is|was|are|were|['’]s|has\s+been|had\s+been|have\s+been|feels|felt|seems|seemed|sounds|sounded"
           r"|looks|looked|has\s+to\s+be|must\s+be|will\s+be|would\s+be|is\s+going\s+to\s+be|gets|got)")
_ADVERBS = r"(?:(?:really|just|so|pretty|very|super|totally|absolutely|honestly|definitely|kind\s+of|sort\s+of|a\s+bit|" \
           r"a\s+little|quite|still|also|always|kinda|technically)\s+)*"
# words of an evaluation: what a comment on a whole clause says about it
_EVALUATIVE = frozenset([
    "great", "nice", "good", "bad", "terrible", "awful", "horrible", "painful", "bittersweet", "exciting", "hilarious",
    "funny", "crazy", "amazing", "awesome", "wild", "illegal", "cute", "chaotic", "fun", "weird", "strange", "sad",
    "cool", "lovely", "wonderful", "annoying", "frustrating", "exhausting", "perfect", "brilliant", "fantastic",
    "ridiculous", "insane", "hard", "tough", "easy", "scary", "stressful", "relaxing", "sweet", "fine", "rough",
    "surreal", "unreal", "adorable", "hectic", "nuts", "huge", "helpful", "worth", "whirlwind", "blast", "pun",
    "record", "joke", "relief", "dream", "nightmare", "mess", "lot", "ride", "treat", "bonus", "win", "first",
])
# a complement that describes a noun, not a clause: "which is what studios use", "like a medic"
_NOUN_DESCRIPTION = frozenset(["what", "where", "when", "why", "how", "like", "the", "my", "his", "her", "their",
                               "our", "its", "because", "about", "from", "in", "on", "at", "near", "why"])
_REACTION_RE = re.compile(
    r"(?i)^(?:really\s+|always\s+|totally\s+|just\s+)?(?:made|makes|make|lifts|lifted|brightens|brightened|cheers|cheered"
    r"|warms|warmed|breaks|broke|kills|killed|cracks|cracked)\s+(?:[A-Z][\w'’-]*|me|him|her|us|them|my|his|their"
    r"|our)\b")
_JUDGEMENT_RE = re.compile(r"(?i)^(?:[A-Z][\w'’-]*|he|she|i|we|they|everyone)\s+(?:still\s+|really\s+)?"
                           r"(?:finds?|found|thinks?\s+is|thought\s+was|calls?)\s+" + _ADVERBS + r"[\w-]+\s*[.!]*$")
_IMPERSONAL_RE = re.compile(
    r"(?i)^(?:it|life|things|everything|that|this|work|(?:the|my|our)\s+[a-z]+|[a-z]+ing)\s*" + _COPULA + r"\b")
_TALK_RE = re.compile(
    r"(?i)\b(?:check(?:ing)?\s+in|say\s+(?:hi|hello)|reach(?:ing)?\s+out|drop\s+(?:you\s+|\w+\s+)?a\s+line|catch\s+up"
    r"|keep\s+(?:it|this)\s+short|touch\s+base|write\s+(?:you|back))\b")
_FINITE = (r"(?:is|was|are|were|has|had|have|does|did|will|would|can|could|should|might|must|keeps|['’]s|['’]ll"
           r"|[a-z]{2,}(?:s|ed)|" + "|".join(sorted(L.IRREGULAR_PAST_EN)) + ")")
# the tail's subject: a name (up to two words), its owner's noun, or "Name and others"
_NAMED_RE = re.compile(
    r"^(?P<subj>(?!(?:The|I|It|This|That|There|Everyone|Nobody|Someone|Life)\b)[A-Z][\w-]*(?:\s+[A-Z][\w-]*)?"
    r"(?:['’]s\s+[a-z][\w-]*|\s+and\s+others)?)"
    r"(?:\s+(?:(?:also|now|still|just|already|finally|even|really|technically|officially)\s+)?|(?=['’]))(?P<verb>"
    + _FINITE
    + r")\b(?!['’])\s*(?P<rest>.*)$")
# what a contracted "'s" is followed by when it is "is/has" and not an owner's noun ("S's dad")
_AFTER_S_RE = re.compile(r"(?i)^(?:been|got|gotten|going|gonna|always|never|still|also|just|already|really|so|not|a|an"
                         r"|the|[a-z]+ing|[a-z]+ed)\b")
# a stance, not news: "is staying positive", "is sure", "is trying to stay upbeat"
_STANCE_RE = re.compile(
    r"(?i)^(?:is|['’]s|was|feels|felt)\s+(?:(?:still|so|really|just|trying\s+to\s+stay|staying|feeling|keeping)\s+)*"
    r"(?:positive|upbeat|optimistic|hopeful|strong|sure|determined|confident|grateful|thankful|excited|nervous|calm"
    r"|motivated|focused|happy|glad|fine|okay|ok)\b")
_MODAL_RE = re.compile(r"(?i)^(?:will|would|can|could|should|might|must|['’]ll)$")
_LINK_RE = re.compile(r",\s+(?P<link>so|which|but|since|and)\s+(?!(?:much|many|far|long|that|as|to|too|yes)\b)")
_THIN_RE = re.compile(r"(?i)^(?:believes?|knows?|gets?|got|gets|means|loves?|gets)\s+(?:it|that|this)\s*[.!]*$")


def _evaluation(comp: str) -> bool:
    """Whether a copula's complement is an evaluation: a few words with no determiner or
    preposition ("pretty exciting", "chaotic but cute"), one opening with an evaluative word
    ("great for S's headspace"), or "a/an/some (kind of) <evaluative> <noun>" ("a terrible pun")."""
    words = re.sub(_ADVERBS, "", comp.strip(" .!"), count=1).lower().split()
    if not words or words[0] in _NOUN_DESCRIPTION:
        return False
    if words[0] in _EVALUATIVE:
        return True
    if words[0] in ("a", "an", "some"):
        rest = [w for w in words[1:] if w not in ("kind", "sort", "of", "real", "bit")]
        return len(words) <= 5 and bool(rest) and (rest[0] in _EVALUATIVE or rest[-1] in _EVALUATIVE)
    return len(words) <= 4 and not set(words) & _NOUN_DESCRIPTION and not set(words) & {"a", "an", "to", "for", "with"}


def which_comment(tail: str, head: str, subject: str) -> bool:
    """", which is nice" / "which is a terrible pun" / "which made S tear up" / "which he finds
    hilarious": a comment on the whole head clause."""
    if re.match(r"(?i)^(?:are|were|have)\b", tail):
        return False  # "which were driving S crazy": a plural noun's relative clause, no comment
    m = re.match(r"(?i)^" + _ADVERBS + _COPULA + r"\s+(?P<comp>.+)$", tail)
    if m is not None:
        return _evaluation(m.group("comp"))
    return bool(_REACTION_RE.match(tail) or _JUDGEMENT_RE.match(tail))


# a verb among a verbless tail's words ("so no bottles this time" has none: "bottles" is a noun)
_VERB_WORD_RE = re.compile(r"(?i)\b(?:is|was|are|were|has|had|have|will|can|could|did|does|do|[a-z]{2,}ed)\b")


def so_comment(tail: str, head: str, subject: str) -> bool:
    """", so life has been a whirlwind", "so leaving is bittersweet", "so no bottles this time": a
    consequence with no one's news in it."""
    m = _IMPERSONAL_RE.match(tail)
    if m is not None:
        comp = tail[m.end():].strip()
        first = comp.split(" ", 1)[0].lower() if comp else ""
        return first not in ("on", "in", "at", "from", "going", "getting", "coming", "starting")
    words = tail.strip(" .!").lower().split()
    return len(words) <= 5 and words[0] == "no" and words[1:2] != ["one"] and not _VERB_WORD_RE.search(tail)


def so_talk(tail: str, head: str, subject: str) -> bool:
    """", so S thought S would check in": the reason for talking, no fact."""
    return bool(_TALK_RE.search(tail))


def so_thin(tail: str, head: str, subject: str) -> bool:
    """", so S believes it": the speaker's reaction to the listener, no content of its own."""
    m = _NAMED_RE.match(tail)
    return m is not None and bool(_THIN_RE.match(f"{m.group('verb')} {m.group('rest')}".strip()))


# a present-tense copula after the reason's subject, a person: "since we're close to the water" (an
# "it" reason often says what the thing is: "since it's her favorite bird" stays)
_REASON_STATE_RE = re.compile(
    r"^(?:(?:they|he|she|[A-Z][\w-]*(?:\s+and\s+others)?)\s+(?:is|are)|(?:they|he|she)['’](?:s|re))"
    r"\s+(?!(?:been|gone|going|getting|having)\b)")
# a perfect or a stretch of time in the head: its ", since" is a point in time ("has known them for
# four years, since she moved"), news to keep
_SINCE_TIME_HEAD_RE = re.compile(r"(?i)\b(?:has|have|had|['’]s\s+been|['’]ve|for\s+\w+\s+(?:years?|months?|weeks?|days?))\b")


def since_reason(tail: str, head: str, subject: str) -> bool:
    """", since we're close to the water": the speaker's reason for a named choice, a state in the
    present ("since Lena and others are close to the water") after a head with no perfect and no
    stretch of time (a ", since" there is a date: "has known her for years, since she moved")."""
    return bool(_REASON_STATE_RE.match(tail)) and not _SINCE_TIME_HEAD_RE.search(head)


# a pronoun and a verb of appearance or a copula: ", and they sound better every week"
_AND_EVALUATION_RE = re.compile(
    r"(?i)^(?:they|it|he|she)(?:\s+(?:sound|sounds|look|looks|seem|seems|feel|feels|is|are|was|were|get|gets)|['’](?:s|re))"
    r"\s+(?P<comp>.+)$")


def and_evaluation(tail: str, head: str, subject: str) -> bool:
    """", and they sound better every single week": the speaker's verdict on what the head did,
    with the pronoun the verdict is about and an evaluation (`_evaluation`) as all it says."""
    m = _AND_EVALUATION_RE.match(tail)
    if m is None:
        return False
    words = re.sub(_ADVERBS, "", m.group("comp").strip(" .!"), count=1).lower().split()
    # an evaluative word first: "and they are brothers" says what they are, no verdict
    return bool(words) and words[0] in _EVALUATIVE | _VERDICTS and _evaluation(m.group("comp"))


# comparatives and praise that open a verdict besides `_EVALUATIVE`'s words
_VERDICTS = frozenset(["better", "worse", "gorgeous", "beautiful", "incredible", "delicious", "stunning", "fantastic",
                       "happier"])


@dataclass(frozen=True)
class Row:
    """One tail form: the link words it follows and `test(tail, head, subject)`; `cut` rows drop
    the tail, the `named_news` row makes it a fact."""

    name: str
    links: frozenset[str]
    test: Callable[[str, str, str], bool]


ROWS: tuple[Row, ...] = (
    Row("which_comment", frozenset(["which"]), which_comment),
    Row("so_comment", frozenset(["so"]), so_comment),
    Row("so_talk", frozenset(["so"]), so_talk),
    Row("so_thin", frozenset(["so"]), so_thin),
    Row("since_reason", frozenset(["since"]), since_reason),
    Row("and_evaluation", frozenset(["and"]), and_evaluation),
)


@dataclass(frozen=True)
class Cut:
    """A fact cut at its tails: the `head`, and the `news` tails that became facts of their own
    as (subject, text); `kinds` names the rows that fired (for the audit)."""

    head: str
    news: tuple[tuple[str, str], ...] = ()
    kinds: tuple[str, ...] = ()


def _named_news(link: str, head: str, tail: str, subject: str) -> tuple[str, str] | None:
    """A tail that is news about a named subject of its own: (subject, text), or None."""
    if link not in ("so", "but"):
        return None
    m = _NAMED_RE.match(tail)
    if m is None or len(m.group("rest").split()) < 2 or _BACK_RE.search(tail):
        return None
    if not _opens_with_name(head, subject) or not _full(head, subject) or not _full(m.group("rest"), subject):
        return None
    verb = m.group("verb").strip()
    if verb in ("'s", "’s") and not _AFTER_S_RE.match(m.group("rest")):
        return None  # "Lena's dad won't listen": an owner's noun, no contraction
    if _MODAL_RE.match(verb) or re.search(r"(?i)\b(?:will|would|can|could|['’]ll)\b", tail):
        return None  # "so S will be home most nights": a purpose, one fact with its head
    if _STANCE_RE.match(f"{verb} {m.group('rest')}"):
        return None  # "..., but S is staying positive": a stance reads only with what it answers
    if re.search(r"(?i)\b(?:so|which|because|but)\b", m.group("rest")):
        return None  # a tail with a link of its own: too long to stand alone
    who = m.group("subj")
    owner = re.match(r"^([A-Z][\w-]*(?:\s+[A-Z][\w-]*)?)(?:['’]s|\s+and\s+others)", who)
    name = owner.group(1) if owner else who
    if verb in ("'s", "’s"):
        verb = "has" if re.match(r"(?:been|got|gotten)\b", m.group("rest")) else "is"
    text = f"{who} {verb} {m.group('rest')}".strip(" .!")
    return name, text


def _head_ok(head: str, subject: str) -> bool:
    """A head of at least three words that still names the fact's subject."""
    return len(head.split()) >= 3 and subject in head


# words that say nothing of their own: a half with fewer than two other words is too thin to stand
_EMPTY = frozenset(["a", "an", "the", "is", "was", "are", "were", "be", "been", "has", "have", "had", "do", "does",
                    "did", "it", "its", "to", "of", "and", "or", "so", "very", "really", "just", "too", "also", "now",
                    "still", "his", "her", "their", "them", "he", "she", "they", "all", "others"])


def _full(text: str, subject: str) -> bool:
    """Two or more words besides the subject's name and empty words: the half reads as a fact
    alone ("Olive is the smallest" does not: the contrast with its tail was the news)."""
    names = set(subject.split())
    return sum(1 for w in re.findall(r"[\w'’-]+", text) if w not in names and w.lower() not in _EMPTY
               and re.sub(r"['’]s$", "", w) not in names) >= 2


_NOT_NAMES = frozenset(["It", "That", "This", "There", "What", "He", "She", "They", "We", "I", "Here", "Who"])


def _opens_with_name(head: str, subject: str) -> bool:
    """The head opens with a person's or pet's name: the fact's subject, "<Name>'s ...", or a
    first name the lists know ("Lost S's job ...", "Sometimes it's hard ...", "Losing S's job was
    hard" open with no name: their clause is no statement about anyone to split from)."""
    head = re.split(r",\s+(?:but|and|so)\s+", head)[-1]  # "It's going well, but S twisted ...": S's clause
    first = re.match(r"[A-Z][\w-]*", head)
    if first is None:
        return False
    word = first.group(0)
    if word in _NOT_NAMES:
        return False
    return head.startswith(subject) or head[len(word):].startswith(("'s", "’s")) \
        or name_gender.listed(word.lower())


# "..., but don't read it until Friday": an order to the listener after the speaker's news; the
# comma may be gone with a date cut before it ("will email it this week, but" -> "will email it but")
_BUT_IMPERATIVE_RE = re.compile(r"(?:,\s+|\s+)but\s+(?:please\s+)?(?:don['’]t|do\s+not|never)\s+(?P<verb>[a-z]+)\b")
# verbs whose "don't" after "but" is the speaker's own elided subject, no order ("... but don't
# have time", "but don't know how")
_STATIVE = frozenset(["have", "know", "need", "want", "like", "love", "remember", "think", "feel", "mind", "own",
                      "see", "understand", "care", "believe", "recall", "agree", "plan"])


def but_imperative(text: str, subject: str) -> str | None:
    """`text` without a closing ", but don't <verb> ..." order to the listener, or None."""
    m = _BUT_IMPERATIVE_RE.search(text)
    if m is None or m.group("verb") in _STATIVE or not _head_ok(text[:m.start()], subject):
        return None
    verb = m.group("verb")
    if re.search(r"(?:[^s]s|ed)$", verb):
        return None  # "but never watches the finale": the subject's own verb, no order
    if text[:m.start()].count('"') % 2 or re.search(r"\b(?:so|which|because)\b", text[m.end():]):
        return None
    return text[:m.start()].rstrip(" ,")


def split(text: str, subject: str) -> Cut | None:
    """The fact `text` (about `subject`) with its commentary tails cut and its news tails split
    off, last tail first; None when nothing changes. A closing order to the listener ("but don't
    read it until Friday", `but_imperative`) is cut first."""
    kinds: list[str] = []
    ordered = but_imperative(text, subject)
    if ordered is not None:
        cut = split(ordered, subject)
        return Cut(ordered, (), ("but_imperative",)) if cut is None else Cut(cut.head, cut.news, ("but_imperative", *cut.kinds))
    head = text
    news: list[tuple[str, str]] = []
    for m in reversed(list(_LINK_RE.finditer(text))):
        if m.start() > len(head):
            continue
        before, tail, link = head[:m.start()], head[m.end():].strip(), m.group("link")
        if not _head_ok(before, subject) or head.count('"') % 2:
            continue
        row = next((r for r in ROWS if link in r.links and r.test(tail, before, subject)), None)
        if row is not None:
            head, kinds = before, [*kinds, row.name]
            continue
        fact = _named_news(link, before, tail, subject)
        if fact is not None:
            head, news, kinds = before, [fact, *news], [*kinds, "named_news"]
            continue
    if head == text:
        return None
    return Cut(head.rstrip(" ,"), tuple(news), tuple(kinds))


__all__ = ["ROWS", "Cut", "Row", "and_evaluation", "since_reason", "so_comment", "so_talk", "so_thin", "split", "which_comment"]

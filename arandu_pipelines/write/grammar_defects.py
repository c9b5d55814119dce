"""Grammar defects of chat sentences that the fact rules mis-read (session 13, branch grammar13b).

Each helper recognises one general English form that is not a statement about the speaker, or a
part of a statement that is not the statement, so `extract_rules._process_sentence` can drop or
cut it before any rule conjugates it:

- laughter ("Ha", "Hah", "Haha", "Hehe", "Lol") is an interjection, never a name: written at the
  start of a sentence it looks like a capitalised word, and "lol Ha! The beagle in him came out"
  made "Ha" a person and the antecedent of "him";
- an inverted question ("Do I know anything about cars.", "Haha did you see that") is a question
  even without "?": chat drops the mark, and a laughter or interjection prefix hides the auxiliary
  from the first-word question test;
- a trailing hedge clause ("..., I guess", "... I think", "I suppose") qualifies the statement
  and is not part of it ("Ana loves hiking, Ana guesses");
- "shoutout to X" thanks X (a speech act toward a third person), it is not a fact about the
  speaker; dropped like "thanks" (the message text stays searchable);
- a verbless fragment opening with a preposition ("Under my goal!", "With my kids at the beach!")
  has no predicate a fact can carry;
- a sentence-initial "like" before an amount ("Like 3 hours total lol") is the hedge "about",
  not the verb "like": the dropped-subject restoration must not read it as "S likes 3 hours".

All are regular expressions over one sentence (no parse): they run on every English sentence.
"""

from __future__ import annotations

import re

from arandu_pipelines.write import lexicon as L

# laughter written out: ha, hah, haha, hahah, ahaha, heh, hehe, hihi(hi), lol, lmao, lmfao, rofl
LAUGH_WORD_RE = re.compile(
    r"(?i)^(?:a?(?:ha)+h?|(?:he){2,}h?|heh|(?:hi){2,}|lo+l|lmf?ao+|rofl)$")
# interjections and laughter that may open a sentence before its real first word
_OPENER = f"(?:{L.lead_alternation('laughter', 'interjection', 'answer', 'filler', exclude=('pt',), elongate=True)})"
_OPENERS_RE = re.compile(rf"(?i)^(?:{_OPENER}\b[\s,!.…-]*)+")
# auxiliary + personal pronoun at the start: the inverted (yes/no) question form
_INVERTED_RE = re.compile(
    r"(?i)^(?:do|does|did|am|is|are|was|were|have|has|had|can|could|would|will|should|shall|may|might)"
    r"(?:n['’]t)?\s+(?:i|you|we|they|he|she|it|u|ya)\b")
# a hedge clause at the very end of a sentence ("..., I guess", "... I think lol")
_HEDGE_RE = re.compile(
    r"(?i)(?<!what )(?<!that )(?<!how )(?<!if )(?<!than )(?<!as )(?<!so )(?<!do )"
    r"\bi\s+(?:guess|think|suppose|reckon)\s*[.!…~]*\s*$")
_SHOUTOUT_RE = re.compile(r"(?i)^(?:big\s+|huge\s+|special\s+)?shout[\s-]?outs?\s+(?:to|for)\b")
_PREPOSITIONS = (r"(?:under|over|in|on|at|with|for|from|into|onto|behind|near|after|before|during|without|inside"
                 r"|outside|across|through|around|above|below|beside|between|by|past|beyond|toward|towards)")
_PP_START_RE = re.compile(rf"(?i)^{_PREPOSITIONS}\s+")
_SUBJECT_WORD_RE = re.compile(
    r"(?i)(?<![\w'’])(?:i|i['’]m|i['’]ve|i['’]d|i['’]ll|im|we|we['’]re|he|she|they|you|it|it['’]s|there['’]s)(?![\w'’])")
# "like" the hedge: before a number or an amount ("Like 3 hours", "like a couple of days", "like half")
_LIKE_AMOUNT_RE = re.compile(
    r"(?i)^like\s+(?:\d|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty"
    r"|thirty|forty|fifty|a\s+hundred|hundreds|a\s+thousand|thousands|half|twice|a\s+couple|a\s+few"
    r"|a\s+dozen|dozens|a\s+million|an?\s+(?:hour|minute|day|week|month|year)s?)\b)")


# verbs that, after "to", open an infinitive ("I want to live here and help others": "help" belongs
# to the infinitive, not to "I", and stays a base form). Words that are as often a noun after "to"
# ("to work", "to school", "to church") are left out: "I go to work and love it" keeps "loves".
INFINITIVE_VERBS = frozenset({
    "live", "study", "love", "like", "want", "need", "go", "have", "play", "teach", "write", "enjoy", "visit",
    "share", "see", "start", "open", "learn", "become", "be", "make", "do", "help", "keep", "try", "find", "build",
    "create", "give", "take", "spend", "save", "show", "grow", "feel", "think", "say", "tell", "ask", "bring",
    "buy", "pay", "meet", "read", "watch", "travel", "explore", "spread", "support", "change", "raise", "adopt",
    "paint", "finish", "express", "celebrate", "connect", "inspire", "encourage", "let", "put", "get", "sing",
    "cook", "move", "join", "stay", "focus", "follow", "hang", "relax", "rest", "sell", "run",
})


def is_laughter(word: str) -> bool:
    """True for a written laugh ("Ha", "hahaha", "Hehe", "lol"): never a name or an antecedent."""
    return bool(LAUGH_WORD_RE.match(word.strip(" !.,?…")))


def strip_openers(text: str) -> str:
    """The sentence without its leading laughter and interjections ("Haha do I ..." -> "do I ...")."""
    return _OPENERS_RE.sub("", text.lstrip())


def inverted_question(text: str) -> bool:
    """The sentence, past any laughter or interjection, is an auxiliary-first question."""
    return bool(_INVERTED_RE.match(strip_openers(text)))


def hedge_start(text: str) -> int | None:
    """Where a trailing hedge clause begins ("I love hiking, I guess." -> before ", I guess"),
    or None; never the whole sentence (a bare "I guess" is left to the other checks)."""
    m = _HEDGE_RE.search(text)
    if not m or not strip_openers(text[: m.start()]).strip(" ,;.!"):
        return None
    return len(text[: m.start()].rstrip(" ,;"))


def is_shoutout(text: str) -> bool:
    """"Shoutout to my coach": a thanks to someone, not a fact about the speaker."""
    return bool(_SHOUTOUT_RE.match(strip_openers(text)))


def verbless_pp(text: str, finite: re.Pattern[str]) -> bool:
    """A fragment that opens with a preposition and has no subject word and no finite verb
    (`finite`: extract_rules' finite-verb pattern): "Under my goal!"."""
    t = strip_openers(text)
    if not _PP_START_RE.match(t) or len(t.split()) > 8:
        return False
    return not _SUBJECT_WORD_RE.search(t) and not finite.search(t.replace("'s ", " ").replace("’s ", " "))


def like_amount(text: str) -> bool:
    """A sentence-initial "like" before an amount is the hedge "about" ("Like 3 hours total")."""
    return bool(_LIKE_AMOUNT_RE.match(strip_openers(text)))


__all__ = ["INFINITIVE_VERBS", "LAUGH_WORD_RE", "hedge_start", "inverted_question", "is_laughter", "is_shoutout", "like_amount",
           "strip_openers", "verbless_pp"]

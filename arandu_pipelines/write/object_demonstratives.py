"""What an object "that <noun>" or "the first two" is: the one phrase the talk said just before.

write/demonstrative_subjects.py names a SUBJECT "That/The <noun>"; write/object_it.py and
write/object_plural.py an object "it" / "them". Two object forms stayed that say nothing read
alone in get_all():

- a demonstrative noun phrase that is not the subject: "You're going to crush that goal" after
  "My goal for the race is to finish under two hours" gives "Howard is confident Nadia will crush
  that goal"; which goal is in the other speaker's sentence;
- a count with no noun: "How are the cooking classes going?" -> "We did the first two" gives
  "Sam and Ana did the first two".

This module runs on the finished facts after object_it, with the same care (a wrong name is worse
than the pronoun):

- "that/this/those/these [adjectives] <noun>": the fact keeps the phrase as the source sentence
  says it, the determiner is the noun's own (not "that" as a conjunction), the noun is not the
  subject of its sentence (demonstrative_subjects' job), not a time ("that day", "this summer": a
  date is another module's question), not vague ("that thing"); the antecedent is the ONE noun
  phrase with the same head noun (singular or plural alike) in the message before the phrase's
  sentence or in the other speaker's previous turn, and it must say more than the noun: a
  possessive, a modifier or a prepositional phrase ("my goal for the race", "the quilt Grandma
  made" is cut at its relative clause: "the quilt"). "our/his/her/their" phrases compete and are
  never named (whose that is is another module's question); two phrases with that noun leave the
  fact alone.
- "the first/last/next/other <number>" with no noun after it: the ONE plural thing noun phrase
  (write/object_plural.py's candidates: no people, pets, "our X") of the other speaker's last
  question, or of the message before it, gets its noun: "the first two cooking classes".

Rendered as object_it renders: "a/the X" -> "the X", "my X" -> "<speaker>'s X" (the other
speaker's "my" is theirs, their "your" the speaker's). English only; without a spaCy pipeline
nothing changes. Cost: a regex prefilter on the facts; a message parse only where a fact holds the
form (the parse is shared through write/parses.py with the other stages).
"""

from __future__ import annotations

import re
from typing import Any

from arandu_pipelines.write import object_plural
from arandu_pipelines.write.antecedents import _VAGUE, MAX_PARSE_CHARS
from arandu_pipelines.write.org_antecedents import _TIME_NOUNS
from arandu_pipelines.write.types import ExtractedFact, ExtractionContext

STAGE = "object_demonstratives"
_DEMO = re.compile(r"(?i)(?<=\s)(that|this|those|these)((?:\s+[a-z-]+){1,3})")
_COUNT = re.compile(r"(?i)\bthe (first|last|next|other) (two|three|four|five|couple)\b(?!\s+(?:of\b|[a-z-]+s\b))")
_OWN = frozenset({"my", "your"})
_DEFINITE = frozenset({"a", "an", "the"})
_WHOSE = frozenset({"our", "his", "her", "their", "its", "whose"})
_MORE_TIME = frozenset({"time", "times", "moment", "moments", "point", "stage", "season", "semester", "summer",
                        "winter", "spring", "fall", "autumn", "weekend", "weekends", "days", "nights", "years"})
# words after "that/this" that start no noun phrase of a thing: pronouns, function words, degree words
_NOT_NOUNS = frozenset({
    "i", "you", "he", "she", "we", "they", "it", "is", "was", "are", "were", "will", "would", "can", "could", "has",
    "had", "have", "the", "a", "an", "to", "my", "your", "his", "her", "our", "their", "its", "one", "much", "many",
    "way", "kind", "sort", "so", "too", "all", "and", "but", "or", "if", "in", "on", "at", "for", "with", "of",
    "really", "very", "just", "not", "there", "here", "this", "that", "me", "him", "them", "us", "far", "long",
    "big", "bad", "good", "hard", "easy", "often", "quickly", "fast", "soon", "late", "early", "whole"})
_MAX_WORDS = 7  # a longer antecedent is a clause, not a name


def _singular(low: str) -> str:
    return low[:-3] + "y" if low.endswith("ies") else low.removesuffix("s")


def _targets(facts: list[ExtractedFact]) -> list[tuple[ExtractedFact, re.Match[str], str]]:
    """(fact, match, form) for each fact with one demonstrative object or a count with no noun."""
    out: list[tuple[ExtractedFact, re.Match[str], str]] = []
    for f in facts:
        if not f.source_text:
            continue
        count = list(_COUNT.finditer(f.fact_text))
        if len(count) == 1:
            out.append((f, count[0], "count"))
            continue
        demo = [m for m in _DEMO.finditer(f.fact_text) if m.start() > 0 and _noun_may_follow(m.group(2))]
        if len(demo) == 1:
            out.append((f, demo[0], "demo"))
    return out


def _noun_may_follow(words: str) -> bool:
    """The word after the determiner may start a thing's noun phrase (the prefilter: "that he", "this
    summer", "that much" never reach the parse)."""
    first = words.split()[0].lower()
    return first not in _NOT_NOUNS and first not in _TIME_NOUNS | _MORE_TIME and first.removesuffix("s") not in _TIME_NOUNS


def _phrase(root: Any) -> list[Any]:
    """The noun phrase of `root` up to its relative clause: "my goal for the race"."""
    cut = {t.i for c in root.children if c.dep_ in ("relcl", "acl", "advcl", "punct", "cc", "conj", "appos")
           for t in c.subtree}
    words = [t for t in root.subtree if t.i not in cut and not t.is_space]
    while words and words[-1].is_punct:
        words = words[:-1]
    return words


def _same_head(tokens: list[Any], noun: str) -> list[tuple[list[Any], bool]]:
    """Every noun phrase of `tokens` whose head is `noun`: (words, usable). Not usable: a
    demonstrative or "our/his" phrase (competes), a bare "the <noun>" (says no more)."""
    want = _singular(noun.lower())
    out: list[tuple[list[Any], bool]] = []
    for t in tokens:
        if t.pos_ not in ("NOUN", "PROPN") or _singular(t.lower_) != want or t.dep_ == "compound":
            continue
        words = _phrase(t)
        first = words[0].lower_ if words else ""
        extra = [w for w in words if w.i != t.i and w.lower_ not in _DEFINITE]
        usable = first in _OWN | _DEFINITE and bool(extra) and len(words) <= _MAX_WORDS \
            and words[0].dep_ in ("det", "poss")
        out.append((words, usable and first not in _WHOSE))
    return out


def _render(words: list[Any], owner: str, listener: str) -> str | None:
    """The phrase as the current fact says it (object_it's rendering)."""
    from arandu_pipelines.write.object_it import _joined

    first = words[0].lower_
    rest = " ".join(_joined(words[1:]))
    if not rest:
        return None
    if first in _DEFINITE:
        return f"the {rest}"
    who = owner if first == "my" else listener
    return f"{who}'s {rest}" if first in _OWN and who else None


def _other_turn(ctx: ExtractionContext, speaker: str) -> tuple[str, str] | None:
    """(the other speaker, their previous turn's text up to the parse limit): object_it's reading."""
    from arandu_pipelines.write.object_it import _other_turn as other_turn

    return other_turn(ctx, speaker, whole=True)


def _source_token(doc: Any, m: re.Match[str]) -> tuple[Any, int] | None:
    """(the determiner token of the fact's phrase in the message, how many of the match's words
    reach its noun), when the determiner is the noun's own and the noun is no subject, no time, no
    vague word: "crush that goal", "gave me that exact speech" (not "I think that goals matter",
    not "That goal is ...", not "that day")."""
    det, words = m.group(1).lower(), m.group(2).lower().split()
    for t in doc:
        if t.lower_ != det or t.dep_ != "det" or t.head.i <= t.i or t.head.i - t.i > len(words):
            continue
        head = t.head
        said = [w.lower_ for w in doc[t.i + 1: head.i + 1]]
        if said != words[: len(said)] or head.pos_ != "NOUN":
            continue
        if head.dep_ in ("nsubj", "nsubjpass") or any(c.dep_ in ("relcl", "acl") for c in head.children) \
                or head.lower_ in _TIME_NOUNS | _MORE_TIME | _VAGUE or _singular(head.lower_) in _TIME_NOUNS:
            return None  # "that book you recommended" says which; "that day" is a date's question
        return t, len(said)
    return None


def _demo_antecedent(doc: Any, tok: Any, other_doc: Any, noun: str) -> tuple[list[Any], bool] | None:
    """The one usable phrase with the noun: the message before the phrase's sentence, else the
    other speaker's turn; None when none or two."""
    before = [t for t in doc if t.i < tok.sent.start]
    for n in range(2):
        other = other_doc() if n else None
        tokens = before if n == 0 else (list(other) if other is not None else [])
        cands = _same_head(tokens, noun)
        if cands:
            texts = {" ".join(w.lower_ for w in c[0]) for c in cands}
            return cands[0] if len(texts) == 1 and cands[0][1] else None
    return None


def _count_antecedent(doc: Any, at: int, other_doc: Any) -> tuple[list[Any], bool] | None:
    """The one plural thing of the message before the count, else of the other speaker's question."""
    before = [t for t in doc if t.idx < at]
    for n in range(2):
        other = other_doc() if n else None
        tokens = before if n == 0 else [] if other is None else [
            t for s in list(other.sents)[-2:] if s.text.rstrip().rstrip("!").endswith("?") for t in s]
        cands = object_plural.stretch(tokens, lambda t: False) if tokens else []
        if cands:
            return cands[0] if len(cands) == 1 and cands[0][1] else None
    return None


def _count_noun(words: list[Any]) -> str:
    """The plural phrase without its determiner and quantity words: "the catering tastings" ->
    "catering tastings"; a possessive or number stays out (the count says how many)."""
    keep = [w for w in words if w.dep_ not in ("det", "poss", "nummod", "case", "predet")
            and w.lower_ not in object_plural._QUANTITY]
    from arandu_pipelines.write.object_it import _joined

    return " ".join(_joined(keep))


def apply(facts: list[ExtractedFact], text: str, ctx: ExtractionContext) -> int:
    """Name each fact's demonstrative object or noun-less count where the talk says what it is;
    returns how many facts changed."""
    targets = _targets(facts)
    if not targets:
        return 0
    from arandu_pipelines.write.parses import PARSE, for_context

    parses = for_context(ctx, ctx.spacy_model)
    doc = parses.doc(text[:MAX_PARSE_CHARS], PARSE, STAGE)
    if doc is None:
        return 0
    speaker = (ctx.speaker_name or "").strip()
    listener = (ctx.addressee or "").strip()
    turn = _other_turn(ctx, speaker)
    other: list[Any] = []  # the other speaker's turn, parsed when a fact needs it

    def other_doc() -> Any:
        if not other:
            other.append(parses.doc(turn[1], PARSE, STAGE) if turn is not None else None)
        return other[0]

    changed = 0
    for f, m, form in targets:
        named = _name(doc, other_doc, m, form, speaker, listener, turn)
        if named is None:
            continue
        said, end = named
        if said.lower() not in f.fact_text.lower():
            from arandu_pipelines.write.readability import pronouns

            f.fact_text = pronouns(f.fact_text[: m.start()] + said + f.fact_text[end:], f.subject,
                                   source=f.source_text)
            changed += 1
    return changed


def _name(doc: Any, other_doc: Any, m: re.Match[str], form: str, speaker: str, listener: str,
          turn: tuple[str, str] | None) -> tuple[str, int] | None:
    """(the words that replace the match, where the replaced span ends in the fact), or None."""
    if form == "count":
        at = doc.text.lower().find(m.group(0).lower())
        if at < 0:
            return None
        found = _count_antecedent(doc, at, other_doc)
        noun = _count_noun(found[0]) if found is not None else ""
        return (f"{m.group(0)} {noun}", m.end()) if noun else None
    src = _source_token(doc, m)
    if src is None:
        return None
    tok, n = src
    found = _demo_antecedent(doc, tok, other_doc, tok.head.lower_)
    if found is None:
        return None
    in_message = found[0][0].doc is doc
    owner, mine = (speaker, listener) if in_message else ((turn[0] if turn else ""), speaker)
    said = _render(found[0], owner, mine)
    spans = [w.end() for w in re.finditer(r"\S+", m.group(2))]
    end = m.start(2) + spans[n - 1]
    return (said, end) if said else None

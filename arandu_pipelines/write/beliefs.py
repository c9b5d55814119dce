"""A belief the speaker states in a later clause: "..., but I'm sure investing my time will pay off".

The restating rules keep a sentence's first clause; a second clause opened by a coordinator or a
dash ("It's been tough going since I lost my job, but I'm sure investing my time in my business
will pay off eventually"; "... - I'm still thinking that counseling is the way to go") is cut
away with the clause's tail, and with it what the speaker believes or is weighing. This module
reads that clause anywhere in a sentence and keeps it as "S believes <clause>" (first person ->
the speaker, second -> the addressee, by extract_rules' rewriter).

| sentence part                                            | fact                            |
|----------------------------------------------------------|---------------------------------|
| I'm (still / so / pretty) sure / certain / convinced /   | S believes <clause>             |
|   confident (that) <clause>; I'm (still) thinking that   |                                 |
|   <clause>; I (really) believe / know (that) <clause>    |                                 |

Kept only when the clause is about something named: at least 3 content words besides the
names, not a bare pronoun subject ("I'm sure it'll be worth it", "I'm sure we'll make it",
"I'm sure the rest will follow" say nothing one would file), and not a guess about the listener
("I'm sure you feel great"). One fact per message; English only; a clause another fact of the
message already restates is skipped.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from arandu_pipelines.write.language import detect_language
from arandu_pipelines.write.types import (
    ExtractedFact,
    ExtractionContext,
    ExtractionResult,
)

# (clause, speaker, addressee) -> the clause in the third person: extract_rules' rewriter
Rewriter = Callable[[str, str, str], str]

_BELIEF_RE = re.compile(
    r"(?:^|[,;:]\s+(?:but|and|so)?\s*|\s[-–—]+\s+|\bbut\s+)"
    r"(?:i['’]?m|i\s+am)\s+(?:(?:still|so|pretty|really|totally|absolutely|just)\s+)*"
    r"(?:(?:sure|certain|convinced|confident|positive)(?:\s+that)?|thinking\s+that)\s+"
    r"(?P<x>[^.!?;]+)",
    re.IGNORECASE)
# subjects that name nothing to keep, and guesses about the listener
_EMPTY_SUBJECT_RE = re.compile(
    r"^(?:it|it['’]ll|it['’]s|that|this|that['’]ll|this['’]ll|we|we['’]ll|we['’]re|they|they['’]ll|the\s+rest"
    r"|everything|things|you|you['’]ll|you['’]re|your|u)\b", re.IGNORECASE)
_STOP = frozenset(["a", "an", "the", "and", "or", "of", "to", "in", "on", "at", "by", "for", "with", "from",
                   "as", "is", "are", "was", "were", "be", "been", "will", "would", "can", "it", "its", "this",
                   "that", "them", "they", "so", "very", "really", "just", "also", "too", "all", "up", "out",
                   "if", "i", "me", "my", "we", "us", "our", "you", "your", "he", "she", "his", "her", "way"])


def _content(text: str, *names: str) -> int:
    skip = {w.lower() for n in names for w in re.findall(r"[\w'’]+", n)}
    return sum(1 for w in re.findall(r"[\w'’-]+", text.lower())
               if w not in _STOP and w.removesuffix("'s").removesuffix("’s") not in skip and len(w) > 2)


def apply(result: ExtractionResult, text: str, ctx: ExtractionContext, *, sentences: list[str],
          rewrite: Rewriter) -> list[ExtractedFact]:
    """Add at most one "S believes <clause>" fact for `text` to `result`; returns what was added."""
    speaker = (ctx.speaker_name or "").strip()
    addressee = (ctx.addressee or "").strip()
    if not speaker or detect_language(text) != "en":
        return []
    for sentence in sentences:
        if "?" in sentence or sentence.startswith("["):
            continue
        m = _BELIEF_RE.search(sentence)
        if not m:
            continue
        clause = re.split(r"\s+[-–—]+\s+|,\s+(?:but|and\s+it|which)\s+", m["x"], maxsplit=1)[0].strip()
        clause = clause.rstrip(",… ").strip()
        if _EMPTY_SUBJECT_RE.match(clause) or _content(clause, speaker, addressee) < 3:
            continue
        said = rewrite(clause, speaker, addressee or speaker)
        fact = ExtractedFact(speaker, f"{speaker} believes {said}", None, None, "specific_event", 0.8,
                             mentions=[addressee] if addressee and addressee in said else [],
                             source_text=sentence)
        result.facts.append(fact)
        return [fact]
    return []

"""Excerpts of quoted messages: the sentences that match the query, so more turns fit the context.

A chat turn often says one relevant thing among greetings, other news and a photo caption
("Thanks, Mel! ... Here's a pic from when we met up last week! [shared a photo: ...]"). The
context's reader sees its first few hundred words, and a turn longer than the snippet budget was
cut after its opening, often before the sentence the question is about. An excerpt of such a turn
takes sentences by priority until the budget is spent: those holding query words (idf-weighted,
as the lexical signal weighs them; for a "when" question a time cue such as "last week" counts
too), then the sentence after each (answers follow their cue), then the others from the opening
on; they are shown in their original order, a gap marked "…". A turn that fits is quoted whole;
a turn without a matching sentence keeps its opening, cut as before. Photo captions the importer
adds ("[shared a photo: a photo of a dog]") are shortened to "[photo: a dog]".

Query words are the stemmed lexemes of `QueryTerms` (Postgres english stemming); a message word
matches a lexeme when it starts with it, or, for a stem ending in "i" (happi, famili), with the
stem minus that "i" and at most three more letters. No model and no database: tens of µs a turn.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from arandu_pipelines.keys import fold

# A sentence ends at a run of . ! ? (and closing quotes) before a space, a "[" or the end; a
# period inside a word ("e.g.", "2.0") does not end it. Every character lands in some sentence.
_CLOSE = "[\"'”’)]*"
_SENTENCE = re.compile(rf"\[[^\]]*\]|(?:[^.!?\[]++|[.!?]++(?!{_CLOSE}(?:\s|$|\[)))+(?:[.!?]++{_CLOSE})?"
                       rf"|[.!?]++{_CLOSE}|\[")
_WORD = re.compile(r"[a-z0-9]+")
_TIME_CUE = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|ago|last|next|this (?:week|month|year|weekend|morning)|"
    r"weekends?|weeks?|months?|years?|(?:mon|tues|wednes|thurs|fri|satur|sun)day|since|recently|"
    r"january|february|march|april|may|june|july|august|september|october|november|december|"
    r"\d{4})\b")
# A lexeme in more than this share of the messages (a speaker's name) cannot pick a sentence alone.
MIN_IDF = 1.0


_CAPTION = re.compile(r"\[shared a photo: (?:an? (?:photo|picture|photography|image|close ?up) of )?",
                      re.IGNORECASE)


def compact(text: str) -> str:
    """`text` with whitespace collapsed and the importer's photo marker shortened."""
    return _CAPTION.sub("[photo: ", " ".join(text.split()))


def sentences(text: str) -> list[str]:
    """`text` split into sentences; a bracketed insert ("[shared a photo: ...]") is one sentence."""
    out = []
    for m in _SENTENCE.finditer(text):
        s = m.group(0).strip()
        if s:
            out.append(s)
    return out


def word_matcher(weights: dict[str, float], time_cue: float = 0.0) -> Callable[[str], float]:
    """A function giving a sentence's score: the summed weight of the lexemes it holds, plus
    `time_cue` when it says when something happened ("last week", "two weekends ago"): for a
    "when" question that sentence carries the answer's other half, the message's date being the
    first."""
    lexemes = sorted(weights)
    alternatives = []
    for n, lx in enumerate(lexemes):  # sentences are folded (lower case, no accents): so are stems
        stem = re.escape(fold(lx))
        if lx.endswith("i") and len(lx) > 3:
            stem = f"{stem}|{re.escape(fold(lx)[:-1])}[a-z0-9]{{0,4}}\\b"
        alternatives.append(f"(?P<g{n}>{stem})")
    finder = re.compile(r"\b(?:" + "|".join(alternatives) + ")") if lexemes else None

    def score(sentence: str) -> float:
        folded = fold(sentence)
        total = time_cue if time_cue and _TIME_CUE.search(folded) else 0.0
        if finder is None:
            return total
        found = sorted({g for m in finder.finditer(folded) if (g := m.lastgroup)})
        return total + sum(weights[lexemes[int(g[1:])]] for g in found)

    return score


def excerpt(text: str, score: Callable[[str], float] | None, max_chars: int,
            follow: int = 1) -> str:
    """`text` within `max_chars`, the sentences that match the query first.

    A text that fits is returned whole (whitespace collapsed). Otherwise sentences are taken by
    priority until the budget is spent: the matching ones (best score first), then the `follow`
    sentences after each match, then the others from the opening on; they are shown in
    their original order, a gap marked "…". Without a match (or a scorer) it is the opening of
    `text`, cut at `max_chars`."""
    body = compact(text)
    if len(body) <= max_chars:
        return body
    parts = sentences(body) if score is not None else []
    scores = [score(s) for s in parts] if parts and score is not None else []
    if not scores or max(scores) <= 0:
        return _cut(body, max_chars)
    matched = sorted((i for i, s in enumerate(scores) if s > 0), key=lambda i: (-scores[i], i))
    order = list(matched)
    for i in matched:
        order += range(i + 1, min(i + 1 + follow, len(parts)))
    order += range(len(parts))
    chosen: list[int] = []
    used = 0
    for i in order:
        if i in chosen:
            continue
        cost = len(parts[i]) + 1
        if chosen and used + cost > max_chars:
            continue
        chosen.append(i)
        used += cost
    chosen.sort()
    out = []
    for n, i in enumerate(chosen):  # a gap is "…" glued to the next sentence: no extra word
        gap = (n and i != chosen[n - 1] + 1) or (n == 0 and i > 0)
        out.append("…" + parts[i] if gap else parts[i])
    if chosen[-1] < len(parts) - 1:
        out[-1] += "…"
    return _cut(" ".join(out), max_chars + 8)


def _cut(body: str, max_chars: int) -> str:
    if len(body) > max_chars:
        return body[: max_chars - 1].rstrip() + "…"
    return body


def query_weights(lexemes: Sequence[str], idf: Callable[[str], float]) -> dict[str, float]:
    """The query lexemes worth matching a sentence on, with their idf (common ones dropped)."""
    return {lx: idf(lx) for lx in lexemes if idf(lx) >= MIN_IDF}

"""The prompt-ready context: facts, observed patterns, conversations, in a proportional budget.

    Known facts:            hot tier: the best facts, one per line, in full (at most HOT_MAX,
                            at least MIN_FACTS, within hot_tier_ratio of the budget);
                            warm tier: the next facts summarised on one "- Also: a; b; c" line,
                            each cut to WARM_WORDS words with "X mentioned that" lead-ins dropped
                            (within warm_tier_ratio of the budget)
    Observed patterns:      cold tier (the rest), at most 3 active meta-observations
    Relevant conversations: what is left plus a 400-token overflow, snippets <= 300 chars (the
                            first, the best-ranked message, <= 450), dated,
                            in the reranker's / citations' order (conversation_snippets); a
                            longer turn is quoted by the sentences holding the query's words
                            (read/excerpt.py), not by its opening; from the
                            TIGHT_FROM+1-th snippet on, a turn that holds such a sentence is
                            quoted by it alone (<= TIGHT_SNIPPET_CHARS), a turn that holds none
                            (a reply kept for the question before it) stays complete

With snippets below them, the facts listed are those that add to the snippets
(`facts_worth_words`): the best fact, then the others whose message is not quoted (the
event-dated ones, and up to UNDATED_FACTS without an event date); a fact whose message is quoted
gives its event date to that snippet's line, "(2023-06-27; event 2023-06-20)", and is not
repeated; without snippets, the tiers above. Facts carry no entity prefixes
or scores. Dates: the spec shows none on facts; here a date is added when the question asks
about time ("when ...", a time window) or the fact records when something happened
(`event_date`): measured on the LoCoMo dev questions, dropping them lowers the answer-in-context
rate of temporal questions 0.889 -> 0.857 (docs/retrieval.md). The budget is a
target, not a cap: the first MIN_FACTS facts (of those listed) are always kept. Tokens are
estimated as characters / 4.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.read.excerpt import compact, excerpt, sentences
from arandu_pipelines.read.types import ScoredEvent, ScoredFact, SourceRef

MIN_FACTS = 5
HOT_MAX = 8
WARM_WORDS = 8
_LEAD_IN = re.compile(r"^.{0,60}?\b(?:mentioned|said|noted|shared|told \w+) that\s+", re.IGNORECASE)
MAX_PATTERNS = 3
SNIPPET_CHARS = 300
# The first snippet (the best-ranked message) is quoted up to this length: see `_snippet_chars`.
LEAD_SNIPPET_CHARS = 450
# From the snippet at this position (0 = first) on, a turn with a sentence matching the query is
# quoted by that sentence, within TIGHT_SNIPPET_CHARS: see `_snippet_body`.
TIGHT_FROM = 5
TIGHT_SNIPPET_CHARS = 100
# Facts without an event date kept when conversation snippets follow (see `facts_worth_words`).
UNDATED_FACTS = 3
EVENT_OVERFLOW_TOKENS = 400


def tokens(s: str) -> int:
    return (len(s) + 3) // 4


def _day(t: datetime | None) -> str:
    return t.strftime("%Y-%m-%d") if t else ""


def conversation_snippets(events: list[ScoredEvent], sources: list[SourceRef],
                          reranked_facts: list[ScoredFact] | None = None) -> list[Any]:
    """The messages for "Relevant conversations", best first.

    Spec stage 5 shows "recent conversation snippets ... with dates" after the facts. Order =
    the citations' (`sources`): a message counts with the best of its own score and 0.7 of the
    score of each fact it supports. When a reranker judged the facts (`reranked_facts`, in their
    final order), the messages behind them lead, in that order: the reranker's judgement is the
    best relevance evidence the read has, and a fact's formula score (which the blend can only
    lower) would rarely lift its message above a message matching the query's words. Equal
    scores: the more recent message first. The messages are the ranked ones (`events`): adding
    the facts' own source messages changed nothing measurable (docs/retrieval.md)."""
    rank = {r.event_id: r.score for r in sources}
    for e in events:
        rank.setdefault(e.event_id, e.score)
    ordered = sorted(events, key=lambda e: (-round(rank[e.event_id], 9), -_ts(e.occurred_at), e.event_id))
    if not reranked_facts:
        return ordered
    by_id: dict[str, ScoredEvent | None] = {e.event_id: e for e in ordered}
    lead: list[Any] = []
    for f in reranked_facts:
        led = by_id.pop(f.source_event_id, None) if f.source_event_id else None
        if led is not None:
            lead.append(led)
    return lead + [e for e in ordered if e.event_id in by_id]


def _snippet_chars(position: int) -> int:
    """The quote length of the snippet at `position` (0 = first).

    The first snippet is the message the ranking trusts most, and the reader sees it first; cut
    at SNIPPET_CHARS, a long one loses the sentences beside its match (the answer to "What was
    Melanie's reaction to ..." was the sentence the excerpt of a 337-character best-ranked turn
    left out). Measured on the LoCoMo dev pair (docs/retrieval.md, "The lead snippet quoted
    longer"): 1.5x for the first snippet gains an answer and loses none; longer, or for the
    first 2-3 snippets, gains nothing more."""
    return LEAD_SNIPPET_CHARS if position == 0 else SNIPPET_CHARS


def _snippet_body(text: str, match: Callable[[str], float] | None, position: int) -> str:
    """The quoted part of the turn at `position` among the snippets.

    The reader sees the context's first ~400 words: after ~75 words of facts, the first 7-8
    snippets of ~45 words each fill them, and an answer quoted 10th-20th is not read (14 of the
    231 LoCoMo dev questions, docs/retrieval.md "Tight snippets after the fifth"). Past the first
    TIGHT_FROM snippets, which keep their full quote, a turn is read for the sentence that
    matched the query: it is quoted by that sentence (the best, within TIGHT_SNIPPET_CHARS), so
    more of the ranked turns reach the reader's window. A turn without a matching sentence
    was ranked for its meaning or as the reply to a matching question (neighbour-turn terms):
    its words are the answer, so it stays complete (up to SNIPPET_CHARS)."""
    if position >= TIGHT_FROM and match is not None:
        body = compact(text)
        if len(body) <= TIGHT_SNIPPET_CHARS:  # quoted whole either way
            return body
        if any(match(s) > 0 for s in sentences(body)):
            return excerpt(body, match, TIGHT_SNIPPET_CHARS)
    return excerpt(text, match, _snippet_chars(position))


def _ts(t: datetime | None) -> float:
    return t.timestamp() if t is not None else float("-inf")


@dataclass
class Pattern:
    title: str
    text: str


@dataclass
class Cluster:
    """An active fact cluster (background clustering): label, summary, size."""

    id: str
    label: str
    summary_text: str | None
    fact_count: int


def compress_broad_context(
    facts: list[ScoredFact],
    clusters: dict[str, Cluster],
    fact_cluster: dict[str, str],
    events: list[ScoredEvent],
    patterns: list[Pattern],
    config: MemoryConfig,
    dated: bool,
    match: Callable[[str], float] | None = None,
) -> tuple[str, dict[str, Any]]:
    """Context for a broad query ("tell me everything about Ana"), clusters first (spec 001
    `compress_broad_context`): one line per cluster that holds returned facts — its label and
    summary (or its best fact) — in the order of its best fact, then the facts no cluster holds,
    then patterns and conversations as in `compress_context`. Without clusters it is
    `compress_context`."""
    grouped: dict[str, list[ScoredFact]] = {}
    loose: list[ScoredFact] = []
    for f in facts:
        cid = fact_cluster.get(f.fact_id)
        if cid in clusters:
            grouped.setdefault(cid, []).append(f)
        else:
            loose.append(f)
    if not grouped:
        return compress_context(facts, events, patterns, config, dated, match)
    lines = []
    for cid, members in grouped.items():  # insertion order = order of each cluster's best fact
        c = clusters[cid]
        body = (c.summary_text or "").strip() or warm_clause(members[0], dated)
        lines.append(f"- {c.label.strip()}: {body} ({len(members)} of {c.fact_count} facts)")
    head = "Known facts:\n" + "\n".join(lines)
    rest, stats = compress_context(loose, events, patterns, config, dated, match)
    if rest.startswith("Known facts:\n"):
        rest = rest[len("Known facts:\n"):]
        context = head + "\n" + rest
    else:
        context = head + ("\n\n" + rest if rest else "")
    stats = {**stats, "clusters": len(grouped), "total_tokens": tokens(context)}
    return context, stats


def fact_line(f: ScoredFact, dated: bool) -> str:
    line = f"- {f.fact_text.strip()}"
    when = f.event_date or (f.valid_from if dated else None)
    if when is not None and (dated or f.event_date is not None):
        line += f" ({_day(when)})"
    return line


def warm_clause(f: ScoredFact, dated: bool) -> str:
    """A warm-tier fact as a short clause: lead-in dropped, at most WARM_WORDS words."""
    text = _LEAD_IN.sub("", f.fact_text.strip()).rstrip(".")
    words = text.split()
    out = " ".join(words[:WARM_WORDS]) + ("…" if len(words) > WARM_WORDS else "")
    when = f.event_date or (f.valid_from if dated else None)
    if when is not None and (dated or f.event_date is not None):
        out += f" ({_day(when)})"
    return out


def facts_worth_words(facts: list[ScoredFact], quoted: set[str]) -> list[ScoredFact]:
    """The facts that add something to the conversation snippets that follow them, in order.

    The best fact always stays: it is the ranking's distilled answer, and the facts section the
    spec puts first is never empty when facts were found. After it, a fact read from a message
    quoted below repeats that message minus its date and wording: it is left out, and when it
    records when something happened (`event_date`, resolved at write time: "last Saturday" ->
    the day, which the message does not say) that date goes onto the snippet's line instead
    (`snippet_event_dates`): ~12 words of fact saved per quoted message, the date kept (session
    11, docs/retrieval.md "Tight snippets and facts folded into their snippets"). Of the facts
    whose message is not quoted, the event-dated ones stay, and the best UNDATED_FACTS others. Measured on the LoCoMo dev questions
    (docs/retrieval.md, "The context a 400-word reader needs"): in the context's first 400 words
    an undated fact carried an answer the snippets did not in 1 of 231 questions, while the
    facts took ~195 of those words; event-dated facts carried 16 temporal answers alone."""
    out: list[ScoredFact] = []
    undated = 0
    for i, f in enumerate(facts):
        if i == 0 or (f.event_date is not None and f.source_event_id not in quoted):
            out.append(f)
        elif f.source_event_id not in quoted and undated < UNDATED_FACTS:
            out.append(f)
            undated += 1
    return out


def snippet_event_dates(facts: list[ScoredFact], kept: list[ScoredFact]) -> dict[str, list[datetime]]:
    """The event dates of the facts `facts_worth_words` left out, by their source message, best
    fact first, distinct days: the snippet quoting that message shows them after its own date."""
    kept_ids = {f.fact_id for f in kept}
    out: dict[str, list[datetime]] = {}
    for f in facts:
        if f.fact_id in kept_ids or f.event_date is None or not f.source_event_id:
            continue
        days = out.setdefault(f.source_event_id, [])
        if all(_day(d) != _day(f.event_date) for d in days):
            days.append(f.event_date)
    return out


def compress_context(
    facts: list[ScoredFact],
    events: list[ScoredEvent],
    patterns: list[Pattern],
    config: MemoryConfig,
    dated: bool,
    match: Callable[[str], float] | None = None,
) -> tuple[str, dict[str, Any]]:
    """Facts, patterns and conversation snippets within `config.context_max_tokens` (+ the
    snippets' overflow). With snippets, only the facts that add to them are listed
    (`facts_worth_words`; a fact whose message did not fit the budget is put back). `match`
    scores a sentence against the query (read/excerpt.py): a turn longer than SNIPPET_CHARS is
    quoted by its matching sentences rather than its opening."""
    if not events:
        context, stats = _compress(facts, events, patterns, config, dated, match)
        stats.pop("quoted")
        return context, stats
    listed = {e.event_id for e in events}
    kept = facts_worth_words(facts, listed)
    context, stats = _compress(kept, events, patterns, config, dated, match, snippet_event_dates(facts, kept))
    quoted = set(stats.pop("quoted"))
    kept_ids = {f.fact_id for f in kept}
    left_out = {f.source_event_id for f in facts if f.fact_id not in kept_ids} & listed
    if left_out - quoted:  # a message the budget left out: its facts come back
        kept = facts_worth_words(facts, quoted)
        context, stats = _compress(kept, events, patterns, config, dated, match, snippet_event_dates(facts, kept))
        stats.pop("quoted")
    return context, stats


def _compress(
    facts: list[ScoredFact],
    events: list[ScoredEvent],
    patterns: list[Pattern],
    config: MemoryConfig,
    dated: bool,
    match: Callable[[str], float] | None = None,
    event_dates: dict[str, list[datetime]] | None = None,
) -> tuple[str, dict[str, Any]]:
    budget = max(config.context_max_tokens, 1)
    fact_budget = int(budget * (config.hot_tier_ratio + config.warm_tier_ratio))
    hot_budget = int(budget * config.hot_tier_ratio)
    pattern_budget = max(budget - fact_budget, 0)
    sections: list[str] = []
    used = 0
    hot = warm = 0
    if facts:
        lines = []
        for i, f in enumerate(facts[:HOT_MAX]):
            line = fact_line(f, dated)
            cost = tokens(line)
            if i >= MIN_FACTS and used + cost > hot_budget:
                break
            lines.append(line)
            used += cost
            hot += 1
        clauses: list[str] = []
        warm_used = 0
        for f in facts[hot:]:
            clause = warm_clause(f, dated)
            if used + warm_used + tokens(clause) + 2 > fact_budget:
                break
            clauses.append(clause)
            warm_used += tokens(clause) + 1
            warm += 1
        if clauses:
            line = "- Also: " + "; ".join(clauses)
            lines.append(line)
            used += tokens(line)
        sections.append("Known facts:\n" + "\n".join(lines))
    pat_used = 0
    cold = 0
    if patterns:
        lines = []
        for p in patterns[:MAX_PATTERNS]:
            line = f"- {p.title.strip() or p.text.strip()}"
            if lines and pat_used + tokens(line) > pattern_budget:
                break
            lines.append(line)
            pat_used += tokens(line)
            cold += 1
        sections.append("Observed patterns:\n" + "\n".join(lines))
    ev_budget = max(budget - used - pat_used, 0) + EVENT_OVERFLOW_TOKENS
    ev_used = 0
    quoted: list[str] = []
    if events:
        lines = []
        for n, e in enumerate(events):
            body = _snippet_body(e.text, match, n)
            who = f"{e.speaker}: " if e.speaker else ""
            said = _day(e.occurred_at)
            when = [d for d in map(_day, (event_dates or {}).get(e.event_id, [])) if d != said]
            line = f"- ({'; event '.join([said, ', '.join(when)]) if when else said}) {who}{body}"
            if lines and ev_used + tokens(line) > ev_budget:
                break
            lines.append(line)
            quoted.append(e.event_id)
            ev_used += tokens(line)
        sections.append("Relevant conversations:\n" + "\n".join(lines))
    context = "\n\n".join(sections)
    stats = {"hot_count": hot, "warm_count": warm, "cold_count": cold,
             "events": len(quoted), "total_tokens": tokens(context), "quoted": quoted}
    return context, stats

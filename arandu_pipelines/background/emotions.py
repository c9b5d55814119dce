"""Emotion tagging by lexicon (EN + PT) and the emotional-trend meta-observation.

**Tagging** (`tag_emotion`, `tag_event_emotions`): each event without an emotion yet gets
``emotion_primary`` / ``emotion_intensity`` / ``energy_level`` from `emotion_lexicon`: phrases are
matched on the folded text (longest first), a hit preceded by a negation within two words is
dropped, each intensifier just before a hit adds 0.15 (up to 0.3), each "!" adds 0.05 (up to
0.15). The emotion with the highest summed intensity wins (ties: stronger single hit, then name).
Energy: explicit energy words, else high for excitement / anger / surprise / fear and for strong
joy (>= 0.7), low for sadness / tiredness / calm / relief, else medium. No hit = ``neutral``
(intensity 0, so the event is not re-tagged). Events already tagged (e.g. by an LLM at write
time) are never overwritten. An LLM tagger will plug in behind the same function.

**Trend** (`materialize_emotional_trends`): the emotional (non-neutral) events of the last
`emotional_trend_window_days` of the agent's clock; with at least `emotional_trend_min_events`
of them, one ``emotional_trend`` meta-observation per agent is written (updated in place when it
changes): emotion counts, the dominant emotion (most frequent; ties by mean intensity, then
name), mean intensities, the predominant energy, the trend of intensity (mean of the later half
of the events minus the earlier half: > +0.1 increasing, < -0.1 decreasing, else stable) and
trigger keywords (the most frequent content words of events with intensity >= 0.6).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import text

from arandu_pipelines.background._common import (
    Observation,
    Timer,
    agent_clock,
    agent_transaction,
    engine_of,
    fingerprint,
    upsert_observations,
)
from arandu_pipelines.background.emotion_lexicon import (
    EMOTIONS,
    ENERGY_WORDS,
    HIGH_ENERGY,
    INTENSIFIERS,
    LOW_ENERGY,
)
from arandu_pipelines.background.results import EmotionalTrendsResult
from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.keys import fold
from arandu_pipelines.store.targets import HasEngine
from arandu_pipelines.vocab import NEGATIONS

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncEngine

    from arandu_pipelines.protocols import LLMProvider

NEUTRAL = "neutral"
TRIGGER_MIN_INTENSITY = 0.6
TREND_DELTA = 0.1
_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_MAX_PHRASE = max(len(k.split()) for k in EMOTIONS)
_STOP = frozenset(
    ["that", "this", "with", "have", "just", "about", "what", "when", "where", "from", "they", "them", "their", "there", "were", "been", "being", "would", "could", "should", "really", "very", "much", "more", "some", "time", "today", "yesterday", "tomorrow", "because", "then", "than", "also", "into", "over", "after", "before", "again", "your", "yours", "mine", "ours", "still", "even", "only", "other", "para", "pela", "pelo", "como", "mais", "muito", "muita", "quando", "onde", "isso", "isto", "esse", "essa", "este", "esta", "estou", "estava", "tenho", "tinha", "hoje", "ontem", "amanha", "porque", "entao", "tambem", "ainda", "depois", "antes", "sobre", "minha", "meu", "nosso", "nossa", "voce", "voces", "eles", "elas", "dele", "dela"]
)


@dataclass(frozen=True)
class EmotionTag:
    emotion: str
    intensity: float
    energy: str
    hits: tuple[str, ...] = ()


def _tokens(body: str) -> list[str]:
    return _TOKEN.findall(fold(body).replace("’", "'"))


def tag_emotion(body: str) -> EmotionTag:
    """Emotion, intensity (0-1) and energy (high / medium / low) of one text, by lexicon."""
    toks = _tokens(body)
    used = [False] * len(toks)
    scores: dict[str, float] = {}
    best: dict[str, float] = {}
    hits: list[str] = []
    for n in range(_MAX_PHRASE, 0, -1):
        for i in range(len(toks) - n + 1):
            if any(used[i:i + n]):
                continue
            phrase = " ".join(toks[i:i + n])
            entry = EMOTIONS.get(phrase)
            if entry is None:
                continue
            for j in range(i, i + n):
                used[j] = True
            before = toks[max(0, i - 2):i]
            if any(t in NEGATIONS or t.endswith("n't") for t in before):
                continue
            emotion, base = entry
            boost = min(0.3, 0.15 * sum(1 for t in before if t in INTENSIFIERS))
            value = min(1.0, base + boost)
            scores[emotion] = scores.get(emotion, 0.0) + value
            best[emotion] = max(best.get(emotion, 0.0), value)
            hits.append(phrase)
    if not scores:
        return EmotionTag(NEUTRAL, 0.0, _energy(toks, NEUTRAL, 0.0))
    emotion = min(scores, key=lambda e: (-round(scores[e], 6), -best[e], e))
    exclaim = min(0.15, 0.05 * body.count("!"))
    intensity = round(min(1.0, best[emotion] + exclaim), 2)
    return EmotionTag(emotion, intensity, _energy(toks, emotion, intensity), tuple(hits))


def _energy(toks: list[str], emotion: str, intensity: float) -> str:
    joined = " " + " ".join(toks) + " "
    for phrase, level in ENERGY_WORDS.items():
        if f" {fold(phrase)} " in joined:
            return level
    if emotion in HIGH_ENERGY or (emotion == "joy" and intensity >= 0.7):
        return "high"
    if emotion in LOW_ENERGY:
        return "low"
    return "medium"


async def tag_event_emotions(
    engine: AsyncEngine | HasEngine, agent_id: str, llm: LLMProvider | None = None, batch: int = 2000
) -> int:
    """Tag the agent's events that have no emotion yet; returns how many were tagged."""
    eng = engine_of(engine)
    tagged = 0
    while True:
        async with eng.connect() as conn:
            rows = (await conn.execute(
                text("SELECT id::text AS id, text FROM memory_events WHERE agent_id = :a "
                     "AND emotion_primary IS NULL ORDER BY occurred_at, id LIMIT :n"),
                {"a": agent_id, "n": batch})).all()
        if not rows:
            return tagged
        tags = [tag_emotion(r.text) for r in rows]
        async with eng.begin() as conn:
            res = await conn.execute(
                text("UPDATE memory_events e SET emotion_primary = q.em, emotion_intensity = q.i, "
                     "energy_level = q.en FROM unnest(CAST(:ids AS uuid[]), CAST(:em AS text[]), "
                     "CAST(:i AS float8[]), CAST(:en AS text[])) AS q(id, em, i, en) "
                     "WHERE e.id = q.id AND e.emotion_primary IS NULL"),
                {"ids": [r.id for r in rows], "em": [t.emotion for t in tags],
                 "i": [t.intensity for t in tags], "en": [t.energy for t in tags]},
            )
        tagged += res.rowcount or 0
        if len(rows) < batch:
            return tagged


async def materialize_emotional_trends(
    engine: Any,
    agent_id: str,
    config: MemoryConfig | None = None,
    llm: Any = None,
    now: datetime | None = None,
) -> EmotionalTrendsResult:
    """Tag untagged events, then aggregate the window into an `emotional_trend` observation."""
    config = config or MemoryConfig()
    timer = Timer()
    tagged = await tag_event_emotions(engine, agent_id, llm) if config.enable_emotion_tagging else 0
    async with agent_transaction(engine, agent_id) as conn:
        clock = await agent_clock(conn, agent_id, now)
        rows = (await conn.execute(
            text("SELECT id::text AS id, text, emotion_primary AS emotion, "
                 "COALESCE(emotion_intensity, 0) AS intensity, COALESCE(energy_level, 'medium') AS energy "
                 "FROM memory_events WHERE agent_id = :a AND emotion_primary IS NOT NULL "
                 "AND emotion_primary <> :neutral AND occurred_at <= :c "
                 "AND occurred_at >= CAST(:c AS timestamptz) - make_interval(days => :d) "
                 "ORDER BY occurred_at, id"),
            {"a": agent_id, "c": clock, "d": int(config.emotional_trend_window_days),
             "neutral": NEUTRAL})).all()
        result = EmotionalTrendsResult(events_analyzed=len(rows), events_tagged=tagged,
                                       reference_time=clock)
        counts = Counter(r.emotion for r in rows)
        result.emotion_counts = dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
        if len(rows) < config.emotional_trend_min_events:
            result.skipped = True
            result.skip_reason = (f"{len(rows)} emotional event(s) in the last "
                                  f"{config.emotional_trend_window_days} days; at least "
                                  f"{config.emotional_trend_min_events} needed")
            result.duration_ms = timer.ms
            return result
        mean = {e: sum(float(r.intensity) for r in rows if r.emotion == e) / c for e, c in counts.items()}
        dominant = min(counts, key=lambda e: (-counts[e], -round(mean[e], 6), e))
        energies = Counter(r.energy for r in rows)
        half = len(rows) // 2
        early = [float(r.intensity) for r in rows[:half]] or [0.0]
        late = [float(r.intensity) for r in rows[half:]] or [0.0]
        delta = sum(late) / len(late) - sum(early) / len(early)
        result.dominant_emotion = dominant
        result.avg_intensity = round(sum(float(r.intensity) for r in rows) / len(rows), 3)
        result.dominant_intensity = round(mean[dominant], 3)
        result.dominant_energy = min(energies, key=lambda e: (-energies[e], e))
        result.trend_direction = ("increasing" if delta > TREND_DELTA
                                  else "decreasing" if delta < -TREND_DELTA else "stable")
        result.trigger_keywords = _triggers(r.text for r in rows if float(r.intensity) >= TRIGGER_MIN_INTENSITY)
        share = counts[dominant] / len(rows)
        body = (
            f"Over the last {config.emotional_trend_window_days} days ({len(rows)} emotional "
            f"messages), the dominant emotion was {dominant} ({counts[dominant]}, {share:.0%}; "
            f"mean intensity {result.dominant_intensity:.2f}). Intensity is "
            f"{result.trend_direction}; energy mostly {result.dominant_energy}. Counts: "
            + ", ".join(f"{e} {c}" for e, c in result.emotion_counts.items()) + "."
            + (f" Triggers: {', '.join(result.trigger_keywords)}." if result.trigger_keywords else "")
        )
        obs = Observation(
            "emotional_trend", f"Emotional trend: {dominant}, {result.trend_direction}", body,
            fingerprint("emotional_trend"), [],
            [], [r.id for r in rows if r.emotion == dominant][-20:],
            confidence=round(min(0.9, 0.5 + 0.02 * len(rows)), 4), importance=0.5,
            times_reinforced=max(0, len(rows) - 1))
        outcome = await upsert_observations(conn, agent_id, [obs])
        result.observation_created = (outcome.created + outcome.updated) > 0
        result.observation_id = (await conn.execute(
            text("SELECT id::text FROM memory_meta_observations WHERE agent_id = :a "
                 "AND observation_type = 'emotional_trend' AND fingerprint = :f"),
            {"a": agent_id, "f": obs.fingerprint})).scalar_one_or_none()
    result.preview = [{"emotion": e, "events": c, "mean_intensity": round(mean[e], 2)}
                      for e, c in result.emotion_counts.items()]
    result.duration_ms = timer.ms
    return result


def _triggers(texts: Any, top: int = 5) -> list[str]:
    lexicon_words = {w for phrase in EMOTIONS for w in phrase.split()}
    df: Counter[str] = Counter()
    for body in texts:
        words = {t for t in _tokens(body) if len(t) >= 4 and "'" not in t and not t.isdigit()
                 and t not in _STOP and t not in lexicon_words and t not in INTENSIFIERS}
        df.update(words)
    return [w for w, _ in sorted(df.items(), key=lambda kv: (-kv[1], kv[0]))[:top]]

"""The small LLM decisions of the write path, each fail-safe to the offline behaviour.

* `LLMDecider` — reconciliation's slow path (similarity >= 0.50): ADD / UPDATE / NOOP / DELETE.
  The model sees the candidates under short labels (F1..F3), never database ids, and must name
  one of them as the target; anything else — an unknown label, a missing target, an unknown
  action, a timeout, invalid JSON — returns None, which the reconciler turns into ADD (better a
  near-duplicate than lost information). DELETE is honoured only for a proposal that is itself
  an explicit retraction statement (`fact.retracts`, which extraction grants only when the
  message names the retracted value); otherwise it is overruled to ADD. So no model answer can
  make an ordinary or injected message delete a fact.
* `LLMEntityPicker` — entity resolution's phase 3 (fuzzy 0.50..fuzzy_threshold): the model picks
  one of at most three candidates (C1..C3) or none; failure -> None -> a new entity.
* `tag_event_emotion` — {"emotion", "intensity", "energy"} or None (the background lexicon
  tagger fills the gap later).

Each call has the configured timeout and adds its tokens to the shared TokenUsage. `log` keeps a
short record of every decision (for debugging and tests).
"""

from __future__ import annotations

from typing import Any

from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.keys import fold
from arandu_pipelines.providers.json_parse import (
    LLMCallError,
    as_float,
    as_str,
    complete_json,
)
from arandu_pipelines.write import llm_prompts as prompts

ACTIONS = ("ADD", "UPDATE", "NOOP", "DELETE")
EMOTIONS = frozenset(
    {"joy", "love", "gratitude", "pride", "excitement", "relief", "calm", "surprise", "sadness",
     "fear", "anxiety", "anger", "frustration", "disgust", "tiredness", "neutral"}
)
EMOTION_SYNONYMS = {
    "happy": "joy", "happiness": "joy", "glad": "joy", "content": "calm", "contentment": "calm",
    "excited": "excitement", "sad": "sadness", "grief": "sadness", "angry": "anger", "rage": "anger",
    "annoyance": "frustration", "annoyed": "frustration", "frustrated": "frustration",
    "afraid": "fear", "scared": "fear", "worry": "anxiety", "worried": "anxiety", "anxious": "anxiety",
    "stress": "anxiety", "stressed": "anxiety", "nervous": "anxiety", "tired": "tiredness",
    "exhausted": "tiredness", "exhaustion": "tiredness", "fatigue": "tiredness", "grateful": "gratitude",
    "thankful": "gratitude", "proud": "pride", "relieved": "relief", "surprised": "surprise",
    "disgusted": "disgust", "loving": "love", "affection": "love", "none": "neutral",
    "alegria": "joy", "tristeza": "sadness", "raiva": "anger", "medo": "fear",
    "ansiedade": "anxiety", "cansaco": "tiredness", "gratidao": "gratitude", "orgulho": "pride",
    "amor": "love", "surpresa": "surprise", "nojo": "disgust", "calma": "calm", "alivio": "relief",
}
ENERGY = {"low": "low", "medium": "medium", "moderate": "medium", "mid": "medium", "high": "high",
          "baixa": "low", "media": "medium", "alta": "high"}
MAX_EMOTION_CHARS = 2000
MAX_LOG = 500  # decision records kept per hook object (a pipeline run)


def _remember(log: list[dict[str, Any]], entry: dict[str, Any]) -> None:
    if len(log) >= MAX_LOG:
        del log[: len(log) - MAX_LOG + 1]
    log.append(entry)


class LLMDecider:
    """Reconciler hook: `await decider(proposal, similar[:3]) -> (action, target) | None`."""

    def __init__(self, llm: Any, config: MemoryConfig, usage: Any) -> None:
        self.llm, self.config, self.usage = llm, config, usage
        self.log: list[dict[str, Any]] = []

    async def __call__(self, proposal: Any, similar: list[tuple[Any, float]]) -> tuple[str, Any] | None:
        shown = similar[:3]
        labels = {f"F{i + 1}": fact for i, (fact, _) in enumerate(shown)}
        by_id = {str(fact.id): fact for fact, _ in shown}
        entry: dict[str, Any] = {"fact": proposal.text, "candidates": [f.fact_text for f, _ in shown]}
        _remember(self.log, entry)
        if not shown:
            entry["outcome"] = "no candidates"
            return None
        messages = prompts.reconcile_messages(
            proposal.subject_name,
            proposal.text,
            proposal.occurred_at.date().isoformat(),
            [(f"F{i + 1}", f.fact_text, f.valid_from.date().isoformat(), sim)
             for i, (f, sim) in enumerate(shown)],
        )
        try:
            obj = await complete_json(self.llm, messages, timeout=self.config.extraction_timeout_sec,
                                      usage=self.usage, max_tokens=300)
        except LLMCallError as exc:
            entry["outcome"] = f"failed: {exc}"
            return None
        action = (as_str(obj.get("action"), 10) or "").upper()
        entry["answer"] = {"action": action, "target": obj.get("target"), "reason": as_str(obj.get("reason"), 300)}
        if action not in ACTIONS:
            entry["outcome"] = "invalid action"
            return None
        if action == "ADD":
            entry["outcome"] = "ADD"
            return "ADD", None
        raw = as_str(obj.get("target"), 64) or ""
        target = labels.get(raw.upper()) or by_id.get(raw)
        if target is None and raw.isdigit() and 1 <= int(raw) <= len(shown):
            target = shown[int(raw) - 1][0]
        if target is None:
            entry["outcome"] = f"invalid target {raw!r}"
            return None
        if action == "DELETE" and not getattr(proposal.fact, "retracts", False):
            entry["outcome"] = "DELETE refused (not a retraction statement): ADD"
            return "ADD", None
        entry["outcome"] = f"{action} {target.id}"
        return action, target


class LLMEntityPicker:
    """Resolver hook: `await picker(name, candidates[:3]) -> Resolved | None`."""

    def __init__(self, llm: Any, config: MemoryConfig, usage: Any) -> None:
        self.llm, self.config, self.usage = llm, config, usage
        self.log: list[dict[str, Any]] = []

    async def __call__(self, name: str, candidates: list[Any]) -> Any:
        shown = candidates[:3]
        entry: dict[str, Any] = {"name": name, "candidates": [c.display_name for c in shown]}
        _remember(self.log, entry)
        if not shown:
            entry["outcome"] = "no candidates"
            return None
        labels = {f"C{i + 1}": c for i, c in enumerate(shown)}
        messages = prompts.entity_pick_messages(
            name, [(f"C{i + 1}", c.display_name, c.entity_type) for i, c in enumerate(shown)])
        try:
            obj = await complete_json(self.llm, messages, timeout=self.config.extraction_timeout_sec,
                                      usage=self.usage, max_tokens=200)
        except LLMCallError as exc:
            entry["outcome"] = f"failed: {exc}"
            return None
        raw = obj.get("match", obj.get("candidate"))
        entry["answer"] = raw
        if raw is None or (isinstance(raw, str) and raw.strip().lower() in ("", "null", "none")):
            entry["outcome"] = "none"
            return None
        s = as_str(raw, 200) or ""
        picked = labels.get(s.upper())
        if picked is None and s.isdigit() and 1 <= int(s) <= len(shown):
            picked = shown[int(s) - 1]
        if picked is None:  # the key or the display name of a shown candidate
            picked = next((c for c in shown if s == c.key or fold(s) == fold(c.display_name)), None)
        entry["outcome"] = picked.key if picked is not None else f"invalid match {s!r}"
        return picked


def normalize_emotion(obj: Any) -> dict[str, Any] | None:
    if not isinstance(obj, dict):
        return None
    label = fold(as_str(obj.get("emotion") or obj.get("label"), 40) or "")
    label = EMOTION_SYNONYMS.get(label, label)
    if label not in EMOTIONS:
        return None
    intensity = as_float(obj.get("intensity"), 0.0, 1.0)
    if intensity is None:
        intensity = 0.0 if label == "neutral" else 0.5
    energy = ENERGY.get(fold(as_str(obj.get("energy"), 20) or ""), "medium")
    return {"emotion": label, "intensity": round(intensity, 2), "energy": energy}


async def tag_event_emotion(
    event_text: str, llm: Any, timeout: float | None = 30.0, usage: Any = None
) -> dict[str, Any] | None:
    """Emotion, intensity (0-1) and energy (low/medium/high) of a message via the LLM, or None
    on any failure or unusable answer."""
    if not event_text or not event_text.strip():
        return None
    try:
        obj = await complete_json(llm, prompts.emotion_messages(event_text[:MAX_EMOTION_CHARS]),
                                  timeout=timeout, usage=usage, max_tokens=100)
    except LLMCallError:
        return None
    return normalize_emotion(obj)


__all__ = ["EMOTIONS", "LLMDecider", "LLMEntityPicker", "normalize_emotion", "tag_event_emotion"]

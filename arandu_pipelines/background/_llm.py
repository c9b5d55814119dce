"""Shared plumbing of the background jobs' optional LLM calls.

Every call goes through `providers.json_parse.complete_json` with a timeout, its tokens are added
to the job result's `tokens`, and any failure (timeout, HTTP error, unparsable or ill-shaped
answer, text that is not plausible English prose) raises `LLMCallError`; the callers catch it,
record it in the result's `llm_errors` and keep the deterministic result / the old text.
"""

from __future__ import annotations

import re
from typing import Any

from arandu_pipelines.providers.json_parse import LLMCallError, as_str, complete_json

LLM_TIMEOUT_SEC = 30.0
ENGLISH_RULE = "Always write in English, whatever the language of the facts. Answer with JSON only."

# Frequent function words of the other languages the agents talk in (PT, ES): a "summary" made of
# them was not written in English.
_FOREIGN = frozenset(["que", "não", "nao", "é", "uma", "um", "com", "para", "por", "está", "estão", "foi", "são", "seu", "sua", "dos", "das", "pelo", "pela", "muito", "também", "tambem", "el", "los", "las", "del", "por", "una", "está", "están", "pero", "como", "más"])
_ENGLISH = frozenset(["the", "a", "an", "and", "of", "to", "in", "is", "was", "are", "has", "have", "with", "for", "on", "at", "by", "from", "as", "his", "her", "their", "who", "which", "that", "he", "she", "they", "it", "its", "be", "been"])


def estimate_tokens(text: str) -> int:
    return max(1, (len(text) + 3) // 4)


def english_text(value: Any, *, min_words: int = 3, max_tokens: int = 400, max_chars: int = 4000) -> str:
    """A non-empty English text within bounds, or ValueError (-> LLMCallError("shape"))."""
    s = as_str(value, max_chars)
    if s is None:
        raise ValueError("missing text")
    words = re.findall(r"[^\W\d_]+", s.lower())
    if len(words) < min_words:
        raise ValueError(f"text too short ({len(words)} words)")
    if estimate_tokens(s) > max_tokens:
        raise ValueError(f"text too long (~{estimate_tokens(s)} tokens > {max_tokens})")
    foreign = sum(w in _FOREIGN for w in words)
    english = sum(w in _ENGLISH for w in words)
    if foreign > english:
        raise ValueError("text does not look like English")
    return s


async def ask(llm: Any, task: str, system: str, user: str, *, usage: Any, validate: Any,
              max_tokens: int, timeout: float | None = None) -> Any:
    """One JSON call: `TASK: <task>` + system instructions; raises LLMCallError on any failure."""
    messages = [{"role": "system", "content": f"TASK: {task}\n{system}\n{ENGLISH_RULE}"},
                {"role": "user", "content": user}]
    return await complete_json(llm, messages, timeout=timeout or LLM_TIMEOUT_SEC, validate=validate,
                               max_tokens=max_tokens, usage=usage)


def error_note(where: str, exc: BaseException) -> str:
    kind = exc.kind if isinstance(exc, LLMCallError) else type(exc).__name__
    return f"{where}: {kind}: {str(exc)[:200]}"


__all__ = ["LLM_TIMEOUT_SEC", "LLMCallError", "ask", "english_text", "error_note", "estimate_tokens"]

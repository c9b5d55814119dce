"""Tolerant JSON out of LLM text, and one helper for "call the LLM, get validated JSON back".

Models wrap JSON in ```json fences, add "Sure! Here it is:" before it and a remark after it,
leave trailing commas, or stop mid-object when they hit max_tokens. `parse_json` accepts the
first three and turns the last into a clear `JSONParseError` (never a crash, never a half
object): the JSON value is located by a bracket scan that understands strings and escapes, so a
value cut short is *detected* as truncated instead of being "repaired" into something the model
did not say.

Being tolerant about the wrapping is not being tolerant about the content: callers validate the
shape (`parse_json_object(..., required=...)`, the `as_*` coercers, a `validate` callable in
`complete_json`) and treat anything unexpected as a failed call, so their fail-safe path runs.

Generic on purpose: the write pipeline, the reranker and the background jobs all use it.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
from collections.abc import Callable
from typing import Any

from arandu_pipelines.errors import LLMCallError

__all__ = [
    "JSONParseError",
    "JSONShapeError",
    "LLMCallError",
    "as_bool",
    "as_float",
    "as_list",
    "as_str",
    "as_str_list",
    "complete_json",
    "parse_json",
    "parse_json_object",
]

_FENCE = re.compile(r"```[ \t]*(?:json|JSON|json5|javascript|js)?[ \t]*\r?\n?(.*?)(?:```|\Z)", re.DOTALL)
_SNIPPET = 60


class JSONParseError(ValueError):
    """The text holds no complete, valid JSON value. `reason` is short and stable
    (empty | no_json | truncated | invalid | shape) so callers can count kinds of failure."""

    def __init__(self, message: str, reason: str = "invalid") -> None:
        super().__init__(message)
        self.reason = reason


class JSONShapeError(JSONParseError):
    """Valid JSON, wrong shape (a list where an object was expected, a missing key, ...)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "shape")


def _snippet(text: str) -> str:
    t = " ".join(text.split())
    return t if len(t) <= _SNIPPET else t[:_SNIPPET] + "..."


def _scan_value(text: str, start: int) -> tuple[int, str | None]:
    """From the opening bracket at `start`, find the index just past its matching close.

    Returns (end, None) on success or (-1, reason) when the value is truncated or malformed.
    Strings (with escapes) are skipped so brackets inside them do not count.
    """
    stack: list[str] = []
    pairs = {"{": "}", "[": "]"}
    i, n = start, len(text)
    in_str = False
    while i < n:
        ch = text[i]
        if in_str:
            if ch == "\\":
                i += 2
                continue
            if ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in pairs:
            stack.append(pairs[ch])
        elif ch in "}]":
            if not stack or stack[-1] != ch:
                return -1, "mismatched"
            stack.pop()
            if not stack:
                return i + 1, None
        i += 1
    return -1, "truncated"


def _repair(candidate: str) -> str:
    """Outside strings: drop // and /* */ comments, trailing commas, and map Python literals."""
    out: list[str] = []
    i, n = 0, len(candidate)
    in_str = False
    while i < n:
        ch = candidate[i]
        if in_str:
            out.append(ch)
            if ch == "\\" and i + 1 < n:
                out.append(candidate[i + 1])
                i += 2
                continue
            if ch == '"':
                in_str = False
            i += 1
            continue
        if ch == '"':
            in_str = True
            out.append(ch)
            i += 1
            continue
        if candidate.startswith("//", i):
            j = candidate.find("\n", i)
            i = n if j < 0 else j
            continue
        if candidate.startswith("/*", i):
            j = candidate.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        if ch == ",":
            j = i + 1
            while j < n and candidate[j] in " \t\r\n":
                j += 1
            if j < n and candidate[j] in "}]":
                i += 1
                continue
        if ch.isalpha():
            j = i
            while j < n and (candidate[j].isalnum() or candidate[j] == "_"):
                j += 1
            word = candidate[i:j]
            out.append({"True": "true", "False": "false", "None": "null"}.get(word, word))
            i = j
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _loads(candidate: str) -> Any:
    try:
        return json.loads(candidate)
    except json.JSONDecodeError:
        pass
    repaired = _repair(candidate)
    try:
        return json.loads(repaired)
    except json.JSONDecodeError as exc:
        raise JSONParseError(f"invalid JSON: {exc.msg} (near {_snippet(repaired[max(0, exc.pos - 20):exc.pos + 20])!r})") from None


def parse_json(text: str | None, expect: str | None = None) -> Any:
    """The first JSON value in `text` (object or array; `expect="object"|"array"` narrows it).

    Accepts code fences, prose before/after, trailing commas, comments and Python literals.
    Raises JSONParseError (reason: empty, no_json, truncated, invalid) otherwise.
    """
    if text is None or not str(text).strip():
        raise JSONParseError("empty response (no JSON)", "empty")
    raw = str(text).strip().lstrip("\ufeff")
    try:  # the common case: the model did what it was told
        value = json.loads(raw)
        if isinstance(value, (dict, list)):
            return _check_kind(value, expect)
    except json.JSONDecodeError:
        pass
    sources = [m.group(1) for m in _FENCE.finditer(raw) if m.group(1).strip()] + [raw]
    openers = {"object": "{", "array": "["}.get(expect or "", "{[")
    last_reason = "no_json"
    for src in sources:
        for m in re.finditer("[" + re.escape(openers) + "]", src):
            end, problem = _scan_value(src, m.start())
            if problem == "truncated":
                raise JSONParseError(
                    f"truncated JSON: the response ends before the value that starts with "
                    f"{_snippet(src[m.start():])!r} is closed", "truncated")
            if problem is not None:
                last_reason = "invalid"
                continue
            try:
                return _check_kind(_loads(src[m.start():end]), expect)
            except JSONShapeError:
                raise
            except JSONParseError:
                last_reason = "invalid"
                continue
    if last_reason == "invalid":
        raise JSONParseError(f"invalid JSON in response {_snippet(raw)!r}")
    raise JSONParseError(f"no JSON {expect or 'value'} in response {_snippet(raw)!r}", "no_json")


def _check_kind(value: Any, expect: str | None) -> Any:
    if expect == "object" and not isinstance(value, dict):
        raise JSONShapeError(f"expected a JSON object, got {type(value).__name__}")
    if expect == "array" and not isinstance(value, list):
        raise JSONShapeError(f"expected a JSON array, got {type(value).__name__}")
    return value


def parse_json_object(text: str | None, required: tuple[str, ...] | list[str] = ()) -> dict[str, Any]:
    """A JSON object with at least the `required` keys (values may be null)."""
    obj: dict[str, Any] = parse_json(text, expect="object")
    missing = [k for k in required if k not in obj]
    if missing:
        raise JSONShapeError(f"JSON object lacks {', '.join(missing)} (has {', '.join(sorted(obj)) or 'no keys'})")
    return obj


# ---- coercers: None means "absent or unusable"; callers decide whether that is fatal ----------
def as_str(value: Any, max_len: int = 2000) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        value = str(value)
    if not isinstance(value, str):
        return None
    text: str = " ".join(value.replace("\x00", "").split())
    if not text:
        return None
    return text[:max_len]


def as_float(value: Any, lo: float = -math.inf, hi: float = math.inf) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip().rstrip("%")) / (100 if value.strip().endswith("%") else 1)
        except ValueError:
            return None
    if not isinstance(value, (int, float)) or math.isnan(value):
        return None
    return float(min(hi, max(lo, value)))


def as_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return value.strip().lower() in ("true", "yes", "1", "y")
    if isinstance(value, (int, float)):
        return value == 1
    return False


def as_list(value: Any) -> list[Any]:
    """A list field: null/absent -> [], a single object -> [it], anything else -> ValueError."""
    if value is None:
        return []
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        return [value]
    raise JSONShapeError(f"expected a list, got {type(value).__name__}")


def as_str_list(value: Any, max_items: int = 20, max_len: int = 200) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        return []
    out: list[str] = []
    for v in value:
        s = as_str(v, max_len)
        if s and s not in out:
            out.append(s)
        if len(out) >= max_items:
            break
    return out


# ---- one LLM call returning validated JSON ----------------------------------------------------
async def complete_json(
    llm: Any,
    messages: list[dict[str, Any]],
    *,
    timeout: float | None,
    validate: Callable[[Any], Any] | None = None,
    expect: str = "object",
    max_tokens: int | None = None,
    temperature: float = 0,
    usage: Any = None,
) -> Any:
    """Call `llm.complete` in JSON mode within `timeout` seconds, parse tolerantly, validate.

    `usage` (anything with `add(input_tokens, output_tokens)`) receives the call's tokens as
    soon as the provider reports them — even when the answer then fails to parse, since those
    tokens were spent. `validate(value)` returns the value to hand back or raises
    (ValueError/TypeError/KeyError become LLMCallError("shape")). Raises LLMCallError only.
    """
    try:
        coro = llm.complete(messages, temperature=temperature, response_format={"type": "json_object"},
                            max_tokens=max_tokens)
        result = await (asyncio.wait_for(coro, timeout) if timeout else coro)
    except TimeoutError:
        raise LLMCallError("timeout", f"no answer within {timeout:g}s") from None
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # noqa: BLE001 - any provider's failure (HTTP, connection, ...) becomes LLMCallError
        raise LLMCallError("provider", f"{type(exc).__name__}: {str(exc)[:300]}") from None
    u = getattr(result, "usage", None)
    if usage is not None and u is not None:
        usage.add(int(getattr(u, "input_tokens", 0) or 0), int(getattr(u, "output_tokens", 0) or 0))
    text = getattr(result, "text", result if isinstance(result, str) else None)
    try:
        value = parse_json(text, expect=expect)
    except JSONParseError as exc:
        raise LLMCallError(exc.reason, str(exc)) from None
    if validate is None:
        return value
    try:
        return validate(value)
    except (JSONParseError, ValueError, TypeError, KeyError, AttributeError) as exc:
        raise LLMCallError("shape", str(exc)[:300]) from None

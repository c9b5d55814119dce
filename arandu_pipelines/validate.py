"""Validation at the edge: one function per kind of input, each raising `ValidationError` with a
message that names the field and says how to fix it.

Every public method of `MemoryClient` runs its arguments through these before it touches the
database, so nothing past the edge ever sees a value PostgreSQL, psycopg or the standard library
would refuse (a NUL in a jsonb string, a lone surrogate that cannot be encoded as UTF-8, a
timestamp that overflows on conversion to UTC, an unknown time zone). A refused call stores
nothing. The importer may call the same functions per row (they only raise ValidationError).

Identifiers (agent_id, session_id, message_id) are *rejected*, not normalised, when they carry
surrounding whitespace or control characters: `'alice '` and `'alice'` are different keys to
PostgreSQL, and silently stripping one into the other let a caller read, write and delete an
agent it never named. Speaker names are display text: surrounding whitespace is stripped, control
characters are refused.
"""

from __future__ import annotations

import math
import unicodedata
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from arandu_pipelines.errors import ValidationError

MAX_ID_LEN = 256
MAX_JSON_DEPTH = 32
MAX_KEYS = 1000  # entity_keys / message_ids in one call
MAX_ROWS = 1_000_000_000  # limit / offset: well inside PostgreSQL's bigint
# PostgreSQL's timestamptz spans 4713 BC .. 294276 AD; Python's datetime is 1..9999. We keep
# one day away from both ends of Python's range so a conversion between zones cannot overflow.
_MIN_TS = datetime(1, 1, 2, tzinfo=UTC)
_MAX_TS = datetime(9999, 12, 30, tzinfo=UTC)


def _show(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _bad_char(value: str) -> str | None:
    """Why `value` cannot be stored as text, or None. NUL: PostgreSQL text refuses it; a lone
    surrogate (U+D800..U+DFFF): it has no UTF-8 encoding."""
    if "\x00" in value:
        return "contains a NUL character (\\x00); remove it"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        return (f"contains a lone surrogate ({value[exc.start]!r} at position {exc.start}), which "
                "is not valid Unicode; decode the source with errors='replace' or remove it")
    return None


def text(field: str, value: Any, *, max_len: int | None = None) -> str:
    """A string PostgreSQL can store: no NUL, no lone surrogates, at most `max_len` characters."""
    if not isinstance(value, str):
        raise ValidationError(f"{field} must be a string, got {type(value).__name__}")
    why = _bad_char(value)
    if why:
        raise ValidationError(f"{field} {why}")
    if max_len is not None and len(value) > max_len:
        raise ValidationError(f"{field} is {len(value)} characters; the limit is {max_len}")
    return value


def _control(value: str) -> int | None:
    for i, ch in enumerate(value):
        if unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp"):
            return i
    return None


def identifier(field: str, value: Any) -> str:
    """agent_id, session_id, message_id: a key compared byte for byte, so it is taken exactly as
    given or refused. Refused: non-strings, empty, over 256 characters, surrounding whitespace
    (Unicode whitespace too, e.g. U+00A0), control characters, NUL, lone surrogates."""
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"{field} must be a non-empty string, got {_show(value)}")
    if len(value) > MAX_ID_LEN:
        raise ValidationError(f"{field} is {len(value)} characters; the limit is {MAX_ID_LEN}")
    if "\x00" in value:
        raise ValidationError(f"{field} contains a NUL byte; remove it")
    why = _bad_char(value)
    if why:
        raise ValidationError(f"{field} {why}")
    if value != value.strip():
        raise ValidationError(
            f"{field} {_show(value)} has leading or trailing whitespace; pass it without "
            f"(e.g. {value.strip()!r}): ids are matched exactly, so {value.strip()!r} and "
            f"{_show(value)} would be different keys")
    pos = _control(value)
    if pos is not None:
        raise ValidationError(
            f"{field} {_show(value)} contains a control character ({value[pos]!r} at position "
            f"{pos}); ids may not contain tabs, newlines or other control characters")
    return value


def name(field: str, value: Any) -> str:
    """A display name (speaker): surrounding whitespace is stripped; empty, over-long or
    control-character names are refused."""
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"{field} must be a non-empty string, got {_show(value)}")
    stripped: str = value.strip()
    if len(stripped) > MAX_ID_LEN:
        raise ValidationError(f"{field} is {len(stripped)} characters; the limit is {MAX_ID_LEN}")
    why = _bad_char(stripped)
    if why:
        raise ValidationError(f"{field} {why}")
    pos = _control(stripped)
    if pos is not None:
        raise ValidationError(
            f"{field} {_show(stripped)} contains a control character ({stripped[pos]!r} at "
            f"position {pos}); remove it")
    return stripped


def json_object(field: str, value: Any) -> dict[str, Any]:
    """A dict PostgreSQL's jsonb accepts: string keys, JSON values only, finite numbers, no NUL or
    lone surrogate in any string, nesting at most MAX_JSON_DEPTH deep."""
    if not isinstance(value, dict):
        raise ValidationError(f"{field} must be a dict, got {type(value).__name__}")
    _json(field, value, 0)
    return value


def _json(path: str, value: Any, depth: int) -> None:
    if depth > MAX_JSON_DEPTH:
        raise ValidationError(f"{path} is nested more than {MAX_JSON_DEPTH} levels deep; flatten it")
    if value is None or isinstance(value, (bool, int)):
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**300:
            raise ValidationError(f"{path} is an integer too large to store; pass it as a string")
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValidationError(f"{path} is {value!r}, which JSON cannot hold; use null or a "
                                  "finite number")
        return
    if isinstance(value, str):
        why = _bad_char(value)
        if why:
            raise ValidationError(f"{path} {why}")
        return
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                raise ValidationError(f"{path} has a key of type {type(k).__name__} ({_show(k)}); "
                                      "JSON object keys must be strings")
            why = _bad_char(k)
            if why:
                raise ValidationError(f"{path} key {_show(k)} {why}")
            _json(f"{path}[{k[:30]!r}]", v, depth + 1)
        return
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _json(f"{path}[{i}]", v, depth + 1)
        return
    raise ValidationError(f"{path} holds a {type(value).__name__}, which is not JSON; use "
                          "strings, numbers, booleans, null, lists and dicts")


def time_zone(field: str, value: Any) -> ZoneInfo:
    """An IANA time zone name such as 'UTC' or 'America/Sao_Paulo'."""
    if not isinstance(value, str) or not value:
        raise ValidationError(f"{field} must be an IANA time zone name such as 'UTC' or "
                              f"'Europe/Lisbon', got {_show(value)}")
    try:
        if _bad_char(value) or value != value.strip():
            raise ValueError(value)
        return ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError, OSError, TypeError) as exc:
        raise ValidationError(f"{field} {_show(value)} is not a known IANA time zone; use a name "
                              "such as 'UTC' or 'Europe/Lisbon'") from exc


def timestamp(field: str, value: Any, tz: str = "UTC") -> datetime:
    """A datetime (or ISO-8601 string) as an aware UTC datetime; a naive one is read in `tz`.
    Years 1..9999 only (what Python and the conversion to UTC can represent)."""
    if isinstance(value, str):
        why = _bad_char(value)
        if why:
            raise ValidationError(f"{field} {why}")
        try:
            value = datetime.fromisoformat(value.strip())
        except ValueError as exc:
            raise ValidationError(
                f"{field} {_show(value)} is not an ISO-8601 timestamp (e.g. 2023-05-08T13:56:00Z)"
            ) from exc
    if not isinstance(value, datetime):
        raise ValidationError(f"{field} must be a datetime, got {type(value).__name__}")
    if value.tzinfo is None:
        value = value.replace(tzinfo=time_zone("timezone", tz))
    try:
        out: datetime = value.astimezone(UTC)
    except (OverflowError, ValueError) as exc:
        raise ValidationError(f"{field} {value.isoformat()} is out of range; use a date between "
                              "0001-01-02 and 9999-12-30") from exc
    if not (_MIN_TS <= out <= _MAX_TS):
        raise ValidationError(f"{field} {value.isoformat()} is out of range; use a date between "
                              "0001-01-02 and 9999-12-30")
    return out


def count(field: str, value: Any, *, minimum: int = 0) -> int:
    """limit / offset / chunk sizes: an int (not a bool) in [minimum, 10^9]."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValidationError(f"{field} must be an integer, got {type(value).__name__} {_show(value)}")
    if value < minimum or value > MAX_ROWS:
        kind = "a non-negative integer" if minimum == 0 else f"an integer of at least {minimum}"
        raise ValidationError(f"{field} must be {kind} (at most {MAX_ROWS}), got {value}")
    return value


def flag(field: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValidationError(f"{field} must be True or False, got {_show(value)}")
    return value


def string_list(field: str, value: Any, *, example: str, item: Any = None,
                allow_empty: bool = True) -> list[str]:
    """A list (or tuple/set) of strings, each checked by `item` (default: storable text of at most
    MAX_ID_LEN * 2 characters)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple, set, frozenset)):
        raise ValidationError(f"{field} must be a list of strings, e.g. {example}")
    if not value and not allow_empty:
        raise ValidationError(f"{field} is empty; pass at least one item or leave it out")
    if len(value) > MAX_KEYS:
        raise ValidationError(f"{field} has {len(value)} items; the limit is {MAX_KEYS}")
    out = []
    for i, v in enumerate(value):
        if not isinstance(v, str):
            raise ValidationError(f"{field}[{i}] must be a string, got {type(v).__name__}; "
                                  f"e.g. {example}")
        out.append(item(f"{field}[{i}]", v) if item else text(f"{field}[{i}]", v,
                                                               max_len=2 * MAX_ID_LEN))
    return out


def messages(field: str, value: Any, max_chars: int) -> list[str]:
    """recent_messages: a list of strings (the last 10 are kept)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise ValidationError(f"{field} must be a list of strings, e.g. ['Hi!', 'How are you?']")
    return [text(f"{field}[{i}]", m, max_len=max_chars) for i, m in enumerate(value)]



def epoch(field: str, value: Any) -> datetime:
    """Seconds since 1970 (an int or float, not a bool) as an aware UTC datetime; NaN, infinite or
    out-of-range numbers are refused (datetime.fromtimestamp raises OverflowError/OSError)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValidationError(f"{field} must be a number of seconds since 1970, got {_show(value)}")
    if not math.isfinite(value):
        raise ValidationError(f"{field} is {value!r}; use a finite number of seconds since 1970")
    try:
        out = datetime.fromtimestamp(float(value), tz=UTC)
    except (OverflowError, OSError, ValueError) as exc:
        raise ValidationError(f"{field} {value!r} is out of range; use seconds since 1970 for a date "
                              "between 0001-01-02 and 9999-12-30") from exc
    if not (_MIN_TS <= out <= _MAX_TS):
        raise ValidationError(f"{field} {value!r} is out of range; use a date between 0001-01-02 "
                              "and 9999-12-30")
    return out


def event_row(agent_id: Any, session_id: Any, speaker: Any, text_: Any, metadata: Any,
              message_id: Any = None) -> None:
    """Every check a stored message needs, for a caller that builds events itself (the importer:
    call it per row and quarantine the row on ValidationError, the message being the reason)."""
    identifier("agent_id", agent_id)
    identifier("session_id", session_id)
    name("speaker", speaker)
    text("text", text_)
    if metadata is not None:
        json_object("metadata", metadata)
    if message_id is not None:
        identifier("message_id", message_id)

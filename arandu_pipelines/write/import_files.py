"""Reading import files into numbered rows, one bad row never costing the rest of the file.

Each reader yields `SourceRow`s: the row's 1-based number among the file's data rows (a CSV
header and blank lines are not counted), its fields, and `error` when the row could not even be
read (invalid UTF-8, broken JSON, a CSV record with more fields than the header, a Parquet value
that cannot be converted). Such rows are quarantined by the importer; validation of the fields
of readable rows happens there too (`importer.to_event`). A file that cannot be read at all — it
does not exist, the Parquet footer is corrupt, the LoCoMo JSON is truncated — raises
`ImportFileError` naming the file and the problem, before anything is stored.
"""

from __future__ import annotations

import csv
import json
import re
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from arandu_pipelines.errors import ImportFileError

# Stands in for a JSON value nested deeper than MAX_DEPTH (see `loads_bounded`); the NUL keeps
# it from ever passing validation even where the marker is not looked for by name.
TOO_DEEP = "\x00arandu:nested-too-deep"
MAX_DEPTH = 100  # levels of nesting accepted in a JSON value (metadata)
_MAX_FIELD = 2**31 - 1  # csv's default limit (131 072 chars) would stop the reader mid-file


@dataclass
class SourceRow:
    number: int  # 1-based data row number in the source
    data: dict[str, Any]
    error: str | None = None  # set when the row could not even be read (bad JSON, bad UTF-8)


def read_rows(path: str | Path, fmt: str = "auto", agent_id: str | None = None
              ) -> Iterator[SourceRow]:
    """JSONL, CSV/TSV or Parquet (by extension unless `fmt` says), or a LoCoMo JSON file
    (`agent_id` names its agent; default `locomo-<file stem>`)."""
    p = Path(path)
    if not p.exists():
        raise ImportFileError(f"import file {p} does not exist")
    if not p.is_file():
        raise ImportFileError(f"import file {p} is not a regular file")
    kind = fmt if fmt != "auto" else guess_format(p)
    if kind == "jsonl":
        return _read_jsonl(p)
    if kind in ("csv", "tsv"):
        return _read_csv(p, "\t" if kind == "tsv" or p.suffix.lower() == ".tsv" else ",")
    if kind == "parquet":
        return _read_parquet(p)
    if kind == "locomo":
        return (SourceRow(i, row, err) for i, (row, err) in enumerate(_locomo(p, agent_id), start=1))
    raise ImportFileError(
        f"unknown import format {kind!r} for {p.name}: use .jsonl, .csv, .parquet or --format locomo"
    )


def guess_format(p: Path) -> str:
    suffix = "".join(p.suffixes[-2:]).lower() if p.suffix in (".gz",) else p.suffix.lower()
    if suffix in (".jsonl", ".ndjson", ".jsonl.gz"):
        return "jsonl"
    if suffix in (".csv", ".tsv", ".csv.gz"):
        return "csv"
    if suffix in (".parquet", ".pq"):
        return "parquet"
    if suffix == ".json":
        return "locomo"
    return suffix.lstrip(".")


# ---- JSON values of any depth -------------------------------------------------------------------
_JSON_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)


def loads_bounded(text: str) -> Any:
    """`json.loads`, except that a value nested deeper than MAX_DEPTH (which the json module
    answers with RecursionError from about 1 000 levels) becomes the TOO_DEEP marker, so only
    the row holding it is rejected. The rewrite runs only when the fast path failed."""
    try:
        return json.loads(text)
    except RecursionError:
        pass
    out: list[str] = []
    depth, start, last = 0, -1, 0
    for m in _JSON_TOKEN.finditer(text):
        tok = m.group()
        if tok in "[{":
            depth += 1
            if depth == MAX_DEPTH + 1:
                start = m.start()
        elif tok in "]}":
            if depth == MAX_DEPTH + 1 and start >= 0:
                out.append(text[last:start])
                out.append(json.dumps(TOO_DEEP))
                last, start = m.end(), -1
            depth -= 1
    if start >= 0:  # unterminated: let json report where
        raise json.JSONDecodeError("unterminated nested value", text, start)
    out.append(text[last:])
    return json.loads("".join(out))


def _json_error(exc: Exception) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"invalid JSON: {exc.msg} at column {exc.colno}"
    return f"invalid JSON: {str(exc).split(':')[0]}"  # e.g. an integer over 4300 digits


# ---- JSONL ----------------------------------------------------------------------------------------
def _read_jsonl(p: Path) -> Iterator[SourceRow]:
    with p.open("rb") as fh:
        n = 0
        for raw in fh:
            if n == 0 and raw.startswith(b"\xef\xbb\xbf"):  # UTF-8 byte order mark
                raw = raw[3:]
            if not raw.strip():
                continue
            n += 1
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield SourceRow(n, {}, f"invalid UTF-8 at byte {exc.start}")
                continue
            try:
                data = loads_bounded(line)
            except ValueError as exc:  # JSONDecodeError, or an over-long integer
                yield SourceRow(n, {}, _json_error(exc))
                continue
            if not isinstance(data, dict):
                yield SourceRow(n, {}, f"expected a JSON object, got {type(data).__name__}")
                continue
            yield SourceRow(n, data)


# ---- CSV / TSV ------------------------------------------------------------------------------------
class _Lines:
    """The file's physical lines for csv.reader, remembering which ones each record used and
    taking lines back: a record that swallowed several lines (an unclosed quote) and came out
    malformed is rejected on its first line only, and the lines after it are read again."""

    def __init__(self, fh: Any) -> None:
        self.fh = fh
        self.pushed: deque[tuple[int, str]] = deque()
        self.used: list[tuple[int, str]] = []
        self.number = 0

    def __iter__(self) -> _Lines:
        return self

    def __next__(self) -> str:
        if self.pushed:
            item = self.pushed.popleft()
        else:
            line = self.fh.readline()
            if not line:
                raise StopIteration
            self.number += 1
            item = (self.number, line)
        self.used.append(item)
        return item[1]

    def take(self) -> list[tuple[int, str]]:
        used, self.used = self.used, []
        return used


def _read_csv(p: Path, sep: str) -> Iterator[SourceRow]:
    if csv.field_size_limit() < _MAX_FIELD:
        csv.field_size_limit(_MAX_FIELD)
    # utf-8-sig drops a byte order mark; surrogateescape keeps invalid bytes as U+DC80..U+DCFF
    # so only the row holding them is rejected, and a genuine U+FFFD in a text stays valid.
    with p.open("r", encoding="utf-8-sig", errors="surrogateescape", newline="") as fh:
        lines = _Lines(fh)
        reader = csv.reader(lines, delimiter=sep, strict=True)
        try:
            header = [readable(h).strip() for h in next(reader)]
        except StopIteration:
            return
        except csv.Error as exc:
            raise ImportFileError(f"{p}: unreadable CSV header ({exc})") from exc
        lines.take()
        n = 0
        while True:
            try:
                rec = next(reader)
            except StopIteration:
                break
            except csv.Error as exc:
                used = lines.take()
                n += 1
                if len(used) > 1:  # a quote left open ran into the lines after it: re-read them
                    lines.pushed.extendleft(reversed(used[1:]))
                yield SourceRow(n, {"line": readable(used[0][1])[:500]} if used else {},
                                f"malformed CSV record (line {used[0][0] if used else '?'}): {exc}")
                continue
            used = lines.take()
            if not any(c.strip() for c in rec):
                continue  # blank line
            n += 1
            line = used[0][0] if used else reader.line_num
            if len(rec) != len(header) and len(used) > 1:
                # a quote left open ate the lines after it: reject the first, re-read the rest
                lines.pushed.extendleft(reversed(used[1:]))
                yield SourceRow(n, {"line": readable(used[0][1])[:500]},
                                f"malformed CSV record (line {line}): unbalanced quote, "
                                f"{len(rec)} field(s) where the header has {len(header)}")
                continue
            if len(rec) > len(header):
                yield SourceRow(n, dict(zip(header, rec)),
                                f"row has {len(rec)} fields, the header has {len(header)} "
                                f"(line {line})")
                continue
            data = dict(zip(header, rec + [""] * (len(header) - len(rec))))
            bad = next((k for k, v in data.items() if _has_bad_bytes(v)), None)
            yield SourceRow(n, data, f"invalid UTF-8 in column {bad!r}" if bad else None)


def _has_bad_bytes(value: str) -> bool:
    """True when surrogateescape decoding left an invalid byte in `value`."""
    try:
        value.encode("utf-8")
        return False
    except UnicodeEncodeError:
        return True


def readable(value: str) -> str:
    """`value` with whatever UTF-8 cannot carry (lone surrogates, bytes kept by
    surrogateescape) replaced by U+FFFD: for messages, previews and warnings."""
    try:
        value.encode("utf-8")
        return value
    except UnicodeEncodeError:
        return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


# ---- Parquet --------------------------------------------------------------------------------------
def _read_parquet(p: Path) -> Iterator[SourceRow]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(p)
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise ImportFileError(f"{p}: not a readable Parquet file ({exc})") from exc
    n = 0
    batches = pf.iter_batches(batch_size=4096)
    while True:
        try:
            batch = next(batches)
        except StopIteration:
            return
        except (pa.ArrowException, OSError, ValueError) as exc:
            raise ImportFileError(f"{p}: Parquet data unreadable after row {n} ({exc})") from exc
        columns = {name: _column_values(batch.column(i)) for i, name in enumerate(batch.schema.names)}
        for i in range(batch.num_rows):
            n += 1
            data = {name: values[i] for name, values in columns.items()}
            bad = next((k for k, v in data.items() if isinstance(v, _Unreadable)), None)
            if bad is None:
                yield SourceRow(n, data)
            else:
                reason = data[bad].reason
                data = {k: ("<unreadable>" if isinstance(v, _Unreadable) else v) for k, v in data.items()}
                yield SourceRow(n, data, f"column {bad!r}: cannot read the value ({reason})")


@dataclass
class _Unreadable:
    reason: str


def _column_values(column: Any) -> list[Any]:
    """Python values of a column; when the column cannot be converted whole (a timestamp past
    year 9999, invalid UTF-8), value by value so only the bad ones are lost."""
    try:
        return column.to_pylist()
    except Exception:  # noqa: BLE001 - any conversion failure is per value below
        out: list[Any] = []
        for i in range(len(column)):
            try:
                out.append(column[i].as_py())
            except Exception as exc:  # noqa: BLE001
                out.append(_Unreadable(f"{type(exc).__name__}: {str(exc)[:120]}"))
        return out


# ---- LoCoMo --------------------------------------------------------------------------------------
def parse_locomo_time(value: str) -> datetime:
    """'1:56 pm on 8 May, 2023' -> aware UTC datetime."""
    return datetime.strptime(value.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def locomo_rows(path: str | Path, agent_id: str | None = None) -> list[dict[str, Any]]:
    """Rows of a LoCoMo conversation file (the dev data's shape): one per turn, message_id =
    the turn's dia_id, turns spaced a minute apart from their session's start time. A turn that
    is not usable comes out as a row that validation rejects with the reason (an unparseable
    session time is kept as `occurred_at`); a file that is not a LoCoMo conversation raises
    ImportFileError."""
    return [row for row, _ in _locomo(Path(path), agent_id)]


def _locomo(p: Path, agent_id: str | None) -> list[tuple[dict[str, Any], str | None]]:
    if not p.is_file():
        raise ImportFileError(f"import file {p} does not exist")
    raw = p.read_bytes()
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:  # invalid bytes stay as surrogates: the turns holding them are rejected, not the file
        data = loads_bounded(raw.decode("utf-8", "surrogateescape"))
    except ValueError as exc:
        raise ImportFileError(f"{p}: not valid JSON, so not a LoCoMo conversation ({_json_error(exc)})") from exc
    conv = data.get("conversation", data) if isinstance(data, dict) else None
    if not isinstance(conv, dict) or not any(str(k).startswith("session_") for k in conv):
        raise ImportFileError(f"{p}: not a LoCoMo conversation (expected an object with "
                              "session_1, session_1_date_time, ... under 'conversation')")
    agent = agent_id or f"locomo-{p.stem}"
    out: list[tuple[dict[str, Any], str | None]] = []
    n = 1
    while f"session_{n}" in conv or f"session_{n}_date_time" in conv:
        turns = conv.get(f"session_{n}") or []
        stamp = conv.get(f"session_{n}_date_time")
        start: datetime | None = None
        stamp_error = None
        try:
            if not isinstance(stamp, str):
                raise TypeError(f"not a string: {type(stamp).__name__}")
            start = parse_locomo_time(stamp)
        except (TypeError, ValueError, AttributeError):
            stamp_error = f"session_{n}_date_time {str(stamp)[:60]!r} is not a LoCoMo time " \
                          "(e.g. '1:56 pm on 8 May, 2023')"
        if not isinstance(turns, list):
            turns = [turns]
        for j, turn in enumerate(turns):
            row, err = _locomo_turn(turn, agent, n, start or stamp, j)
            out.append((row, err or (stamp_error if turns and start is None else None)))
        n += 1
    return out


def _locomo_turn(turn: Any, agent: str, n: int, start: Any, j: int
                 ) -> tuple[dict[str, Any], str | None]:
    """One turn as an import row; `start` is the session's start time, or its raw stamp when
    that did not parse (validation then rejects the row naming it)."""
    base: dict[str, Any] = {"agent_id": agent, "session_id": f"session_{n}"}
    if not isinstance(turn, dict):
        return ({**base, "text": str(turn)[:500]},
                f"session_{n} turn {j + 1} is a {type(turn).__name__}, not an object")
    body = turn.get("text", "")
    if turn.get("blip_caption") and isinstance(body, str):
        body = f"{body} [shared a photo: {turn['blip_caption']}]".strip()
    meta: dict[str, Any] = {"dia_id": turn.get("dia_id")}
    if turn.get("img_url"):
        meta["img_url"] = turn["img_url"]
    return {
        **base,
        "speaker": turn.get("speaker", "unknown"),
        "text": body,
        "occurred_at": ((start + timedelta(minutes=j)).isoformat() if isinstance(start, datetime)
                        else start),
        "message_id": turn.get("dia_id"),
        "metadata": meta,
    }, None

"""One bad row costs only itself, in every import format (issue 14, items 1 and 8).

Each format gets a 10 000-row file with a poison row every 40 rows (250 of them, cycling through
every kind: NUL, NaN / Infinity, lone surrogates, 10 000 levels of nesting, timestamps out of
range, over-long integers, extra CSV fields, unclosed quotes, invalid UTF-8 ...). Every good row
must be stored and every poison row reported (and quarantined) with its row number and a reason
naming the problem. Before the fix one such row cost the whole file (or the rest of it).
"""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime, timedelta

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from arandu_pipelines.errors import (
    ImportFileError,
    MessageConflictError,
    ValidationError,
)
from arandu_pipelines.write.events import EventInput
from arandu_pipelines.write.importer import _insert, locomo_rows, read_rows
from tests.conftest import rows

AGENT = "poison"
T0 = datetime(2024, 1, 1, tzinfo=UTC)
N = 10_000
EVERY = 40  # a poison row at every row number n with n % EVERY == 7
DEEP = "[" * 10_000 + "]" * 10_000


def when(i: int) -> str:
    return (T0 + timedelta(seconds=i)).isoformat()


def good(i: int, **kw) -> dict:
    row = {"agent_id": AGENT, "session_id": f"s{i // 500}", "speaker": "Ana",
           "text": f"Message {i}: I visited café number {i} \ufffd today.",
           "occurred_at": when(i), "message_id": f"m{i}", "metadata": {"n": i}}
    row.update(kw)
    return row


def is_poison(n: int) -> bool:
    return n % EVERY == 7


def check(report, fresh_db_url, expected: dict[int, str], n_rows: int, good_ids: set[str],
          agent: str = AGENT, sample: tuple[str, str] = ("m1", good(1)["text"])):
    """Every good row stored, every poison row rejected by number with the expected reason."""
    got = {r.row_number: r.reason for r in report.rows_rejected}
    assert set(got) == set(expected), (sorted(set(got) ^ set(expected))[:10],
                                       [got.get(k) for k in sorted(set(got) - set(expected))[:3]])
    wrong = {n: (want, got[n]) for n, want in expected.items() if want not in got[n]}
    assert not wrong, list(wrong.items())[:5]
    assert report.rows_read == n_rows
    assert report.events_inserted == len(good_ids) == n_rows - len(expected)
    assert report.rejected_count == len(expected) and report.conflict_count == 0
    stored = {m for (m,) in rows(fresh_db_url, "SELECT message_id FROM memory_events "
                                               "WHERE agent_id = %s", (agent,))}
    assert stored == good_ids
    q = rows(fresh_db_url, "SELECT row_number, reason FROM memory_quarantine ORDER BY 1")
    assert dict(q) == got
    # a legitimate U+FFFD (and the rest of the text) is stored byte for byte
    assert rows(fresh_db_url, "SELECT text FROM memory_events WHERE agent_id = %s AND "
                              "message_id = %s", (agent, sample[0])) == [(sample[1],)]


# ---- JSONL ---------------------------------------------------------------------------------------
def _line(row: dict, **raw: str) -> bytes:
    """`row` as a JSON line, with `raw` fields spliced in as literal JSON text."""
    body = json.dumps({k: v for k, v in row.items() if k not in raw})
    extra = "".join(f', "{k}": {v}' for k, v in raw.items())
    return (body[:-1] + extra + "}").encode()


JSONL_POISON = [
    (lambda i: _line(good(i), metadata='{"k": "a\\u0000b"}'), "metadata.k contains a NUL"),
    (lambda i: _line(good(i), metadata='{"k": "a"}', note="1") .replace(b'"k": "a"', b'"a\\u0000": 1'),
     "metadata key contains a NUL"),
    (lambda i: _line(good(i), metadata='{"x": NaN}'), "NaN and Infinity are not JSON"),
    (lambda i: _line(good(i), metadata='{"x": [1, -Infinity]}'), "NaN and Infinity are not JSON"),
    (lambda i: _line(good(i), metadata='{"k": "\\ud800"}'), "lone surrogate"),
    (lambda i: _line(good(i), text='"broken \\udfff half"'), "text contains a lone surrogate"),
    (lambda i: _line(good(i), agent_id='"ag\\ud83d"'), "agent_id contains a lone surrogate"),
    (lambda i: _line(good(i), metadata='{"d": ' + DEEP + "}"), "nested deeper than 100 levels"),
    (lambda i: _line(good(i), metadata='{"d": ' + "[" * 500 + "]" * 500 + "}"),
     "nested deeper than 100 levels"),
    (lambda i: _line(good(i), occurred_at="1e20"), "out of range"),
    (lambda i: _line(good(i), occurred_at="-1e20"), "out of range"),
    (lambda i: _line(good(i), occurred_at="1" + "0" * 30), "out of range"),
    (lambda i: _line(good(i), occurred_at="Infinity"), "out of range"),
    (lambda i: _line(good(i), occurred_at='"0000-01-01T00:00:00Z"'), "unparseable occurred_at"),
    (lambda i: _line(good(i), occurred_at='"10000-01-01T00:00:00Z"'), "unparseable occurred_at"),
    (lambda i: _line(good(i), occurred_at='"0001-01-01T00:00:00+05:00"'), "out of range"),
    (lambda i: _line(good(i), metadata='{"big": 1' + "0" * 5000 + "}"), "invalid JSON"),
    (lambda i: _line(good(i), message_id='{"a": 1}'), "message_id must be a string"),
    (lambda i: _line(good(i), text='"nul \\u0000 inside"'), "text contains NUL"),
    (lambda i: _line(good(i), speaker='"Ana\\u0000"'), "speaker contains a NUL"),
    (lambda i: b'{"agent_id": "poison", "text": "trunc', "invalid JSON"),
    (lambda i: b'{"agent_id": "poison", "text": "caf\xe9"}', "invalid UTF-8"),
    (lambda i: b"[1, 2]", "expected a JSON object"),
    (lambda i: _line(good(i), metadata='[1, 2]'), "metadata must be a JSON object, got list"),
    (lambda i: _line(good(i), text="12"), "text must be a string"),
]


async def test_jsonl_ten_thousand_rows_with_every_kind_of_poison(memory, fresh_db_url, tmp_path):
    lines, expected, good_ids = [], {}, set()
    for n in range(1, N + 1):
        if is_poison(n):
            make, reason = JSONL_POISON[(n // EVERY) % len(JSONL_POISON)]
            lines.append(make(n))
            expected[n] = reason
        else:
            lines.append(json.dumps(good(n)).encode())
            good_ids.add(f"m{n}")
    path = tmp_path / "poison.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + b"\n".join(lines) + b"\n")  # with a byte order mark
    report = await memory.import_messages(read_rows(path), extract=False, source="poison.jsonl")
    check(report, fresh_db_url, expected, N, good_ids)


# ---- CSV -----------------------------------------------------------------------------------------
COLUMNS = ["agent_id", "session_id", "speaker", "text", "occurred_at", "message_id", "metadata"]


def _csv(row: dict) -> bytes:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(
        [json.dumps(row[c]) if c == "metadata" and not isinstance(row[c], str) else row[c]
         for c in COLUMNS])
    return buf.getvalue().encode()


CSV_POISON = [
    (lambda i: _csv(good(i, metadata='{"k": "a\\u0000b"}')), "metadata.k contains a NUL"),
    (lambda i: _csv(good(i, metadata='{"x": NaN}')), "NaN and Infinity are not JSON"),
    (lambda i: _csv(good(i, metadata='{"k": "\\ud800"}')), "lone surrogate"),
    (lambda i: _csv(good(i, metadata='{"d": ' + DEEP + "}")), "nested deeper than 100 levels"),
    (lambda i: _csv(good(i, occurred_at="1e20")), "unparseable occurred_at"),
    (lambda i: _csv(good(i, occurred_at="0000-01-01T00:00:00Z")), "unparseable occurred_at"),
    (lambda i: _csv(good(i, occurred_at="10000-01-01T00:00:00Z")), "unparseable occurred_at"),
    (lambda i: _csv(good(i, occurred_at="0001-01-01T00:00:00+05:00")), "out of range"),
    (lambda i: _csv(good(i)).replace(b"\n", b',extra,"fields, here"\n'), "row has 9 fields"),
    (lambda i: _csv(good(i, text="caf\u00e9 au lait")).replace("é".encode(), b"\xe9"),
     "invalid UTF-8 in column 'text'"),
    (lambda i: _csv(good(i, text="nul\x00inside")), "text contains NUL"),
    (lambda i: f'{AGENT},s1,Ana,"an unclosed quote,{when(i)},m{i},{{}}\n'.encode(),
     "malformed CSV record"),
    (lambda i: _csv(good(i, metadata='{"big": 1' + "0" * 5000 + "}")), "metadata is not valid JSON"),
    (lambda i: _csv(good(i, agent_id="")), "missing agent_id"),
]


def _good_csv(n: int) -> bytes:
    if n % 3 == 0:  # quoted fields with commas, quotes and a line break in some good rows
        return _csv(good(n, text=f'Message {n}: "quoted", with commas,\nand a second line.'))
    return _csv(good(n))


async def test_csv_ten_thousand_rows_with_every_kind_of_poison(memory, fresh_db_url, tmp_path):
    parts, expected, good_ids = [("\ufeff" + ",".join(COLUMNS) + "\n").encode()], {}, set()
    for n in range(1, N + 1):
        if is_poison(n):
            make, reason = CSV_POISON[(n // EVERY) % len(CSV_POISON)]
            parts.append(make(n))
            expected[n] = reason
        else:
            parts.append(_good_csv(n))
            good_ids.add(f"m{n}")
    path = tmp_path / "poison.csv"
    path.write_bytes(b"".join(parts))
    check(await memory.import_messages(read_rows(path), extract=False, source="poison.csv"),
          fresh_db_url, expected, N, good_ids)


# ---- Parquet ---------------------------------------------------------------------------------------
def _micros(i: int) -> int:
    return int((T0 + timedelta(seconds=i)).timestamp()) * 1_000_000


PARQUET_POISON = [  # (column overrides, reason)
    ({"text": "nul\x00inside"}, "text contains NUL"),
    ({"metadata": '{"k": "a\\u0000b"}'}, "metadata.k contains a NUL"),
    ({"metadata": '{"x": NaN}'}, "NaN and Infinity are not JSON"),
    ({"metadata": '{"k": "\\udc00"}'}, "lone surrogate"),
    ({"metadata": '{"d": ' + DEEP + "}"}, "nested deeper than 100 levels"),
    ({"occurred_at": 400_000_000_000 * 1_000_000}, "column 'occurred_at': cannot read the value"),
    ({"occurred_at": -70_000_000_000 * 1_000_000}, "column 'occurred_at': cannot read the value"),
    ({"speaker": ""}, "missing speaker"),
    ({"agent_id": "x" * 300}, "agent_id longer than 256"),
]


async def test_parquet_ten_thousand_rows_with_every_kind_of_poison(memory, fresh_db_url, tmp_path):
    cols: dict[str, list] = {c: [] for c in COLUMNS}
    expected, good_ids = {}, set()
    for n in range(1, N + 1):
        row = dict(good(n), metadata=json.dumps({"n": n}), occurred_at=_micros(n))
        if is_poison(n):
            over, reason = PARQUET_POISON[(n // EVERY) % len(PARQUET_POISON)]
            row.update(over)
            expected[n] = reason
        else:
            good_ids.add(f"m{n}")
        for c in COLUMNS:
            cols[c].append(row[c])
    arrays = {c: pa.array(v) for c, v in cols.items() if c != "occurred_at"}
    arrays["occurred_at"] = pa.array(cols["occurred_at"], pa.int64()).cast(
        pa.timestamp("us", tz="UTC"))
    path = tmp_path / "poison.parquet"
    pq.write_table(pa.table(arrays), path, row_group_size=3000)
    check(await memory.import_messages(read_rows(path), extract=False, source="poison.parquet"),
          fresh_db_url, expected, N, good_ids)
    stored = rows(fresh_db_url, "SELECT text, occurred_at FROM memory_events WHERE message_id = 'm1'")
    assert stored == [(good(1)["text"], T0 + timedelta(seconds=1))]  # U+FFFD kept as is


# ---- LoCoMo ------------------------------------------------------------------------------------------
def _turn(i: int, **raw: str) -> str:
    turn = {"speaker": "Ana" if i % 2 else "Bo", "dia_id": f"D{i}",
            "text": f"Turn {i}: I went to café {i} \ufffd."}
    body = json.dumps({k: v for k, v in turn.items() if k not in raw})
    return body[:-1] + "".join(f', "{k}": {v}' for k, v in raw.items()) + "}"


LOCOMO_POISON = [
    (lambda i: _turn(i, text='"nul \\u0000 in a turn"'), "text contains NUL"),
    (lambda i: _turn(i, text='"half \\ud800 a pair"'), "text contains a lone surrogate"),
    (lambda i: _turn(i, img_url="NaN"), "NaN and Infinity are not JSON"),
    (lambda i: _turn(i, img_url=DEEP), "nested deeper than 100 levels"),
    (lambda i: _turn(i, dia_id="1" + "0" * 400), "message_id is a number too long"),
    (lambda i: '"just a string, not a turn"', "is a str, not an object"),
    (lambda i: _turn(i, text='"caf\xe9"'), "text contains invalid UTF-8"),
]
TURNS_PER_SESSION = 100
BAD_SESSION = 42  # its date does not parse: each of its turns is rejected, the others go in


async def test_locomo_ten_thousand_turns_with_every_kind_of_poison(memory, fresh_db_url, tmp_path):
    sessions, expected, good_ids = [], {}, set()
    n = 0
    for s in range(1, N // TURNS_PER_SESSION + 1):
        turns = []
        for _ in range(TURNS_PER_SESSION):
            n += 1
            if s == BAD_SESSION:
                expected[n] = f"session_{s}_date_time '31:99 pm on 40 Foo, 2023' is not a LoCoMo time"
                turns.append(_turn(n))
            elif is_poison(n):
                make, reason = LOCOMO_POISON[(n // EVERY) % len(LOCOMO_POISON)]
                turns.append(make(n))
                expected[n] = reason
            else:
                turns.append(_turn(n))
                good_ids.add(f"D{n}")
        day = datetime(2023, 1, 1) + timedelta(days=s)
        stamp = "31:99 pm on 40 Foo, 2023" if s == BAD_SESSION else \
            f"1:56 pm on {day.day} {day.strftime('%B')}, {day.year}"
        sessions.append(f'"session_{s}_date_time": "{stamp}", "session_{s}": [{", ".join(turns)}]')
    text = '{"conversation": {"speaker_a": "Ana", "speaker_b": "Bo", ' + ", ".join(sessions) + "}}"
    path = tmp_path / "conv-poison.json"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8", "surrogateescape").replace(
        "café\"".encode(), b"caf\xe9\""))
    check(await memory.import_messages(read_rows(path, "locomo"), extract=False, source="conv"),
          fresh_db_url, expected, N, good_ids, agent="locomo-conv-poison",
          sample=("D1", "Turn 1: I went to café 1 \ufffd."))
    # the dict API (the CLI's) yields the same rows; invalid ones fail validation the same way
    assert len(locomo_rows(path)) == N


# ---- files that cannot be read at all --------------------------------------------------------------
async def test_unreadable_files_raise_one_clear_error_naming_the_file(memory, fresh_db_url, tmp_path):
    table = pa.table({c: [str(v)] for c, v in good(1, metadata="{}").items()})
    whole = tmp_path / "whole.parquet"
    pq.write_table(table, whole)
    data = whole.read_bytes()
    (tmp_path / "truncated.parquet").write_bytes(data[: len(data) // 2])
    (tmp_path / "garbage.parquet").write_bytes(b"PAR1 this is not parquet at all" * 10)
    (tmp_path / "empty.parquet").write_bytes(b"")
    (tmp_path / "truncated.json").write_text('{"conversation": {"session_1": [{"speaker": "A", ')
    (tmp_path / "list.json").write_text("[1, 2, 3]")
    (tmp_path / "other.json").write_text('{"hello": "world"}')
    (tmp_path / "x.xml").write_text("<a/>")
    cases = [
        ("missing.jsonl", "auto", "does not exist"),
        ("missing.json", "locomo", "does not exist"),
        ("truncated.parquet", "auto", "not a readable Parquet file"),
        ("garbage.parquet", "auto", "not a readable Parquet file"),
        ("empty.parquet", "auto", "not a readable Parquet file"),
        ("truncated.json", "locomo", "not valid JSON"),
        ("list.json", "auto", "not a LoCoMo conversation"),
        ("other.json", "locomo", "not a LoCoMo conversation"),
        ("x.xml", "auto", "unknown import format"),
    ]
    for name, fmt, problem in cases:
        path = tmp_path / name
        with pytest.raises(ImportFileError, match=problem) as info:
            await memory.import_messages(read_rows(path, fmt), extract=False)
        assert str(path.name) in str(info.value), (name, str(info.value))
        assert isinstance(info.value, ValidationError)
    with pytest.raises(ImportFileError, match="truncated.json"):
        locomo_rows(tmp_path / "truncated.json")
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_events")[0][0] == 0
    report = await memory.import_messages(read_rows(whole), extract=False)  # the whole one is fine
    assert report.events_inserted == 1 and report.all_rows_taken


# ---- the database refusing a row validation did not foresee --------------------------------------------
async def test_a_row_the_database_refuses_costs_only_itself(memory, fresh_db_url):
    """Past validation, should PostgreSQL still refuse a value, the batch is split until the
    refused rows are found: the others are stored."""
    events = [EventInput(AGENT, f"Message {i}.", "Ana", T0 + timedelta(seconds=i), "s",
                         f"m{i}", {"n": i}, "import") for i in range(50)]
    events[13].metadata = {"k": "a\x00b"}  # jsonb refuses \u0000
    events[31].text = "half \ud800 pair"  # not encodable
    inserted, refused = await _insert(memory, events)
    assert inserted == 48
    assert [(e.message_id, "refused by the database" in r) for e, r in refused] == [
        ("m13", True), ("m31", True)]
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_events")[0][0] == 48


# ---- re-import with a changed text (item 8) -----------------------------------------------------------
async def test_reimport_with_changed_text_is_reported_as_a_conflict(memory, fresh_db_url):
    first = [good(i, metadata=None) for i in range(1, 6)]
    report = await memory.import_messages(first, extract=False, source="v1")
    assert report.events_inserted == 5 and report.conflict_count == 0
    second = [good(i, metadata=None) for i in range(1, 6)]
    second[1] = good(2, text="Message 2, edited afterwards.")
    second[3] = good(4, text="Message 4, edited too.")
    second.append(good(6))
    second.append(good(6, text="Message 6 again, with another text in the same file."))
    second.append(good(6))  # the very same row twice: a duplicate, not a conflict
    report = await memory.import_messages(second, extract=False, source="v2")
    assert [(c.row_number, c.message_id) for c in report.conflicts] == [
        (2, "m2"), (4, "m4"), (7, "m6")]
    assert report.conflict_count == 3 and not report.all_rows_taken
    assert all("different text" in c.reason and c.event_id for c in report.conflicts)
    assert report.events_inserted == 1 and report.events_skipped_duplicate == 4
    assert report.rejected_count == 0
    assert report.to_dict()["conflicts"] == 3
    assert [r["row"] for r in report.to_dict()["conflict_rows"]] == [2, 4, 7]
    # the stored events are untouched
    stored = dict(rows(fresh_db_url, "SELECT message_id, text FROM memory_events"))
    assert stored["m2"] == good(2)["text"] and stored["m4"] == good(4)["text"]
    assert stored["m6"] == good(6)["text"] and len(stored) == 6
    ids = dict(rows(fresh_db_url, "SELECT message_id, id::text FROM memory_events"))
    assert {c.message_id: c.event_id for c in report.conflicts} == {
        m: ids[m] for m in ("m2", "m4", "m6")}
    # the refused new texts are kept for review, once however often the file is re-imported
    q = rows(fresh_db_url, "SELECT row_number, payload->>'text' FROM memory_quarantine "
                           "WHERE reason LIKE 'conflict:%%' ORDER BY 1")
    assert q == [(2, "Message 2, edited afterwards."), (4, "Message 4, edited too."),
                 (7, "Message 6 again, with another text in the same file.")]
    again = await memory.import_messages(second, extract=False, source="v2")
    assert again.conflict_count == 3 and again.events_inserted == 0
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_quarantine")[0][0] == 3


async def test_write_with_an_existing_message_id(memory, fresh_db_url):
    first = await memory.write(AGENT, "I live in Lisbon.", speaker_name="Ana", occurred_at=T0,
                               message_id="w1")
    assert first.event_id and first.skipped_reason is None
    # the same message again (a retried call): idempotent, same event, nothing new
    again = await memory.write(AGENT, "I live in Lisbon.", speaker_name="Ana", occurred_at=T0,
                               message_id="w1")
    assert again.event_id == first.event_id and again.success
    assert "already stored" in again.skipped_reason
    # another text under the same id: refused, the stored message kept
    with pytest.raises(MessageConflictError, match="already exists .* different text"):
        await memory.write(AGENT, "I live in Porto.", speaker_name="Ana", occurred_at=T0,
                           message_id="w1")
    assert rows(fresh_db_url, "SELECT text FROM memory_events") == [("I live in Lisbon.",)]
    facts = rows(fresh_db_url, "SELECT count(*) FROM memory_facts")[0][0]
    assert facts >= 1
    await memory.write(AGENT, "I live in Lisbon.", speaker_name="Ana", occurred_at=T0,
                       message_id="w1")
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_facts")[0][0] == facts


# ---- Dagster: an unreadable file is not retried ------------------------------------------------------
def test_dagster_import_fails_once_on_an_unreadable_file(tmp_path, fresh_db_url, embeddings):
    """The same bytes fail the same way: the import asset fails at once (no retry policy
    round-trips), naming the file, after storing the readable files of the drop directory."""
    from dagster import instance_for_test, materialize

    from arandu_pipelines.assets import memory_events
    from tests.conftest import make_resources

    drop = tmp_path / "imports"
    drop.mkdir()
    (drop / "a-good.jsonl").write_text("".join(json.dumps(good(i)) + "\n" for i in range(1, 4)))
    (drop / "b-broken.parquet").write_bytes(b"PAR1 not really" * 20)
    with instance_for_test() as instance:
        result = materialize([memory_events], instance=instance, raise_on_error=False,
                             resources=make_resources(fresh_db_url, drop))
    assert not result.success
    kinds = [e.event_type_value for e in result.all_events]
    assert "STEP_UP_FOR_RETRY" not in kinds and kinds.count("STEP_FAILURE") == 1
    failure = next(e for e in result.all_events if e.event_type_value == "STEP_FAILURE")
    message = str(failure.event_specific_data.error)
    assert "b-broken.parquet" in message and "not a readable Parquet file" in message
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_events")[0][0] == 3


# ---- rows handed in from Python ------------------------------------------------------------------------
async def test_python_rows_with_values_no_file_could_hold(memory, fresh_db_url):
    cyclic: dict = {"a": 1}
    cyclic["self"] = cyclic
    deep: list = []
    for _ in range(10_000):
        deep = [deep]
    cases = [
        (good(1, occurred_at=10**5000), "out of range"),
        (good(2, occurred_at=float("inf")), "out of range"),
        (good(3, occurred_at=-(10**20)), "out of range"),
        (good(4, metadata=cyclic), "nested deeper than 100 levels"),
        (good(5, metadata={"d": deep}), "nested deeper than 100 levels"),
        (good(6, metadata={1: "int key"}), "has a int key"),
        (good(7, metadata={"x": float("nan")}), "NaN and Infinity are not JSON"),
        (good(8, metadata={"big": 10**5000}), "integer of more than 4000 digits"),
        (good(9, message_id=10**5000), "message_id is a number too long"),
        (good(10, agent_id=float("inf")), "agent_id must be a string"),
        (["not", "a", "dict"], "expected an object, got list"),
        (good(12, text="x\udc80y"), "text contains invalid UTF-8"),
    ]
    fine = [good(20, metadata={"when": datetime(2024, 1, 1), "tags": ("a", "b")}), good(21)]
    report = await memory.import_messages([r for r, _ in cases] + fine, extract=False)
    got = {r.row_number: r.reason for r in report.rows_rejected}
    for n, (_, want) in enumerate(cases, start=1):
        assert want in got.get(n, ""), (n, got.get(n))
    assert report.events_inserted == 2 and report.rejected_count == len(cases)
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_quarantine")[0][0] == len(cases)
    meta = rows(fresh_db_url, "SELECT metadata FROM memory_events WHERE message_id = 'm20'")[0][0]
    assert meta == {"when": "2024-01-01 00:00:00", "tags": ["a", "b"]}

"""Issue 14, "Done when": the CLI side of the hostile corpus.

A generated corpus of hostile command lines — every subcommand crossed with bad arguments (look-alike
and broken agent ids, empty strings, huge and negative numbers, bad --format, missing / directory /
dangling-symlink / empty / binary / truncated / BOM files in every format, files mixing good and
poisoned rows, malformed --database-url values carrying a password) — run in-process through
`arandu_pipelines.cli.main([...])`, and a handful through a real `python -m arandu_pipelines.cli`.

For every case: the exit status is one of the documented ones (0 all good, 1 some rows rejected,
2 usage or input error) and the expected one; no Python traceback and no raw exception escapes;
the output names the problem; the password of a bad URL never appears. Across the corpus, every
good row of every file that could be read is stored (SQL), so no good data is lost."""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import random
import subprocess
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from arandu_pipelines.cli import EXIT_OK, EXIT_PARTIAL, EXIT_USAGE, main
from tests.conftest import rows

ROOT = Path(__file__).resolve().parents[1]
SECRET = "Sup3rSecretPw"
OK, PARTIAL, USAGE = {EXIT_OK}, {EXIT_PARTIAL}, {EXIT_USAGE}
SUBCOMMANDS = ("import", "example", "retrieve", "stats", "forget", "dev", "demo")


@dataclass
class Case:
    argv: list[str]
    codes: set[int]
    needle: str | None = None          # a word of the message that names the problem
    good: set[tuple[str, str]] = field(default_factory=set)   # (agent, message_id) that must land

    @property
    def command(self) -> str:
        return next((a for a in self.argv if a in SUBCOMMANDS), "(none)")


@dataclass
class Outcome:
    code: int | None
    out: str
    err: str
    raised: str | None = None


def run_in_process(argv: list[str]) -> Outcome:
    """`main(argv)` with stdout/stderr captured. The CLI sets process-wide warning filters, log
    configuration and a few environment variables (it owns its process); they are restored so
    the test process is unchanged."""
    env, root = dict(os.environ), logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    so, se = io.StringIO(), io.StringIO()
    raised = None
    code = None
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(so), contextlib.redirect_stderr(se):
            code = main(argv)
    except BaseException as exc:   # noqa: BLE001 - a raw exception is exactly what is measured
        raised = f"{type(exc).__name__}: {exc}"
    finally:
        os.environ.clear()
        os.environ.update(env)
        root.setLevel(level)
        root.handlers[:] = handlers
    return Outcome(code, so.getvalue(), se.getvalue(), raised)


def problems(case: Case, res: Outcome) -> list[str]:
    """Everything wrong with one outcome (empty when the case held)."""
    text = res.out + res.err
    found = []
    if res.raised:
        found.append(f"raw exception {res.raised}")
    if res.code not in {EXIT_OK, EXIT_PARTIAL, EXIT_USAGE}:
        found.append(f"undocumented exit status {res.code}")
    elif res.code not in case.codes:
        found.append(f"exit {res.code}, expected {sorted(case.codes)}")
    if "Traceback" in text:
        found.append("traceback in output")
    if SECRET in text:
        found.append("password in output")
    if case.needle and case.needle.lower() not in text.lower():
        found.append(f"message does not name the problem ({case.needle!r})")
    return found


# ---- files ---------------------------------------------------------------------------------------
def good_row(agent: str, i: int) -> dict:
    return {"agent_id": agent, "session_id": "s1", "speaker": "Ana",
            "text": f"I moved to Lisbon in spring, note {i}.",
            "occurred_at": f"2024-01-{i % 28 + 1:02d}T10:00:00+00:00", "message_id": f"m{i}"}


def jsonl(rows_: list) -> str:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows_)


CSV_COLUMNS = ["agent_id", "session_id", "speaker", "text", "occurred_at", "message_id"]


def csv_text(rows_: list) -> str:
    import csv

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for r in rows_:
        w.writerow([r[c] for c in CSV_COLUMNS] if isinstance(r, dict) else r)
    return buf.getvalue()


def parquet_bytes(rows_: list[dict], path: Path) -> bytes:
    pq.write_table(pa.table({c: [r[c] for r in rows_] for c in CSV_COLUMNS}), path)
    return path.read_bytes()


def locomo_text(turns_by_session: list[list], dates: list[str] | None = None) -> str:
    conv: dict = {"speaker_a": "Ana", "speaker_b": "Bo"}
    for s, turns in enumerate(turns_by_session, start=1):
        conv[f"session_{s}_date_time"] = (dates or [])[s - 1] if dates else f"1:56 pm on {s} May, 2023"
        conv[f"session_{s}"] = turns
    return json.dumps({"conversation": conv})


def turn(n: int, text: str | None = None) -> dict:
    return {"speaker": "Ana" if n % 2 else "Bo", "dia_id": f"D{n}",
            "text": text if text is not None else f"Turn {n}: I visited Porto."}


def file_cases(d: Path) -> list[Case]:
    """Import cases: each file gets its own agent, so what must land is known per file."""
    rnd = random.Random(14)
    cases: list[Case] = []

    def add(name: str, data: bytes | str, codes: set[int], needle: str | None,
            good: set | None = None, extra: list[str] | None = None) -> Path:
        p = d / name
        p.write_bytes(data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data)
        cases.append(Case(["import", str(p), "--no-extract", *(extra or [])], codes, needle, good or set()))
        return p

    def ids(agent: str, n: range) -> set:
        return {(agent, f"m{i}") for i in n}

    # good baselines, one per format
    add("good.jsonl", jsonl([good_row("f-good-jsonl", i) for i in range(4)]), OK, "stored: 4",
        ids("f-good-jsonl", range(4)))
    add("good.csv", csv_text([good_row("f-good-csv", i) for i in range(4)]), OK, "stored: 4",
        ids("f-good-csv", range(4)))
    add("good.parquet", parquet_bytes([good_row("f-good-pq", i) for i in range(4)], d / "tmp1.parquet"),
        OK, "stored: 4", ids("f-good-pq", range(4)))
    add("good.json", locomo_text([[turn(1), turn(2)], [turn(3)]]), OK, "stored: 3",
        {("locomo-lc-good", f"D{n}") for n in (1, 2, 3)}, ["--agent-id", "locomo-lc-good"])

    # missing, directory, dangling symlink, unknown extension, empty, binary garbage
    for ext in ("jsonl", "csv", "parquet", "json"):
        cases.append(Case(["import", str(d / f"missing.{ext}")], USAGE, "does not exist"))
        (d / f"adir-{ext}.{ext}").mkdir()
        cases.append(Case(["import", str(d / f"adir-{ext}.{ext}")], USAGE, "not a regular file"
                          if ext != "json" else f"adir-{ext}"))
        (d / f"dangling.{ext}").symlink_to(d / "nowhere" / f"x.{ext}")
        cases.append(Case(["import", str(d / f"dangling.{ext}")], USAGE, f"dangling.{ext}"))
        add(f"empty.{ext}", b"", OK if ext in ("jsonl", "csv") else USAGE,   # no rows: nothing to reject
            "rows read: 0" if ext in ("jsonl", "csv") else f"empty.{ext}")
        add(f"garbage.{ext}", bytes(rnd.randrange(256) for _ in range(2048)),
            {EXIT_PARTIAL, EXIT_USAGE}, f"garbage.{ext}" if ext in ("parquet", "json") else "row 1")
    for name in ("notes.txt", "data.xml", "noextension", "archive.tar.gz"):
        add(name, jsonl([good_row("f-ext", 1)]), USAGE, "unknown import format")

    # truncated files: the rows before the cut land (JSONL/CSV), or one clear file error
    rows4 = [good_row("f-trunc-jsonl", i) for i in range(4)]
    t = jsonl(rows4)
    add("trunc.jsonl", t[: t.rindex("{") + 25], PARTIAL, "row 4", ids("f-trunc-jsonl", range(3)))
    rows4 = [good_row("f-trunc-csv", i) for i in range(4)]
    t = csv_text(rows4)
    add("trunc.csv", t[: t.rindex("I moved") + 5], PARTIAL, "row", ids("f-trunc-csv", range(3)))
    t = parquet_bytes([good_row("f-trunc-pq", i) for i in range(4)], d / "tmp2.parquet")
    add("trunc.parquet", t[: len(t) // 2], USAGE, "trunc.parquet")
    add("trunc2.parquet", t[: len(t) - 10], USAGE, "trunc2.parquet")
    t = locomo_text([[turn(1), turn(2)]])
    add("trunc.json", t[: len(t) // 2], USAGE, "not valid JSON")
    add("list.json", "[1, 2, 3]", USAGE, "not a LoCoMo conversation")

    # files with a UTF-8 BOM: read like the others
    add("bom.jsonl", b"\xef\xbb\xbf" + jsonl([good_row("f-bom-jsonl", i) for i in range(3)]).encode(),
        OK, "stored: 3", ids("f-bom-jsonl", range(3)))
    add("bom.csv", b"\xef\xbb\xbf" + csv_text([good_row("f-bom-csv", i) for i in range(3)]).encode(),
        OK, "stored: 3", ids("f-bom-csv", range(3)))
    add("bom.json", b"\xef\xbb\xbf" + locomo_text([[turn(1), turn(2)]]).encode(), OK, "stored: 2",
        {("locomo-bom", "D1"), ("locomo-bom", "D2")})

    # --format that does not fit the file, and bad --format values
    good = d / "good.jsonl"
    for fmt, codes, needle in (("parquet", USAGE, "not a readable Parquet file"),
                               ("locomo", USAGE, "not valid JSON"),
                               ("csv", PARTIAL, "missing field(s)"),
                               ("xml", USAGE, "invalid choice"), ("", USAGE, "invalid choice"),
                               ("JSONL", USAGE, "invalid choice"), ("jsonl\x00", USAGE, "invalid choice")):
        cases.append(Case(["import", str(good), "--format", fmt, "--no-extract"], codes, needle))
    cases.append(Case(["import", str(d / "good.parquet"), "--format", "jsonl", "--no-extract"],
                      {EXIT_PARTIAL, EXIT_USAGE}, "row 1"))
    cases.append(Case(["import"], USAGE, "the following arguments are required: file"))
    cases.append(Case(["import", ""], USAGE, "import file"))
    cases.append(Case(["import", str(good), "--bogus"], USAGE, "unrecognized arguments"))

    # LoCoMo --agent-id: used whether the format is given or detected (it was ignored unless
    # --format locomo: the rows went to locomo-<stem>, reported "already present"); a hostile one
    # is refused as a whole (a usage error), and so is --agent-id on a file with agent_id columns
    lc = add("lc-agent.json", locomo_text([[turn(1)]]), OK, "stored: 1", {("locomo-lc-agent", "D1")})
    cases.append(Case(["import", str(lc), "--no-extract", "--agent-id", "lc-bob"], OK, "stored: 1",
                      {("lc-bob", "D1")}))
    cases.append(Case(["import", str(lc), "--no-extract", "--format", "locomo", "--agent-id", "lc-eve"],
                      OK, "stored: 1", {("lc-eve", "D1")}))
    for other in ("good.jsonl", "good.csv", "good.parquet"):
        cases.append(Case(["import", str(d / other), "--agent-id", "someone"], USAGE, "--agent-id"))
    for bad in ("", " alice", "alice ", "\talice", "alice\u00a0", "al\x00ice", "al\ud800ice", "a" * 300,
                "al\x1bice"):
        cases.append(Case(["import", str(lc), "--no-extract", "--agent-id", bad], USAGE, "agent"))

    # files mixing good and poisoned rows: every good row lands, every bad one is reported
    agent = "f-mixed-jsonl"
    mixed = [good_row(agent, 0),
             {**good_row(agent, 1), "metadata": {"k": "nul\x00here"}},
             '{"agent_id": "f-mixed-jsonl", "text": "x", "metadata": {"n": NaN}}',
             {**good_row(agent, 2)},
             {**good_row(agent, 3), "text": "lone \ud800 surrogate"},
             {**good_row(agent, 4), "occurred_at": 1e20},
             {**good_row(agent, 5), "metadata": json.loads("[" * 200 + "]" * 200)},
             {**good_row(agent, 6), "agent_id": " f-mixed-jsonl"},
             "{not json at all",
             "[1, 2]",
             {**good_row(agent, 7)},
             {**good_row(agent, 8), "text": ""},
             {**good_row(agent, 9), "occurred_at": "yesterday-ish"},
             {**good_row(agent, 10), "text": "legit \ufffd replacement char"}]
    body = "".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=True)) + "\n" for r in mixed)
    add("mixed.jsonl", body.encode() + b'{"agent_id": "f-mixed-jsonl", "text": "\xff\xfe bad bytes"}\n',
        PARTIAL, "rejected: 11", ids(agent, (0, 2, 7, 10)))
    agent = "f-mixed-csv"
    mixed_csv = [good_row(agent, 0), [*good_row(agent, 1).values(), "extra", "fields"],
                 good_row(agent, 2), {**good_row(agent, 3), "occurred_at": "not a date"},
                 {**good_row(agent, 4), "agent_id": "bad agent\x00"}, good_row(agent, 5), ["only", "two"]]
    add("mixed.csv", csv_text(mixed_csv), PARTIAL, "row", ids(agent, (0, 2, 5)))
    agent = "f-mixed-pq"
    mixed_pq = [good_row(agent, 0), {**good_row(agent, 1), "text": "nul\x00"},
                {**good_row(agent, 2), "occurred_at": "garbage"}, good_row(agent, 3),
                {**good_row(agent, 4), "agent_id": ""}]
    add("mixed.parquet", parquet_bytes(mixed_pq, d / "tmp3.parquet"), PARTIAL, "rejected: 3",
        ids(agent, (0, 3)))
    add("mixed.json", locomo_text([[turn(1), "a bare string turn", turn(2, "nul\x00"), 42, turn(3)],
                                   [turn(4), turn(5)]], ["1:56 pm on 8 May, 2023", "31:99 pm on 40 Foo"]),
        PARTIAL, "row", {("locomo-mixed", "D1"), ("locomo-mixed", "D3")})
    return cases


# ---- agent ids, queries, selectors, numbers ------------------------------------------------------
BAD_IDS = ["", " ", "alice ", " alice", "\talice", "alice\n", "alice\u00a0", "al\x00ice", "al\ud800ice",
           "al\udcffice", "al\u2028ice", "a" * 300, "al\x1bice", "alice\r"]


def id_cases(known: str) -> list[Case]:
    cases: list[Case] = []
    for bad in BAD_IDS:
        cases.append(Case(["retrieve", bad, "where do I live?"], USAGE, "agent"))
        cases.append(Case(["stats", bad], USAGE, "agent"))
        cases.append(Case(["forget", bad, "--speaker", "Ana"], USAGE, "agent"))
        cases.append(Case(["forget", "--agent", bad], USAGE, "agent"))
    for unknown in ("nobody", "NOBODY", "%", "_", "f-good-jsonl%", "' OR 1=1 --"):
        cases.append(Case(["stats", unknown], USAGE, "unknown agent"))
        cases.append(Case(["retrieve", unknown, "x"], USAGE, "unknown agent"))
    # hostile queries against a known agent: answered (0) or refused naming the query (2)
    for q, codes, needle in (("", {0, 2}, None), ("nul\x00query", USAGE, "query"),
                             ("lone \ud800", USAGE, "query"), ("x" * 200_000, {0, 2}, None),
                             ("' OR 1=1; DROP TABLE memory_events; --", OK, None),
                             ("& | ! : * ( ) <->", OK, None), ("%_%", OK, None)):
        cases.append(Case(["retrieve", known, q], codes, needle))
        cases.append(Case(["retrieve", known, q, "--json"], codes, needle))
    for s in ("", " s1", "s\x00", "s\ud800"):
        cases.append(Case(["retrieve", known, "where?", "--session", s], USAGE, "session"))
    # forget selectors: blank / broken values refused; nothing erased
    for opt, val in (("--speaker", ""), ("--speaker", "   "), ("--speaker", "A\x00na"),
                     ("--session", ""), ("--session", " s1"), ("--session", "s\ud800"),
                     ("--message-id", ""), ("--message-id", " m0"), ("--message-id", "m\x00")):
        name = opt.lstrip("-").replace("-", "_")
        cases.append(Case(["forget", known, opt, val], USAGE, name.split("_")[0]))
    cases += [Case(["forget"], USAGE, "name the agent"),
              Case(["forget", known], USAGE, "say what to forget"),
              Case(["forget", known, "--agent", known], USAGE, "give the agent once"),
              Case(["forget", "--agent", known, "--speaker", "Ana"], USAGE, "--agent erases the whole"),
              Case(["retrieve", known], USAGE, "required: query"),
              Case(["stats"], USAGE, "required: AGENT"),
              Case(["stats", known, "--show", "--limit", "-1"], USAGE, "unrecognized arguments")]
    return cases


def parse_cases() -> list[Case]:
    """Cases refused by argument parsing (dev/demo never get to start anything)."""
    cases = [Case([], USAGE, "required: COMMAND"), Case(["bogus"], USAGE, "invalid choice"),
             Case([""], USAGE, "invalid choice"), Case(["\x00"], USAGE, "invalid choice"),
             Case(["--database-url"], USAGE, "expected one argument"),
             Case(["example", "--fresh", "--bogus"], USAGE, "unrecognized arguments"),
             Case(["example", "extra-positional"], USAGE, "unrecognized arguments")]
    for cmd in ("dev", "demo"):
        for port in ("abc", "", "1e3", "-1", "0", "65536", "99999999999999999999", "3000.5", "\x00"):
            cases.append(Case([cmd, "--port", port], USAGE, "port"))
        for host in ("", " ", "local host", "h\x00st", "h\ud800"):
            cases.append(Case([cmd, "--host", host], USAGE, "host"))
        cases.append(Case([cmd, "--bogus"], USAGE, "unrecognized arguments"))
    return cases


BAD_URLS = [f"postgresq://user:{SECRET}@127.0.0.1/db",
            f"postgresql://user:{SECRET}@127.0.0.1:1/db",
            f"postgresql://user:{SECRET}@/db?host=/nonexistent-socket-dir",
            f"postgresql://user:{SECRET}@127.0.0.1:notaport/db",
            f"postgresql://user:p@ss{SECRET}@127.0.0.1:1/db",
            f"user:{SECRET}@127.0.0.1/db",
            f"host=127.0.0.1 port=1 password={SECRET}",
            f"postgresql://user:{SECRET}@127.0.0.1:1/db\x00",
            "", "   "]


def url_cases(good_file: Path) -> list[Case]:
    cases = []
    for url in BAD_URLS:
        for argv in (["stats", "someone"], ["retrieve", "someone", "q"], ["forget", "--agent", "someone"],
                     ["import", str(good_file), "--no-extract"], ["example"]):
            cases.append(Case([*argv, "--database-url", url], USAGE,
                              "database" if url.strip() else "--database-url is empty"))
    return cases


# ---- the corpus ----------------------------------------------------------------------------------
@pytest.fixture
def no_dagster(monkeypatch):
    """`dev` / `demo` must be refused before anything starts: launching is a failure here."""
    launched = []

    def run_dev(**kwargs):
        launched.append(kwargs)
        raise AssertionError(f"dev server launched with {kwargs}")

    import arandu_pipelines.devserver

    monkeypatch.setattr(arandu_pipelines.devserver, "run_dev", run_dev)
    return launched


@pytest.mark.parametrize("args", [["--port", "70000"], ["--port", "-1"], ["--port", "0"],
                                  ["--host", ""], ["--host", "local host"]])
@pytest.mark.parametrize("cmd", ["dev", "demo"])
def test_dev_refuses_a_bad_port_or_host_before_starting_anything(cmd, args, no_dagster, capsys):
    """Before: `dev --port 70000` started the embedded PostgreSQL, then Dagster, which failed."""
    assert main([cmd, *args]) == EXIT_USAGE
    assert no_dagster == []
    assert args[0].lstrip("-") in capsys.readouterr().err


def test_cli_hostile_corpus(fresh_db_url, tmp_path, no_dagster):
    db = ["--database-url", fresh_db_url]
    files = file_cases(tmp_path)
    known = "f-good-jsonl"
    corpus = files + id_cases(known) + parse_cases() + url_cases(tmp_path / "good.jsonl")
    assert len(corpus) >= 200, len(corpus)
    failures, by_command, by_code = [], {}, {}
    before = None
    for i, case in enumerate(corpus):
        if i == len(files):   # the files are in: snapshot the events before the read/erase cases
            before = rows(fresh_db_url, "SELECT count(*) FROM memory_events")[0][0]
        argv = case.argv if any(a == "--database-url" for a in case.argv) else [*case.argv, *db] \
            if case.argv and case.argv[0] in ("import", "retrieve", "stats", "forget", "example") else case.argv
        res = run_in_process(argv)
        by_command[case.command] = by_command.get(case.command, 0) + 1
        by_code[res.code] = by_code.get(res.code, 0) + 1
        for p in problems(case, res):
            failures.append(f"{case.argv!r:.160}: {p}\n    stdout={res.out[-300:]!r}\n    stderr={res.err[-300:]!r}")
    print(f"\nCLI corpus: {len(corpus)} cases; by command {by_command}; exit codes {by_code}")
    assert failures == [], f"{len(failures)} of {len(corpus)} cases failed:\n" + "\n".join(failures)

    # 0 lost good rows: every good row of every readable file is stored, exactly once
    expected = set().union(*(c.good for c in corpus))
    stored = rows(fresh_db_url, "SELECT agent_id, message_id FROM memory_events")
    stored_set = {(a, m) for a, m in stored}
    assert expected - stored_set == set(), f"good rows lost: {sorted(expected - stored_set)}"
    assert len(stored) == len(stored_set)
    print(f"good rows expected {len(expected)}, stored {len(expected & stored_set)}; "
          f"events in the database {len(stored)}")
    # read / erase cases with hostile arguments erased nothing
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_events")[0][0] == before
    # and the CLI sees what SQL sees
    res = run_in_process(["stats", "f-mixed-jsonl", *db])
    assert res.code == EXIT_OK and "memory_events" in res.out and " 4" in res.out, res


# ---- a handful through a real process: real exit codes, no traceback on stderr ---------------------
def _real(args: list, env: dict | None = None) -> subprocess.CompletedProcess:
    e = {k: v for k, v in os.environ.items() if k not in ("ARANDU_BATCH_NICE", "DATABASE_URL")}
    e["PYTHONPATH"] = str(ROOT) + os.pathsep + e.get("PYTHONPATH", "")
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "arandu_pipelines.cli", *args], capture_output=True, check=False,
                          timeout=180, cwd=ROOT, env=e)


def test_cli_hostile_cases_in_a_real_process(fresh_db_url, tmp_path):
    good = tmp_path / "good.jsonl"
    good.write_text(jsonl([good_row("p-good", i) for i in range(3)]))
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text(jsonl([good_row("p-mixed", 0), {**good_row("p-mixed", 1), "metadata": {"n": "\x00"}},
                            "{truncated", good_row("p-mixed", 2)]))
    (tmp_path / "garbage.parquet").write_bytes(os.urandom(512))
    db = ["--database-url", fresh_db_url]
    cases = [
        (["import", str(good), "--no-extract", *db], EXIT_OK, b"stored: 3"),
        (["import", str(mixed), "--no-extract", *db], EXIT_PARTIAL, b"row 2"),
        (["import", str(tmp_path / "garbage.parquet"), *db], EXIT_USAGE, b"not a readable Parquet file"),
        (["import", str(tmp_path), *db], EXIT_USAGE, b"not a regular file"),
        (["stats", b"p-good\xff", *db], EXIT_USAGE, b"agent_id"),        # invalid UTF-8 in argv
        (["retrieve", "p-good ", "where?", *db], EXIT_USAGE, b"agent_id"),
        (["retrieve", "p-good", b"caf\xe9?", *db], {0, 2}, None),
        (["forget", "p-good", "--speaker", "", *db], EXIT_USAGE, b"speaker"),
        (["dev", "--port", "70000"], EXIT_USAGE, b"port"),
        (["stats", "p-good", "--database-url", f"postgresq://u:{SECRET}@127.0.0.1/db"], EXIT_USAGE,
         b"postgresq"),
        (["stats", "p-good"], EXIT_USAGE, b"database",
         {"DATABASE_URL": f"postgresql://u:{SECRET}@127.0.0.1:1/db"}),
    ]
    for args, code, needle, *env in cases:
        p = _real(args, *env)
        text = p.stdout + p.stderr
        codes = code if isinstance(code, set) else {code}
        assert p.returncode in codes, (args, p.returncode, text[-2000:])
        assert b"Traceback" not in text, (args, text[-2000:])
        assert SECRET.encode() not in text, args
        if needle:
            assert needle.lower() in text.lower(), (args, text[-1000:])
    stored = {(a, m) for a, m in rows(fresh_db_url, "SELECT agent_id, message_id FROM memory_events")}
    assert {("p-good", f"m{i}") for i in range(3)} | {("p-mixed", "m0"), ("p-mixed", "m2")} <= stored

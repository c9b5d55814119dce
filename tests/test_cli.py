"""Issue 16 / 14.11: the command line a person expects — meaningful exit codes (0 all good,
1 some rows rejected, 2 usage or input error), --version, help on every command and option,
`forget --agent` erasing a whole agent with its report, quiet output by default.

Commands that touch the database run in a subprocess (one driver process calls `main()` for
several cases), so the test process keeps its warnings filters, logging and environment."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from arandu_pipelines.cli import (
    EXIT_OK,
    EXIT_PARTIAL,
    EXIT_USAGE,
    build_parser,
    main,
    version,
)
from tests.conftest import rows

ROOT = Path(__file__).resolve().parents[1]

DRIVER = r"""
import contextlib, io, json, sys
from arandu_pipelines.cli import main
out = []
for argv in json.loads(sys.argv[1]):
    so, se = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(so), contextlib.redirect_stderr(se):
        code = main(argv)
    out.append({"argv": argv, "code": code, "stdout": so.getvalue(), "stderr": se.getvalue()})
print("RESULT " + json.dumps(out))
"""


def _run(*cases: list[str], env: dict | None = None) -> list[dict]:
    e = {k: v for k, v in os.environ.items() if k not in ("ARANDU_BATCH_NICE",)}
    e["PYTHONPATH"] = str(ROOT) + os.pathsep + e.get("PYTHONPATH", "")
    e.update(env or {})
    p = subprocess.run([sys.executable, "-c", DRIVER, json.dumps(list(cases))], capture_output=True, check=False,
                       text=True, timeout=300, cwd=ROOT, env=e)
    assert p.returncode == 0, p.stderr[-3000:]
    line = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")][-1]
    return json.loads(line[len("RESULT "):])


def _conversation(path: Path, agent: str, bad: bool = False) -> Path:
    lines = [json.dumps({"agent_id": agent, "session_id": "s1", "speaker": "Ana",
                         "text": f"I live in Lisbon and I like tea number {i}.",
                         "occurred_at": f"2024-01-0{i + 1}T10:00:00+00:00", "message_id": f"m{i}"})
             for i in range(3)]
    if bad:
        lines.append(json.dumps({"agent_id": agent, "session_id": "s1", "speaker": "Ana",
                                 "text": "", "occurred_at": "not a date", "message_id": "bad"}))
    path.write_text("\n".join(lines) + "\n")
    return path


# ---- parsing only (in-process) -------------------------------------------------------------------
def test_version(capsys):
    assert main(["--version"]) == EXIT_OK
    assert capsys.readouterr().out.strip() == f"arandu-pipelines {version()}"


def test_usage_errors_exit_2(capsys):
    assert main(["no-such-command"]) == EXIT_USAGE
    assert main(["retrieve"]) == EXIT_USAGE   # missing arguments
    assert main(["--help"]) == EXIT_OK


def test_every_command_and_option_has_help():
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    missing = []
    for name, cmd in [("", parser), *sub.choices.items()]:
        if name and not next(c.help for c in sub._choices_actions if c.dest == name):
            missing.append(f"{name}: no command help")
        for action in cmd._actions:
            if isinstance(action, argparse._SubParsersAction):
                continue
            if not action.help or action.help == argparse.SUPPRESS:
                missing.append(f"{name or 'top'} {action.option_strings or action.dest}")
    assert missing == []


# ---- commands (subprocess) -----------------------------------------------------------------------
def test_exit_codes_of_import_retrieve_stats_forget(fresh_db_url, tmp_path):
    good = _conversation(tmp_path / "good.jsonl", "cli-good")
    bad = _conversation(tmp_path / "bad.jsonl", "cli-bad", bad=True)
    db = ["--database-url", fresh_db_url]
    res = _run(
        [*db, "import", str(good), "--no-extract"],                  # 0: every row in
        [*db, "import", str(bad), "--no-extract"],                   # 1: one row rejected
        [*db, "import", str(tmp_path / "missing.jsonl")],            # 2: no such file
        [*db, "stats", "nobody-here"],                               # 2: unknown agent
        [*db, "retrieve", "nobody-here", "where?"],                  # 2: unknown agent
        [*db, "forget", "cli-good"],                                 # 2: no selector
        [*db, "forget", "--agent", "cli-good", "--speaker", "Ana"],  # 2: whole agent + selector
        [*db, "stats", "cli-good"],                                  # 0
    )
    codes = [r["code"] for r in res]
    assert codes == [EXIT_OK, EXIT_PARTIAL, EXIT_USAGE, EXIT_USAGE, EXIT_USAGE, EXIT_USAGE,
                     EXIT_USAGE, EXIT_OK], res
    assert "rejected: 1" in res[1]["stdout"] and "row 4" in res[1]["stdout"]
    assert "missing.jsonl" in res[2]["stderr"]
    assert "unknown agent 'nobody-here'" in res[3]["stderr"]
    assert "--agent cli-good" in res[5]["stderr"]
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_events WHERE agent_id = 'cli-good'")[0][0] == 3


def test_forget_agent_erases_the_whole_agent_with_its_report(fresh_db_url, tmp_path):
    path = _conversation(tmp_path / "c.jsonl", "cli-forget")
    db = ["--database-url", fresh_db_url]
    res = _run([*db, "import", str(path), "--no-extract"], [*db, "forget", "--agent", "cli-forget"],
               [*db, "stats", "cli-forget"])
    assert [r["code"] for r in res] == [EXIT_OK, EXIT_OK, EXIT_USAGE], res
    assert "agent cli-forget: erased" in res[1]["stdout"]
    assert "memory_events" in res[1]["stdout"] and " 3" in res[1]["stdout"]
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_events WHERE agent_id = 'cli-forget'")[0][0] == 0


@pytest.mark.slow  # > 10 s on the shared 2-core machine
def test_output_is_quiet_by_default_and_detailed_with_v(fresh_db_url, tmp_path):
    path = _conversation(tmp_path / "q.jsonl", "cli-quiet")
    db = ["--database-url", fresh_db_url]
    quiet, loud = _run([*db, "import", str(path)], [*db, "retrieve", "cli-quiet", "Where do I live?", "-v"])
    assert quiet["code"] == EXIT_OK
    assert quiet["stderr"] == "", quiet["stderr"]          # no progress, warnings or logs
    assert "extracted: 3 messages" in quiet["stdout"]
    assert loud["code"] == EXIT_OK and "facts" in loud["stderr"]


@pytest.mark.parametrize("argv", [["example", "--help"], ["forget", "--help"]])
def test_help_exits_0(argv, capsys):
    assert main(argv) == EXIT_OK
    assert "usage: arandu-pipelines" in capsys.readouterr().out

"""Batch work yields the CPU: `lower_priority()` (ARANDU_BATCH_NICE) and where it is applied.

Every check runs in a subprocess, so the test process itself is never reniced. Expected values
are relative to the subprocess's starting niceness (inherited from whoever runs pytest) and
capped at 19, as the kernel caps them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import rows

ROOT = Path(__file__).resolve().parents[1]

PROBE = r"""
import json, os, sys, threading
from arandu_pipelines import priority

out = {"before": os.nice(0)}
go, seen = threading.Event(), {}

def early():                     # a thread already running when lower_priority() is called
    go.wait()
    seen["early"] = os.nice(0)   # Linux: the nice value of this thread

t = threading.Thread(target=early)
t.start()
arg = json.loads(sys.argv[1])
try:
    out["first"] = priority.lower_priority(arg)
except ValueError as exc:
    out["error"] = str(exc)
out["after_first"] = os.nice(0)
go.set(); t.join()
out["early_thread"] = seen["early"]
late = threading.Thread(target=lambda: seen.update(late=os.nice(0)))   # created afterwards
late.start(); late.join()
out["late_thread"] = seen["late"]
if "error" not in out:
    out["second"] = priority.lower_priority(arg)
    out["after_second"] = os.nice(0)
    out["applied"] = priority.applied()
print(json.dumps(out))
"""


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "ARANDU_BATCH_NICE"}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def _probe(arg: int | None = None, **env: str) -> dict:
    p = subprocess.run([sys.executable, "-c", PROBE, json.dumps(arg)], env=_env(**env),
                       capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


def _expected(before: int, inc: int) -> int:
    return min(19, before + inc)


@pytest.mark.parametrize("env, arg, inc", [
    ({}, None, 10),                              # default
    ({"ARANDU_BATCH_NICE": "3"}, None, 3),
    ({"ARANDU_BATCH_NICE": " 19 "}, None, 19),
    ({"ARANDU_BATCH_NICE": "3"}, 5, 5),          # an explicit argument wins over the variable
])
def test_lower_priority_raises_niceness_once(env, arg, inc):
    out = _probe(arg, **env)
    want = _expected(out["before"], inc)
    assert out["first"] == inc
    assert out["after_first"] == want
    assert out["early_thread"] == want           # threads that were already running
    assert out["late_thread"] == want            # threads created afterwards inherit it
    assert out["second"] == inc and out["applied"] == inc
    assert out["after_second"] == want           # idempotent: never niced twice


def test_zero_disables():
    out = _probe(None, ARANDU_BATCH_NICE="0")
    assert out["first"] == 0 and out["second"] == 0 and out["applied"] == 0
    assert out["after_first"] == out["after_second"] == out["early_thread"] == out["before"]


@pytest.mark.parametrize("value", ["abc", "-5", "20", "2.5", "1e3"])
def test_invalid_env_is_a_clear_error_and_changes_nothing(value):
    out = _probe(None, ARANDU_BATCH_NICE=value)
    assert "ARANDU_BATCH_NICE" in out["error"], out
    assert out["after_first"] == out["before"] == out["early_thread"]


def test_invalid_argument_is_an_error():
    out = _probe(-1)
    assert "lower_priority" in out["error"] and out["after_first"] == out["before"]


# ---- the `arandu-pipelines import` command ----------------------------------------------------------
# Runs the CLI's entry point (`arandu_pipelines.cli.main`, what the console script calls) in a
# subprocess and prints the process's niceness after the command has returned.
CLI = (
    "import os, sys\n"
    "from arandu_pipelines.cli import main\n"
    "before = os.nice(0)\n"
    "rc = main(sys.argv[1:])\n"
    "print(f'NICE {before} {os.nice(0)}', flush=True)\n"
    "sys.exit(rc)\n"
)


def _write(path: Path, agent: str, n: int = 3) -> None:
    lines = [json.dumps({"agent_id": agent, "session_id": "s1", "speaker": "Rafael",
                         "text": f"I live in Lisbon and my dog is called Bolt {i}.",
                         "occurred_at": f"2024-01-0{i + 1}T10:00:00+00:00", "message_id": f"m{i}"})
             for i in range(n)]
    path.write_text("\n".join(lines) + "\n")


def _cli(url: str, path: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", CLI, "--database-url", url, "import", str(path),
                           "--no-extract"], env=_env(**env), capture_output=True, text=True,
                          timeout=180, cwd=ROOT)


def test_import_cli_runs_at_batch_niceness(fresh_db_url, tmp_path):
    path = tmp_path / "conv.jsonl"
    _write(path, "nice-agent")
    p = _cli(fresh_db_url, path, ARANDU_BATCH_NICE="7")
    assert p.returncode == 0, p.stderr
    before, after = map(int, p.stdout.split("NICE ")[1].split())
    assert after == _expected(before, 7)
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_events WHERE agent_id = 'nice-agent'")[0][0] == 3


def test_import_cli_refuses_an_invalid_setting(fresh_db_url, tmp_path):
    path = tmp_path / "conv.jsonl"
    _write(path, "bad-nice-agent")
    p = _cli(fresh_db_url, path, ARANDU_BATCH_NICE="lots")
    assert p.returncode == 2
    assert "ARANDU_BATCH_NICE" in p.stderr
    before, after = map(int, p.stdout.split("NICE ")[1].split())
    assert after == before
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_events")[0][0] == 0


# ---- Dagster runs ------------------------------------------------------------------------------------
# The memory resource's setup hook lowers the priority of a run worker (a run on a persistent
# instance); an in-process `materialize()` on an ephemeral instance (tests, scripts) is left alone.
DAGSTER = r"""
import json, os
from dagster import asset, instance_for_test, materialize
from arandu_pipelines.resources import MemoryStoreResource

@asset
def probe(memory: MemoryStoreResource) -> int:
    return os.nice(0)

out = {"before": os.nice(0)}
res = {"memory": MemoryStoreResource()}     # no database is touched
out["ephemeral"] = materialize([probe], resources=res).output_for_node("probe")
with instance_for_test() as instance:
    out["run"] = materialize([probe], resources=res, instance=instance).output_for_node("probe")
    out["second_run"] = materialize([probe], resources=res, instance=instance).output_for_node("probe")
print(json.dumps(out))
"""


def test_dagster_run_worker_is_lowered_once():
    p = subprocess.run([sys.executable, "-c", DAGSTER], env=_env(ARANDU_BATCH_NICE="6"),
                       capture_output=True, text=True, timeout=180, cwd=ROOT)
    assert p.returncode == 0, p.stderr[-3000:]
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert out["ephemeral"] == out["before"]
    assert out["run"] == out["second_run"] == _expected(out["before"], 6)

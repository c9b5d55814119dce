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
def late_probe():
    seen.update(late=os.nice(0), late_idle=os.sched_getscheduler(0) == os.SCHED_IDLE)
late = threading.Thread(target=late_probe)   # created afterwards
late.start(); late.join()
out["late_thread"] = seen["late"]
out["late_idle"] = seen["late_idle"]
out["idle"] = priority.idle_policy_applied()
if "error" not in out:
    out["second"] = priority.lower_priority(arg)
    out["after_second"] = os.nice(0)
    out["applied"] = priority.applied()
out["autogroup"] = priority._autogroup_nice()
out["session_leader"] = os.getsid(0) == os.getpid()
print(json.dumps(out))
"""


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ARANDU_BATCH_NICE", "ARANDU_BATCH_IDLE")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def _probe(arg: int | None = None, **env: str) -> dict:
    p = subprocess.run([sys.executable, "-c", PROBE, json.dumps(arg)], env=_env(**env),
                       capture_output=True, check=False, text=True, timeout=60, cwd=ROOT)
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


def test_a_batch_process_gets_an_autogroup_of_its_own():
    """With autogroups, nice orders only the processes of one session: a worker started by
    another process (here: by pytest, like a Dagster run worker by the daemon) moves to a session
    of its own and lowers that group, so serving processes elsewhere are preferred."""
    out = _probe(None, ARANDU_BATCH_NICE="8")
    if out["autogroup"] is None:
        pytest.skip("no Linux autogroups on this machine")
    assert out["session_leader"]
    assert out["autogroup"] == out["after_first"] == _expected(out["before"], 8)


def test_a_group_leader_lowers_its_session_only_while_it_runs():
    """The import command typed in a shell leads its process group inside the shell's session: it
    cannot leave it, so it lowers the session's group and puts it back when it exits."""
    from arandu_pipelines import priority

    ours = priority._autogroup_nice()
    if ours is None:
        pytest.skip("no Linux autogroups on this machine")
    p = subprocess.run([sys.executable, "-c", PROBE, "null"], env=_env(ARANDU_BATCH_NICE="8"),
                       capture_output=True, check=False, text=True, timeout=60, cwd=ROOT, process_group=0)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert not out["session_leader"]                    # still in pytest's session
    assert out["autogroup"] == max(ours, out["after_first"])   # lowered while it ran
    assert priority._autogroup_nice() == ours           # and restored when it exited


def test_batch_threads_run_under_sched_idle_unless_turned_off():
    """A waking serving thread preempts an idle-policy thread at once (nice only lowers its
    weight); threads the batch creates later (torch's workers) inherit the policy."""
    out = _probe(None)
    assert out["idle"] and out["late_idle"]
    off = _probe(None, ARANDU_BATCH_IDLE="0")
    assert not off["idle"] and not off["late_idle"]
    assert off["after_first"] == _expected(off["before"], 10)   # nice still applies


def test_an_invalid_idle_setting_is_a_clear_error_and_changes_nothing():
    out = _probe(None, ARANDU_BATCH_IDLE="maybe")
    assert "ARANDU_BATCH_IDLE" in out["error"], out
    assert out["after_first"] == out["before"] and not out["idle"]


def test_zero_disables():
    out = _probe(None, ARANDU_BATCH_NICE="0")
    assert out["first"] == 0 and out["second"] == 0 and out["applied"] == 0
    assert out["after_first"] == out["after_second"] == out["early_thread"] == out["before"]
    assert not out["idle"]


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


def _cli(url: str, path: Path, *flags: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", CLI, "--database-url", url, "import", str(path),
                           "--no-extract", *flags], env=_env(**env), capture_output=True, check=False, text=True,
                          timeout=180, cwd=ROOT)


def test_a_foreground_import_keeps_normal_priority(fresh_db_url, tmp_path):
    """Issue 16: a person waiting for `import` got the lowest CPU priority by default."""
    path = tmp_path / "conv.jsonl"
    _write(path, "fg-agent")
    p = _cli(fresh_db_url, path, ARANDU_BATCH_NICE="7")
    assert p.returncode == 0, p.stderr
    before, after = map(int, p.stdout.split("NICE ")[1].split())
    assert after == before


def test_import_cli_runs_at_batch_niceness_on_request(fresh_db_url, tmp_path):
    path = tmp_path / "conv.jsonl"
    _write(path, "nice-agent")
    p = _cli(fresh_db_url, path, "--low-priority", ARANDU_BATCH_NICE="7")
    assert p.returncode == 0, p.stderr
    before, after = map(int, p.stdout.split("NICE ")[1].split())
    assert after == _expected(before, 7)
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_events WHERE agent_id = 'nice-agent'")[0][0] == 3


def test_import_cli_refuses_an_invalid_setting(fresh_db_url, tmp_path):
    path = tmp_path / "conv.jsonl"
    _write(path, "bad-nice-agent")
    p = _cli(fresh_db_url, path, "--low-priority", ARANDU_BATCH_NICE="lots")
    assert p.returncode == 2
    assert "ARANDU_BATCH_NICE" in p.stderr
    before, after = map(int, p.stdout.split("NICE ")[1].split())
    assert after == before
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_events")[0][0] == 0


# ---- Dagster runs ------------------------------------------------------------------------------------
# A run worker lowers its own priority in the run executor (jobs/executor.py). Resources change
# nothing: `materialize()` on a persistent instance (what tests and scripts do) keeps the caller's
# nice value, session and scheduling policy. `execute_job` runs the job as a run worker does
# (Dagster creates the job's executor), so it is the run-worker path here.
DAGSTER = r"""
import json, os, sys
from dagster import (Definitions, asset, define_asset_job, execute_job, instance_for_test,
                     materialize, reconstructable)
from arandu_pipelines.jobs.executor import batch_in_process_executor
from arandu_pipelines.resources import MemoryStoreResource

def state():
    return {"nice": os.getpriority(os.PRIO_PROCESS, 0), "sid": os.getsid(0),
            "policy": os.sched_getscheduler(0)}

@asset
def probe(memory: MemoryStoreResource) -> None:
    with open(os.environ["PROBE_OUT"], "a") as fh:
        fh.write(json.dumps(state()) + "\n")

defs = Definitions(assets=[probe], jobs=[define_asset_job("probe_job", [probe])],
                   resources={"memory": MemoryStoreResource()},   # no database is touched
                   executor=batch_in_process_executor)

def probe_job():
    return defs.resolve_job_def("probe_job")

if __name__ == "__main__":
    out = {"before": state()}
    res = {"memory": MemoryStoreResource()}
    materialize([probe], resources=res)                       # ephemeral instance
    with instance_for_test() as instance:                     # a persistent instance
        materialize([probe], resources=res, instance=instance)
        defs.resolve_job_def("probe_job").execute_in_process(instance=instance)
        out["after_materialize"] = state()
        if sys.argv[1] == "worker":
            for _ in range(2):
                assert execute_job(reconstructable(probe_job), instance=instance).success
    out["after"] = state()
    print(json.dumps(out))
"""


def _dagster_probe(tmp_path: Path, mode: str) -> tuple[dict, list[dict]]:
    script, seen = tmp_path / "probe_defs.py", tmp_path / "seen.jsonl"
    script.write_text(DAGSTER)
    p = subprocess.run([sys.executable, str(script), mode], capture_output=True, check=False, text=True,
                       env=_env(ARANDU_BATCH_NICE="6", PROBE_OUT=str(seen), DATABASE_URL="postgresql://unused/x"),
                       timeout=240, cwd=tmp_path)
    assert p.returncode == 0, p.stderr[-3000:]
    out = json.loads(p.stdout.strip().splitlines()[-1])
    return out, [json.loads(line) for line in seen.read_text().splitlines()]


def test_materialize_never_changes_the_calling_process(tmp_path):
    """Issue 16: `materialize()` on a persistent instance used to move the caller (pytest) to its
    own session at nice 10 under SCHED_IDLE for the rest of its life."""
    out, seen = _dagster_probe(tmp_path, "inline")
    assert len(seen) == 3
    assert all(s == out["before"] for s in seen), seen
    assert out["after_materialize"] == out["after"] == out["before"]


@pytest.mark.slow  # > 10 s on the shared 2-core machine
def test_a_run_worker_lowers_itself_once_in_the_executor(tmp_path):
    out, seen = _dagster_probe(tmp_path, "worker")
    inline, runs = seen[:3], seen[3:]
    assert all(s == out["before"] for s in inline)
    assert out["after_materialize"] == out["before"]
    assert len(runs) == 2
    assert runs[0]["nice"] == runs[1]["nice"] == _expected(out["before"]["nice"], 6)   # once
    assert runs[0]["policy"] == os.SCHED_IDLE


# ---- the backends of batch connections ------------------------------------------------------------
# Issue 17: a batch process leaves its Postgres backends at the server's priority. Any of them may
# hold an agent's advisory lock that a serving write() waits on; lowered (nice 19, SCHED_IDLE) they
# could keep that write waiting behind the retrievals they yield to (priority inversion). The probe
# opens a client, runs a statement on several pooled connections at once, and reports its own
# niceness and that of every backend it is connected to.
BACKENDS = r"""
import asyncio, json, os, sys
from arandu_pipelines import priority

async def main(url, batch):
    if batch:
        priority.lower_priority()
    from arandu_pipelines import MemoryClient
    async with MemoryClient(url) as m:
        async def pid():
            async with m.engine.connect() as c:
                r = await c.exec_driver_sql("SELECT pg_backend_pid(), pg_sleep(0.05)")
                return r.first()[0]
        pids = sorted(set(await asyncio.gather(*(pid() for _ in range(3)))))
        def group(p):  # the backend's autogroup nice (Linux with autogroups), else None
            try:
                return int(open(f"/proc/{p}/autogroup").read().split("nice")[1])
            except (OSError, ValueError, IndexError):
                return None
        print(json.dumps({"me": os.nice(0), "backends": [os.getpriority(os.PRIO_PROCESS, p) for p in pids],
                          "groups": [group(p) for p in pids],
                          "idle": [os.sched_getscheduler(p) == os.SCHED_IDLE for p in pids]}))

asyncio.run(main(sys.argv[1], sys.argv[2] == "batch"))
"""


@pytest.mark.parametrize("mode", ["batch", "serving"])
def test_batch_processes_leave_their_backends_alone(fresh_db_url, mode):
    p = subprocess.run([sys.executable, "-c", BACKENDS, fresh_db_url, mode],
                       env=_env(ARANDU_BATCH_NICE="9"), capture_output=True, check=False, text=True, timeout=120,
                       cwd=ROOT)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert len(out["backends"]) >= 2
    if mode == "batch":
        assert out["me"] >= 9   # the batch process itself is lowered
    assert all(n < 9 for n in out["backends"]), out   # the server's own niceness, untouched
    assert all(g < 9 for g in out["groups"] if g is not None), out
    assert not any(out["idle"]), out


# ---- a batch process that starts the embedded server -----------------------------------------------
# Every PostgreSQL process forks from the server, so a server started by a lowered process would
# run every backend — those serving retrieve() included — at the batch's nice and SCHED_IDLE.
SERVER = r"""
import json, os, sys
from pathlib import Path
from arandu_pipelines import priority

def parent(pid):
    try:
        return int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
    except OSError:   # exited meanwhile
        return None

def server_pids(home):
    pm = int((Path(home) / "pgdata" / "postmaster.pid").read_text().split()[0])
    return [pm] + [int(p) for p in os.listdir("/proc") if p.isdigit() and parent(p) == pm]

before = os.nice(0)
if sys.argv[1] == "right":
    from arandu_pipelines.store.engine import start_batch_process
    start_batch_process()
else:   # the wrong order, as a control: lower first, then start the server
    priority.lower_priority()
    from arandu_pipelines.store.engine import resolve_database_url
    resolve_database_url()
nice, idle = [], []
for p in server_pids(os.environ["ARANDU_HOME"]):
    try:
        nice.append(os.getpriority(os.PRIO_PROCESS, p))
        idle.append(os.sched_getscheduler(p) == os.SCHED_IDLE)
    except OSError:   # exited meanwhile
        pass
print(json.dumps({"before": before, "me": os.nice(0), "me_idle": priority.idle_policy_applied(),
                  "server_nice": nice, "server_idle": idle}))
"""


@pytest.mark.parametrize("order", ["right", "wrong"])
@pytest.mark.slow  # > 10 s on the shared 2-core machine
def test_a_batch_process_starts_the_embedded_server_at_normal_priority(tmp_path, order):
    env = {k: v for k, v in _env(ARANDU_HOME=str(tmp_path / "home")).items() if k != "DATABASE_URL"}
    p = subprocess.run([sys.executable, "-c", SERVER, order], env=env, capture_output=True, check=False, text=True,
                       timeout=180, cwd=ROOT)
    assert p.returncode == 0, p.stderr[-3000:]
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert out["me"] == _expected(out["before"], 10) and out["me_idle"]   # the batch process is lowered
    assert len(out["server_nice"]) >= 3   # postmaster and its helpers
    if order == "right":
        assert all(n == out["before"] for n in out["server_nice"]), out
        assert not any(out["server_idle"]), out
    else:   # what start_batch_process prevents: the whole server inherits the batch priority
        assert all(out["server_idle"]) and all(n == out["me"] for n in out["server_nice"]), out

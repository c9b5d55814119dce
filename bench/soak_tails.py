"""Attribute the retrieve tails of `bench/soak.py`: why is a call under an import slow?

    python bench/soak_tails.py [--slow-ms 100] [--json out.json] -- [bench/soak.py arguments]

Runs the soak (same database, same processes, same defaults) with, on the server side, the
statement/lock/checkpoint/autovacuum logging switched on for the run (ALTER SYSTEM, reset at
the end: log_min_duration_statement 100 ms, log_lock_waits with deadlock_timeout 20 ms,
log_checkpoints, log_autovacuum_min_duration 0, track_io_timing), and on the client side, for
every retrieve, `verbose=True` (the stage timings of the trace) plus what the scheduler and the
collector did during the call:

- client CPU and run-queue delay of the retrieving process (all threads, /proc schedstat),
- CPU and run-queue delay of the retrieving process's own Postgres backends (their pids come from
  the pool's connections; /proc/<pid>/schedstat, the server is local),
- Python GC pauses (gc.callbacks) inside the call's window,
- the machine's busy share (/proc/stat) over the call.

Each call slower than --slow-ms is then classified (several classes may apply): `lock` (a lock
wait logged by one of its backends), `slow_sql` (a statement of its backends logged over 100 ms),
`checkpoint` / `autovacuum` (one running during the call), `gc` (>= 20 ms of collection),
`client_runq` / `server_runq` (>= 30 % of the call spent waiting for a CPU on either side),
`client_cpu` (>= 50 % of the call on the client's CPU). Nothing in the library changes: the
instrumentation is in this script. The retrieve trace's verbose mode costs a little CPU per call,
so the p95 printed here is not the soak's figure.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import re
import sys
import threading
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import soak
from locomo import percentile, server_admin_url

LOGGING = {
    "log_min_duration_statement": "100ms", "log_lock_waits": "on", "deadlock_timeout": "20ms",
    "log_checkpoints": "on", "log_autovacuum_min_duration": "0", "track_io_timing": "on",
    "log_line_prefix": "%m [%p] ", "log_timezone": "UTC",
}
_TICK = os.sysconf("SC_CLK_TCK")


def _schedstat(path: str) -> tuple[int, int]:
    """(ns on a CPU, ns waiting on a run queue) of one task."""
    try:
        with open(path) as f:
            a, b, _ = f.read().split()
        return int(a), int(b)
    except (OSError, ValueError):
        return 0, 0


def process_sched() -> tuple[int, int]:
    cpu = wait = 0
    for tid in os.listdir("/proc/self/task"):
        a, b = _schedstat(f"/proc/self/task/{tid}/schedstat")
        cpu += a
        wait += b
    return cpu, wait


def backends_sched(pids: set[int]) -> dict[int, tuple[int, int]]:
    return {pid: _schedstat(f"/proc/{pid}/schedstat") for pid in list(pids)}


def backends_delta(before: dict[int, tuple[int, int]], after: dict[int, tuple[int, int]]) -> tuple[int, int]:
    """CPU and run-queue ns of the backends alive at both ends (a pooled connection opened or
    closed during the call would add or remove its whole history)."""
    cpu = wait = 0
    for pid, (a1, b1) in after.items():
        if pid in before and a1 >= before[pid][0]:
            cpu += a1 - before[pid][0]
            wait += b1 - before[pid][1]
    return cpu, wait


def machine_busy() -> tuple[int, int]:
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + v[4]
    return sum(v) - idle, sum(v)


class Probe:
    """GC pauses and the retrieving process's backend pids."""

    def __init__(self) -> None:
        self.gc: list[tuple[float, float, int]] = []   # (start wall, ms, generation)
        self.gc_cpu_ms: list[float] = []   # the same pauses' CPU time (wall minus descheduled)
        self._gc_start = self._gc_cpu = 0.0
        self.backends: set[int] = set()
        gc.callbacks.append(self._on_gc)

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        if phase == "start":
            self._gc_start, self._gc_cpu = time.time(), time.thread_time()
        else:
            self.gc.append((self._gc_start, (time.time() - self._gc_start) * 1000, info["generation"]))
            self.gc_cpu_ms.append((time.thread_time() - self._gc_cpu) * 1000)

    def watch(self, engine: Any) -> None:
        from sqlalchemy import event

        def on_connect(dbapi_conn: Any, _record: Any) -> None:
            self.backends.add(dbapi_conn.driver_connection.info.backend_pid)

        event.listen(engine.sync_engine, "connect", on_connect)

    def gc_ms(self, t0: float, t1: float) -> float:
        return sum(ms for s, ms, _ in self.gc if t0 <= s <= t1)


PROBE: Probe | None = None
CALLS: list[dict[str, Any]] = []


async def retriever(self: soak.Soak, n: int) -> None:
    """soak.Soak.retriever with a verbose trace and the scheduler's view of every call."""
    import random

    assert PROBE is not None
    if not PROBE.backends and not getattr(self.memory, "_tails_watched", False):
        PROBE.watch(self.memory.engine)
        self.memory._tails_watched = True
    rng = random.Random(2000 + n)
    while not self.stop.is_set():
        agent = self.reading(rng.randrange(self.args.agents))
        q = soak.query(rng)
        w0, t = time.time(), time.perf_counter()
        c0, b0, m0 = process_sched(), backends_sched(PROBE.backends), machine_busy()
        try:
            res = await self.memory.retrieve(agent, q, verbose=True)
        except Exception as exc:  # noqa: BLE001 - counted and reported
            self.window.retrieve_errors += 1
            self.totals.retrieve_errors += 1
            self._note("retrieve", exc)
        else:
            ms = (time.perf_counter() - t) * 1000
            w1 = time.time()
            c1, b1, m1 = process_sched(), backends_sched(PROBE.backends), machine_busy()
            self.window.latencies.append(ms)
            self.totals.latencies.append(ms)
            self.window.retrieves += 1
            self.totals.retrieves += 1
            bcpu, bwait = backends_delta(b0, b1)
            call = {"t0": w0, "t1": w1, "ms": ms, "agent": agent, "query": q,
                    "client_cpu_ms": (c1[0] - c0[0]) / 1e6, "client_runq_ms": (c1[1] - c0[1]) / 1e6,
                    "server_cpu_ms": bcpu / 1e6, "server_runq_ms": bwait / 1e6,
                    "machine_busy": (m1[0] - m0[0]) / max(1, m1[1] - m0[1]),
                    "gc_ms": PROBE.gc_ms(w0, w1)}
            if ms >= ARGS.slow_ms:
                call["stages"] = [(s.name, round(s.duration_ms, 1)) for s in (res.pipeline.steps if res.pipeline else [])]
            CALLS.append(call)
        await asyncio.sleep(self.args.retrieve_interval)


def set_logging(on: bool) -> Path:
    import psycopg

    with psycopg.connect(server_admin_url(), autocommit=True) as conn:
        for k, v in LOGGING.items():
            conn.execute(f"ALTER SYSTEM SET {k} = '{v}'" if on else f"ALTER SYSTEM RESET {k}")
        conn.execute("SELECT pg_reload_conf()")
        data = Path(conn.execute("SHOW data_directory").fetchone()[0])
    return data / "log"


_LINE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+) \w+ \[(\d+)\] (\w+):\s+(.*)$")


def parse_log(path: Path, offset: int) -> list[dict[str, Any]]:
    """Server events after `offset`: lock waits, slow statements, checkpoints, autovacuums,
    each with a wall-clock [start, end] span and the backend pid."""
    out: list[dict[str, Any]] = []
    ckpt_start: float | None = None
    with open(path, errors="replace") as f:
        f.seek(offset)
        for line in f:
            m = _LINE.match(line)
            if not m:  # a continuation line: the statement text of the event before
                if out and len(out[-1].get("sql", "")) < 160:
                    out[-1]["sql"] = (out[-1].get("sql", "") + " " + line.strip()).strip()
                continue
            if m.group(3) in ("DETAIL", "CONTEXT", "STATEMENT") and out and out[-1]["pid"] == int(m.group(2)):
                out[-1]["msg"] += f" | {m.group(3)}: {m.group(4)[:160]}"
                continue
            ts = datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=UTC).timestamp()
            pid, msg = int(m.group(2)), m.group(4)
            if msg.startswith("checkpoint starting"):
                ckpt_start = ts
            elif msg.startswith("checkpoint complete"):
                out.append({"kind": "checkpoint", "pid": pid, "t0": ckpt_start or ts, "t1": ts, "msg": msg[:200]})
                ckpt_start = None
            elif msg.startswith(("automatic vacuum", "automatic analyze")):
                el = re.search(r"elapsed: ([\d.]+) s", line)
                # the elapsed time is on a continuation line in some versions; read ahead
                out.append({"kind": "autovacuum", "pid": pid, "t1": ts, "msg": msg[:160],
                            "elapsed": float(el.group(1)) if el else None})
            elif "still waiting for" in msg or "acquired" in msg and "after" in msg:
                out.append({"kind": "lock", "pid": pid, "t0": ts, "t1": ts, "msg": msg[:300]})
            elif msg.startswith("duration:"):
                d = float(re.match(r"duration: ([\d.]+) ms", msg).group(1))  # type: ignore[union-attr]
                out.append({"kind": "slow_sql", "pid": pid, "t0": ts - d / 1000, "t1": ts, "ms": d,
                            "msg": msg[:300]})
            elif "elapsed:" in msg and out and out[-1]["kind"] == "autovacuum" and out[-1]["elapsed"] is None:
                out[-1]["elapsed"] = float(re.search(r"elapsed: ([\d.]+) s", msg).group(1))  # type: ignore[union-attr]
    for e in out:
        if e["kind"] == "autovacuum":
            el = re.search(r"elapsed: ([\d.]+) s", e.get("sql", ""))
            e["elapsed"] = e["elapsed"] or (float(el.group(1)) if el else 0.0)
            e["t0"] = e["t1"] - e["elapsed"]
        elif e["kind"] == "checkpoint":   # the writes are spread out; only the sync phase bunches
            sync = re.search(r"sync=([\d.]+) s", e["msg"])
            e["t0"] = e["t1"] - (float(sync.group(1)) if sync else 0.0)
    return out


def classify(call: dict[str, Any], events: list[dict[str, Any]], ours: set[int]) -> list[str]:
    ms = call["ms"]
    tags = []
    for e in events:
        if e["t1"] < call["t0"] or e["t0"] > call["t1"]:
            continue
        if e["kind"] in ("lock", "slow_sql"):
            if e["pid"] not in ours:
                who = "importer"
            elif "times_retrieved" in e.get("sql", "") or "locking tuple" in e["msg"]:
                who = "counters_flush"   # the retrieval counters' UPDATE, off the call's path
            else:
                who = "retrieve"
            tags.append(f"{e['kind']}:{who}")
        else:
            tags.append(e["kind"])
    if call["gc_ms"] >= 20:
        tags.append("gc")
    if call["client_runq_ms"] >= 0.3 * ms:
        tags.append("client_runq")
    if call["server_runq_ms"] >= 0.3 * ms:
        tags.append("server_runq")
    if call["client_cpu_ms"] >= 0.5 * ms:
        tags.append("client_cpu")
    return sorted(set(tags)) or ["unexplained"]


def summarise(calls: list[dict[str, Any]], events: list[dict[str, Any]], ours: set[int]) -> dict[str, Any]:
    slow = [c for c in calls if c["ms"] >= ARGS.slow_ms]
    classes: Counter[str] = Counter()
    for c in slow:
        c["classes"] = classify(c, events, ours)
        classes.update(c["classes"])

    def mean(key: str, cs: list[dict[str, Any]]) -> float:
        return sum(c[key] for c in cs) / max(1, len(cs))

    keys = ("ms", "client_cpu_ms", "client_runq_ms", "server_cpu_ms", "server_runq_ms", "gc_ms", "machine_busy")
    stage_tot: Counter[str] = Counter()
    for c in slow:
        for name, d in c.get("stages", []):
            stage_tot[name.split(":")[0] if not name.startswith("step:") else name] += d
    return {
        "calls": len(calls), "slow": len(slow),
        "p50_ms": percentile([c["ms"] for c in calls], 50), "p95_ms": percentile([c["ms"] for c in calls], 95),
        "p99_ms": percentile([c["ms"] for c in calls], 99),
        "all_mean": {k: round(mean(k, calls), 2) for k in keys},
        "slow_mean": {k: round(mean(k, slow), 2) for k in keys},
        "slow_classes": dict(classes.most_common()),
        "slow_stage_mean_ms": {k: round(v / max(1, len(slow)), 1) for k, v in stage_tot.most_common()},
        "server_events": dict(Counter(e["kind"] for e in events)),
        "lock_waits": dict(Counter(("retriever" if e["pid"] in ours else "importer") + ":"
                                   + re.sub(r"\d+", "N", e["msg"].split(" after ")[0].split(" for ", 1)[-1])
                                   for e in events if e["kind"] == "lock" and "still waiting" in e["msg"])),
        "lock_samples": [e["msg"][:400] for e in events if e["kind"] == "lock" and e["pid"] in ours][:6],
        "slow_sql_samples": [f"{e['msg'][:120]} {e.get('sql', '')[:120]}" for e in events if e["kind"] == "slow_sql"][:10],
        "gc_pauses": {"count": len(PROBE.gc) if PROBE else 0,
                      "over_10ms": sum(1 for _, ms, _ in (PROBE.gc if PROBE else []) if ms >= 10),
                      "max_ms": max((ms for _, ms, _ in (PROBE.gc if PROBE else [])), default=0.0),
                      "in_calls_over_10ms": sum(1 for c in calls if c["gc_ms"] >= 10),
                      "cpu_over_10ms": sum(1 for ms in (PROBE.gc_cpu_ms if PROBE else []) if ms >= 10),
                      "cpu_max_ms": round(max(PROBE.gc_cpu_ms if PROBE else [], default=0.0), 1),
                      # the same, once the retrievers run (startup's passes walk the unfrozen imports)
                      "serving_cpu_over_10ms": sum(1 for (s, _, _), ms in zip(PROBE.gc if PROBE else [], PROBE.gc_cpu_ms if PROBE else [], strict=False)
                                                   if ms >= 10 and calls and s >= calls[0]["t0"]),
                      "serving_cpu_max_ms": round(max((ms for (s, _, _), ms in zip(PROBE.gc if PROBE else [], PROBE.gc_cpu_ms if PROBE else [], strict=False)
                                                       if calls and s >= calls[0]["t0"]), default=0.0), 1),
                      "by_generation": {g: {"count": sum(1 for _, _, gg in (PROBE.gc if PROBE else []) if gg == g),
                                            "ms": round(sum(ms for _, ms, gg in (PROBE.gc if PROBE else []) if gg == g))}
                                        for g in (0, 1, 2)}},
    }


ARGS: argparse.Namespace


def main() -> int:
    global ARGS, PROBE
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--slow-ms", type=float, default=100.0)
    ap.add_argument("--json", type=Path)
    ap.add_argument("soak_args", nargs=argparse.REMAINDER)
    ARGS = ap.parse_args()
    rest = [a for a in ARGS.soak_args if a != "--"]
    log = set_logging(True)
    offset = log.stat().st_size if log.exists() else 0
    PROBE = Probe()
    soak.Soak.retriever = retriever  # type: ignore[method-assign]
    try:
        rc = soak.main(rest)
    finally:
        set_logging(False)
    time.sleep(0.5)
    events = parse_log(log, offset) if log.exists() else []
    out = summarise(CALLS, events, PROBE.backends)
    print(json.dumps(out, indent=1))
    if ARGS.json:
        ARGS.json.write_text(json.dumps({"summary": out, "slow_calls": [c for c in CALLS if c["ms"] >= ARGS.slow_ms],
                                         "events": events}, indent=1, default=str))
    return rc


if __name__ == "__main__":
    raise SystemExit(main())

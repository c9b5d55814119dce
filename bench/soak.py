"""Soak test: mixed import + retrieve for N minutes on a real server, offline.

    python bench/soak.py [--minutes 10] [--agents 4] [--agent-messages 600] [--importers 2] [--batch 8]
                         [--retrievers 2] [--retrieve-interval 0.05] [--window 60] [--keep]
                         [--same-process]

Runs in a database of its own, `arandu_bench_soak` (dropped and created again on every run), on
DATABASE_URL's server when set, else on the embedded server. Importer tasks keep writing
synthetic conversations (several agents, two speakers each, people/places/organisations shared
across agents and speakers so entity resolution and reconciliation have real work) through
`import_messages(..., extract=True)`; retriever tasks keep calling `retrieve()` on the same
agents at the same time. Each of the `--agents` slots moves on to a fresh agent every
`--agent-messages` messages (default 600, a LoCoMo conversation's size: the size the ~50 ms p95
target is for), so the agents read stay that size however long the soak runs; 0 keeps one
growing agent per slot.

By default the importers run in a separate process (spawned, its own event loop and embedding
model) at the batch CPU priority (`arandu_pipelines.priority.lower_priority()`,
ARANDU_BATCH_NICE, default 10) and the retrievers in this process — the shape of a deployment,
where ingestion runs in Dagster run workers or `arandu-pipelines import` and the application
calls `retrieve()` in its own process. `--same-process` runs everything in one process, one
event loop, one embedding model, at one priority (an application server that both ingests and
answers).

Every window (default one minute) prints messages imported/s, retrieves/s, retrieve p50/p95,
error counts, RSS and CPU use (% of one core) of the retrieving process and, when separate, of
the importer process. At the end: totals, the retrieve p95 under concurrent ingestion (a
measurement, reported against the ~50 ms target, not asserted), and a count check of the event
log against what was sent: no message lost, none duplicated, none left unextracted.
"""

from __future__ import annotations

import os

# See bench/locomo.py: busy-waiting OpenMP threads steal the 2 cores from Postgres.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")  # the library no longer sets either (issue 17)

import argparse
import asyncio
import random
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from locomo import fresh_database, percentile, server_admin_url

DB_NAME = "arandu_bench_soak"
T0 = datetime(2024, 1, 1, 9, 0, tzinfo=UTC)
P95_TARGET_MS = 50.0   # retrieve target for a LoCoMo-sized agent: p95 < 50 ms, p50 < 20 ms

# Shared vocabulary: every agent's speakers talk about the same people, places and companies,
# so entities overlap across speakers (and, in name, across agents).
PEOPLE = ["Maria", "Bruno", "Ana", "Carlos", "Julia", "Pedro", "Sofia", "Lucas", "Helena", "Tiago"]
CITIES = ["Lisbon", "Porto", "Madrid", "Berlin", "Paris", "London", "Rome", "Boston"]
ORGS = ["Google", "Acme Corp", "Globex", "Initech", "Vertix", "Umbrella Labs"]
JOBS = ["engineer", "teacher", "designer", "nurse", "lawyer", "chef"]
PETS = [("dog", "Bolt"), ("cat", "Luna"), ("dog", "Max"), ("parrot", "Kiwi")]
HOBBIES = ["hiking", "running", "painting", "chess", "surfing", "cooking"]
MONTHS = ["January", "March", "May", "July", "September", "November"]
TEMPLATES = [
    "My sister {p} lives in {c}.",
    "{p} works at {o} as a {j}.",
    "I went {h} with {p} last weekend, it was great!",
    "{p} moved to {c} in {m}.",
    "I adopted a {pet} named {petname}.",
    "{p} is married to {q}.",
    "My friend {p} just got a job at {o}.",
    "I love {h}, I do it every Sunday.",
    "{p} and {q} visited {c} together.",
    "I work at {o} now.",
    "I'm so tired today, work at {o} was exhausting.",
    "{p} told me she is learning {h}.",
    "We had dinner with {p} and {q} in {c}.",
    "My brother {p} lives in {c} with his {pet} {petname}.",
]
QUERIES = [
    "Where does {p} live?", "Where does {p} work?", "Who is {p} married to?", "What pets do I have?",
    "What did I do with {p}?", "Who lives in {c}?", "Who works at {o}?", "What do I like doing?",
    "When did {p} move?", "Tell me about {p}",
]


def message(rng: random.Random) -> str:
    p, q = rng.sample(PEOPLE, 2)
    pet, petname = rng.choice(PETS)
    return rng.choice(TEMPLATES).format(p=p, q=q, c=rng.choice(CITIES), o=rng.choice(ORGS),
                                        j=rng.choice(JOBS), h=rng.choice(HOBBIES), m=rng.choice(MONTHS),
                                        pet=pet, petname=petname)


def query(rng: random.Random) -> str:
    return rng.choice(QUERIES).format(p=rng.choice(PEOPLE), c=rng.choice(CITIES), o=rng.choice(ORGS))


def rss_mb(pid: int | str = "self") -> float:
    """Resident set size of a process (Linux /proc), MB."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def cpu_seconds(pid: int | str = "self") -> float:
    """User + system CPU time of a process, all threads (Linux /proc), seconds."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


def niceness(pid: int = 0) -> int:
    try:
        return os.getpriority(os.PRIO_PROCESS, pid)
    except OSError:
        return -99


@dataclass
class Window:
    retrieves: int = 0
    latencies: list[float] = field(default_factory=list)
    retrieve_errors: int = 0


@dataclass
class Totals:
    sent: dict[str, set[str]] = field(default_factory=dict)        # agent -> ids of acknowledged imports
    attempted: dict[str, set[str]] = field(default_factory=dict)   # agent -> every id sent
    imported: int = 0
    facts_added: int = 0
    retrieves: int = 0
    latencies: list[float] = field(default_factory=list)
    import_errors: int = 0
    retrieve_errors: int = 0
    extraction_errors: int = 0
    error_samples: list[str] = field(default_factory=list)
    windows: list[dict[str, Any]] = field(default_factory=list)


class Soak:
    """Importer and retriever tasks over one memory client. `stop` is anything with `is_set()`
    (an asyncio.Event here, a multiprocessing.Event in the importer process)."""

    def __init__(self, memory: Any, args: argparse.Namespace, stop: Any = None,
                 clock: Any = None) -> None:
        self.memory = memory
        self.args = args
        self.speakers = [(f"{PEOPLE[i % len(PEOPLE)]}son", f"{PEOPLE[(i + 3) % len(PEOPLE)]}ez")
                         for i in range(args.agents)]
        # messages written per agent slot; shared with the importer process when separate
        self.clock = clock if clock is not None else [0] * args.agents
        self.window = Window()
        self.totals = Totals()
        self.stop = stop if stop is not None else asyncio.Event()
        # cumulative (messages imported, failed import calls) for the reporter; replaced when
        # the importers live in another process
        self.import_progress = lambda: (self.totals.imported, self.totals.import_errors)
        self.importer_pid: int | None = None

    def _note(self, kind: str, exc: BaseException) -> None:
        if len(self.totals.error_samples) < 10:
            self.totals.error_samples.append(f"{kind}: {type(exc).__name__}: {exc}"[:300])

    def agent(self, slot: int, written: int) -> tuple[str, int]:
        """(agent id, index of the next message in it) for a slot that has `written` messages:
        with --agent-messages N a slot moves on to a fresh agent every N messages, so the agents
        written and read stay conversation-sized however long the soak runs."""
        cap = self.args.agent_messages
        gen, i = divmod(written, cap) if cap else (0, written)
        return f"soak-agent-{slot}-g{gen}", i

    def reading(self, slot: int) -> str:
        """The agent a retriever asks about: the one being written, or the one just completed
        while the new one holds fewer than 100 messages."""
        written = self.clock[slot]
        agent, i = self.agent(slot, written)
        if i < 100 and written >= 100 and self.args.agent_messages:
            agent, _ = self.agent(slot, written - 100)
        return agent

    async def importer(self, n: int) -> None:
        rng = random.Random(1000 + n)
        k = n
        while not self.stop.is_set():
            slot = k % self.args.agents
            k += 1
            agent, _ = self.agent(slot, self.clock[slot])
            rows = []
            for _ in range(self.args.batch):
                a, i = self.agent(slot, self.clock[slot])
                if a != agent:   # a batch stays within one agent
                    break
                self.clock[slot] += 1
                rows.append({"agent_id": agent, "session_id": f"s{i // 50}",
                             "speaker": self.speakers[slot][i % 2], "text": message(rng),
                             "occurred_at": (T0 + timedelta(minutes=i)).isoformat(),
                             "message_id": f"{agent}-m{i}"})
            ids = {r["message_id"] for r in rows}
            self.totals.sent.setdefault(agent, set())
            self.totals.attempted.setdefault(agent, set()).update(ids)
            try:
                report = await self.memory.import_messages(rows, extract=True)
            except Exception as exc:  # noqa: BLE001 - counted and reported
                self.totals.import_errors += 1
                self._note("import", exc)
                continue
            self.totals.sent[agent] |= ids
            self.totals.imported += report.events_inserted
            self.totals.facts_added += report.facts_added
            self.totals.extraction_errors += len(report.extraction_errors)
            for e in report.extraction_errors[:1]:
                self._note("extraction", RuntimeError(e))

    async def retriever(self, n: int) -> None:
        rng = random.Random(2000 + n)
        while not self.stop.is_set():
            agent = self.reading(rng.randrange(self.args.agents))
            t = time.perf_counter()
            try:
                await self.memory.retrieve(agent, query(rng))
            except Exception as exc:  # noqa: BLE001 - counted and reported
                self.window.retrieve_errors += 1
                self.totals.retrieve_errors += 1
                self._note("retrieve", exc)
            else:
                ms = (time.perf_counter() - t) * 1000
                self.window.latencies.append(ms)
                self.totals.latencies.append(ms)
                self.window.retrieves += 1
                self.totals.retrieves += 1
            await asyncio.sleep(self.args.retrieve_interval)

    async def reporter(self, started: float) -> None:
        w_s = self.args.window
        sep = self.importer_pid is not None
        print(f"{'t(min)':>6} {'msg/s':>7} {'ret/s':>6} {'p50ms':>7} {'p95ms':>7} "
              f"{'imp_err':>7} {'ret_err':>7} {'RSS_MB':>7} {'cpu%':>5}"
              + (f" {'impRSS':>7} {'impcpu%':>7}" if sep else "") + f" {'load1':>5}", flush=True)
        k = 0
        last_imp, last_err = self.import_progress()
        last_cpu = cpu_seconds()
        last_icpu = cpu_seconds(self.importer_pid) if sep else 0.0
        while not self.stop.is_set():
            k += 1
            try:
                await asyncio.wait_for(self.stop.wait(), timeout=started + k * w_s - time.perf_counter())
            except TimeoutError:
                pass
            w, self.window = self.window, Window()
            imp, err = self.import_progress()
            cpu = cpu_seconds()
            icpu = cpu_seconds(self.importer_pid) if sep else 0.0
            span = max(1e-9, min(time.perf_counter(), started + k * w_s) - (started + (k - 1) * w_s))
            row = {"t_min": round(k * w_s / 60, 2), "msg_per_s": (imp - last_imp) / span,
                   "retrieves_per_s": w.retrieves / span, "p50_ms": percentile(w.latencies, 50),
                   "p95_ms": percentile(w.latencies, 95), "import_errors": err - last_err,
                   "retrieve_errors": w.retrieve_errors, "rss_mb": rss_mb(),
                   "cpu_pct": 100 * (cpu - last_cpu) / span, "load1": os.getloadavg()[0]}
            if sep:
                row["importer_rss_mb"] = rss_mb(self.importer_pid)
                row["importer_cpu_pct"] = 100 * (icpu - last_icpu) / span
            last_imp, last_err, last_cpu, last_icpu = imp, err, cpu, icpu
            self.totals.windows.append(row)
            print(f"{row['t_min']:6.1f} {row['msg_per_s']:7.1f} {row['retrieves_per_s']:6.1f} "
                  f"{row['p50_ms']:7.1f} {row['p95_ms']:7.1f} {row['import_errors']:7d} "
                  f"{row['retrieve_errors']:7d} {row['rss_mb']:7.0f} {row['cpu_pct']:5.0f}"
                  + (f" {row['importer_rss_mb']:7.0f} {row['importer_cpu_pct']:7.0f}" if sep else "")
                  + f" {row['load1']:5.1f}", flush=True)


# ---- importers in a process of their own -----------------------------------------------------------
def importer_process(url: str, args: argparse.Namespace, stop: Any, ready: Any, imported: Any,
                     import_errors: Any, conn: Any, clock: Any) -> None:
    """Body of the importer process (spawned): batch priority first, then the importer tasks
    until `stop`; sends its totals through `conn`."""
    try:
        from arandu_pipelines.priority import lower_priority

        nice = lower_priority()   # before torch and the event loop start threads: they inherit it
        out = asyncio.run(_importers(url, args, stop, ready, imported, import_errors, clock))
        out["nice_increment"] = nice
        out["nice"] = niceness()
    except BaseException as exc:  # noqa: BLE001 - reported by the parent
        import traceback

        out = {"error": f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"}
    conn.send(out)
    conn.close()


async def _importers(url: str, args: argparse.Namespace, stop: Any, ready: Any, imported: Any,
                     import_errors: Any, clock: Any) -> dict[str, Any]:
    from arandu_pipelines.client import MemoryClient

    async with MemoryClient(url) as memory:
        if args.renice_backends:
            renice_backends(memory.engine)
        await memory.embeddings.embed(["warm up", "the batch path"])   # an importer asks no queries
        soak = Soak(memory, args, stop=stop, clock=clock)
        ready.set()
        tasks = [asyncio.create_task(soak.importer(i)) for i in range(args.importers)]

        def publish() -> None:
            imported.value, import_errors.value = soak.totals.imported, soak.totals.import_errors

        while not stop.is_set():
            publish()
            await asyncio.sleep(0.25)
        await asyncio.gather(*tasks)   # in-flight imports finish: they are counted
        publish()
    t = soak.totals
    return {"sent": t.sent, "attempted": t.attempted, "imported": t.imported,
            "facts_added": t.facts_added, "import_errors": t.import_errors,
            "extraction_errors": t.extraction_errors, "error_samples": t.error_samples,
            "rss_mb_end": rss_mb()}


def renice_backends(engine: Any) -> None:
    """--renice-backends (an evaluation, not the library's behaviour: issue 17 removed it for the
    priority inversion it risks on the agent's advisory lock): every backend this process opens on
    the local server is set to the process's nice, its own autogroup too (each backend leads a
    session of its own, so nice alone orders nothing against other sessions). Normal policy, no
    SCHED_IDLE, so a backend holding a lock still gets a share."""
    from sqlalchemy import event

    nice = niceness()

    def on_connect(dbapi_conn: Any, _record: Any) -> None:
        pid = dbapi_conn.driver_connection.info.backend_pid
        try:
            os.setpriority(os.PRIO_PROCESS, pid, nice)
            with open(f"/proc/{pid}/autogroup", "w") as fh:
                fh.write(str(nice))
        except OSError as exc:
            print(f"renice of backend {pid} failed: {exc}", flush=True)

    event.listen(engine.sync_engine, "connect", on_connect)


def check_log(url: str, totals: Totals) -> dict[str, int]:
    """Compare the event log with what was sent: lost, duplicated, unexpected, unextracted."""
    import psycopg

    out = {"acknowledged": 0, "stored": 0, "lost": 0, "duplicated": 0, "unexpected": 0,
           "stored_from_failed_calls": 0, "not_done": 0}
    with psycopg.connect(url) as conn:
        for agent, sent in totals.sent.items():
            got = [r[0] for r in conn.execute(
                "SELECT message_id FROM memory_events WHERE agent_id = %s", (agent,)).fetchall()]
            distinct = set(got)
            out["acknowledged"] += len(sent)
            out["stored"] += len(got)
            out["duplicated"] += len(got) - len(distinct)
            out["lost"] += len(sent - distinct)
            out["unexpected"] += len(distinct - totals.attempted[agent])
            out["stored_from_failed_calls"] += len((distinct & totals.attempted[agent]) - sent)
        out["not_done"] = conn.execute(
            "SELECT count(*) FROM memory_events WHERE extraction_status <> 'done'").fetchone()[0]
    return out


async def run(args: argparse.Namespace) -> dict[str, Any]:
    import multiprocessing

    from arandu_pipelines.client import MemoryClient

    url = fresh_database(DB_NAME)
    proc = None
    clock = None
    child: dict[str, Any] = {}
    loop = asyncio.get_running_loop()
    if not args.same_process:
        # spawn, not fork: a fresh interpreter with its own torch, like a run worker or the CLI
        ctx = multiprocessing.get_context("spawn")
        stop_ev, ready = ctx.Event(), ctx.Event()
        imported, import_errors = ctx.Value("q", 0, lock=False), ctx.Value("q", 0, lock=False)
        recv_conn, send_conn = ctx.Pipe(duplex=False)
        clock = ctx.Array("q", args.agents, lock=False)   # messages written per agent slot
        proc = ctx.Process(target=importer_process, name="soak-importers",
                           args=(url, args, stop_ev, ready, imported, import_errors, send_conn, clock))
        proc.start()
        send_conn.close()
    async with MemoryClient(url) as memory:
        await memory.embeddings.embed_one("warm up")
        soak = Soak(memory, args, clock=clock if proc is not None else None)
        tasks = []
        if proc is not None:
            while not ready.is_set():
                if not proc.is_alive() or recv_conn.poll():
                    raise RuntimeError(f"importer process failed to start: {recv_conn.recv() if recv_conn.poll() else proc.exitcode}")
                await asyncio.sleep(0.2)
            soak.importer_pid = proc.pid
            soak.import_progress = lambda: (imported.value, import_errors.value)
            print(f"importers: {args.importers} tasks in process {proc.pid} at nice "
                  f"{niceness(proc.pid)}; retrievers: {args.retrievers} tasks in process "
                  f"{os.getpid()} at nice {niceness()}", flush=True)
        else:
            tasks += [asyncio.create_task(soak.importer(i)) for i in range(args.importers)]
            print(f"importers and retrievers in one process ({os.getpid()}, nice {niceness()})",
                  flush=True)
        started = time.perf_counter()
        tasks += [asyncio.create_task(soak.retriever(i)) for i in range(args.retrievers)]
        rep = asyncio.create_task(soak.reporter(started))
        await asyncio.sleep(args.minutes * 60)
        soak.stop.set()
        if proc is not None:
            stop_ev.set()
        await asyncio.gather(*tasks)   # let in-flight imports finish: they are counted
        await rep
        if proc is not None:
            child = await loop.run_in_executor(None, recv_conn.recv)   # after its in-flight imports
            await loop.run_in_executor(None, proc.join)
            if "error" in child:
                raise RuntimeError(f"importer process failed: {child['error']}")
            t = soak.totals
            t.sent, t.attempted = child["sent"], child["attempted"]
            t.imported, t.facts_added = child["imported"], child["facts_added"]
            t.import_errors, t.extraction_errors = child["import_errors"], child["extraction_errors"]
            t.error_samples = child["error_samples"] + t.error_samples
        elapsed = time.perf_counter() - started
    t = soak.totals
    log = check_log(url, t)
    result = {
        "config": vars(args), "mode": "same-process" if proc is None else "separate-process",
        "importer_nice": child.get("nice"), "retriever_nice": niceness(),
        "elapsed_s": elapsed, "imported": t.imported,
        "facts_added": t.facts_added, "retrieves": t.retrieves,
        "msg_per_s": t.imported / elapsed, "retrieves_per_s": t.retrieves / elapsed,
        "p50_ms": percentile(t.latencies, 50), "p95_ms": percentile(t.latencies, 95),
        "p99_ms": percentile(t.latencies, 99), "max_ms": max(t.latencies, default=float("nan")),
        "import_errors": t.import_errors, "retrieve_errors": t.retrieve_errors,
        "extraction_errors": t.extraction_errors, "error_samples": t.error_samples,
        "windows": t.windows, "log": log, "rss_mb_end": rss_mb(),
        "importer_rss_mb_end": child.get("rss_mb_end"),
    }
    if not args.keep:
        import psycopg

        with psycopg.connect(server_admin_url(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{DB_NAME}" WITH (FORCE)')
    return result


def print_summary(r: dict[str, Any]) -> None:
    log = r["log"]
    where = ("importers in a separate process at nice " + str(r["importer_nice"])
             if r["mode"] == "separate-process" else "importers and retrievers in one process")
    print(f"\n{where}; retrievers at nice {r['retriever_nice']}"
          + ("; importer backends reniced" if r["config"].get("renice_backends") else ""))
    print(f"total {r['elapsed_s'] / 60:.1f} min: {r['imported']} messages imported "
          f"({r['msg_per_s']:.1f}/s, {r['facts_added']} facts added), {r['retrieves']} retrieves "
          f"({r['retrieves_per_s']:.1f}/s)")
    print(f"retrieve latency under concurrent ingestion: p50 {r['p50_ms']:.1f} ms, p95 "
          f"{r['p95_ms']:.1f} ms, p99 {r['p99_ms']:.1f} ms, max {r['max_ms']:.0f} ms — p95 "
          f"{'within' if r['p95_ms'] <= P95_TARGET_MS else 'ABOVE'} the ~{P95_TARGET_MS:.0f} ms target")
    print(f"errors: import calls {r['import_errors']}, retrieves {r['retrieve_errors']}, "
          f"extraction {r['extraction_errors']}")
    for s in r["error_samples"]:
        print(f"  {s}")
    print(f"event log: {log['acknowledged']} acknowledged, {log['stored']} stored, lost "
          f"{log['lost']}, duplicated {log['duplicated']}, unexpected {log['unexpected']}, stored "
          f"from failed calls {log['stored_from_failed_calls']}, not extracted {log['not_done']}")
    ok = log["lost"] == 0 and log["duplicated"] == 0 and log["unexpected"] == 0
    imp_rss = (f", importer process {r['importer_rss_mb_end']:.0f} MB"
               if r.get("importer_rss_mb_end") is not None else "")
    print(f"no message lost or duplicated: {'yes' if ok else 'NO'}; RSS at end {r['rss_mb_end']:.0f} MB"
          f"{imp_rss}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=10.0, help="how long to run (default 10)")
    ap.add_argument("--agents", type=int, default=4, help="agents written and read at once")
    ap.add_argument("--agent-messages", type=int, default=600,
                    help="messages per agent before its slot moves to a fresh agent (LoCoMo-sized, "
                         "the size the latency target is for); 0 = one agent per slot, growing")
    ap.add_argument("--importers", type=int, default=2, help="concurrent importer tasks")
    ap.add_argument("--batch", type=int, default=8, help="messages per import_messages() call")
    ap.add_argument("--retrievers", type=int, default=2, help="concurrent retriever tasks")
    ap.add_argument("--retrieve-interval", type=float, default=0.05,
                    help="pause (s) between one retriever's calls")
    ap.add_argument("--window", type=float, default=60.0, help="report window, seconds")
    ap.add_argument("--json", type=Path, help="also write the result as JSON here")
    ap.add_argument("--keep", action="store_true", help="keep the benchmark database afterwards")
    ap.add_argument("--same-process", action="store_true",
                    help="run the importers in this process too (one event loop, one model, one "
                         "priority) instead of a separate process at ARANDU_BATCH_NICE")
    ap.add_argument("--renice-backends", action="store_true",
                    help="evaluation: the importer process lowers its own local Postgres backends to "
                         "its nice (and autogroup nice); see renice_backends()")
    args = ap.parse_args(argv)
    result = asyncio.run(run(args))
    print_summary(result)
    if args.json:
        import json

        args.json.write_text(json.dumps(result, indent=2, default=str))
    log = result["log"]
    return 0 if log["lost"] == 0 and log["duplicated"] == 0 and log["unexpected"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())

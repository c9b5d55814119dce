"""LoCoMo retrieval benchmark: Recall@k over `retrieve()`'s sources, offline.

    python bench/locomo.py ../shared/data/locomo-dev/conv-26.json [more.json ...]
        [--topk-events 20] [--no-extract] [--json out.json] [--keep] [--baseline bm25]
        [--questions per-question.jsonl]

Each conversation is imported (message_id = the turn's dia_id) into a database of its own,
`arandu_bench_locomo` (or $ARANDU_BENCH_LOCOMO_DB), dropped and created again on every run, on DATABASE_URL's server when set,
else on the embedded server. Every question of categories 1-4 is asked with `retrieve()`; a
question's recall at k is the share of its evidence dia_ids among the message_ids of the top k
`sources`. Printed: Recall@1/5/10/20 overall and per category for each conversation, the mean
over conversations, and retrieve latency p50/p95 (query embedding included).

Answer-in-context rate: the share of questions whose gold answer's content words all appear in
`context` cut to its first 400 words (see `answer_in_context`: lower case, answer framing and stop
words dropped, a plural "s" ignored, dates normalised on both sides to ISO forms, so "7 May 2023"
in the answer matches "(2023-05-07)" in the context, "June 2023" matches any 2023-06 date and
"13 August" any year's 08-13).

--baseline bm25 also ranks each conversation's turns ("speaker: text") for the same questions
with plain Okapi BM25 (k1 1.2, b 0.75, lower-cased words, a plural "s" dropped, English stop
words out; see `BM25`) and prints its Recall@k and the margin of `retrieve()` over it.

Categories: 1 multi-hop, 2 temporal, 3 open-domain/inference, 4 single-hop (5, adversarial, is
not scored: its questions have no answer in the conversation).
"""

from __future__ import annotations

import os

# GNU OpenMP's worker threads busy-wait between torch calls; on a 2-core machine they then steal
# the CPU from Postgres and the event loop (retrieve p95 x10 under load). The embedding provider
# should set this before torch loads; the benchmarks do, so they measure the pipeline, not spin.
# Run with OMP_WAIT_POLICY=ACTIVE to see the difference.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")  # the library no longer sets either (issue 17)

import sys
from pathlib import Path

# Measure the checkout this script belongs to, not whichever copy the interpreter has installed.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import argparse
import asyncio
import json
import re
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

KS = (1, 5, 10, 20)
CONTEXT_WORDS = 400
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
DB_NAME = os.environ.get("ARANDU_BENCH_LOCOMO_DB", "arandu_bench_locomo")


# ---- a database of its own ----------------------------------------------------------------------
def _libpq(url: str) -> str:
    return re.sub(r"^postgres(ql)?(\+\w+)?://", "postgresql://", url.strip())


def with_database(url: str, name: str) -> str:
    """The same server URL with another database name."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))


def server_admin_url() -> str:
    """libpq URL of the maintenance database: DATABASE_URL's server, else the embedded one."""
    env = os.environ.get("DATABASE_URL")
    if env:
        return with_database(_libpq(env), "postgres")
    from arandu_pipelines.store.embedded import start_server

    return start_server().get_uri("postgres")


def fresh_database(name: str) -> str:
    """Drop and create database `name` (never the user's: benchmark names only)."""
    import psycopg

    if not re.fullmatch(r"arandu_bench_[a-z0-9_]{1,40}", name):
        raise ValueError(f"refusing to recreate {name!r}: benchmark databases are arandu_bench_*")
    admin = server_admin_url()
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return with_database(admin, name)


def percentile(values: list[float], p: float) -> float:
    s = sorted(values)
    if not s:
        return float("nan")
    k = max(0, min(len(s) - 1, round(p / 100 * len(s) + 0.5) - 1))
    return s[k]


# ---- scoring --------------------------------------------------------------------------------------
def recall_at(message_ids: list[str | None], evidence: list[str], k: int) -> float:
    top = {m for m in message_ids[:k] if m}
    return sum(1 for e in evidence if e in top) / len(evidence)


MONTHS = {m: i for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"], 1)}
MONTHS.update({m[:3]: i for m, i in list(MONTHS.items())})
MONTHS["sept"] = 9
MONTH_NAMES = dict(enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"], 1))
_M = r"(january|february|march|april|may|june|july|august|september|october|november|december|" \
     r"jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
_DATE_FORMS = [  # (regex, groups -> ISO token); longest forms first
    (re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b"), lambda g: f"{g[0]}-{g[1]}-{g[2]}"),
    (re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_M},?\s+(\d{{4}})\b"),
     lambda g: f"{g[2]}-{MONTHS[g[1]]:02d}-{int(g[0]):02d}"),
    (re.compile(rf"\b{_M}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b"),
     lambda g: f"{g[2]}-{MONTHS[g[0]]:02d}-{int(g[1]):02d}"),
    (re.compile(rf"\b{_M},?\s+(\d{{4}})\b"), lambda g: f"{g[1]}-{MONTHS[g[0]]:02d}"),
    (re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_M}\b"),
     lambda g: f"{MONTHS[g[1]]:02d}-{int(g[0]):02d}"),
    (re.compile(rf"\b{_M}\s+(\d{{1,2}})(?:st|nd|rd|th)?\b"), lambda g: f"{MONTHS[g[0]]:02d}-{int(g[1]):02d}"),
]
# Words that frame an answer rather than carry it ("Likely yes", "The week before ...").
ANSWER_STOP = frozenset(["a", "an", "the", "and", "or", "of", "in", "on", "at", "to", "for", "from", "with", "by", "as", "is", "are", "was", "were", "be", "been", "it", "its", "she", "he", "her", "his", "they", "their", "them", "this", "that", "these", "those", "not", "no", "yes", "likely", "maybe", "probably", "somewhat", "since", "because", "but", "also", "some", "any", "though", "before", "after", "during", "around"])


NUMBER_WORDS = {w: str(i) for i, w in enumerate(
    ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"])}
NUMBER_WORDS.update({"once": "1", "twice": "2"})


def _date_tokens(iso: str) -> list[str]:
    """A context date stands for itself and its coarser forms: 2023-05-07 -> 2023-05-07,
    2023-05, 2023, 05-07, may."""
    parts = iso.split("-")
    if len(parts) == 3:
        y, m, d = parts
        return [iso, f"{y}-{m}", y, f"{m}-{d}", MONTH_NAMES[int(m)]]
    if len(parts) == 2 and len(parts[0]) == 4:
        return [iso, parts[0], MONTH_NAMES[int(parts[1])]]
    return [iso]


def _normal_words(text: str, expand_dates: bool) -> list[str]:
    text = text.lower().replace("’", "'")
    out: list[str] = []
    for rx, iso in _DATE_FORMS:
        def sub(m: re.Match[str], iso: Callable[[tuple[Any, ...]], str] = iso) -> str:  # bound now
            token = iso(m.groups())
            out.extend(_date_tokens(token) if expand_dates else [token])
            return " "
        text = rx.sub(sub, text)
    for w in re.findall(r"[a-z0-9]+(?:'[a-z]+)?", text):
        w = w.removesuffix("'s")
        if w in ANSWER_STOP or (len(w) < 2 and not w.isdigit()):
            continue
        w = NUMBER_WORDS.get(w, w)
        if len(w) > 4 and w.endswith("ies"):
            w = w[:-3] + "y"
        elif len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]
        out.append(w)
    return out


def answer_in_context(answer: Any, context: str, words: int = CONTEXT_WORDS) -> bool:
    """True when every content word of the gold answer appears in the first `words` words of
    `context` (dates normalised on both sides; see the module docstring)."""
    wanted = set(_normal_words(str(answer), expand_dates=False))
    if not wanted:
        return False
    have = set(_normal_words(" ".join(context.split()[:words]), expand_dates=True))
    return wanted <= have


ANSWER_PLACES = ("first-400", "past-400", "returned", "not-returned")


def answer_location(answer: Any, context: str, returned: list[str], words: int = CONTEXT_WORDS) -> str:
    """Where the gold answer's content words are, for the context's reader: in the first `words`
    words ("first-400"), further down the context ("past-400": the context's order or size is at
    fault), in the returned messages or facts but not quoted in the context ("returned": a turn
    cut or left out), or nowhere in what retrieve() returned ("not-returned": the ranking's
    matter, not the formatter's)."""
    if answer_in_context(answer, context, words):
        return ANSWER_PLACES[0]
    if answer_in_context(answer, context, 10**9):
        return ANSWER_PLACES[1]
    if answer_in_context(answer, " ".join(returned), 10**9):
        return ANSWER_PLACES[2]
    return ANSWER_PLACES[3]


def _dated(text: str, when: Any) -> str:
    return f"{text} {when.date().isoformat()}" if when is not None else text


# ---- BM25 baseline -------------------------------------------------------------------------------
BM25_STOP = ANSWER_STOP | frozenset(["what", "when", "where", "who", "whom", "which", "why", "how", "do", "does", "did", "i", "you", "we", "my", "your", "our", "me", "us", "have", "has", "had", "will", "would", "can", "could", "should", "about", "into", "than", "then", "there", "here", "just", "so", "up", "out"])


def bm25_tokens(text: str) -> list[str]:
    out = []
    for w in re.findall(r"[a-z0-9]+", text.lower().replace("'s", "")):
        if w in BM25_STOP:
            continue
        out.append(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w)
    return out


class BM25:
    """Okapi BM25 over a conversation's turns: the baseline a retrieval system must beat."""

    def __init__(self, docs: list[tuple[str, str]], k1: float = 1.2, b: float = 0.75) -> None:
        import math

        self.ids = [d for d, _ in docs]
        self.tf = [defaultdict(int) for _ in docs]
        df: dict[str, int] = defaultdict(int)
        for counts, (_, text) in zip(self.tf, docs):
            for w in bm25_tokens(text):
                counts[w] += 1
            for w in counts:
                df[w] += 1
        self.len = [sum(c.values()) for c in self.tf]
        avg = statistics.mean(self.len) if docs else 1.0
        n = len(docs)
        self.idf = {w: math.log(1 + (n - f + 0.5) / (f + 0.5)) for w, f in df.items()}
        self.norm = [k1 * (1 - b + b * ln / (avg or 1.0)) for ln in self.len]
        self.k1 = k1

    def rank(self, query: str, k: int) -> list[str]:
        words = set(bm25_tokens(query))
        scores = []
        for i, counts in enumerate(self.tf):
            s = sum(self.idf[w] * counts[w] * (self.k1 + 1) / (counts[w] + self.norm[i])
                    for w in words if counts.get(w))
            if s > 0:
                scores.append((-s, i))
        scores.sort()
        return [self.ids[i] for _, i in scores[:k]]


def conversation_turns(path: Path) -> list[tuple[str, str]]:
    """(dia_id, "speaker: text") of every turn, in order."""
    data = json.loads(path.read_text(encoding="utf-8"))
    conv = data.get("conversation", data)
    out = []
    n = 1
    while f"session_{n}" in conv or f"session_{n}_date_time" in conv:
        for t in conv.get(f"session_{n}") or []:
            out.append((t["dia_id"], f"{t.get('speaker', '')}: {t.get('text', '')}"))
        n += 1
    return out


def bm25_recall(path: Path) -> dict[str, Any]:
    index = BM25(conversation_turns(path))
    per_k: dict[int, list[float]] = {k: [] for k in KS}
    for q in questions(path):
        ranked = index.rank(q["question"], max(KS))
        for k in KS:
            per_k[k].append(recall_at(ranked, q["evidence"], k))
    return {k: statistics.mean(v) for k, v in per_k.items()}


def questions(path: Path) -> list[dict[str, Any]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    qa = data.get("qa", [])
    out = []
    for q in qa:
        if q.get("category") in CATEGORIES and q.get("evidence"):
            # One label in the dev data names two turns in one string ("D8:6; D9:17"): split it.
            evidence = [e.strip() for label in q["evidence"] for e in str(label).split(";") if e.strip()]
            out.append({**q, "evidence": evidence})
    return out


async def run(paths: list[Path], topk_events: int, extract: bool, keep: bool,
              embedding_mode: str = "packed", baseline: str | None = None,
              per_question: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    from arandu_pipelines.client import MemoryClient
    from arandu_pipelines.write.importer import locomo_rows

    url = fresh_database(DB_NAME)
    report: dict[str, Any] = {"conversations": {}, "config": {"topk_events": topk_events,
                                                              "extract": extract,
                                                              "embedding_mode": embedding_mode}}
    latencies: list[float] = []
    cpu_ms = 0.0
    answer_at: dict[str, int] = dict.fromkeys(ANSWER_PLACES, 0)
    async with MemoryClient(url) as memory:
        await memory.embeddings.embed_one("warm up")
        for path in paths:
            agent = f"locomo-{path.stem}"
            t0 = time.perf_counter()
            imp = await memory.import_messages(locomo_rows(path, agent_id=agent), extract=extract,
                                               config_overrides={"embedding_mode": embedding_mode})
            import_s = time.perf_counter() - t0
            qs = questions(path)
            await memory.retrieve(agent, "warm up the plan cache")
            per_k: dict[int, list[float]] = {k: [] for k in KS}
            per_cat: dict[int, dict[int, list[float]]] = defaultdict(lambda: {k: [] for k in KS})
            in_ctx: dict[int, list[float]] = defaultdict(list)
            for q in qs:
                t, c = time.perf_counter(), time.process_time()
                res = await memory.retrieve(agent, q["question"],
                                            config_overrides={"topk_events": topk_events})
                latencies.append((time.perf_counter() - t) * 1000)
                cpu_ms += (time.process_time() - c) * 1000
                mids = [s.message_id for s in res.sources]
                for k in KS:
                    r = recall_at(mids, q["evidence"], k)
                    per_k[k].append(r)
                    per_cat[q["category"]][k].append(r)
                returned = [_dated(e.text, e.occurred_at) for e in res.events] + [
                    _dated(f.fact_text, f.event_date) for f in res.facts]
                where = answer_location(q.get("answer", ""), res.context, returned)
                hit = where == ANSWER_PLACES[0]
                in_ctx[q["category"]].append(float(hit))
                answer_at[where] += 1
                if per_question is not None:
                    per_question.append({
                        "conversation": path.stem, "question": q["question"],
                        "category": CATEGORIES[q["category"]], "answer": q.get("answer", ""),
                        "evidence": q["evidence"], "top": mids[:max(KS)],
                        "evidence_rank": {e: (mids.index(e) + 1 if e in mids else None) for e in q["evidence"]},
                        "in_context": hit, "answer_at": where})
            report["conversations"][path.stem] = {
                "questions": len(qs),
                "events": imp.events_inserted, "facts_added": imp.facts_added,
                "import_seconds": round(import_s, 1),
                "recall": {k: statistics.mean(v) for k, v in per_k.items()},
                "by_category": {CATEGORIES[c]: {"n": len(v[1]), **{k: statistics.mean(x) for k, x in v.items()},
                                                "in_context": statistics.mean(in_ctx[c])}
                                for c, v in sorted(per_cat.items())},
                "answer_in_context": statistics.mean(x for v in in_ctx.values() for x in v),
            }
            if baseline == "bm25":
                report["conversations"][path.stem]["bm25"] = bm25_recall(path)
    report["latency_ms"] = {"p50": percentile(latencies, 50), "p95": percentile(latencies, 95),
                            "n": len(latencies), "cpu_per_call": cpu_ms / max(len(latencies), 1),
                            "load_average": os.getloadavg()[0]}
    convs = report["conversations"].values()
    report["mean_recall"] = {k: statistics.mean(c["recall"][k] for c in convs) for k in KS}
    if baseline == "bm25":
        report["mean_bm25"] = {k: statistics.mean(c["bm25"][k] for c in convs) for k in KS}
    report["mean_answer_in_context"] = statistics.mean(c["answer_in_context"] for c in convs)
    report["answer_at"] = answer_at
    report["mean_by_category"] = {
        name: {k: statistics.mean(c["by_category"][name][k] for c in convs if name in c["by_category"])
               for k in (*KS, "in_context")}
        for name in CATEGORIES.values() if any(name in c["by_category"] for c in convs)}
    if not keep:
        import psycopg

        with psycopg.connect(server_admin_url(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{DB_NAME}" WITH (FORCE)')
    return report


def print_report(report: dict[str, Any]) -> None:
    head = "  ".join(f"R@{k:<3}" for k in KS) + "  in-ctx"
    for name, c in report["conversations"].items():
        print(f"\n{name}: {c['questions']} questions, {c['events']} messages, {c['facts_added']} facts "
              f"(import {c['import_seconds']} s)")
        print(f"  {'':14s} {'n':>4s}  {head}")
        print(f"  {'all':14s} {c['questions']:4d}  " + "  ".join(f"{c['recall'][k]:.3f}" for k in KS)
              + f"  {c['answer_in_context']:.3f}")
        for cat, v in c["by_category"].items():
            print(f"  {cat:14s} {v['n']:4d}  " + "  ".join(f"{v[k]:.3f}" for k in KS)
                  + f"  {v['in_context']:.3f}")
        if "bm25" in c:
            print(f"  {'BM25 baseline':14s} {c['questions']:4d}  " + "  ".join(f"{c['bm25'][k]:.3f}" for k in KS))
    m = report["mean_recall"]
    print("\nmean over conversations: " + "  ".join(f"R@{k}={m[k]:.3f}" for k in KS)
          + f"  answer-in-context={report['mean_answer_in_context']:.3f}"
          + f" (context cut to {CONTEXT_WORDS} words)")
    for name, v in report["mean_by_category"].items():
        print(f"  {name:14s} " + "  ".join(f"R@{k}={v[k]:.3f}" for k in KS) + f"  in-ctx={v['in_context']:.3f}")
    if "answer_at" in report:
        print("where the answer is (questions): " + ", ".join(f"{k} {n}" for k, n in report["answer_at"].items()))
    if "mean_bm25" in report:
        b = report["mean_bm25"]
        print("BM25 baseline: " + "  ".join(f"R@{k}={b[k]:.3f}" for k in KS))
        print("margin over BM25: " + "  ".join(f"R@{k} {100 * (m[k] - b[k]):+.1f} pts" for k in KS))
    lat = report["latency_ms"]
    print(f"retrieve latency (query embedding included): p50 {lat['p50']:.1f} ms, "
          f"p95 {lat['p95']:.1f} ms over {lat['n']} calls; {lat['cpu_per_call']:.1f} ms CPU per call "
          f"in this process (embedding included); machine load average {lat['load_average']:.1f} "
          "(latency on a shared 2-core machine moves with it)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", type=Path, help="LoCoMo conversation JSON files")
    ap.add_argument("--topk-events", type=int, default=20,
                    help="messages retrieve() returns (sources need >= 20 for Recall@20)")
    ap.add_argument("--no-extract", action="store_true", help="store messages only, no facts")
    ap.add_argument("--json", type=Path, help="also write the report as JSON here")
    ap.add_argument("--keep", action="store_true", help="keep the benchmark database afterwards")
    ap.add_argument("--embedding-mode", default="packed", choices=["packed", "sentences"],
                    help="MemoryConfig.embedding_mode used to import the messages")
    ap.add_argument("--baseline", choices=["bm25"],
                    help="also rank the turns with this baseline and print the margin over it")
    ap.add_argument("--questions", type=Path,
                    help="also write one JSON line per question here (top sources, each evidence "
                         "turn's rank, answer-in-context), to study misses")
    args = ap.parse_args(argv)
    missing = [p for p in args.paths if not p.exists()]
    if missing:
        print(f"not found: {', '.join(map(str, missing))}", file=sys.stderr)
        return 2
    per_question: list[dict[str, Any]] | None = [] if args.questions else None
    report = asyncio.run(run(args.paths, args.topk_events, not args.no_extract, args.keep,
                             args.embedding_mode, args.baseline, per_question))
    print_report(report)
    if args.questions and per_question is not None:
        args.questions.write_text("".join(json.dumps(q, default=str) + "\n" for q in per_question))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

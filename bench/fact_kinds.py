"""Precision and unique coverage of each rule kind of the offline extractor (issue 19, session 12).

    python bench/fact_kinds.py ../shared/data/locomo-dev/*.json [--extract-only] [--show KIND ...]

Every fact the offline extractor proposes carries the rule kind that produced it
(`ExtractedFact.rule_kind`, stored on the fact row as `memory_facts.rule_kind` (migration 0012)):
`verb.<kind>` (extract_rules' verb table `_KIND`), `relterm`, `alias`, `generic.<subject>.<attr>`
(a restated sentence: subject speaker | name | pron | addr | dropped_en, attribute plan |
preference | event | plain), `generic.belief`, `generic.dream`, `extra.<kind>` (rules_extra.RULES),
`stance.<kind>` (stance.RULES), `speech_act.<kind>` (speech_acts), `held_back.<check>`,
`mirror` (a relation's fact), `correction`, `llm`. This script runs bench/facts.py (database mode
unless `--extract-only`, same matcher) and prints per conversation and kind:

- facts: active facts of the kind; matched: those that match a gold observation of their turn;
- precision: matched / facts (the kind's share of bench/facts.py's "supported");
- covered: gold observations matched by at least one fact of the kind;
- unique: gold observations matched by facts of this kind ONLY (dropping the kind loses them).

Then one line per kind over all conversations, flagged `CANDIDATE` when its precision is below
`--low` on every conversation and its unique coverage is at most `--unique-max` on each (what
to tighten or drop costs little coverage), and `ONE-CONV` when its unique coverage comes from one
conversation only (a generalization warning: a kind that earns gold on one dev conversation alone
is not known to earn it elsewhere). `--show KIND` prints that kind's facts, matched or not.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))


def kind_rows(s: Any) -> dict[str, dict[str, Any]]:
    """Per rule kind of a scored conversation (bench/facts.Scored): facts, matched, precision,
    covered and unique gold observations."""
    kinds_of_gold: dict[int, set[str]] = defaultdict(set)
    for i, j in s.links:
        kinds_of_gold[i].add(s.facts[j].kind or "?")
    rows: dict[str, dict[str, Any]] = {}
    for f, hit in zip(s.facts, s.fact_hit, strict=True):
        r = rows.setdefault(f.kind or "?", {"facts": 0, "matched": 0, "covered": 0, "unique": 0})
        r["facts"] += 1
        r["matched"] += int(hit)
    for ks in kinds_of_gold.values():
        for k in ks:
            rows[k]["covered"] += 1
        if len(ks) == 1:
            rows[next(iter(ks))]["unique"] += 1
    for r in rows.values():
        r["precision"] = round(r["matched"] / r["facts"], 3) if r["facts"] else 0.0
    return dict(sorted(rows.items(), key=lambda kv: (-kv[1]["facts"], kv[0])))


def print_kinds(rows: dict[str, dict[str, Any]]) -> None:
    print(f"  {'rule kind':34} {'facts':>5} {'matched':>7} {'prec':>5} {'covered':>7} {'unique':>6}")
    for k, r in rows.items():
        print(f"  {k:34} {r['facts']:5d} {r['matched']:7d} {r['precision']:5.2f} {r['covered']:7d} {r['unique']:6d}")


def across(per_conv: dict[str, dict[str, dict[str, Any]]], low: float, unique_max: int) -> None:
    """One line per kind over the conversations, with the CANDIDATE and ONE-CONV flags."""
    names = list(per_conv)
    kinds = sorted({k for rows in per_conv.values() for k in rows},
                   key=lambda k: -sum(per_conv[c].get(k, {}).get("facts", 0) for c in names))
    print("\nper kind over conversations (facts matched/facts precision unique, per conversation):")
    for k in kinds:
        cells, flags = [], []
        got = [per_conv[c].get(k, {"facts": 0, "matched": 0, "precision": 0.0, "unique": 0}) for c in names]
        for c, r in zip(names, got, strict=True):
            cells.append(f"{c} {r['matched']}/{r['facts']} {r['precision']:.2f} u{r['unique']}")
        if all(r["facts"] and r["precision"] < low for r in got) and all(r["unique"] <= unique_max for r in got):
            flags.append("CANDIDATE")
        if len(names) > 1 and sum(1 for r in got if r["unique"]) == 1:
            flags.append("ONE-CONV")
        print(f"  {k:34} " + " | ".join(cells) + ("  " + " ".join(flags) if flags else ""))


def main(argv: list[str] | None = None) -> int:
    import facts as bench_facts

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", type=Path)
    ap.add_argument("--extract-only", action="store_true")
    ap.add_argument("--cosine", type=float, default=0.65)
    ap.add_argument("--f1", type=float, default=0.5)
    ap.add_argument("--low", type=float, default=0.5, help="precision below which a kind is a candidate")
    ap.add_argument("--unique-max", type=int, default=1, help="unique gold a candidate may hold per conversation")
    ap.add_argument("--show", nargs="*", default=[], help="print the facts of these kinds")
    args = ap.parse_args(argv)
    ns = argparse.Namespace(paths=args.paths, samples=0, cosine=args.cosine, f1=args.f1,
                            extract_only=args.extract_only, seed=0, keep=False, json=None, kinds=True)
    shown: dict[str, list[tuple[str, str | None, str, bool]]] = defaultdict(list)
    if args.show:
        orig = bench_facts.summary

        done: set[str] = set()

        def summary(s: Any, ill: Any = None) -> dict[str, Any]:
            if s.name in done:  # the second call scores with confirmations: shown once, as scored
                return orig(s, ill)
            done.add(s.name)
            for f, hit in zip(s.facts, s.fact_hit, strict=True):
                if (f.kind or "?") in args.show:
                    shown[f.kind or "?"].append((s.name, f.dia_id, f.text, hit))
            return orig(s, ill)

        bench_facts.summary = summary  # type: ignore[assignment]
    report = asyncio.run(bench_facts.run(ns))
    per_conv = {name: sm["kinds"] for name, sm in report["conversations"].items()}
    across(per_conv, args.low, args.unique_max)
    for k, items in shown.items():
        print(f"\nfacts of {k}:")
        for name, dia, text, hit in items:
            print(f"  {'+' if hit else '-'} {name} [{dia}] {text!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

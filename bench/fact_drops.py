"""Audit of the fact-quality DROP checks: what each check of `fact_quality.CHECKS` costs in coverage.

    python bench/fact_drops.py ../shared/data/locomo-dev/*.json [--samples 5] [--cosine 0.65] [--f1 0.5]

Runs the offline extractor per turn (as `bench/facts.py --extract-only`) with
`fact_quality.AUDIT` set, so every fact a check drops is recorded with the text it had when the
check saw it. Each dropped fact is scored with bench/facts.py's matcher against the gold
observations of its turn. Printed per check (all conversations together, then per conversation):

- drops: facts the check dropped;
- match: how many of them would have matched a gold observation (precision of the dropped:
  a check that drops mostly matching facts drops real facts);
- lost gold: gold observations a dropped fact matches that NO kept fact of the turn matches
  (the coverage the check costs; a gold observation lost by two checks counts for both);
then a sample of dropped facts that matched gold, to read what a repair should keep.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import facts as fb


async def audit(paths: list[Path], cos_min: float, f1_min: float, samples: int, seed: int) -> dict[str, Any]:
    from arandu_pipelines.providers.local_embeddings import LocalEmbeddings

    drops: dict[str, list[tuple[str, fb.Fact]]] = {}
    kept = fb.facts_from_extractor(paths, drops)
    emb = LocalEmbeddings()
    total: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    examples: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    report: dict[str, Any] = {}
    for path in paths:
        gold = fb.gold_observations(path)
        dropped = drops.get(path.stem, [])
        # one scoring pass over kept + dropped facts: gold_hit from kept only, matches of dropped
        s_kept = await fb.score(path.stem, gold, kept[path.stem], emb, cos_min, f1_min)
        s_drop = await fb.score(path.stem, gold, [f for _, f in dropped], emb, cos_min, f1_min)
        matched: dict[int, set[int]] = defaultdict(set)  # dropped fact -> gold indices it matches
        by_text = defaultdict(list)
        for i, g in enumerate(gold):
            by_text[(g.dia_id, g.text)].append(i)
        for j, (_, f) in enumerate(dropped):
            if not s_drop.fact_hit[j]:
                continue
            for ft, gt, _c, _o in s_drop.pairs:
                if ft == f.text:
                    matched[j] |= {i for i in by_text.get((f.dia_id or "", gt), [])}
        per: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
        lost: dict[str, set[int]] = defaultdict(set)
        for j, (check, f) in enumerate(dropped):
            per[check][0] += 1
            if matched[j]:
                per[check][1] += 1
                miss = {i for i in matched[j] if not s_kept.gold_hit[i]}
                lost[check] |= miss
                if miss:
                    examples[check].append((path.stem, f.dia_id or "", f.text))
        for check, row in per.items():
            row[2] = len(lost[check])
            for k in range(3):
                total[check][k] += row[k]
        n_gold = len(gold)
        cov = sum(s_kept.gold_hit) / n_gold if n_gold else 0.0
        report[path.stem] = {"gold": n_gold, "coverage_extract_only": round(cov, 3),
                             "checks": {c: dict(zip(("drops", "match", "lost_gold"), r, strict=True))
                                        for c, r in per.items()}}
        print(f"\n{path.stem}: {n_gold} gold, extract-only coverage {cov:.3f}")
        print_table(per, n_gold)
    print("\nall conversations:")
    print_table(total, sum(r["gold"] for r in report.values()))
    rng = random.Random(seed)
    for check, _ in sorted(total.items(), key=lambda kv: -kv[1][2]):
        ex = examples[check]
        if not ex or samples <= 0:
            continue
        print(f"\n  {check}: dropped facts whose gold is otherwise missed ({min(samples, len(ex))} of {len(ex)})")
        for conv, dia, text in rng.sample(ex, min(samples, len(ex))):
            print(f"    [{conv} {dia}] {text!r}")
    report["all"] = {c: dict(zip(("drops", "match", "lost_gold"), r, strict=True)) for c, r in total.items()}
    return report


def print_table(rows: dict[str, list[int]], n_gold: int) -> None:
    print(f"  {'check':<22}{'drops':>7}{'match':>7}{'prec':>7}{'lost gold':>11}{'cov cost':>10}")
    for check, (d, m, lost) in sorted(rows.items(), key=lambda kv: (-kv[1][2], -kv[1][0])):
        print(f"  {check:<22}{d:>7}{m:>7}{m / d if d else 0:>7.2f}{lost:>11}{lost / n_gold if n_gold else 0:>10.3f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", type=Path, help="LoCoMo conversation JSON files")
    ap.add_argument("--samples", type=int, default=5, help="dropped-but-matching facts to print per check")
    ap.add_argument("--cosine", type=float, default=0.65, help="MiniLM cosine for a match")
    ap.add_argument("--f1", type=float, default=0.5, help="content-word F1 for a match")
    ap.add_argument("--seed", type=int, default=0, help="seed of the printed samples")
    args = ap.parse_args(argv)
    asyncio.run(audit(args.paths, args.cosine, args.f1, args.samples, args.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

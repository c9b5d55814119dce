"""Gold observations in turns that give no fact at all: the misses no repair of a kept fact reaches.

    python bench/silent_turns.py FILES... [--json out.json]

Runs the offline extractor per turn (as `bench/facts.py --extract-only`, with `fact_quality.AUDIT`
set) and prints, for every gold observation whose turn yields no fact, the gold, the turn as said,
the previous turn, and what the quality pass dropped in that turn (check name and the fact's text
when the check saw it). A turn with no drop listed had no candidate at all: a form no rule reads.
Reading these by hand is how the session-16/17 miss branches chose what to build (docs/facts.md).
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import facts as fb


def silent_turns(paths: list[Path]) -> list[dict[str, Any]]:
    """One row per gold observation of a turn with no fact (in file and turn order)."""
    from arandu_pipelines.write.importer import locomo_rows

    drops: dict[str, list[tuple[str, fb.Fact]]] = {}
    kept = fb.facts_from_extractor(paths, drops)
    out: list[dict[str, Any]] = []
    for path in paths:
        rows = locomo_rows(path)
        with_fact = {f.dia_id for f in kept[path.stem]}
        dropped: dict[str, list[tuple[str, str]]] = {}
        for check, f in drops.get(path.stem, []):
            dropped.setdefault(f.dia_id or "", []).append((check, f.text))
        index = {r["message_id"]: i for i, r in enumerate(rows)}
        for g in fb.gold_observations(path):
            if g.dia_id in with_fact or g.dia_id not in index:
                continue
            i = index[g.dia_id]
            prev = rows[i - 1] if i and rows[i - 1]["session_id"] == rows[i]["session_id"] else None
            out.append({"file": path.stem, "dia_id": g.dia_id, "gold": g.text,
                        "speaker": rows[i]["speaker"], "text": rows[i]["text"],
                        "previous": f"{prev['speaker']}: {prev['text']}" if prev else None,
                        "dropped": dropped.get(g.dia_id, [])})
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", type=Path, help="LoCoMo conversation JSON files")
    ap.add_argument("--json", type=Path, help="also write the rows as JSON here")
    args = ap.parse_args(argv)
    rows = silent_turns(args.paths)
    for r in rows:
        print(f"== {r['file']} {r['dia_id']}  GOLD: {r['gold']}")
        if r["previous"]:
            print(f"   prev  {r['previous']}")
        print(f"   turn  {r['speaker']}: {r['text']}")
        for check, text in r["dropped"]:
            print(f"   drop  [{check}] {text}")
    print(f"{len(rows)} gold observations in {len({(r['file'], r['dia_id']) for r in rows})} silent turns")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

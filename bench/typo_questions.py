"""Copy LoCoMo-format conversations with typos put into their questions, for the query bridge.

    python bench/typo_questions.py IN.json [IN2.json ...] --out-dir /tmp/typo [--seed 18] [--rate 0.5]

People type questions the way they type chats: "what did melanie paitn", "educaton". The dev
questions are spelt cleanly, so they cannot show what read/bridge.py does for a misspelt query
word. This writes a copy of each file (same conversation, same evidence) whose questions have
deterministic typos: every lower-case word of 5+ letters gets, with probability `--rate` (a
seeded RNG per question), one of the commonest typing slips: two adjacent inner letters swapped,
an inner letter dropped, or an inner letter doubled. Capitalised words (names) are left alone,
they have their own matcher (read/name_match.py). Then:

    python bench/locomo.py /tmp/typo/*.json                       # bridge on (default)
    ARANDU_QUERY_BRIDGE=0 python bench/locomo.py /tmp/typo/*.json # bridge off
"""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path


def typo(word: str, rng: random.Random) -> str:
    """One typing slip inside `word` (first and last letters kept)."""
    i = rng.randrange(1, len(word) - 2)
    kind = rng.choice(("swap", "drop", "double"))
    if kind == "swap":
        return word[:i] + word[i + 1] + word[i] + word[i + 2:]
    if kind == "drop":
        return word[:i] + word[i + 1:]
    return word[:i] + word[i] + word[i:]


def misspell(question: str, rate: float, seed: str) -> str:
    rng = random.Random(seed)

    def one(m: re.Match[str]) -> str:
        w = m.group(0)
        return typo(w, rng) if rng.random() < rate else w

    return re.sub(r"\b[a-z]{5,}\b", one, question)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+", type=Path)
    ap.add_argument("--out-dir", type=Path, required=True)
    ap.add_argument("--seed", default="18")
    ap.add_argument("--rate", type=float, default=0.5)
    args = ap.parse_args()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    changed = total = 0
    for path in args.paths:
        data = json.loads(path.read_text(encoding="utf-8"))
        convs = data if isinstance(data, list) else [data]
        for conv in convs:
            for q in conv.get("qa", []):
                new = misspell(q["question"], args.rate, f"{args.seed}:{q['question']}")
                changed += new != q["question"]
                total += 1
                q["question"] = new
        (args.out_dir / path.name).write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    print(f"{changed} of {total} questions misspelt, written to {args.out_dir}")


if __name__ == "__main__":
    main()

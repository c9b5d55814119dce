"""Chat-register defects in the facts of a realistic group chat, as a user reading get_all() sees them.

    python bench/chat_facts.py [bench/data/realistic-chat.json] [--samples 15] [--seed 10]
        [--json out.json]

Imports the chat (our own `bench/data/realistic-chat.json`, written by bench/make_realistic_chat.py:
typos, slang, emoji, all-caps) offline (no LLM; message_id = the turn's dia_id) into a fresh
database of its own, `arandu_bench_chat_facts`, on DATABASE_URL's server when set, else on the
embedded server (as bench/facts.py does), reads every active fact (valid_to IS NULL) and prints,
per defect marker (`MARKERS` below), how many facts carry it, then a seeded sample of facts with
the message they came from. `--json` writes every fact (dia_id, fact, markers) so two runs can be
compared fact by fact.

The markers are things a careful person would fix before writing the fact down; the fixes live
in arandu_pipelines/write/chat_forms.py (the stored messages stay verbatim).
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import argparse
import asyncio
import json
import random
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

DB_NAME = "arandu_bench_chat_facts"

# Acronyms and initialisms that are written in capitals in careful prose too.
_ACRONYMS = frozenset(["I", "OK", "UK", "US", "USA", "NHS", "DIY", "TV", "PC", "AI", "PhD", "BBQ", "ID", "GP",
                       "A&E", "ICU", "LGBTQ", "NYC", "EU", "CV", "HR", "IT", "PE", "PR", "UN", "DJ", "MBA",
                       "II", "III", "IV", "5K", "10K", "PB", "ER"])

# name -> test over the fact text. A fact may carry several.
MARKERS: dict[str, re.Pattern[str]] = {
    # a shouted word: two or more capital letters, not an acronym (checked in markers_of)
    "all_caps": re.compile(r"\b[A-Z][A-Z']{2,}\b|\b[A-Z]{2,}(?:\s+[A-Z]{2,})+\b"),
    # chat spellings a careful writer spells out
    "chat_spelling": re.compile(
        r"(?i)\b(?:ur|u|r|pls|plz|tmrw|tmr|tmrow|bc|cuz|coz|rn|im|ive|dont|cant|wont|didnt|doesnt|isnt|wasnt"
        r"|havent|hasnt|thats|whats|theres|idk|ngl|tbh|btw|imo|omg|ppl|thx|ty|ya|yall|gonna|wanna|gotta|kinda"
        r"|sorta|dunno|lemme|gimme|w/|b4|2day|2nite|tonite|nite|abt|prob|probs|def|defo|srsly|bday|ngl|jk"
        r"|msg|txt|wk|wknd|w|fam|biz|faves?|favs?|pics?|convos?|prolly|outta|lotta|tryna)\b"
        r"|(?<![\w'’])['’](?:cause|cuz|em|bout|til)\b|\b[a-z]{2,}in['’](?!\w)"),
    # a chat dash joining a second thought ("... - can't wait", "books- classics"): write/dash_tails.py
    "dash_tail": re.compile(r"[\w'’\")!?.]\s*(?:-{1,2}|[–—])\s+\S"),
    # laughter and chat interjections
    "laughter": re.compile(r"(?i)\b(?:lol|lmao|lmfao|rofl|haha\w*|hehe\w*|ahaha\w*|xd|omg|omfg|ugh+|argh+|yay+|woo+)\b"),
    # an emoji or pictograph left in the fact
    "emoji": re.compile("[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\uFE0F\u200D]"),
    # letters stretched for emphasis ("sooo", "yesss")
    "stretched": re.compile(r"(?i)([a-z])\1{2,}"),
    # a dangling "tho"/"though" at the end of the fact
    "dangling_tho": re.compile(r"(?i),?\s+(?:tho|though)\W*$"),
    # lower-case sentence start or "i" as a word
    "lower_case": re.compile(r"^[a-z]|\bi\b(?!['’]?\w)"),
    # doubled punctuation ("!!", "?!", "...")
    "punctuation": re.compile(r"[!?]{2,}|\.{3,}|…"),
    # a weekday, month or language in lower case ("on friday", "learning japanese")
    "lower_proper": re.compile(
        r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|april|june|july|august"
        r"|september|october|november|december|english|japanese|spanish|french|german|italian|portuguese"
        r"|chinese|korean|arabic|hindi)s?\b"),
    # a request verb misspelt by a swap ("Remnid Maria on friday") is still a request, no fact
    "typo_request": re.compile(r"(?i)^(?:remnid|rmeind|tlel|sned|txet|clal|hlep|shwo)\b"),
}


def markers_of(text: str) -> list[str]:
    out = []
    for name, pat in MARKERS.items():
        if name == "all_caps":
            words = [m.group(0) for m in re.finditer(r"\b[A-Z][A-Z'’]+\b", text)]
            if any(w not in _ACRONYMS for w in words):
                out.append(name)
        elif pat.search(text):
            out.append(name)
    return out


async def facts_of(path: Path) -> tuple[list[dict[str, Any]], dict[str, str]]:
    from locomo import fresh_database, server_admin_url
    from sqlalchemy import text

    from arandu_pipelines.client import MemoryClient
    from arandu_pipelines.write.importer import locomo_rows

    url = fresh_database(DB_NAME)
    rows = locomo_rows(path, agent_id="chat")
    said = {str(r.get("message_id")): str(r.get("content") or r.get("text") or "") for r in rows}
    try:
        async with MemoryClient(url) as memory:
            await memory.import_messages(rows)
            async with memory.engine.connect() as conn:
                got = (await conn.execute(text(
                    "SELECT e.message_id, f.fact_text, f.entity_key FROM memory_facts f "
                    "LEFT JOIN memory_events e ON e.id = f.source_event_id "
                    "WHERE f.agent_id = :a AND f.valid_to IS NULL ORDER BY f.created_at, f.id"),
                    {"a": "chat"})).all()
    finally:
        import psycopg

        with psycopg.connect(server_admin_url(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{DB_NAME}" WITH (FORCE)')
    facts = [{"dia_id": r[0], "fact": r[1], "entity": r[2], "markers": markers_of(r[1])} for r in got]
    return facts, said


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("path", nargs="?", default=str(ROOT / "bench/data/realistic-chat.json"))
    ap.add_argument("--samples", type=int, default=15)
    ap.add_argument("--seed", type=int, default=10)
    ap.add_argument("--json", help="write every fact with its markers here")
    args = ap.parse_args(argv)
    facts, said = asyncio.run(facts_of(Path(args.path)))
    counts = Counter(m for f in facts for m in f["markers"])
    flagged = sum(1 for f in facts if f["markers"])
    print(f"{len(facts)} active facts; {flagged} with at least one marker ({flagged / max(1, len(facts)):.3f})")
    for name in MARKERS:
        print(f"  {name:14s} {counts.get(name, 0)}")
    rng = random.Random(args.seed)
    print("\nfacts with a marker:")
    for f in [f for f in facts if f["markers"]]:
        print(f"  [{f['dia_id']}] {f['fact']!r}  {f['markers']}")
    print(f"\nsample of {args.samples}:")
    for f in rng.sample(facts, min(args.samples, len(facts))):
        print(f"  [{f['dia_id']}] {said.get(str(f['dia_id']), '')!r}\n      -> {f['fact']!r}")
    if args.json:
        Path(args.json).write_text(json.dumps(facts, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

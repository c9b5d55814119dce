"""The realistic chat and the BM25 baseline of bench/: the generator is deterministic, its file is
what it writes, a LoCoMo file the importer reads, with evidence that points at real turns; BM25
ranks the turn that shares the rare words first."""

from __future__ import annotations

import importlib.util
import json
from datetime import datetime
from pathlib import Path

from arandu_pipelines.write.importer import locomo_rows

BENCH = Path(__file__).resolve().parents[1] / "bench"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def test_realistic_chat_is_deterministic_and_matches_the_committed_file(tmp_path) -> None:
    gen = _load("make_realistic_chat")
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert gen.main(["--out", str(a)]) == 0 and gen.main(["--out", str(b)]) == 0
    assert a.read_bytes() == b.read_bytes() == (BENCH / "data" / "realistic-chat.json").read_bytes()


def test_realistic_chat_is_a_locomo_file_with_valid_evidence() -> None:
    path = BENCH / "data" / "realistic-chat.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    rows = locomo_rows(path, agent_id="rc")
    ids = {r["message_id"] for r in rows}
    assert 300 <= len(rows) <= 500 and len({r["session_id"] for r in rows}) >= 10
    assert {r["speaker"] for r in rows} == {"Katherine", "Muhhamed", "Priya"}
    times = [datetime.fromisoformat(r["occurred_at"]) for r in rows]
    span = max(times) - min(times)
    assert 14 <= span.days <= 21
    qa = data["qa"]
    assert len(qa) >= 30 and {q["category"] for q in qa} == {1, 2, 3, 4}
    assert all(q["evidence"] and set(q["evidence"]) <= ids for q in qa)
    assert sum(len(q["evidence"]) >= 3 for q in qa) >= 5  # list questions gathered across sessions
    # People are asked about as friends name them, not as the labels spell them.
    assert sum("Muhammad" in q["question"] or "Mo " in q["question"] for q in qa) >= 8
    assert sum("Kate" in q["question"] or "Kat " in q["question"] for q in qa) >= 8


def test_bm25_ranks_the_turn_with_the_rare_words_first() -> None:
    locomo = _load("locomo")
    index = locomo.BM25([("D1:1", "Ana: hi there"), ("D1:2", "Ana: I adopted a beagle called Biscuit"),
                         ("D1:3", "Bo: a cat is a pet too"), ("D1:4", "Bo: hi")])
    assert index.rank("What is the name of the beagle?", 3) == ["D1:2"]
    assert index.rank("Which pets?", 3) == ["D1:3"]  # plural folded onto the singular
    assert index.rank("What is it?", 3) == []  # nothing but stop words


def test_an_evidence_label_naming_two_turns_counts_as_two(tmp_path: Path) -> None:
    locomo = _load("locomo")
    conv = tmp_path / "c.json"
    conv.write_text(json.dumps({"qa": [
        {"question": "What did Mel paint?", "answer": "sunset", "category": 1,
         "evidence": ["D8:6; D9:17", "D1:2"]},
        {"question": "no evidence", "answer": "x", "category": 1, "evidence": []},
        {"question": "adversarial", "answer": "x", "category": 5, "evidence": ["D1:1"]}]}))
    qs = locomo.questions(conv)
    assert [q["evidence"] for q in qs] == [["D8:6", "D9:17", "D1:2"]]
    assert locomo.recall_at(["D9:17", "D8:6"], qs[0]["evidence"], 2) == 2 / 3

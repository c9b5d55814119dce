"""The held-out LoCoMo-format probe (bench/data/heldout) stays loadable and self-consistent.

The files are scored by bench/facts.py and bench/locomo.py as an out-of-sample figure, so a
broken dia_id or a turn the importer cannot read would silently shrink the probe. These checks
read the data only; they never run the fact extractor.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from arandu_pipelines.write.importer import locomo_rows

HELDOUT = Path(__file__).resolve().parent.parent / "bench" / "data" / "heldout"
FILES = sorted(HELDOUT.glob("heldout-*.json"))


def _turns(data: dict) -> list[dict]:
    return [t for k, v in data.items() if re.fullmatch(r"session_\d+", k) for t in v]


def test_two_heldout_conversations_exist() -> None:
    assert [p.name for p in FILES] == ["heldout-1.json", "heldout-2.json"]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_importer_reads_every_turn(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    rows = locomo_rows(path)
    assert sorted(r["message_id"] for r in rows) == sorted(t["dia_id"] for t in _turns(data))
    assert all(r["text"].strip() for r in rows)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_observations_and_evidence_point_at_real_turns(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    speaker_of = {t["dia_id"]: t["speaker"] for t in _turns(data)}
    speakers = {data["speaker_a"], data["speaker_b"]}
    sessions = [k for k in data if re.fullmatch(r"session_\d+", k)]
    assert len(sessions) == 6
    for key in sessions:
        assert data[f"{key}_date_time"]
        observation = data[f"{key}_observation"]
        assert set(observation) == speakers
        for speaker, items in observation.items():
            for text, dia_id in items:
                assert text.strip().endswith("."), text
                assert speaker_of[dia_id] == speaker, (dia_id, text)
    assert 25 <= len(data["qa"]) <= 30
    for qa in data["qa"]:
        assert qa["category"] in {1, 2, 4}
        assert qa["evidence"] and all(e in speaker_of for e in qa["evidence"]), qa

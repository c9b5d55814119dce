"""The held-out LoCoMo-format probe (bench/data/heldout) stays loadable and self-consistent.

The files are scored by bench/facts.py and bench/locomo.py as an out-of-sample figure, so a
broken dia_id or a turn the importer cannot read would silently shrink the probe. These checks
read the data only; they never run the fact extractor.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

from arandu_pipelines.write.importer import locomo_rows

HELDOUT = Path(__file__).resolve().parent.parent / "bench" / "data" / "heldout"
FILES = sorted(HELDOUT.glob("heldout-*.json"))


def _turns(data: dict) -> list[dict]:
    return [t for k, v in data.items() if re.fullmatch(r"session_\d+", k) for t in v]


# The second set (session 13, branch heldout13b) was written to LoCoMo's own register.
SECOND_SET = [p for p in FILES if p.name in {"heldout-3.json", "heldout-4.json"}]
# The third set (session 13, branch heldout13c) was written blind to the same register.
THIRD_SET = [p for p in FILES if p.name in {"heldout-5.json", "heldout-6.json"}]


def _bench_facts() -> ModuleType:
    """bench/ is no package: load bench/facts.py by path (only its gold reader is used)."""
    path = HELDOUT.parent.parent / "facts.py"
    spec = importlib.util.spec_from_file_location("bench_facts_heldout_data", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_six_heldout_conversations_exist() -> None:
    # Later sets (heldout-7, heldout-8, ...) are added by name; the first six must stay.
    names = {p.name for p in FILES}
    assert {f"heldout-{n}.json" for n in range(1, 7)} <= names, sorted(names)


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


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_bench_reads_every_observation(path: Path) -> None:
    """bench/facts.py scores against gold_observations(); a dropped observation shrinks the probe."""
    data = json.loads(path.read_text(encoding="utf-8"))
    written = sorted(
        (dia_id, text)
        for key, value in data.items()
        if re.fullmatch(r"session_\d+_observation", key)
        for items in value.values()
        for text, dia_id in items
    )
    gold = _bench_facts().gold_observations(path)
    assert sorted((g.dia_id, g.text) for g in gold) == written


@pytest.mark.parametrize("path", SECOND_SET + THIRD_SET, ids=lambda p: p.name)
def test_second_and_third_sets_keep_locomo_register(path: Path) -> None:
    """Turn length, session size, observation density and photo turns stay close to the dev pair.

    The dev pair (conv-26 / conv-30) averages 24.9 / 21.7 words per turn and 0.44 / 0.46
    observations per turn; a file far outside that would probe a different register.
    """
    data = json.loads(path.read_text(encoding="utf-8"))
    sessions = [data[k] for k in data if re.fullmatch(r"session_\d+", k)]
    assert all(18 <= len(turns) <= 26 for turns in sessions)
    turns = [t for s in sessions for t in s]
    words = sum(len(t["text"].split()) for t in turns) / len(turns)
    assert 22 <= words <= 25, words
    observations = sum(
        len(items)
        for key, value in data.items()
        if re.fullmatch(r"session_\d+_observation", key)
        for items in value.values()
    )
    assert 0.40 <= observations / len(turns) <= 0.50
    photos = [t for t in turns if "img_url" in t]
    assert len(photos) >= 6
    for turn in photos:
        assert isinstance(turn["img_url"], list) and turn["img_url"]
        assert turn["blip_caption"].startswith("a photo of") and turn["query"].strip()
    dates = [data[k] for k in data if re.fullmatch(r"session_\d+_date_time", k)]
    assert all(re.fullmatch(r"\d{1,2}:\d{2} [ap]m on \d{1,2} \w+, 2023", d) for d in dates), dates


@pytest.mark.parametrize("path", THIRD_SET, ids=lambda p: p.name)
def test_third_set_observations_stay_per_turn(path: Path) -> None:
    """Each observation states what one turn says: density holds in every session, not only overall.

    A session with no observations or one where nearly every turn has several would score the
    writer on a different annotation habit from LoCoMo's (one or two facts for a minority of turns).
    """
    data = json.loads(path.read_text(encoding="utf-8"))
    for key in [k for k in data if re.fullmatch(r"session_\d+", k)]:
        per_turn: dict[str, int] = {t["dia_id"]: 0 for t in data[key]}
        for items in data[f"{key}_observation"].values():
            for _text, dia_id in items:
                per_turn[dia_id] += 1
        assert max(per_turn.values()) <= 2, key
        assert 0.35 <= sum(per_turn.values()) / len(per_turn) <= 0.55, key
    categories = [qa["category"] for qa in data["qa"]]
    assert all(categories.count(c) >= 5 for c in (1, 2, 4)), categories


# heldout-7 (session 14, branch heldout14a): one blind conversation in LoCoMo's register.
HELDOUT_7 = HELDOUT / "heldout-7.json"


def test_heldout_7_keeps_locomo_register_and_annotation_habit() -> None:
    """heldout-7 passes the third set's register checks and LoCoMo's annotation habits.

    Beyond the third set's checks: turn length varies as in the dev pair (whose turns run from
    one word to eighty; a file of uniform 24-word turns would probe an easier register), speakers
    alternate, every observation names the speaker it is filed under and speaks of them in the
    third person, multi-hop questions cite at least two turns and temporal answers carry a date.
    """
    assert HELDOUT_7 in FILES
    test_second_and_third_sets_keep_locomo_register(HELDOUT_7)
    test_third_set_observations_stay_per_turn(HELDOUT_7)
    data = json.loads(HELDOUT_7.read_text(encoding="utf-8"))
    sessions = [data[k] for k in data if re.fullmatch(r"session_\d+", k)]
    lengths = [len(t["text"].split()) for s in sessions for t in s]
    mean = sum(lengths) / len(lengths)
    spread = (sum((n - mean) ** 2 for n in lengths) / len(lengths)) ** 0.5
    assert spread >= 8, spread
    assert sum(n < 12 for n in lengths) >= 10 and sum(n > 35 for n in lengths) >= 10
    for turns in sessions:
        order = [t["speaker"] for t in turns]
        assert all(order[i] != order[i + 1] for i in range(len(order) - 1)), order
    for key in [k for k in data if re.fullmatch(r"session_\d+_observation", k)]:
        for speaker, items in data[key].items():
            for text, _dia_id in items:
                assert speaker in text, (speaker, text)
                assert not re.search(r"\b(I|I'm|my|me|we|our)\b", text), text
    for qa in data["qa"]:
        if qa["category"] == 1:
            assert len(qa["evidence"]) >= 2, qa
        if qa["category"] == 2:
            assert re.search(r"\b2023\b", str(qa["answer"])), qa
    photos = [t for s in sessions for t in s if "img_url" in t]
    assert all(u.startswith("https://example.invalid/") for t in photos for u in t["img_url"])


HELDOUT_8 = HELDOUT / "heldout-8.json"


def test_heldout_8_blind_set_loads_and_keeps_locomo_register() -> None:
    """heldout-8 (session 14, branch heldout14b) is a blind probe: it must load and match LoCoMo.

    It is held to every check of the third set (the importer reads every turn, observations and
    evidence point at real turns of the right speaker, gold_observations() returns them all, turn
    length, session size, density per session, photo fields, qa categories) and, because it was
    written from a source the importer never sees, to the dev files' numbering: dia_ids D<s>:1..n in
    order, observations listed in turn order, sessions dated in increasing order.
    """
    from datetime import datetime

    assert HELDOUT_8.exists()
    test_importer_reads_every_turn(HELDOUT_8)
    test_observations_and_evidence_point_at_real_turns(HELDOUT_8)
    test_bench_reads_every_observation(HELDOUT_8)
    test_second_and_third_sets_keep_locomo_register(HELDOUT_8)
    test_third_set_observations_stay_per_turn(HELDOUT_8)
    data = json.loads(HELDOUT_8.read_text(encoding="utf-8"))
    keys = [k for k in data if re.fullmatch(r"session_\d+", k)]
    assert keys == [f"session_{n}" for n in range(1, 7)]
    dates = [datetime.strptime(data[f"{k}_date_time"], "%I:%M %p on %d %B, %Y") for k in keys]
    assert dates == sorted(dates) and len(set(dates)) == len(dates), dates
    for n, key in enumerate(keys, 1):
        ids = [t["dia_id"] for t in data[key]]
        assert ids == [f"D{n}:{i}" for i in range(1, len(ids) + 1)], key
        for items in data[f"{key}_observation"].values():
            order = [ids.index(dia_id) for _text, dia_id in items]
            assert order == sorted(order), key


HELDOUT_9 = HELDOUT / "heldout-9.json"


def test_heldout_9_blind_set_loads_and_keeps_locomo_register() -> None:
    """heldout-9 (session 14, branch heldout14c) is a blind probe: it must load and match LoCoMo.

    Held to every check of the third set (importer reads every turn, observations and evidence
    point at real turns of the right speaker, gold_observations() returns them all, turn length,
    session size, per-session density, photo fields, qa categories), to the dev files' numbering
    (dia_ids D<s>:1..n, observations in turn order, sessions dated in increasing order), and to
    LoCoMo's habits: turn length varies, speakers alternate, observations name their speaker in
    the third person, multi-hop questions cite two or more turns, temporal answers carry a date.
    """
    from datetime import datetime

    assert HELDOUT_9 in FILES
    test_importer_reads_every_turn(HELDOUT_9)
    test_observations_and_evidence_point_at_real_turns(HELDOUT_9)
    test_bench_reads_every_observation(HELDOUT_9)
    test_second_and_third_sets_keep_locomo_register(HELDOUT_9)
    test_third_set_observations_stay_per_turn(HELDOUT_9)
    data = json.loads(HELDOUT_9.read_text(encoding="utf-8"))
    keys = [k for k in data if re.fullmatch(r"session_\d+", k)]
    assert keys == [f"session_{n}" for n in range(1, 7)]
    dates = [datetime.strptime(data[f"{k}_date_time"], "%I:%M %p on %d %B, %Y") for k in keys]
    assert dates == sorted(dates) and len(set(dates)) == len(dates), dates
    lengths: list[int] = []
    for n, key in enumerate(keys, 1):
        turns = data[key]
        ids = [t["dia_id"] for t in turns]
        assert ids == [f"D{n}:{i}" for i in range(1, len(ids) + 1)], key
        order = [t["speaker"] for t in turns]
        assert all(order[i] != order[i + 1] for i in range(len(order) - 1)), key
        lengths += [len(t["text"].split()) for t in turns]
        for speaker, items in data[f"{key}_observation"].items():
            positions = [ids.index(dia_id) for _text, dia_id in items]
            assert positions == sorted(positions), key
            for text, _dia_id in items:
                assert speaker in text, (speaker, text)
                assert not re.search(r"\b(I|I'm|my|me|we|our)\b", text), text
    mean = sum(lengths) / len(lengths)
    spread = (sum((n - mean) ** 2 for n in lengths) / len(lengths)) ** 0.5
    assert spread >= 8, spread
    assert sum(n < 12 for n in lengths) >= 10 and sum(n > 35 for n in lengths) >= 10
    for qa in data["qa"]:
        if qa["category"] == 1:
            assert len(qa["evidence"]) >= 2, qa
        if qa["category"] == 2:
            assert re.search(r"\b2023\b", str(qa["answer"])), qa
    photos = [t for key in keys for t in data[key] if "img_url" in t]
    assert all(u.startswith("https://example.invalid/") for t in photos for u in t["img_url"])


# heldout-10 (session 14, branch heldout14d): one blind conversation in LoCoMo's register.
HELDOUT_10 = HELDOUT / "heldout-10.json"


def test_heldout_10_blind_set_loads_and_keeps_locomo_register() -> None:
    """heldout-10 is a blind probe: it must load, point at real turns and read like LoCoMo.

    Held to every check of the third set (the importer reads every turn, observations and evidence
    point at real turns of the right speaker, gold_observations() returns them all, turn length,
    session size, density per session, photo fields, qa categories) and to LoCoMo's habits: dia_ids
    D<s>:1..n in order, sessions dated in increasing order, speakers alternating, turn length that
    varies as in the dev pair (not uniform), every observation naming the speaker it is filed under
    in the third person, multi-hop questions citing two or more turns, temporal answers with a date.
    """
    from datetime import datetime

    assert HELDOUT_10 in FILES
    test_importer_reads_every_turn(HELDOUT_10)
    test_observations_and_evidence_point_at_real_turns(HELDOUT_10)
    test_bench_reads_every_observation(HELDOUT_10)
    test_second_and_third_sets_keep_locomo_register(HELDOUT_10)
    test_third_set_observations_stay_per_turn(HELDOUT_10)
    data = json.loads(HELDOUT_10.read_text(encoding="utf-8"))
    keys = [k for k in data if re.fullmatch(r"session_\d+", k)]
    assert keys == [f"session_{n}" for n in range(1, 7)]
    dates = [datetime.strptime(data[f"{k}_date_time"], "%I:%M %p on %d %B, %Y") for k in keys]
    assert dates == sorted(dates) and len(set(dates)) == len(dates), dates
    lengths = []
    for n, key in enumerate(keys, 1):
        turns = data[key]
        assert [t["dia_id"] for t in turns] == [f"D{n}:{i}" for i in range(1, len(turns) + 1)]
        order = [t["speaker"] for t in turns]
        assert all(order[i] != order[i + 1] for i in range(len(order) - 1)), key
        lengths += [len(t["text"].split()) for t in turns]
        for speaker, items in data[f"{key}_observation"].items():
            for text, _dia_id in items:
                assert speaker in text or any(
                    name in text for name in ("Captain", "Jada", "Jordan", "Static Bloom", "Dev")
                ), (speaker, text)
                assert not re.search(r"\b(I|I'm|my|me|we|our)\b", text), text
    mean = sum(lengths) / len(lengths)
    spread = (sum((n - mean) ** 2 for n in lengths) / len(lengths)) ** 0.5
    assert spread >= 6, spread
    for qa in data["qa"]:
        if qa["category"] == 1:
            assert len(qa["evidence"]) >= 2, qa
        if qa["category"] == 2:
            assert re.search(r"\b2023\b", str(qa["answer"])), qa
    photos = [t for k in keys for t in data[k] if "img_url" in t]
    assert all(u.startswith("https://example.invalid/") for t in photos for u in t["img_url"])


# heldout-11 (session 15, branch heldout15a): one blind conversation in LoCoMo's register.
HELDOUT_11 = HELDOUT / "heldout-11.json"


def test_heldout_11_blind_set_loads_and_keeps_locomo_register() -> None:
    """heldout-11 is a blind probe: it must load, point at real turns and read like LoCoMo.

    Held to every check of the third set (the importer reads every turn, observations and evidence
    point at real turns of the right speaker, gold_observations() returns them all, turn length,
    session size, per-session density, photo fields, qa categories) and to LoCoMo's habits: dia_ids
    D<s>:1..n in order, observations in turn order, sessions dated in increasing order, speakers
    alternating, turn length that varies as in the dev pair (standard deviation 13.6 / 13.0 words),
    every observation naming the speaker it is filed under in the third person, some turns with two
    observations and many with none, multi-hop questions citing two or more turns of two or more
    sessions, and temporal answers that carry a 2023 date.
    """
    from datetime import datetime

    assert HELDOUT_11 in FILES
    test_importer_reads_every_turn(HELDOUT_11)
    test_observations_and_evidence_point_at_real_turns(HELDOUT_11)
    test_bench_reads_every_observation(HELDOUT_11)
    test_second_and_third_sets_keep_locomo_register(HELDOUT_11)
    test_third_set_observations_stay_per_turn(HELDOUT_11)
    data = json.loads(HELDOUT_11.read_text(encoding="utf-8"))
    keys = [k for k in data if re.fullmatch(r"session_\d+", k)]
    assert keys == [f"session_{n}" for n in range(1, 7)]
    dates = [datetime.strptime(data[f"{k}_date_time"], "%I:%M %p on %d %B, %Y") for k in keys]
    assert dates == sorted(dates) and len(set(dates)) == len(dates), dates
    lengths: list[int] = []
    per_turn: dict[str, int] = {}
    for n, key in enumerate(keys, 1):
        turns = data[key]
        ids = [t["dia_id"] for t in turns]
        assert ids == [f"D{n}:{i}" for i in range(1, len(ids) + 1)], key
        order = [t["speaker"] for t in turns]
        assert all(order[i] != order[i + 1] for i in range(len(order) - 1)), key
        lengths += [len(t["text"].split()) for t in turns]
        per_turn.update(dict.fromkeys(ids, 0))
        for speaker, items in data[f"{key}_observation"].items():
            positions = [ids.index(dia_id) for _text, dia_id in items]
            assert positions == sorted(positions), key
            for text, dia_id in items:
                per_turn[dia_id] += 1
                assert speaker in text, (speaker, text)
                assert not re.search(r"\b(I|I'm|I've|my|me|we|our|us)\b", text), text
    counts = list(per_turn.values())
    assert counts.count(2) >= 1 and counts.count(0) > len(counts) / 2, counts
    mean = sum(lengths) / len(lengths)
    spread = (sum((n - mean) ** 2 for n in lengths) / len(lengths)) ** 0.5
    assert spread >= 8, spread
    assert sum(n < 12 for n in lengths) >= 10 and sum(n > 35 for n in lengths) >= 10
    for qa in data["qa"]:
        if qa["category"] == 1:
            assert len(qa["evidence"]) >= 2, qa
            assert len({e.split(":")[0] for e in qa["evidence"]}) >= 2, qa
        if qa["category"] == 2:
            assert re.search(r"\b2023\b", str(qa["answer"])), qa
    photos = [t for k in keys for t in data[k] if "img_url" in t]
    urls = [u for t in photos for u in t["img_url"]]
    assert all(u.startswith("https://example.invalid/heldout-11/") for u in urls), urls


# heldout-12 (session 15, branch heldout15b): one blind conversation in LoCoMo's register.
HELDOUT_12 = HELDOUT / "heldout-12.json"


def test_heldout_12_blind_set_loads_and_keeps_locomo_register() -> None:
    """heldout-12 is a blind probe: it must load, point at real turns and read like LoCoMo.

    Held to every check of the third set (the importer reads every turn, observations and evidence
    point at real turns of the right speaker, gold_observations() returns them all, turn length,
    session size, density per session, photo fields, qa categories) and to LoCoMo's habits: dia_ids
    D<s>:1..n in order, sessions dated in increasing order, speakers alternating, observations in
    turn order naming the speaker they are filed under in the third person, turn length that varies
    as in the dev pair, multi-hop questions citing two or more turns, temporal answers with a date.
    """
    from datetime import datetime

    assert HELDOUT_12 in FILES
    test_importer_reads_every_turn(HELDOUT_12)
    test_observations_and_evidence_point_at_real_turns(HELDOUT_12)
    test_bench_reads_every_observation(HELDOUT_12)
    test_second_and_third_sets_keep_locomo_register(HELDOUT_12)
    test_third_set_observations_stay_per_turn(HELDOUT_12)
    data = json.loads(HELDOUT_12.read_text(encoding="utf-8"))
    keys = [k for k in data if re.fullmatch(r"session_\d+", k)]
    assert keys == [f"session_{n}" for n in range(1, 7)]
    dates = [datetime.strptime(data[f"{k}_date_time"], "%I:%M %p on %d %B, %Y") for k in keys]
    assert dates == sorted(dates) and len(set(dates)) == len(dates), dates
    lengths: list[int] = []
    for n, key in enumerate(keys, 1):
        turns = data[key]
        ids = [t["dia_id"] for t in turns]
        assert ids == [f"D{n}:{i}" for i in range(1, len(ids) + 1)], key
        order = [t["speaker"] for t in turns]
        assert all(order[i] != order[i + 1] for i in range(len(order) - 1)), key
        lengths += [len(t["text"].split()) for t in turns]
        for speaker, items in data[f"{key}_observation"].items():
            positions = [ids.index(dia_id) for _text, dia_id in items]
            assert positions == sorted(positions), key
            for text, _dia_id in items:
                assert speaker in text, (speaker, text)
                assert not re.search(r"\b(I|I'm|my|me|we|our)\b", text), text
    mean = sum(lengths) / len(lengths)
    spread = (sum((n - mean) ** 2 for n in lengths) / len(lengths)) ** 0.5
    assert spread >= 8, spread
    assert sum(n < 12 for n in lengths) >= 10 and sum(n > 35 for n in lengths) >= 10
    for qa in data["qa"]:
        if qa["category"] == 1:
            assert len(qa["evidence"]) >= 2, qa
        if qa["category"] == 2:
            assert re.search(r"\b2023\b", str(qa["answer"])), qa
    photos = [t for key in keys for t in data[key] if "img_url" in t]
    prefix = "https://example.invalid/heldout-12/"
    assert all(u.startswith(prefix) for t in photos for u in t["img_url"])


def _check_blind_set(path: Path, bounds: bool) -> None:
    """A blind probe must load, point at real turns and read like LoCoMo.

    Every check of the third set (the importer reads every turn, observations and evidence point
    at real turns of the right speaker, gold_observations() returns them all, turn length, session
    size, per-session density, photo fields, qa categories) and LoCoMo's habits: dia_ids
    D<s>:1..n in order, observations in turn order, sessions dated in increasing order, speakers
    alternating, turn length that varies as in the dev pair (standard deviation 13.6 / 13.0
    words), every observation naming the speaker it is filed under in the third person, some turns
    with two observations and most with none, multi-hop questions citing turns of two or more
    sessions, and temporal answers that carry a 2023 date. With `bounds` (heldout-14 on): the
    brief's bounds too (120-135 turns, 4-60 words a turn, the dev files' photo key order and
    numbered placeholder addresses).
    """
    from datetime import datetime

    assert path in FILES
    test_importer_reads_every_turn(path)
    test_observations_and_evidence_point_at_real_turns(path)
    test_bench_reads_every_observation(path)
    test_second_and_third_sets_keep_locomo_register(path)
    test_third_set_observations_stay_per_turn(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    keys = [k for k in data if re.fullmatch(r"session_\d+", k)]
    assert keys == [f"session_{n}" for n in range(1, 7)]
    dates = [datetime.strptime(data[f"{k}_date_time"], "%I:%M %p on %d %B, %Y") for k in keys]
    assert dates == sorted(dates) and len(set(dates)) == len(dates), dates
    lengths: list[int] = []
    per_turn: dict[str, int] = {}
    for n, key in enumerate(keys, 1):
        turns = data[key]
        ids = [t["dia_id"] for t in turns]
        assert ids == [f"D{n}:{i}" for i in range(1, len(ids) + 1)], key
        order = [t["speaker"] for t in turns]
        assert all(order[i] != order[i + 1] for i in range(len(order) - 1)), key
        lengths += [len(t["text"].split()) for t in turns]
        per_turn.update(dict.fromkeys(ids, 0))
        for speaker, items in data[f"{key}_observation"].items():
            positions = [ids.index(dia_id) for _text, dia_id in items]
            assert positions == sorted(positions), key
            for text, dia_id in items:
                per_turn[dia_id] += 1
                assert speaker in text, (speaker, text)
                assert not re.search(r"\b(I|I'm|I've|my|me|we|our|us)\b", text), text
    counts = list(per_turn.values())
    assert counts.count(2) >= 1 and counts.count(0) > len(counts) / 2, counts
    if bounds:
        assert 120 <= len(counts) <= 135, len(counts)
    mean = sum(lengths) / len(lengths)
    spread = (sum((n - mean) ** 2 for n in lengths) / len(lengths)) ** 0.5
    assert spread >= 8, spread
    assert sum(n < 12 for n in lengths) >= 10 and sum(n > 35 for n in lengths) >= 10
    if bounds:
        assert min(lengths) >= 4 and max(lengths) <= 60, (min(lengths), max(lengths))
    for qa in data["qa"]:
        if qa["category"] == 1:
            assert len(qa["evidence"]) >= 2, qa
            assert len({e.split(":")[0] for e in qa["evidence"]}) >= 2, qa
        if qa["category"] == 2:
            assert re.search(r"\b2023\b", str(qa["answer"])), qa
    photos = [t for k in keys for t in data[k] if "img_url" in t]
    urls = [u for t in photos for u in t["img_url"]]
    if bounds:
        assert list(photos[0]) == ["speaker", "img_url", "blip_caption", "query", "dia_id", "text"]
        assert all(re.fullmatch(rf"https://example\.invalid/{path.stem}/photo-\d+\.jpg", u) for u in urls)
    else:
        assert all(u.startswith(f"https://example.invalid/{path.stem}/") for u in urls), urls


# heldout-13 (session 16, branch heldout16a), heldout-14 (session 16, heldout16b), heldout-15
# (session 17, heldout17a), heldout-16 (session 17, heldout17b): blind conversations in LoCoMo's register.
HELDOUT_13 = HELDOUT / "heldout-13.json"
HELDOUT_14 = HELDOUT / "heldout-14.json"
HELDOUT_15 = HELDOUT / "heldout-15.json"
HELDOUT_16 = HELDOUT / "heldout-16.json"
HELDOUT_17 = HELDOUT / "heldout-17.json"  # session 18, branch heldout18a (blind)
HELDOUT_18 = HELDOUT / "heldout-18.json"  # session 18, branch heldout18b (blind)


def test_heldout_13_blind_set_loads_and_keeps_locomo_register() -> None:
    _check_blind_set(HELDOUT_13, bounds=False)


def test_heldout_14_blind_set_loads_and_keeps_locomo_register() -> None:
    _check_blind_set(HELDOUT_14, bounds=True)


def test_heldout_15_blind_set_loads_and_keeps_locomo_register() -> None:
    _check_blind_set(HELDOUT_15, bounds=True)


def test_heldout_16_blind_set_loads_and_keeps_locomo_register() -> None:
    _check_blind_set(HELDOUT_16, bounds=True)


def test_heldout_17_blind_set_loads_and_keeps_locomo_register() -> None:
    _check_blind_set(HELDOUT_17, bounds=True)


def test_heldout_18_blind_set_loads_and_keeps_locomo_register() -> None:
    _check_blind_set(HELDOUT_18, bounds=True)

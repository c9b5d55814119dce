"""An "-ly" adverb (or "almost") between "I" and its verb is not the verb: conjugating it wrote
"Rosa nearlies quit" and "Rosa almosts cried" (found reading held-out probe output, session 13)."""

from datetime import datetime

import pytest

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext


def _texts(text: str) -> list[str]:
    ctx = ExtractionContext(speaker_name="Rosa", occurred_at=datetime(2023, 5, 8), addressee="Jamal")
    return [f.fact_text for f in extract_offline(text, ctx).facts]


@pytest.mark.parametrize(("text", "want"), [
    ("I almost cried when I saw the line outside the bakery.", "Rosa almost cried"),
    ("I nearly quit my job at the hospital last year.", "Rosa nearly quit"),
    ("I instantly knew the apartment was the one.", "Rosa instantly knew"),
])
def test_adverb_before_the_verb_stays_an_adverb(text: str, want: str) -> None:
    texts = _texts(text)
    assert any(t.startswith(want) for t in texts), texts
    assert not any("lies " in t or "almosts" in t for t in texts), texts


@pytest.mark.parametrize(("text", "want"), [
    ("I rely on my sister for childcare.", "Rosa relies on"),
    ("I apply for three grants every spring.", "Rosa applies for"),
])
def test_verbs_ending_like_adverbs_are_still_conjugated(text: str, want: str) -> None:
    texts = _texts(text)
    assert any(t.startswith(want) for t in texts), texts

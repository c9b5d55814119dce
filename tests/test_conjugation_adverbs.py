"""Words after "I" that are not a present verb are not conjugated: an "-ly" adverb (or "almost")
between "I" and its verb wrote "Rosa nearlies quit", "Rosa almosts cried"; an irregular past missing
from the lexicon wrote "Rosa laids everything out" (found reading held-out probe output, session 13)."""

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


@pytest.mark.parametrize(("text", "want"), [
    ("I laid everything out on the kitchen table the night before the race.", "Rosa laid everything out"),
    ("I swept the whole garage on Sunday morning.", "Rosa swept the whole garage"),
    ("I sung in the church choir for ten years.", "Rosa sung in the church choir"),
])
def test_an_irregular_past_is_not_conjugated(text: str, want: str) -> None:
    """'laid', 'swept', 'sung' ... were missing from the irregular pasts: 'Rosa laids everything out'."""
    texts = _texts(text)
    assert any(t.startswith(want) for t in texts), texts

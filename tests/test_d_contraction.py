"""The "'d" of "I'd / we'd / you'd / he'd" before a past participle is "had" (lead's merge fix,
session 15): "which I'd completely forgotten about" was stored as "which Lena would completely
forgotten about" once the sentence's "He" resolved and the fact was kept."""

from __future__ import annotations

import pytest

from arandu_pipelines.write.extract_rules import _Who, rewrite_en


def third(text: str) -> str:
    return rewrite_en(text, _Who(speaker="Lena", addr="Marcus"))


@pytest.mark.parametrize(("said", "written"), [
    ("which I'd completely forgotten about", "which Lena had completely forgotten about"),
    ("We'd finished the roof before the storm", "Lena and others had finished the roof before the storm"),
    ("I'd never seen snow before", "Lena had never seen snow before"),
    ("you'd already left", "Marcus had already left"),
])
def test_d_before_a_participle_is_had(said: str, written: str) -> None:
    assert third(said) == written


@pytest.mark.parametrize(("said", "written"), [
    ("I'd love to visit Lisbon", "Lena would love to visit Lisbon"),
    ("I'd need a bigger car", "Lena would need a bigger car"),
    ("we'd go every summer", "Lena and others would go every summer"),
])
def test_d_before_a_base_form_stays_would(said: str, written: str) -> None:
    assert third(said) == written


def test_hes_before_an_adverb_and_a_participle_is_has() -> None:
    """ "She's already got me wrapped around her paw" was written "... is already got ..." (lead's
    merge fix, session 15): the adverb hid the participle from the "'s" = has test."""
    from arandu_pipelines.write.extract_rules import _EnRewrite

    out = _EnRewrite("She's already got me wrapped around her little paw", _Who(speaker="Lena", addr="Marcus",
                                                                               pron="Olive")).run()
    assert out.startswith("Olive has already got Lena wrapped"), out

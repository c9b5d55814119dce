"""Near-duplicates within one message, compared on the facts' own texts (issue 19, session 12).

Two facts that one sentence yields share that sentence's vector, so `pipeline._collapse` can
only compare them by word containment; "Pretty proud of Maria's pottery project" and "Maria's
pottery project was a great experience" (a LoCoMo turn, conv-26) were both stored. The facts'
own texts, with the subject's name masked, are compared now (write/text_collapse.py)."""

from __future__ import annotations

from datetime import UTC, datetime

from arandu_pipelines.client import MemoryClient
from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.write.text_collapse import candidates, masked
from arandu_pipelines.write.types import (
    ExtractedFact,
    ExtractionContext,
    ExtractionResult,
)
from tests.conftest import rows

WHEN = datetime(2023, 5, 8, 12, tzinfo=UTC)


class OneSentence:
    """An extractor that reads two facts off one sentence, as the rules do with clauses."""

    def __init__(self, sentence: str, *facts: tuple[str, str | None]) -> None:
        self.sentence, self.facts = sentence, facts

    async def __call__(self, text: str, ctx: ExtractionContext) -> ExtractionResult:
        return ExtractionResult(
            sentences=[self.sentence],
            facts=[ExtractedFact(ctx.speaker_name, t.format(s=ctx.speaker_name), key, None,
                                 source_text=self.sentence) for t, key in self.facts])


async def _stored(url: str, embeddings, extractor: OneSentence, threshold: float = 0.80) -> list[str]:
    config = MemoryConfig(fact_text_dedup_threshold=threshold)
    async with MemoryClient(url, embeddings=embeddings, config=config, extractor=extractor) as m:
        await m.write("u", extractor.sentence, "Maria", occurred_at=WHEN)
    return [r[0] for r in rows(url, "SELECT fact_text FROM memory_facts WHERE agent_id = 'u' ORDER BY fact_text")]


PROUD = OneSentence("Pretty proud of my pottery project, it was a great experience!",
                    ("Pretty proud of {s}'s pottery project", None),
                    ("{s}'s pottery project was a great experience", None))


async def test_two_restatements_of_one_sentence_are_stored_once(fresh_db_url, embeddings):
    # the shorter text stays (the more atomic statement)
    assert await _stored(fresh_db_url, embeddings, PROUD) == ["Pretty proud of Maria's pottery project"]


async def test_switched_off_above_one_both_stay(fresh_db_url, embeddings):
    assert len(await _stored(fresh_db_url, embeddings, PROUD, threshold=1.5)) == 2


async def test_different_facts_sharing_a_word_stay_two(fresh_db_url, embeddings):
    # unmasked, these two reach cosine 0.78 (the shared name); masked they are far apart
    painting = OneSentence("I did a painting, landscapes and still life are my favorite.",
                           ("{s} did a painting", "event"),
                           ("Painting landscapes and still life is {s}'s favorite", "preference"))
    assert len(await _stored(fresh_db_url, embeddings, painting)) == 2


async def test_two_slots_stay_two_however_close(fresh_db_url, embeddings):
    job = OneSentence("I work at the Acme bakery as a baker.",
                      ("{s} works at the Acme bakery", "employer"),
                      ("{s} works as a baker at the bakery", "occupation"))
    assert len(await _stored(fresh_db_url, embeddings, job, threshold=0.0)) == 2


def test_the_subject_name_is_masked_and_only_pairs_sharing_a_word_are_embedded():
    assert masked("Maria's dog loves Maria", "Maria") == "their dog loves someone"
    facts = [ExtractedFact("Maria", "Maria loves pottery"),
             ExtractedFact("Maria", "Pottery calms Maria"),
             ExtractedFact("Maria", "Maria went to Lisbon"),  # shares no content word: not embedded
             ExtractedFact("Jon", "Jon loves pottery"),  # another subject
             ExtractedFact("Maria", "Maria no longer does pottery", retracts=True)]
    assert candidates(facts) == ["someone loves pottery", "Pottery calms someone"]

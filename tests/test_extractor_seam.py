"""`MemoryClient(extractor=...)`: the public seam for custom extraction (issue 17, item 1).

Tests used to override the private `MemoryClient._pipeline` to script extraction; the seam
replaces that. It must reach every path that extracts: write(), import_messages() (the
importer's chunks) and extract_pending(), and leave resolution and storage ours.
"""

from __future__ import annotations

from datetime import UTC, datetime

from arandu_pipelines.client import MemoryClient, SyncMemoryClient
from arandu_pipelines.write.types import (
    ExtractedEntity,
    ExtractedFact,
    ExtractionContext,
    ExtractionResult,
)
from tests.conftest import rows

T = datetime(2024, 3, 1, 12, tzinfo=UTC)


class Recorder:
    """An extractor that knows one sentence and records what it was asked."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    async def __call__(self, text: str, ctx: ExtractionContext) -> ExtractionResult:
        self.seen.append((text, ctx.speaker_name))
        if "zorblax" not in text:
            return ExtractionResult()
        return ExtractionResult(
            entities=[ExtractedEntity("Zorblax", "organization")],
            facts=[ExtractedFact(ctx.speaker_name, f"{ctx.speaker_name} works at Zorblax",
                                 "employer", "Zorblax")],
        )


async def test_write_uses_the_callers_extractor(fresh_db_url, embeddings):
    rec = Recorder()
    async with MemoryClient(fresh_db_url, embeddings=embeddings, extractor=rec) as m:
        res = await m.write("seam", "I joined zorblax", "Iara", occurred_at=T)
    assert rec.seen == [("I joined zorblax", "Iara")]
    # the rules would never say this for "I joined zorblax": the fact is the extractor's
    assert [f.fact_text for f in res.facts_added] == ["Iara works at Zorblax"]
    assert rows(fresh_db_url, "SELECT canonical_key FROM memory_entities WHERE agent_id = 'seam' "
                "AND canonical_key LIKE 'organization:%'") == [("organization:zorblax",)]


async def test_import_and_extract_pending_use_it_too(fresh_db_url, embeddings):
    rec = Recorder()
    data = [{"agent_id": "seam", "session_id": "s", "speaker": "Iara", "text": "hello zorblax",
             "occurred_at": "2024-03-01T12:00:00Z", "message_id": "m1"},
            {"agent_id": "seam", "session_id": "s", "speaker": "Iara", "text": "nothing here",
             "occurred_at": "2024-03-01T12:01:00Z", "message_id": "m2"}]
    async with MemoryClient(fresh_db_url, embeddings=embeddings, extractor=rec) as m:
        report = await m.import_messages(data, extract=False)
        assert report.events_inserted == 2 and rec.seen == []
        done = await m.extract_pending("seam")
        assert done.events_extracted == 2 and done.facts_added == 1
        assert sorted(t for t, _ in rec.seen) == ["hello zorblax", "nothing here"]
        again = await m.import_messages([{**data[0], "message_id": "m3", "text": "zorblax again"}])
        assert again.facts_added + again.facts_unchanged + again.facts_updated == 1
    assert ("zorblax again", "Iara") in rec.seen


def test_sync_client_takes_the_seam(fresh_db_url, embeddings):
    rec = Recorder()
    with SyncMemoryClient(fresh_db_url, embeddings=embeddings, extractor=rec) as m:
        res = m.write("seam", "zorblax!", "Iara", occurred_at=T)
    assert [f.fact_text for f in res.facts_added] == ["Iara works at Zorblax"]

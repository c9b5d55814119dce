"""MemoryClient(on_chunk=...): the public hook that sees each write pipeline run's outcome.

Tests (tests/fake_openai.py's RecordingClient) used to override the client's private
`_pipeline` to see what extraction produced; the hook gives them, and any caller debugging
extraction, the same without reaching into internals.
"""

from __future__ import annotations

from arandu_pipelines.client import MemoryClient
from arandu_pipelines.write.pipeline import ChunkOutcome


async def test_on_chunk_sees_every_write_run(fresh_db_url, embeddings) -> None:
    seen: list[ChunkOutcome] = []
    async with MemoryClient(fresh_db_url, embeddings=embeddings, on_chunk=seen.append) as memory:
        result = await memory.write("hooks", "I live in Lisbon and work at Acme.", "Rafael")
        assert len(seen) == 1
        [message] = seen[0].messages
        assert message.event.text == "I live in Lisbon and work at Acme."
        assert len(message.extraction.facts) == len(result.facts_added) > 0
        await memory.import_messages([
            {"agent_id": "hooks", "session_id": "s", "speaker": "Kate", "text": f"I adopted dog number {i}.",
             "message_id": f"m{i}", "occurred_at": f"2024-01-0{i + 1}T10:00:00+00:00"} for i in range(3)])
        assert len(seen) >= 2 and sum(len(o.messages) for o in seen[1:]) == 3

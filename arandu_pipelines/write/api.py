"""`run_write_pipeline`, the specification's write orchestrator, over `MemoryClient.write()`.

One message through the whole pipeline (event first, then extraction, resolution,
reconciliation, upsert) on the caller's database. Unlike the spec's version the pipeline commits
its own transactions (the event must survive a failed extraction, and extraction holds the
agent's advisory lock), so the session is used for its engine only.
"""

from __future__ import annotations

from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.protocols import EmbeddingProvider, LLMProvider
from arandu_pipelines.store.targets import DatabaseTarget, engine_from
from arandu_pipelines.types import PipelineTrace


async def run_write_pipeline(
    session: DatabaseTarget,
    agent_id: str,
    message: str,
    llm: LLMProvider | None,
    embeddings: EmbeddingProvider | None,
    config: MemoryConfig | None,
    speaker_name: str,
    source: str = "api",
    recent_messages: list[str] | None = None,
    trace: PipelineTrace | None = None,
) -> dict[str, object]:
    """Write one message; returns `event_id`, `facts_added`, `facts_updated`, `facts_unchanged`,
    `facts_deleted`, `entities_resolved` (lists of FactRef / EntityRef), `duration_ms`, plus
    `success` and `error`. `source` is kept in the event's metadata; a given `trace` receives
    the stages' steps. Raises ValidationError for bad arguments (as `MemoryClient.write`)."""
    # A facade over the client (one layer up): imported here, when called, because importing
    # the client imports write/ modules, whose package (this facade's) is then still loading.
    from arandu_pipelines.client import bound_client

    client = bound_client(engine_from(session), llm, embeddings, config)
    result = await client.write(agent_id, message, speaker_name=speaker_name,
                                recent_messages=recent_messages, metadata={"source": source},
                                verbose=trace is not None)
    if trace is not None and result.pipeline is not None:
        trace.steps.extend(result.pipeline.steps)
    return {"event_id": result.event_id, "facts_added": result.facts_added,
            "facts_updated": result.facts_updated, "facts_unchanged": result.facts_unchanged,
            "facts_deleted": result.facts_deleted, "entities_resolved": result.entities_resolved,
            "duration_ms": result.duration_ms, "success": result.success, "error": result.error}


__all__ = ["run_write_pipeline"]

"""Ingestion: conversation files -> `memory_events` (the immutable event log).

The import sensor launches one run per new or changed file of the drop directory; the asset
reads it with the library's importer (JSONL / CSV / Parquet, `occurred_at` kept from the file),
stores the events without extracting them (extraction is the next stage, per agent) and reports
bad rows with their row number and reason. Re-importing a file adds nothing: events are unique
on (agent_id, message_id).
"""

import hashlib
from pathlib import Path
from typing import Any

from dagster import (
    AssetExecutionContext,
    Config,
    Failure,
    MaterializeResult,
    MetadataValue,
    asset,
)
from pydantic import Field

from arandu_pipelines.assets._metadata import counts, md_table, table_schema
from arandu_pipelines.assets.common import INGESTION, KINDS, RETRY, table_meta
from arandu_pipelines.errors import ImportFileError
from arandu_pipelines.resources import MemoryStoreResource, run_async
from arandu_pipelines.store import run_previews, status

IMPORT_SUFFIXES = (".jsonl", ".ndjson", ".csv", ".tsv", ".parquet", ".pq")


def file_sha256(path: Path, block: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(block):
            h.update(chunk)
    return h.hexdigest()


def import_files(directory: Path) -> list[Path]:
    """Importable files of the drop directory (not hidden, not partial downloads), sorted."""
    if not directory.is_dir():
        return []
    return sorted(
        p for p in directory.iterdir()
        if p.is_file() and not p.name.startswith(".") and p.suffix.lower() in IMPORT_SUFFIXES
    )


class ImportConfig(Config):
    path: str | None = Field(
        default=None, description="File to import. Unset: every file of the drop directory.")
    sha256: str | None = Field(
        default=None, description="Content hash the sensor saw (recorded; a mismatch is reported).")


@asset(
    key="memory_events",
    group_name=INGESTION,
    kinds=KINDS,
    retry_policy=RETRY,
    metadata=table_meta("memory_events"),
    tags={"arandu/stage": INGESTION},
)
def memory_events(context: AssetExecutionContext, config: ImportConfig,
                  memory: MemoryStoreResource) -> MaterializeResult:
    """The immutable event log: every message verbatim, with its `occurred_at`, speaker and
    session. Appended by imports (one run per dropped file); extraction reads it per agent."""
    files = [Path(config.path)] if config.path else import_files(memory.imports_path())
    missing = [str(p) for p in files if not p.is_file()]
    if missing:
        raise Failure(f"import file(s) not found: {', '.join(missing)}",
                      metadata={"missing": MetadataValue.json(missing)},
                      allow_retries=False)  # retrying will not bring the file back
    unreadable: list[str] = []
    result = run_async(_import(context, files, config, memory, unreadable))
    if unreadable:  # the same bytes fail the same way: no retry (the readable files went in)
        raise Failure(f"unreadable import file(s): {'; '.join(unreadable)}",
                      metadata={"unreadable": MetadataValue.json(unreadable)},
                      allow_retries=False)
    return result


async def _import(context: AssetExecutionContext, files: list[Path], config: ImportConfig,
                  memory: MemoryStoreResource, unreadable: list[str]) -> MaterializeResult:
    from arandu_pipelines.write.importer import read_rows

    totals = {"rows_read": 0, "inserted": 0, "duplicates": 0, "rejected": 0, "conflicts": 0}
    rejected: list[dict[str, Any]] = []
    per_file: list[dict[str, Any]] = []
    agents: set[str] = set()
    warnings: list[str] = []
    sources: list[str] = []
    duration_ms = 0.0
    async with memory.client() as client:
        for path in files:
            sha = file_sha256(path)
            if config.sha256 and config.path and sha != config.sha256:
                warnings.append(f"{path.name} changed since the sensor saw it "
                                f"({config.sha256[:12]} -> {sha[:12]}); imported the current content")
            source = f"import:{sha[:16]}"  # fits memory_events.source; full hash in metadata
            sources.append(source)
            try:
                rows = list(read_rows(path))
            except ImportFileError as exc:
                unreadable.append(str(exc))
                context.log.error(str(exc))
                continue
            report = await client.import_messages(rows, extract=False, source=source)
            duration_ms += report.duration_ms
            totals["rows_read"] += report.rows_read
            totals["inserted"] += report.events_inserted
            totals["duplicates"] += report.events_skipped_duplicate
            totals["rejected"] += len(report.rows_rejected)
            totals["conflicts"] += len(report.conflicts)
            agents.update(report.agents)
            warnings.extend(f"{path.name}: {w}" for w in report.warnings)
            rejected.extend({"file": path.name, "row": r.row_number, "reason": r.reason}
                            for r in report.rows_rejected)
            rejected.extend({"file": path.name, "row": c.row_number, "reason": c.reason}
                            for c in report.conflicts)
            per_file.append({"file": path.name, "sha256": sha[:16], "rows": report.rows_read,
                             "stored": report.events_inserted,
                             "already_present": report.events_skipped_duplicate,
                             "rejected": len(report.rows_rejected),
                             "conflicts": len(report.conflicts)})
            context.log.info(f"{path.name}: {report.rows_read} rows, {report.events_inserted} new "
                             f"events, {len(report.rows_rejected)} rejected")
        async with client.engine.connect() as conn:
            preview = await run_previews.imported_event_ids(conn, sources)
            row_count = await status.events_row_count(conn)
            schema = await table_schema(conn, "memory_events")
    for w in warnings:
        context.log.warning(w)
    return MaterializeResult(metadata={
        **counts(added=totals["inserted"]),
        "rows_read": totals["rows_read"],
        "rows_already_present": totals["duplicates"],
        "rows_rejected": totals["rejected"],
        "rows_conflicting": totals["conflicts"],
        "rejected_rows": md_table(rejected, ["file", "row", "reason"], limit=25),
        "files": md_table(per_file),
        "agents": MetadataValue.json(sorted(agents)),
        "warnings": MetadataValue.json(warnings),
        "llm_tokens": 0,
        "duration_ms": round(duration_ms, 1),
        "preview": md_table(preview),
        "dagster/row_count": int(row_count),
        "dagster/column_schema": schema,
    })

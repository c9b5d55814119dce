"""Turning library results into the metadata a person wants to see in the UI."""

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from dagster import (
    AssetKey,
    MaterializeResult,
    MetadataValue,
    TableColumn,
    TableColumnDep,
    TableColumnLineage,
    TableSchema,
)

from arandu_pipelines.store import status

RETRY_DELAY_SECONDS = 10


def md_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str] | None = None,
             limit: int = 10, width: int = 90) -> MetadataValue:
    """A small markdown table (the first `limit` rows, cells cut at `width` characters)."""
    if not rows:
        return MetadataValue.md("_(nothing to show)_")
    cols = list(columns or rows[0].keys())

    def cell(v: Any) -> str:
        s = "" if v is None else (f"{v:.3f}" if isinstance(v, float) else str(v))
        s = " ".join(s.split()).replace("|", "\\|")
        return s if len(s) <= width else s[: width - 1] + "…"

    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(cell(r.get(c)) for c in cols) + " |" for r in rows[:limit]]
    if len(rows) > limit:
        lines.append(f"\n_… and {len(rows) - limit} more_")
    return MetadataValue.md("\n".join(lines))


def counts(added: int = 0, updated: int = 0, invalidated: int = 0) -> dict[str, Any]:
    return {"rows_added": int(added), "rows_updated": int(updated),
            "rows_invalidated": int(invalidated)}


def result_metadata(result: Any, added: int = 0, updated: int = 0, invalidated: int = 0,
                    extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Standard metadata of a background-job result: counts, tokens, duration.

    The library's `result.preview` rows quote entity names, summaries, fact text and titles:
    they are not copied into Dagster's event log, which erasure cannot reach. The preview's size
    is reported instead; the rows themselves are one `arandu-pipelines stats --show` away."""
    tokens = getattr(result, "tokens", None)
    md: dict[str, Any] = {
        **counts(added, updated, invalidated),
        "llm_tokens": int(tokens.total_tokens) if tokens is not None else 0,
        "duration_ms": round(float(getattr(result, "duration_ms", 0.0)), 1),
    }
    ref = getattr(result, "reference_time", None)
    if ref is not None:
        md["reference_time"] = MetadataValue.timestamp(ref)
    if getattr(result, "skipped", False):
        md["skipped"] = getattr(result, "skip_reason", None) or "skipped"
    if getattr(result, "preview", None):
        md["preview_rows"] = len(result.preview)
    md.update(extra or {})
    return md


def scalar_fields(result: Any, names: Sequence[str]) -> dict[str, Any]:
    d = dataclasses.asdict(result)
    return {n: d[n] for n in names}


async def table_schema(conn: Any, table: str) -> TableSchema:
    """The table's columns as the database reports them (shown in the asset's overview)."""
    return TableSchema(columns=[TableColumn(name, type_) for name, type_ in await status.table_columns(conn, table)])


def column_lineage(mapping: Mapping[str, Sequence[tuple[str, str]]]) -> TableColumnLineage:
    """{column: [(upstream asset, upstream column), ...]} -> dagster column lineage."""
    return TableColumnLineage(deps_by_column={
        col: [TableColumnDep(asset_key=AssetKey(a), column_name=c) for a, c in deps]
        for col, deps in mapping.items()
    })


def materialize(asset_key: str | None, metadata: Mapping[str, Any]) -> MaterializeResult:
    return MaterializeResult(asset_key=asset_key, metadata=dict(metadata))

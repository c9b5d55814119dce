"""The write pipeline: extraction, entity resolution, reconciliation, upsert, imports.

The names below are the specification's `arandu.write` (see docs/api.md)."""

from arandu_pipelines.write.api import run_write_pipeline
from arandu_pipelines.write.attributes import (
    canonicalize_attribute_key,
    normalize_key,
    validate_proposed_key,
)
from arandu_pipelines.write.corrections import (
    CorrectionResult,
    detect_and_record_corrections,
    is_user_correction,
)
from arandu_pipelines.write.entities import (
    create_or_update_entity,
    get_entities_for_user,
    get_entity_by_key,
)
from arandu_pipelines.write.pending import (
    clear_pending,
    get_pending,
    save_pending_execution,
    save_pending_selection,
)
from arandu_pipelines.write.strategy import (
    ExtractionMode,
    ExtractionStrategy,
    InputClassification,
    InputType,
    classify_input,
    select_strategy,
)

__all__ = [
    "CorrectionResult",
    "ExtractionMode",
    "ExtractionStrategy",
    "InputClassification",
    "InputType",
    "canonicalize_attribute_key",
    "classify_input",
    "clear_pending",
    "create_or_update_entity",
    "detect_and_record_corrections",
    "get_entities_for_user",
    "get_entity_by_key",
    "get_pending",
    "is_user_correction",
    "normalize_key",
    "run_write_pipeline",
    "save_pending_execution",
    "save_pending_selection",
    "select_strategy",
    "validate_proposed_key",
]

"""The write pipeline: extraction, entity resolution, reconciliation, upsert, imports."""

from arandu_pipelines.write.attributes import (
    canonicalize_attribute_key,
    normalize_key,
    validate_proposed_key,
)
from arandu_pipelines.write.strategy import classify_input, select_strategy

__all__ = [
    "canonicalize_attribute_key",
    "classify_input",
    "normalize_key",
    "select_strategy",
    "validate_proposed_key",
]

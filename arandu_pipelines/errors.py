"""Exception hierarchy. Pipelines are fail-safe: most of these are caught and recorded in the
trace; they are raised to callers only for bad input at the edge or when documented.

Every class here subclasses `AranduError`, so `except AranduError` catches anything the library
raises on purpose. `MemoryError` is the same class under the specification's name (spec 004,
"Exceptions": `from arandu import MemoryError`); it shadows the builtin only where a caller
imports it by that name, so prefer `AranduError` in new code.

Raised today: `ValidationError` (and its `ImportFileError`, `MessageConflictError`),
`DatabaseError`, `RetrievalError` (`retrieve(strict=True)`), `ProviderError` (an LLM/embedding
provider failed for good), `LLMCallError` (one JSON LLM call failed; the pipelines catch it and
degrade). `ExtractionError`, `ResolutionError`, `ReconciliationError` and `UpsertError` are the
specification's names, kept importable for compatibility: the pipelines are fail-safe and handle
those failures internally (trace notes, ADD by default, savepoints), so nothing raises them.
"""


class AranduError(Exception):
    """Base class for every arandu-pipelines error. Catch this for catch-all handling."""


MemoryError = AranduError


class ValidationError(AranduError, ValueError):
    """Bad input at the API edge: the message names the field and the fix."""


class ExtractionError(AranduError):
    """Spec name, kept for compatibility: extraction failures are caught by the write pipeline
    (the event is stored, the trace notes the failure); nothing raises it."""


class ResolutionError(AranduError):
    """Spec name, kept for compatibility: unresolved entities become new entities; nothing
    raises it."""


class ReconciliationError(AranduError):
    """Spec name, kept for compatibility: a failed reconciliation defaults to ADD; nothing
    raises it."""


class RetrievalError(AranduError):
    """`retrieve(..., strict=True)` failed; the driver's exception is the cause. Without
    `strict`, retrieval is fail-safe (empty result, trace note) and never raises this."""


class UpsertError(AranduError):
    """Spec name, kept for compatibility: one fact's failed upsert is rolled back to its
    savepoint and the others proceed; nothing raises it."""


class DatabaseError(AranduError):
    """The database could not be reached or started."""


class ImportFileError(ValidationError):
    """An import file that cannot be read at all (missing, not the format it claims, corrupt or
    truncated): the message names the file and the problem. Nothing of it was stored. Bad rows
    inside a readable file are not errors: they are quarantined and reported (ImportReport)."""


class MessageConflictError(ValidationError):
    """`write()` with a message_id the agent already has, for a different text. Stored events
    are immutable: the stored one is kept; use a new message_id for the new text."""


class ProviderError(AranduError, RuntimeError):
    """An LLM/embedding call that failed for good (after retries). `status` is the HTTP status
    when there was one; `retryable` says whether retrying later may help (429/5xx/network).
    Still a RuntimeError, as it was before it joined the hierarchy."""

    def __init__(self, message: str, status: int | None = None, retryable: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.retryable = retryable


class LLMCallError(AranduError):
    """A failed LLM call: `kind` is timeout | provider | empty | no_json | truncated | invalid |
    shape. The message never contains credentials (providers keep them out of theirs)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind


__all__ = [
    "AranduError",
    "DatabaseError",
    "ExtractionError",
    "ImportFileError",
    "LLMCallError",
    "MemoryError",
    "MessageConflictError",
    "PlanValidationError",
    "ProviderError",
    "ReconciliationError",
    "ResolutionError",
    "RetrievalError",
    "UpsertError",
    "ValidationError",
]


class PlanValidationError(AranduError, ValueError):
    """An LLM planner's plan that does not validate (unknown index, bad step): the planner falls
    back to the deterministic plan and records this in the trace."""

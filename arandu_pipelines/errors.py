"""Exception hierarchy. Pipelines are fail-safe: most of these are caught and recorded in the
trace; they are raised to callers only for bad input at the edge or when documented."""


class MemoryError(Exception):  # noqa: A001 - the spec's public name
    """Base class for every arandu-pipelines error."""


class ValidationError(MemoryError, ValueError):
    """Bad input at the API edge: the message names the field and the fix."""


class ExtractionError(MemoryError):
    pass


class ResolutionError(MemoryError):
    pass


class ReconciliationError(MemoryError):
    pass


class RetrievalError(MemoryError):
    pass


class UpsertError(MemoryError):
    pass


class DatabaseError(MemoryError):
    """The database could not be reached or started."""


class ImportFileError(ValidationError):
    """An import file that cannot be read at all (missing, not the format it claims, corrupt or
    truncated): the message names the file and the problem. Nothing of it was stored. Bad rows
    inside a readable file are not errors: they are quarantined and reported (ImportReport)."""


class MessageConflictError(ValidationError):
    """`write()` with a message_id the agent already has, for a different text. Stored events
    are immutable: the stored one is kept; use a new message_id for the new text."""

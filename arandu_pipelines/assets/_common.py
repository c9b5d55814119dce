"""Names and policies shared by the asset modules."""

from dagster import Backoff, Jitter, RetryPolicy

INGESTION, EXTRACTION, CONSOLIDATION = "ingestion", "extraction", "consolidation"
LLM_POOL = "llm"  # every asset that calls (or will call) the LLM
KINDS = {"postgres"}

# Transient failures (database restarts, LLM timeouts): 3 retries after ~10 s, 20 s, 40 s.
RETRY = RetryPolicy(max_retries=3, delay=10, backoff=Backoff.EXPONENTIAL, jitter=Jitter.PLUS_MINUS)
# Extraction is heavier and its events are retried by the sensor anyway: 2 retries, longer waits.
EXTRACTION_RETRY = RetryPolicy(max_retries=2, delay=30, backoff=Backoff.EXPONENTIAL,
                               jitter=Jitter.PLUS_MINUS)


def table_meta(table: str) -> dict[str, str]:
    """Definition metadata linking an asset to its table."""
    return {"dagster/table_name": table}

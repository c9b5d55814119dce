"""The memory store: PostgreSQL + pgvector, embedded by default."""

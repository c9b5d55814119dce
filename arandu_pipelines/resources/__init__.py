"""Shared resources of the code location: the memory store, the LLM and the embeddings.

They only hold configuration and hand out the library's objects; all memory logic stays in the
library. Each is a `ConfigurableResource`, so its settings show in the UI (values that come from
environment variables are shown as such, secrets are not).
"""

import asyncio
from collections.abc import AsyncIterator, Coroutine
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

from dagster import ConfigurableResource, EnvVar
from pydantic import Field

from arandu_pipelines.settings import settings

T = TypeVar("T")

_EMBEDDERS: dict[tuple[str, int], Any] = {}


def run_async(coro: Coroutine[Any, Any, T]) -> T:
    """Run a library coroutine from a (synchronous) asset, sensor or check."""
    return asyncio.run(coro)


def env_or_none(name: str) -> Any:
    """`EnvVar(name)` when the variable is set, else None (the resource's offline default)."""
    return EnvVar(name) if settings.is_set(name) else None


class EmbeddingsResource(ConfigurableResource):
    """Embedding provider: the bundled all-MiniLM-L6-v2 (384-d) by default, fully local.

    `hashing` is a deterministic, dependency-free stand-in for smoke tests; it must never share
    a database with real embeddings (the store checks the dimension, not the model)."""

    provider: str = Field(default="local", description="local (all-MiniLM-L6-v2) | hashing")
    dimensions: int = Field(default=384, description="vector size (hashing provider only)")

    def get(self) -> Any:
        """The provider, created once per process (the MiniLM model loads once)."""
        key = (self.provider, self.dimensions)
        if key not in _EMBEDDERS:
            if self.provider == "local":
                from arandu_pipelines.providers.local_embeddings import LocalEmbeddings

                _EMBEDDERS[key] = LocalEmbeddings()
            elif self.provider == "hashing":
                from arandu_pipelines.providers.hashing_embeddings import (
                    HashingEmbeddings,
                )

                _EMBEDDERS[key] = HashingEmbeddings(self.dimensions)
            else:
                raise ValueError(f"unknown embeddings provider {self.provider!r}: use local or hashing")
        return _EMBEDDERS[key]


class LLMResource(ConfigurableResource):
    """An OpenAI-compatible chat endpoint. Unset (the default) means offline: every stage takes
    its deterministic path and no network is used."""

    base_url: str | None = Field(default=None, description="e.g. http://localhost:11434/v1")
    api_key: str | None = Field(default=None, description="secret; from ARANDU_LLM_API_KEY")
    model: str | None = Field(default=None, description="model name, e.g. gpt-4o-mini")

    @property
    def configured(self) -> bool:
        return bool(self.base_url and self.model)

    def get(self) -> Any:
        """The library's OpenAI-compatible provider, or None when offline."""
        if not self.configured or self.model is None:  # configured implies a model
            return None
        from arandu_pipelines.providers.openai import OpenAIProvider

        return OpenAIProvider(base_url=self.base_url, api_key=self.api_key or "not-needed",
                              model=self.model)


class MemoryStoreResource(ConfigurableResource):
    """The memory store: a PostgreSQL + pgvector database, the embedded server by default.

    `database_url` comes from DATABASE_URL when set (`arandu-pipelines dev` sets it to the
    embedded server's socket); unset, the embedded server of ARANDU_HOME is started or joined.
    `import_dir` is the drop directory watched by the import sensor.

    Setting it up changes nothing in the calling process: a run worker lowers its own priority
    in the run executor (`jobs/executor.py`), never here, so `materialize()` in a test or a
    serving script keeps its priority and session."""

    database_url: str | None = Field(default=None, description="PostgreSQL URL; unset = embedded")
    import_dir: str | None = Field(default=None, description="drop directory for conversation files")
    max_attempts: int = Field(default=5, description="extraction attempts before an event is left for a person")

    def url(self) -> str:
        from arandu_pipelines.store.engine import resolve_database_url

        return resolve_database_url(self.database_url)

    def imports_path(self) -> Path:
        if self.import_dir:
            return Path(self.import_dir).expanduser()
        env = settings.import_dir
        if env:
            return env
        from arandu_pipelines.store.embedded import default_home

        return default_home() / "imports"

    @asynccontextmanager
    async def engine(self) -> AsyncIterator[Any]:
        """An async engine for one call (engines belong to one event loop)."""
        from arandu_pipelines.store.engine import create_engine

        eng = create_engine(self.url(), pool_size=2, max_overflow=2)
        try:
            yield eng
        finally:
            await eng.dispose()

    @asynccontextmanager
    async def client(self, llm: Any = None, embeddings: Any = None) -> AsyncIterator[Any]:
        """An initialised `MemoryClient` (schema migrated) for one call."""
        from arandu_pipelines.client import MemoryClient

        client = MemoryClient(self.url(), llm=llm, embeddings=embeddings)
        try:
            await client.initialize()
            yield client
        finally:
            await client.close()


def default_resources() -> dict[str, Any]:
    """The resources of the code location, configured from the environment."""
    return {
        "memory": MemoryStoreResource(
            database_url=env_or_none("DATABASE_URL"),
            import_dir=env_or_none("ARANDU_IMPORT_DIR"),
        ),
        "llm": LLMResource(
            base_url=env_or_none("ARANDU_LLM_BASE_URL"),
            api_key=env_or_none("ARANDU_LLM_API_KEY"),
            model=env_or_none("ARANDU_LLM_MODEL"),
        ),
        "embeddings": EmbeddingsResource(provider=settings.embeddings_provider),
    }


__all__ = [
    "EmbeddingsResource",
    "LLMResource",
    "MemoryStoreResource",
    "default_resources",
    "env_or_none",
    "run_async",
]

"""The only seams to the outside: any object with these methods works, no inheritance needed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from arandu_pipelines.types import TokenUsage


@dataclass
class LLMUsage:
    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass
class LLMResult:
    """What `complete()` returns. `usage` may be an `LLMUsage` or the spec's `TokenUsage`: both
    have `input_tokens` / `output_tokens`, which is all the pipeline reads."""

    text: str
    usage: LLMUsage | TokenUsage | None = None


@runtime_checkable
class LLMProvider(Protocol):
    async def complete(
        self,
        messages: list[dict[str, object]],
        temperature: float = 0,
        response_format: dict[str, object] | None = None,
        max_tokens: int | None = None,
    ) -> LLMResult: ...


@runtime_checkable
class EmbeddingProvider(Protocol):
    async def embed(self, texts: list[str]) -> list[list[float]]: ...

    async def embed_one(self, text: str) -> list[float] | None: ...


__all__ = ["EmbeddingProvider", "LLMProvider", "LLMResult", "LLMUsage", "TokenUsage"]

"""Encoding the next chunk's sentences while this chunk is reconciled and written.

An import is a sequence of chunks, each extracted, embedded, then reconciled and written under the
agent's lock. Encoding a chunk's sentences is most of its cost and needs nothing but the texts and
speakers, not what earlier chunks stored, so it can run in the embedding thread while the chunk
before it talks to Postgres: the write then costs little more than its embeddings do.

Vectors are keyed by (speaker, sentences) as the pipeline embeds them. The sentences are
predicted with the extractor's own splitter; a message whose extraction splits differently (or a
prefetch that failed) is simply embedded again in its own chunk, so a prediction can cost time,
never change a vector.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from typing import Any

from arandu_pipelines.write.events import EventInput

Units = tuple[str, tuple[str, ...]]  # (speaker, the message's sentences)


def message_sentences(sentences: Sequence[str], text: str) -> tuple[str, ...]:
    """The sentences embedded for a message: stripped, empties dropped, else the whole text."""
    return tuple(s.strip() for s in sentences if s.strip()) or (text.strip(),)


class UnitPrefetch:
    def __init__(self, embeddings: Any, split: Callable[[str], list[str]]) -> None:
        self.embeddings = embeddings
        self.split = split
        self._task: asyncio.Future[list[list[list[float]]]] | None = None
        self._items: list[Units] = []

    def start(self, events: Sequence[EventInput]) -> None:
        """Begin encoding `events`' sentences in the background (replaces an unclaimed one)."""
        self._discard()
        items = list(dict.fromkeys(
            (e.speaker, message_sentences(self.split(e.text), e.text)) for e in events))
        if not items:
            return
        self._items = items
        self._task = asyncio.ensure_future(
            self.embeddings.embed_units([(speaker, list(s)) for speaker, s in items]))

    async def take(self) -> dict[Units, list[list[float]]]:
        """The vectors started last, once computed; {} if none were started or encoding failed."""
        task, items = self._task, self._items
        self._task, self._items = None, []
        if task is None:
            return {}
        try:
            vectors = await task
        except Exception:  # the chunk embeds these itself, and reports a failure there
            return {}
        return dict(zip(items, vectors, strict=True))

    async def close(self) -> None:
        """Wait for an unclaimed encode (its thread cannot be cancelled) so none outlives the run."""
        task, self._task = self._task, None
        if task is not None:
            with contextlib.suppress(Exception):
                await task

    def _discard(self) -> None:
        if self._task is not None:
            self._task.add_done_callback(lambda t: t.cancelled() or t.exception())
            self._task = None

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
    """Encodes chunks ahead, `depth` at most: a chunk's vectors are started when the chunk
    `depth` places before it is taken, so the encoder always has the next chunk queued when one
    finishes, even when a chunk's writes take longer than the next chunk's encode."""

    def __init__(self, embeddings: Any, split: Callable[[str], list[str]], depth: int = 2) -> None:
        self.embeddings = embeddings
        self.split = split
        self.depth = depth
        # chunk (its events' identities) -> its encode ((items, vectors) when done), in order
        self._started: dict[tuple[int, ...], asyncio.Future[Any]] = {}

    def start(self, events: Sequence[EventInput]) -> None:
        """Begin encoding `events`' sentences in the background (once per chunk)."""
        key = _chunk_key(events)
        if key in self._started or not events:
            return
        self._started[key] = asyncio.ensure_future(self._encode(list(events)))

    async def _encode(self, events: list[EventInput]) -> tuple[list[Units], Any]:
        # splitting is CPU work that grows with the messages' length: off the event loop too
        items = await asyncio.to_thread(self._items, events)
        return items, await self.embeddings.embed_units([(speaker, list(s)) for speaker, s in items])

    def _items(self, events: list[EventInput]) -> list[Units]:
        return list(dict.fromkeys(
            (e.speaker, message_sentences(self.split(e.text), e.text)) for e in events))

    async def take(self, events: Sequence[EventInput]) -> dict[Units, list[list[float]]]:
        """The vectors started for `events`, once computed; {} if none were started or encoding
        failed. Encodes started for earlier chunks that were never taken (a chunk that failed
        before its embedding step) are dropped."""
        key = _chunk_key(events)
        if key not in self._started:
            return {}
        while self._started:
            k, task = next(iter(self._started.items()))
            del self._started[k]
            if k == key:
                break
            _drop(task)
        try:
            items, vectors = await task
        except Exception:  # noqa: BLE001 - the chunk embeds these itself, and reports a failure there
            return {}
        if len(vectors) != len(items):
            return {}
        return dict(zip(items, vectors, strict=True))

    async def close(self) -> None:
        """Wait for unclaimed encodes (their threads cannot be cancelled) so none outlives the run."""
        started, self._started = self._started, {}
        for task in started.values():
            with contextlib.suppress(Exception):
                await task


def _chunk_key(events: Sequence[EventInput]) -> tuple[int, ...]:
    return tuple(id(e) for e in events)


def _drop(task: asyncio.Future[Any]) -> None:
    task.add_done_callback(lambda t: t.cancelled() or t.exception())

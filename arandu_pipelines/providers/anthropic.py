"""`AnthropicProvider`: the LLM over Anthropic's Messages API (Claude), on the official
`anthropic` AsyncAnthropic client. LLM only: Anthropic has no embeddings API, so pair it with an
embedding provider (the bundled local one, or OpenAIProvider).

The same contract as OpenAIProvider (see providers/openai.py), translated:

* **Messages**: the pipeline speaks OpenAI's format; system messages become the `system`
  parameter (joined), the rest go as user/assistant turns. `max_tokens` is required by the API:
  `max_tokens` of the call, else the provider's `max_tokens` (4096, the spec's default). `temperature` is
  sent when the installed SDK still accepts it (releases 2.x dropped it).
* **JSON**: the API has no JSON mode; when a caller asks for `response_format` json, a JSON-only
  instruction is appended to the system prompt and the answer goes through the tolerant parser
  (fences and chatter stripped), as OpenAIProvider does after a server rejects JSON mode.
* **Retries** are ours (the client runs with max_retries=0): 408/409/429/5xx/529 and connection
  errors or timeouts, `max_retries` times with exponential backoff and jitter, honouring a short
  `retry-after`; other 4xx fail at once with `ProviderError` (status, retryable).
* **Usage**: `LLMResult.usage` carries `input_tokens` / `output_tokens` from the response.
* **Secrets**: the API key never appears in `repr()` or in errors.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from arandu_pipelines.errors import ProviderError
from arandu_pipelines.protocols import LLMResult, LLMUsage
from arandu_pipelines.providers.openai import JSON_INSTRUCTION, _clean_json_text
from arandu_pipelines.providers.retry import RETRY_STATUSES as _BASE_STATUSES
from arandu_pipelines.providers.retry import RetryPolicy, SdkErrors, with_retries
from arandu_pipelines.settings import settings

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic
    from anthropic.types import Message

DEFAULT_MODEL = "claude-sonnet-4-20250514"  # the specification's default
DEFAULT_MAX_TOKENS = 4096
RETRY_STATUSES = _BASE_STATUSES | {529}  # 529: Anthropic's "overloaded"


class AnthropicProvider:
    """LLMProvider over the Anthropic Messages API."""

    def __init__(
        self,
        api_key: str | None = None,
        model: str = DEFAULT_MODEL,
        base_url: str | None = None,
        timeout: float = 30.0,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        max_retries: int = 3,
        backoff_base: float = 0.5,
        backoff_max: float = 8.0,
        default_headers: Mapping[str, str] | None = None,
        client: AsyncAnthropic | None = None,
    ) -> None:
        self.model = model
        self.base_url = base_url
        self.timeout = float(timeout)
        self.max_retries = max(0, int(max_retries))
        self.backoff_base = float(backoff_base)
        self.backoff_max = float(backoff_max)
        self.max_tokens = max(1, int(max_tokens))
        self.calls = 0
        key = api_key or settings.anthropic_api_key or ""
        self._secret = key
        if client is not None:
            self._client = client
            return
        if not key:
            raise ValueError("AnthropicProvider needs an API key: pass api_key=... or set ANTHROPIC_API_KEY")
        from anthropic import AsyncAnthropic

        self._client = AsyncAnthropic(api_key=key, base_url=base_url, timeout=self.timeout, max_retries=0,
                                      default_headers=dict(default_headers) if default_headers else None)

    def __repr__(self) -> str:
        host = urlsplit(self.base_url).netloc if self.base_url else "api.anthropic.com"
        return f"AnthropicProvider(model={self.model!r}, host={host!r}, api_key='***')"

    async def close(self) -> None:
        await self._client.close()

    async def complete(
        self,
        messages: list[dict[str, object]],
        temperature: float = 0,
        response_format: dict[str, object] | None = None,
        max_tokens: int | None = None,
    ) -> LLMResult:
        wants_json = bool(response_format) and (response_format or {}).get("type") in ("json_object", "json_schema")
        system, turns = _split(messages)
        if wants_json:
            system = (system + "\n\n" if system else "") + JSON_INSTRUCTION
        extra: dict[str, str | float] = {"system": system} if system else {}
        if _sdk_takes_temperature():
            extra["temperature"] = temperature
        # `extra` holds only keys the SDK takes (system, temperature); its overloads want each
        # keyword spelled out with its TypedDict, which a conditional kwargs dict cannot be
        response = await self._with_retries(lambda: self._client.messages.create(  # type: ignore[call-overload]
            model=self.model, max_tokens=int(max_tokens or self.max_tokens), messages=turns,
            **extra))
        text = "".join(getattr(b, "text", "") for b in response.content if getattr(b, "type", "") == "text")
        usage = None
        if response.usage is not None:
            usage = LLMUsage(int(response.usage.input_tokens or 0), int(response.usage.output_tokens or 0))
        return LLMResult(text=_clean_json_text(text) if wants_json else text, usage=usage)

    async def _with_retries(self, call: Callable[[], Awaitable[Message]]) -> Message:
        import anthropic

        errors = SdkErrors(status=anthropic.APIStatusError,
                           transient=(anthropic.APIConnectionError, anthropic.APITimeoutError),
                           base=anthropic.AnthropicError, retry_statuses=RETRY_STATUSES)
        return await with_retries(call, errors=errors, describe=self._describe, on_attempt=self._count_call,
                                  policy=RetryPolicy(self.max_retries, self.backoff_base, self.backoff_max))

    def _count_call(self) -> None:
        self.calls += 1

    def _describe(self, exc: Exception, status: int | None) -> str:
        host = urlsplit(self.base_url).netloc if self.base_url else "api.anthropic.com"
        detail = str(getattr(exc, "message", None) or exc)
        body = getattr(exc, "body", None)
        if isinstance(body, dict) and isinstance(body.get("error"), dict) and body["error"].get("message"):
            detail = str(body["error"]["message"])
        detail = " ".join(detail.split())[:300]
        where = f"{host} model={self.model!r}"
        kind = type(exc).__name__
        msg = f"{kind} (HTTP {status}) from {where}: {detail}" if status else f"{kind} from {where}: {detail}"
        if self._secret and len(self._secret) >= 4:
            msg = msg.replace(self._secret, "***")
        return msg


@functools.cache
def _sdk_takes_temperature() -> bool:
    """Recent `anthropic` releases dropped `temperature` from messages.create (newer models fix
    their sampling); it is sent only where the installed SDK still offers it."""
    from anthropic.resources.messages import AsyncMessages

    return "temperature" in inspect.signature(AsyncMessages.create).parameters


def _split(messages: list[dict[str, Any]]) -> tuple[str, list[dict[str, str]]]:
    """OpenAI-format messages -> (system text, user/assistant turns). Consecutive turns of one
    role are joined (the API wants them alternating), and a conversation must open with the user."""
    system: list[str] = []
    turns: list[dict[str, str]] = []
    for m in messages:
        role, content = m.get("role"), str(m.get("content") or "")
        if role == "system":
            system.append(content)
            continue
        role = "assistant" if role == "assistant" else "user"
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"] += "\n\n" + content
        else:
            turns.append({"role": role, "content": content})
    if not turns or turns[0]["role"] != "user":
        turns.insert(0, {"role": "user", "content": "(see the instructions)"})
    return "\n\n".join(s for s in system if s), turns


__all__ = ["DEFAULT_MODEL", "AnthropicProvider", "ProviderError"]

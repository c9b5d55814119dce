"""`OpenAIProvider`: LLM + embeddings over any OpenAI-compatible HTTP API.

One class for OpenAI itself and for everything that speaks its wire format — Azure-style
gateways, a LiteLLM proxy, Ollama (`http://localhost:11434/v1`), vLLM (`http://host:8000/v1`),
LM Studio (`http://localhost:1234/v1`), DeepSeek, Groq, Together, ... — built on the official
`openai` AsyncOpenAI client (pass `client=` to use a pre-built one, e.g. AsyncAzureOpenAI).

Behaviour worth knowing:

* **Retries** are ours, not the SDK's (the SDK client runs with max_retries=0): 408/409/429/5xx
  and connection errors/timeouts are retried `max_retries` times with exponential backoff and
  jitter, honouring a short `Retry-After`. Other 4xx fail at once.
* **JSON mode**: when a caller asks for `response_format={"type": "json_object"}` it is sent
  (`json_mode=None`, the default, means "try it"). A server that rejects it (HTTP 400/422 — LM
  Studio and some gateways do) is retried once without it and with a JSON instruction appended
  to the system prompt; if that works, JSON mode is switched off for this provider from then on.
  `json_mode=False` never sends it. Either way, when JSON was asked for, the answer is passed
  through the tolerant parser and returned as clean JSON text when one can be found (fences and
  chatter stripped); otherwise the raw text is returned and the caller's parser reports it.
* **Usage**: `LLMResult.usage` carries prompt/completion tokens when the server reports them.
* **Embeddings**: `dimensions` is known up front (the schema needs it before the first call):
  1536 for text-embedding-3-small/ada-002, 3072 for -3-large, common local models too; pass
  `dimensions=` (or ARANDU_EMBEDDING_DIMENSIONS) for others. Vectors of another length raise a
  clear error instead of corrupting the store.
* **Secrets**: the API key never appears in `repr()`, in errors or in traces.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from arandu_pipelines.errors import ProviderError
from arandu_pipelines.protocols import LLMResult, LLMUsage
from arandu_pipelines.providers.json_parse import JSONParseError, parse_json
from arandu_pipelines.providers.retry import (
    RETRY_STATUSES,
    RetryPolicy,
    SdkErrors,
    with_retries,
)
from arandu_pipelines.settings import settings

if TYPE_CHECKING:
    from openai import AsyncOpenAI

DEFAULT_MODEL = "gpt-4o-mini"
DEFAULT_EMBEDDING_MODEL = "text-embedding-3-small"
KNOWN_EMBEDDING_DIMENSIONS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
    "nomic-embed-text": 768,
    "mxbai-embed-large": 1024,
    "all-minilm": 384,
    "all-minilm-l6-v2": 384,
    "bge-m3": 1024,
    "snowflake-arctic-embed": 1024,
}
_MATRYOSHKA_PREFIX = "text-embedding-3"  # models that accept a `dimensions` request parameter
JSON_INSTRUCTION = (
    "Respond with one valid JSON object only: no prose before or after it, no markdown code fences."
)


def _model_dimensions(model: str) -> int | None:
    name = model.lower().split("/")[-1].split(":")[0]
    return KNOWN_EMBEDDING_DIMENSIONS.get(name)


class OpenAIProvider:
    """LLMProvider + EmbeddingProvider over the OpenAI chat-completions / embeddings API."""

    def __init__(
        self,
        api_key: str | None = None,
        model: str = DEFAULT_MODEL,
        embedding_model: str = DEFAULT_EMBEDDING_MODEL,
        base_url: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 3,
        backoff_base: float = 0.5,
        backoff_max: float = 8.0,
        dimensions: int | None = None,
        json_mode: bool | None = None,
        embedding_batch_size: int = 256,
        default_headers: Mapping[str, str] | None = None,
        default_query: Mapping[str, object] | None = None,
        organization: str | None = None,
        client: AsyncOpenAI | None = None,
    ) -> None:
        self.model = model
        self.embedding_model = embedding_model
        self.base_url = base_url
        self.timeout = float(timeout)
        self.max_retries = max(0, int(max_retries))
        self.backoff_base = float(backoff_base)
        self.backoff_max = float(backoff_max)
        self.json_mode = json_mode  # None: try it, switch off if the server rejects it
        self.embedding_batch_size = max(1, int(embedding_batch_size))
        native = _model_dimensions(embedding_model)
        self.dimensions: int = int(dimensions or native or 1536)
        # text-embedding-3-* can shorten their vectors server-side when asked.
        self._send_dimensions = (
            dimensions is not None and native is not None and dimensions != native
            and embedding_model.lower().startswith(_MATRYOSHKA_PREFIX)
        )
        # Usage counters over the provider's lifetime (embeddings have no LLMResult to carry it).
        self.embedding_tokens = 0
        self.calls = 0
        key = api_key or settings.get("OPENAI_API_KEY")
        if not key and base_url:
            key = "not-needed"  # local servers (Ollama, vLLM, LM Studio) ignore the key
        self._secret = key or ""
        if client is not None:
            self._client = client
        else:
            if not key:
                raise ValueError(
                    "OpenAIProvider needs an API key: pass api_key=... or set OPENAI_API_KEY "
                    "(for a local OpenAI-compatible server, pass base_url=... and any key)"
                )
            from openai import AsyncOpenAI

            self._client = AsyncOpenAI(
                api_key=key,
                base_url=base_url,
                timeout=self.timeout,
                max_retries=0,
                default_headers=dict(default_headers) if default_headers else None,
                default_query=dict(default_query) if default_query else None,
                organization=organization,
            )

    # ---- construction from the environment ---------------------------------------------------
    @classmethod
    def from_env(cls, **overrides: Any) -> OpenAIProvider:
        """OPENAI_API_KEY, OPENAI_BASE_URL, ARANDU_LLM_MODEL, ARANDU_EMBEDDING_MODEL,
        ARANDU_EMBEDDING_DIMENSIONS, ARANDU_LLM_TIMEOUT, ARANDU_LLM_JSON_MODE (true/false/auto).
        Keyword arguments win over the environment."""
        kwargs: dict[str, Any] = settings.openai_kwargs()   # SettingsError for a bad value
        kwargs.update(overrides)
        return cls(**kwargs)

    def __repr__(self) -> str:
        host = urlsplit(self.base_url).netloc if self.base_url else "api.openai.com"
        return (f"OpenAIProvider(model={self.model!r}, embedding_model={self.embedding_model!r}, "
                f"host={host!r}, api_key='***')")

    async def close(self) -> None:
        close = getattr(self._client, "close", None)
        if close is not None:
            await close()

    # ---- LLMProvider -----------------------------------------------------------------------------
    async def complete(
        self,
        messages: list[dict[str, object]],
        temperature: float = 0,
        response_format: dict[str, object] | None = None,
        max_tokens: int | None = None,
    ) -> LLMResult:
        wants_json = bool(response_format) and (response_format or {}).get("type") in ("json_object", "json_schema")
        send_format = wants_json and self.json_mode is not False
        msgs = list(messages) if send_format or not wants_json else _with_json_instruction(messages)
        try:
            response = await self._with_retries(
                lambda: self._chat(msgs, temperature, response_format if send_format else None, max_tokens)
            )
        except ProviderError as exc:
            if not (send_format and self.json_mode is None and exc.status in (400, 415, 422)):
                raise
            # The server rejected JSON mode (or the request): once more without it.
            response = await self._with_retries(
                lambda: self._chat(_with_json_instruction(messages), temperature, None, max_tokens)
            )
            self.json_mode = False
        text = ""
        if response.choices:
            text = response.choices[0].message.content or ""
        usage = None
        if getattr(response, "usage", None) is not None:
            usage = LLMUsage(
                input_tokens=int(response.usage.prompt_tokens or 0),
                output_tokens=int(response.usage.completion_tokens or 0),
            )
        if wants_json:
            text = _clean_json_text(text)
        return LLMResult(text=text, usage=usage)

    async def _chat(self, messages: list[dict[str, Any]], temperature: float, response_format: dict[str, Any] | None,
                    max_tokens: int | None) -> Any:
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": temperature}
        if response_format:
            kwargs["response_format"] = response_format
        if max_tokens:
            kwargs["max_tokens"] = max_tokens
        return await self._client.chat.completions.create(**kwargs)

    # ---- EmbeddingProvider -------------------------------------------------------------------------
    async def embed(self, texts: list[str]) -> list[list[float]]:
        """One vector per input, in order; blank inputs get a zero vector (the API rejects them)."""
        texts = list(texts)
        if not texts:
            return []
        out: list[list[float] | None] = [None] * len(texts)
        todo = [(i, t) for i, t in enumerate(texts) if isinstance(t, str) and t.strip()]
        for start in range(0, len(todo), self.embedding_batch_size):
            batch = todo[start:start + self.embedding_batch_size]
            response = await self._with_retries(lambda batch=batch: self._embed_call([t for _, t in batch]))
            data = sorted(response.data, key=lambda d: d.index)
            if len(data) != len(batch):
                raise ProviderError(f"embedding API returned {len(data)} vectors for {len(batch)} inputs")
            for (i, _), d in zip(batch, data, strict=True):
                vector = [float(x) for x in d.embedding]
                if len(vector) != self.dimensions:
                    raise ProviderError(
                        f"embedding model {self.embedding_model!r} returned {len(vector)}-d vectors but "
                        f"the provider is configured for {self.dimensions}; pass dimensions={len(vector)} "
                        "(or set ARANDU_EMBEDDING_DIMENSIONS) and use a database created for it"
                    )
                out[i] = vector
            if getattr(response, "usage", None) is not None:
                self.embedding_tokens += int(getattr(response.usage, "prompt_tokens", 0) or 0)
        zero = [0.0] * self.dimensions
        return [v if v is not None else list(zero) for v in out]

    async def embed_one(self, text: str) -> list[float] | None:
        if not isinstance(text, str) or not text.strip():
            return None
        out = await self.embed([text])
        return out[0] if out else None

    async def _embed_call(self, texts: list[str]) -> Any:
        kwargs: dict[str, Any] = {"model": self.embedding_model, "input": texts, "encoding_format": "float"}
        if self._send_dimensions:
            kwargs["dimensions"] = self.dimensions
        return await self._client.embeddings.create(**kwargs)

    # ---- retries and error hygiene ---------------------------------------------------------------
    async def _with_retries(self, call: Any) -> Any:
        import openai

        errors = SdkErrors(status=openai.APIStatusError,
                           transient=(openai.APIConnectionError, openai.APITimeoutError),
                           base=openai.OpenAIError, retry_statuses=RETRY_STATUSES)
        return await with_retries(call, errors=errors, policy=self._policy, describe=self._describe,
                                  on_attempt=self._count_call)

    @property
    def _policy(self) -> RetryPolicy:
        return RetryPolicy(self.max_retries, self.backoff_base, self.backoff_max)

    def _count_call(self) -> None:
        self.calls += 1

    def _describe(self, exc: Exception, status: int | None) -> str:
        host = urlsplit(self.base_url).netloc if self.base_url else "api.openai.com"
        detail = str(getattr(exc, "message", None) or exc)
        body = getattr(exc, "body", None)
        if isinstance(body, dict):
            err = body.get("error", body)
            if isinstance(err, dict) and err.get("message"):
                detail = str(err["message"])
        detail = " ".join(detail.split())[:300]
        kind = type(exc).__name__
        where = f"{host} model={self.model!r}"
        msg = f"{kind} (HTTP {status}) from {where}: {detail}" if status else f"{kind} from {where}: {detail}"
        return self._redact(msg)

    def _redact(self, text: str) -> str:
        if self._secret and len(self._secret) >= 4:
            text = text.replace(self._secret, "***")
        return text


def _with_json_instruction(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages with the JSON-only instruction added to the system prompt (or as one)."""
    out = [dict(m) for m in messages]
    for m in out:
        if m.get("role") == "system" and isinstance(m.get("content"), str):
            m["content"] = m["content"].rstrip() + "\n\n" + JSON_INSTRUCTION
            return out
    return [{"role": "system", "content": JSON_INSTRUCTION}, *out]


def _clean_json_text(text: str) -> str:
    """Fences/chatter stripped when a JSON value can be found; the raw text otherwise."""
    try:
        json.loads(text)
        return text
    except (json.JSONDecodeError, TypeError):
        pass
    try:
        return json.dumps(parse_json(text), ensure_ascii=False)
    except JSONParseError:
        return text


__all__ = ["JSON_INSTRUCTION", "KNOWN_EMBEDDING_DIMENSIONS", "OpenAIProvider", "ProviderError"]

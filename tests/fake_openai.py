"""A small OpenAI-compatible HTTP server for tests: scripted answers over real HTTP.

    with FakeOpenAI() as fake:
        fake.on(("TASK: informed_extraction", "Clara"), {"entities": [...], "facts": [...]})
        fake.on("TASK: reconcile", {"action": "UPDATE", "target": "F1"})
        fake.on("TASK: informed_extraction", Status(429), times=2)   # two 429s, then next rule
        provider = OpenAIProvider(base_url=fake.url, api_key="test", model="fake")

Speaks POST /v1/chat/completions, POST /v1/embeddings and GET /v1/models on 127.0.0.1 (random
free port, a daemon thread per request, so a request told to hang does not block others).

Rules are tried in the order added; the first one whose matcher accepts the request and that
has uses left answers. A matcher is a substring of the request's prompt (all message contents
joined), a tuple of substrings that must all occur, or a callable(body) -> bool. A reply is:

* a dict/list            -> sent as the assistant message's JSON content
* a str                  -> sent verbatim as the content (chatty text, fences, broken JSON)
* Status(code, message)  -> an HTTP error in OpenAI's error format (429, 500, 400, ...)
* Delay(seconds, reply)  -> waits, then answers `reply` (times out clients with shorter limits)
* a callable(body)       -> returns any of the above, computed from the request
* helpers: truncated(obj), fenced(obj), chatty(obj), INVALID_JSON

`reject_response_format=True` makes every request carrying `response_format` fail with HTTP 400
(like LM Studio / some gateways), to exercise the no-JSON-mode path. Requests without a matching
rule get HTTP 404 "no scripted rule" so a missing script is loud. Every request is recorded in
`requests` (path, body, prompt, status).
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import struct
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

INVALID_JSON = "Here you go: {entities: [Clara, Vertix], facts: maybe} -- hope that helps!"


@dataclass
class Status:
    code: int
    message: str = ""
    retry_after: float | None = None


@dataclass
class Delay:
    seconds: float
    reply: Any = None


def truncated(obj: Any, keep: float = 0.6) -> str:
    text = json.dumps(obj, ensure_ascii=False)
    return text[: max(1, int(len(text) * keep))]


def fenced(obj: Any) -> str:
    return "```json\n" + json.dumps(obj, ensure_ascii=False, indent=2) + "\n```"


def chatty(obj: Any) -> str:
    body = json.dumps(obj, ensure_ascii=False, indent=2)
    body = body.replace("\n}", ",\n}", 1) if body.endswith("\n}") else body  # a trailing comma
    return ("Sure! Here is the JSON you asked for:\n\n```json\n" + body +
            "\n```\n\nLet me know if you need anything else.")


@dataclass
class Rule:
    match: Any
    reply: Any
    times: int | None = None
    path: str = "/v1/chat/completions"
    hits: int = 0

    def accepts(self, path: str, body: dict[str, Any], prompt: str) -> bool:
        if path != self.path or (self.times is not None and self.hits >= self.times):
            return False
        if callable(self.match):
            return bool(self.match(body))
        if isinstance(self.match, str):
            return self.match in prompt
        return all(m in prompt for m in self.match)


@dataclass
class Recorded:
    path: str
    body: dict[str, Any]
    prompt: str
    headers: dict[str, str]
    status: int = 0
    reply: str = ""

    def has(self, *needles: str) -> bool:
        return all(n in self.prompt for n in needles)

    @property
    def system(self) -> str:
        msgs = self.body.get("messages") or []
        return "\n".join(str(m.get("content", "")) for m in msgs if m.get("role") == "system")

    @property
    def user(self) -> str:
        msgs = self.body.get("messages") or []
        return "\n".join(str(m.get("content", "")) for m in msgs if m.get("role") == "user")


@dataclass
class FakeOpenAI:
    reject_response_format: bool = False
    embedding_dimensions: int = 1536
    model: str = "fake"
    rules: list[Rule] = field(default_factory=list)
    requests: list[Recorded] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ---- script ----------------------------------------------------------------------------
    def on(self, match: Any, reply: Any, times: int | None = None, path: str = "/v1/chat/completions") -> Rule:
        rule = Rule(match, reply, times, path)
        with self._lock:
            self.rules.append(rule)
        return rule

    def first(self, match: Any, reply: Any, times: int | None = None) -> Rule:
        """Like `on`, but tried before the existing rules."""
        rule = Rule(match, reply, times)
        with self._lock:
            self.rules.insert(0, rule)
        return rule

    def calls(self, *needles: str) -> list[Recorded]:
        """Chat requests whose prompt contains all `needles` (e.g. "TASK: reconcile")."""
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/chat/completions") and r.has(*needles)]

    def reset(self) -> None:
        with self._lock:
            self.rules.clear()
            self.requests.clear()

    # ---- lifecycle ----------------------------------------------------------------------------
    @property
    def url(self) -> str:
        assert self._server is not None, "start() the server first"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> FakeOpenAI:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, {"object": "list", "data": [{"id": fake.model, "object": "model"}]})
                else:
                    self._send(404, _error(404, "not found"))

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    self._send(400, _error(400, "body is not JSON"))
                    return
                status, payload, headers = fake._answer(self.path, body, dict(self.headers))
                self._send(status, payload, headers)

            def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError, OSError):
                    pass  # the client gave up (timeout) — fine

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---- answering ----------------------------------------------------------------------------
    def _answer(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        path = path.split("?")[0].rstrip("/")
        if path.endswith("/embeddings"):
            return self._embeddings(path, body, headers)
        if not path.endswith("/chat/completions"):
            return 404, _error(404, f"unknown path {path}"), {}
        prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages") or [])
        rec = Recorded(path, body, prompt, {k.lower(): v for k, v in headers.items()})
        with self._lock:
            self.requests.append(rec)
            if self.reject_response_format and body.get("response_format"):
                rec.status = 400
                return 400, _error(400, "'response_format' of type 'json_object' is not supported by this model",
                                   param="response_format"), {}
            rule = next((r for r in self.rules if r.accepts("/v1/chat/completions", body, prompt)), None)
            if rule is not None:
                rule.hits += 1
        if rule is None:
            rec.status = 404
            return 404, _error(404, "fake_openai: no scripted rule matches this request"), {}
        reply = self._resolve(rule.reply, body)
        if isinstance(reply, Status):
            rec.status = reply.code
            extra = {"Retry-After": f"{reply.retry_after:g}"} if reply.retry_after is not None else {}
            return reply.code, _error(reply.code, reply.message or f"scripted HTTP {reply.code}"), extra
        content = reply if isinstance(reply, str) else json.dumps(reply, ensure_ascii=False)
        rec.status, rec.reply = 200, content
        return 200, {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", self.model),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": max(1, len(prompt) // 4),
                      "completion_tokens": max(1, len(content) // 4),
                      "total_tokens": max(1, len(prompt) // 4) + max(1, len(content) // 4)},
        }, {}

    def _resolve(self, reply: Any, body: dict[str, Any]) -> Any:
        """The scripted reply with callables called and delays waited out (shared by the fakes)."""
        while True:
            if callable(reply) and not isinstance(reply, (Status, Delay)):
                reply = reply(body)
            elif isinstance(reply, Delay):
                self._stop.wait(reply.seconds)
                reply = reply.reply
            else:
                return reply

    def _embeddings(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        inputs = body.get("input")
        inputs = [inputs] if isinstance(inputs, str) else list(inputs or [])
        rec = Recorded(path, body, "\n".join(map(str, inputs)), {k.lower(): v for k, v in headers.items()})
        with self._lock:
            self.requests.append(rec)
            rule = next((r for r in self.rules if r.accepts("/v1/embeddings", body, rec.prompt)), None)
            if rule is not None:
                rule.hits += 1
        if rule is not None and isinstance(rule.reply, Status):
            rec.status = rule.reply.code
            return rule.reply.code, _error(rule.reply.code, rule.reply.message or "scripted"), {}
        dims = int(body.get("dimensions") or self.embedding_dimensions)
        data = []
        for i, text in enumerate(inputs):
            vector = _hash_vector(str(text), dims)
            if body.get("encoding_format") == "base64":
                emb: Any = base64.b64encode(struct.pack(f"<{dims}f", *vector)).decode()
            else:
                emb = vector
            data.append({"object": "embedding", "index": i, "embedding": emb})
        tokens = sum(max(1, len(str(t)) // 4) for t in inputs)
        rec.status = 200
        return 200, {"object": "list", "data": data, "model": body.get("model", "fake-embed"),
                     "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}, {}


def _error(code: int, message: str, param: str | None = None) -> dict[str, Any]:
    kind = {400: "invalid_request_error", 401: "authentication_error", 404: "not_found_error",
            429: "rate_limit_exceeded"}.get(code, "server_error")
    return {"error": {"message": message, "type": kind, "param": param, "code": str(code)}}


def _hash_vector(text: str, dims: int) -> list[float]:
    vec = [0.0] * dims
    for token in text.lower().split():
        h = int.from_bytes(hashlib.blake2b(token.encode(), digest_size=8).digest(), "big")
        vec[h % dims] += 1.0 if (h >> 63) & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vec)) or 1.0
    return [v / norm for v in vec]


# ---- pytest helpers shared by tests/test_llm_*.py ----------------------------------------------
import re
from datetime import UTC, datetime

from arandu_pipelines.client import MemoryClient
from arandu_pipelines.providers.openai import OpenAIProvider

T0 = datetime(2025, 6, 10, 12, 0, tzinfo=UTC)
T1 = datetime(2025, 6, 15, 12, 0, tzinfo=UTC)
T2 = datetime(2025, 6, 20, 12, 0, tzinfo=UTC)

INFORMED = "TASK: informed_extraction"
ENTITY_SCAN = "TASK: entity_scan"
FACTS = "TASK: fact_extraction"
RELATIONS = "TASK: relation_extraction"
RECONCILE = "TASK: reconcile"
PICK = "TASK: entity_resolution"
EMOTION = "TASK: emotion"


def provider(fake: FakeOpenAI, **kw: Any) -> OpenAIProvider:
    kw.setdefault("backoff_base", 0.01)
    kw.setdefault("backoff_max", 0.05)
    kw.setdefault("max_retries", 2)
    return OpenAIProvider(base_url=fake.url, api_key="test", model="fake", **kw)


class RecordingClient(MemoryClient):
    """MemoryClient that keeps each pipeline run's ChunkOutcome (test instrumentation only),
    through the public `on_chunk` hook."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.outcomes: list[Any] = []
        super().__init__(*args, on_chunk=self.outcomes.append, **kwargs)

    @property
    def last_extraction(self) -> Any:
        return self.outcomes[-1].messages[0].extraction


def defaults(fake: FakeOpenAI) -> None:
    """Fallback answers for the incidental calls (added last, so scripted rules win)."""
    fake.on(EMOTION, {"emotion": "neutral", "intensity": 0.1, "energy": "medium"})
    fake.on(RECONCILE, {"action": "ADD", "target": None, "reason": "new information"})
    fake.on(PICK, {"match": None, "reason": "not the same"})


def pick(name: str) -> Any:
    """A scripted entity-resolution answer choosing the candidate labelled with `name`."""

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        prompt = "\n".join(m["content"] for m in body["messages"])
        m = re.search(r"^(C\d): " + re.escape(name) + r" \(", prompt, re.MULTILINE)
        return {"match": m.group(1) if m else None, "reason": "nickname"}

    return answer


def target(fact_text: str, action: str) -> Any:
    """A scripted reconcile answer pointing at the candidate whose text is `fact_text`."""

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        prompt = "\n".join(m["content"] for m in body["messages"])
        m = re.search(r"^(F\d): " + re.escape(fact_text) + r" \(", prompt, re.MULTILINE)
        return {"action": action, "target": m.group(1) if m else None, "reason": "scripted"}

    return answer


def step(result: Any, name: str) -> dict[str, Any]:
    s = result.pipeline.get(name)
    assert s is not None, f"no {name} step in the trace"
    return s.data


__all__ = [
    "INVALID_JSON",
    "Delay",
    "FakeOpenAI",
    "Recorded",
    "RecordingClient",
    "Rule",
    "Status",
    "chatty",
    "defaults",
    "fenced",
    "pick",
    "provider",
    "step",
    "target",
    "truncated",
]

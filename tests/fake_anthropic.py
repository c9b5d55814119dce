"""A scripted Anthropic Messages API server on 127.0.0.1, for AnthropicProvider's tests.

The same script language as tests/fake_openai.py (rules of matcher -> reply; Status, Delay,
callables), on POST /v1/messages, answering in Anthropic's response and error formats:

    with FakeAnthropic() as fake:
        fake.on("TASK: emotion", {"emotion": "joy", "intensity": 0.8, "energy": "high"})
        llm = AnthropicProvider(api_key="test", base_url=fake.url)

A request's `prompt` (what matchers see) is its `system` text and every message's content.
"""

from __future__ import annotations

import json
from typing import Any

from tests.fake_openai import FakeOpenAI, Recorded, Rule, Status

MESSAGES = "/v1/messages"


def _error(code: int, message: str) -> dict[str, Any]:
    kind = {400: "invalid_request_error", 401: "authentication_error", 404: "not_found_error",
            429: "rate_limit_error", 529: "overloaded_error"}.get(code, "api_error")
    return {"type": "error", "error": {"type": kind, "message": message}}


class FakeAnthropic(FakeOpenAI):
    def on(self, match: Any, reply: Any, times: int | None = None, path: str = MESSAGES) -> Rule:
        return super().on(match, reply, times, path)

    def calls(self, *needles: str) -> list[Recorded]:
        with self._lock:
            return [r for r in self.requests if r.path == MESSAGES and r.has(*needles)]

    @property
    def url(self) -> str:  # the anthropic client appends /v1/messages
        assert self._server is not None, "start() the server first"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def _answer(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        path = path.split("?")[0].rstrip("/")
        if path != MESSAGES:
            return 404, _error(404, f"unknown path {path}"), {}
        system = body.get("system") or ""
        if isinstance(system, list):
            system = "\n".join(str(b.get("text", "")) for b in system)
        prompt = "\n".join([str(system)] + [str(m.get("content", "")) for m in body.get("messages") or []])
        rec = Recorded(path, body, prompt, {k.lower(): v for k, v in headers.items()})
        with self._lock:
            self.requests.append(rec)
            rule = next((r for r in self.rules if r.accepts(MESSAGES, body, prompt)), None)
            if rule is not None:
                rule.hits += 1
        if "max_tokens" not in body:
            rec.status = 400
            return 400, _error(400, "max_tokens: Field required"), {}
        if rule is None:
            rec.status = 404
            return 404, _error(404, "fake_anthropic: no scripted rule matches this request"), {}
        reply = self._resolve(rule.reply, body)
        if isinstance(reply, Status):
            rec.status = reply.code
            extra = {"retry-after": f"{reply.retry_after:g}"} if reply.retry_after is not None else {}
            return reply.code, _error(reply.code, reply.message or f"scripted HTTP {reply.code}"), extra
        content = reply if isinstance(reply, str) else json.dumps(reply, ensure_ascii=False)
        rec.status, rec.reply = 200, content
        return 200, {
            "id": f"msg_{len(self.requests)}", "type": "message", "role": "assistant",
            "model": body.get("model", self.model), "stop_reason": "end_turn", "stop_sequence": None,
            "content": [{"type": "text", "text": content}],
            "usage": {"input_tokens": max(1, len(prompt) // 4), "output_tokens": max(1, len(content) // 4)},
        }, {}



"""One retry policy for every HTTP provider, so OpenAI and Anthropic fail and back off alike.

Both official SDKs (Stainless-generated) raise the same shapes: a status error with
`status_code` and `response.headers`, connection and timeout errors, and a base error for the
rest. The providers hand those classes in as an `SdkErrors`; the loop here decides what is
retried (408/409/429/5xx and the SDK's own retryable statuses, connection errors, timeouts),
how long to wait (exponential backoff with jitter, or a short `retry-after[-ms]` hint the server
sent) and what the caller sees (`ProviderError` with status and retryable, the message from the
provider's `describe`, which redacts secrets).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from arandu_pipelines.errors import ProviderError

T = TypeVar("T")

RETRY_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504})


@dataclass(frozen=True)
class SdkErrors:
    """The exception classes of one SDK, by the role they play in the retry decision."""

    status: type[Exception]
    transient: tuple[type[Exception], ...]
    base: type[Exception]
    retry_statuses: frozenset[int] = RETRY_STATUSES


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 3
    backoff_base: float = 0.5
    backoff_max: float = 8.0

    def delay(self, attempt: int, headers: Mapping[str, str] | None = None) -> float:
        """Seconds before retry `attempt` (0-based): the server's hint when it is short enough,
        else exponential backoff with jitter in [base/2, base]."""
        if headers is not None:
            for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
                value = headers.get(name)
                if not value:
                    continue
                try:
                    hinted = float(value) * scale
                except ValueError:
                    continue
                if 0 <= hinted <= self.backoff_max:
                    return hinted
        base = min(self.backoff_max, self.backoff_base * (2.0 ** attempt))
        return base * (0.5 + random.random() / 2)


async def with_retries(
    call: Callable[[], Awaitable[T]],
    *,
    errors: SdkErrors,
    policy: RetryPolicy,
    describe: Callable[[Exception, int | None], str],
    on_attempt: Callable[[], None] | None = None,
) -> T:
    """`call()` until it succeeds, a non-retryable error comes, or the retries are spent."""
    attempt = 0
    while True:
        if on_attempt is not None:
            on_attempt()
        try:
            return await call()
        except asyncio.CancelledError:
            raise
        except errors.status as exc:
            status = int(getattr(exc, "status_code", 0) or 0)
            retryable = status in errors.retry_statuses or status >= 500
            if not retryable or attempt >= policy.max_retries:
                raise ProviderError(describe(exc, status), status, retryable) from None
            delay = policy.delay(attempt, _headers(exc))
        except errors.transient as exc:
            if attempt >= policy.max_retries:
                raise ProviderError(describe(exc, None), None, True) from None
            delay = policy.delay(attempt)
        except errors.base as exc:  # response validation and the like: not retried
            raise ProviderError(describe(exc, None)) from None
        attempt += 1
        await asyncio.sleep(delay)


def _headers(exc: Exception) -> Mapping[str, str] | None:
    response: Any = getattr(exc, "response", None)
    return getattr(response, "headers", None)

"""The one retry policy both HTTP providers use: what a server's hint and the backoff give."""

from __future__ import annotations

import pytest

from arandu_pipelines.providers.retry import RetryPolicy


def test_server_hint_is_honoured_when_short():
    policy = RetryPolicy(max_retries=3, backoff_base=0.5, backoff_max=8.0)
    assert policy.delay(0, {"retry-after": "2"}) == 2.0
    assert policy.delay(0, {"retry-after-ms": "250"}) == pytest.approx(0.25)


@pytest.mark.parametrize("headers", [{"retry-after": "3600"}, {"retry-after": "soon"}, {}, None])
def test_long_or_unreadable_hint_falls_back_to_jittered_backoff(headers):
    policy = RetryPolicy(max_retries=3, backoff_base=0.5, backoff_max=8.0)
    for attempt, base in ((0, 0.5), (2, 2.0), (10, 8.0)):
        d = policy.delay(attempt, headers)
        assert base / 2 <= d <= base

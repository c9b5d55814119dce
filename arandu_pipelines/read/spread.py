"""The greedy that keeps one group (a session, a named speaker) from filling the top ranks.

Shared by the list questions' session spread (read/events.py `spread_sessions`) and the
aggregate questions' re-rank of the returned messages (read/coverage.py): each pick is the item
with the best score x decay ** (items of its group already picked beyond `free`), and that
discounted score becomes its score, so the order stays the order of the scores. Ties keep the
input's order: the result is a pure function of the input, hence deterministic.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


def greedy_spread(
    items: Sequence[T],
    group: Callable[[T], str],
    score: Callable[[T], float],
    limit: int,
    free: int,
    decay: float,
    floor: float = float("-inf"),
    exempt: str | None = None,
) -> list[tuple[T, float, int]]:
    """Up to `limit` picks as (item, discounted score, items of its group picked before it).

    `items` arrive best first. The discounted score never falls below `floor`; the group
    `exempt` (e.g. '' for turns of people the question does not name) is never discounted."""
    queues: dict[str, list[tuple[int, T]]] = {}
    for i, it in enumerate(items):
        queues.setdefault(group(it), []).append((i, it))
    heads = dict.fromkeys(queues, 0)
    picked = dict.fromkeys(queues, 0)
    out: list[tuple[T, float, int]] = []
    while len(out) < limit:
        best: tuple[float, int, str] | None = None
        for k, q in queues.items():
            h = heads[k]
            if h < len(q):
                n = 0 if k == exempt else max(0, picked[k] - free + 1)
                cand = (max(score(q[h][1]) * decay ** n, floor), -q[h][0], k)
                if best is None or cand > best:
                    best = cand
        if best is None:
            break
        k = best[2]
        it = queues[k][heads[k]][1]
        heads[k] += 1
        out.append((it, best[0], picked[k]))
        picked[k] += 1
    return out

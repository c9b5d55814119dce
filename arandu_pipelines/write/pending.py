"""Pending confirmations (the specification's pending operations): one per agent, 5-minute TTL.

An assistant that is about to do something destructive ("delete the note about Ana") keeps what
it would do here, asks the person, and executes or drops it on the answer. Per process and in
memory, as the specification says: it is conversation state, not memory, and a restart forgets
it (the person is simply asked again).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from arandu_pipelines import validate

PENDING_TTL_SECONDS = 300.0

_LOCK = threading.Lock()
_PENDING: dict[str, tuple[float, dict[str, object]]] = {}  # agent_id -> (expires (monotonic), op)


def _save(agent_id: str, op: dict[str, object]) -> None:
    agent_id = validate.identifier("agent_id", agent_id)
    with _LOCK:
        _PENDING[agent_id] = (time.monotonic() + PENDING_TTL_SECONDS, op)


def save_pending_selection(
    agent_id: str, intent: str, transactions: Sequence[object], confirmation_text: str,
    edit_params: dict[str, object] | None = None,
) -> None:
    """A search found candidates; the person must pick one before `intent` (delete, edit...)."""
    _save(agent_id, {"type": "selection", "intent": intent, "transactions": list(transactions),
                     "confirmation_text": confirmation_text, "edit_params": dict(edit_params or {}),
                     "created_at": time.time()})


def save_pending_execution(
    agent_id: str, tool_calls: Sequence[object], search_result: str, confirmation_text: str,
) -> None:
    """A destructive call was held back until the person confirms it."""
    _save(agent_id, {"type": "execution", "tool_calls": list(tool_calls), "search_result": search_result,
                     "confirmation_text": confirmation_text, "created_at": time.time()})


def get_pending(agent_id: str) -> dict[str, object] | None:
    """The agent's pending operation, or None when there is none or it is older than 5 minutes."""
    with _LOCK:
        hit = _PENDING.get(agent_id)
        if hit is None:
            return None
        if hit[0] <= time.monotonic():
            del _PENDING[agent_id]
            return None
        return dict(hit[1])


def clear_pending(agent_id: str) -> None:
    """Forget the agent's pending operation (executed or cancelled)."""
    with _LOCK:
        _PENDING.pop(agent_id, None)


__all__ = ["PENDING_TTL_SECONDS", "clear_pending", "get_pending", "save_pending_execution",
           "save_pending_selection"]

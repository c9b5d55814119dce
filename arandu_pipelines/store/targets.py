"""Argument plumbing shared by the spec-shaped public functions (issue 15).

A store-layer module (it prepares the caller's engines and connections with `store.engine`):
write/, read/ and background/ use it, so it must not know MemoryClient; a client is accepted as
anything with an `.engine` (`HasEngine`).
The two helpers that do build a MemoryClient (`bound_client`, `settle`) live in client.py.

The specification's functions take an `AsyncSession` and `llm_provider=` / `embedding_provider=`;
ours run on an `AsyncEngine` (each job opens its own short transactions under the agent's lock)
and call the providers `llm=` / `embeddings=`. The public face accepts both spellings and maps
them here, so the adapters stay one line over the internals instead of a second implementation.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Protocol, TypeAlias, TypeVar, runtime_checkable

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession

from arandu_pipelines.errors import ValidationError


@runtime_checkable
class HasEngine(Protocol):
    """Anything that runs on an engine: a MemoryClient, as the layers below it see one."""

    @property
    def engine(self) -> AsyncEngine: ...


#: What a public function accepts as its database handle (HasEngine: a MemoryClient).
DatabaseTarget: TypeAlias = AsyncSession | AsyncEngine | AsyncConnection | HasEngine

T = TypeVar("T")


def engine_from(target: object, name: str = "session") -> AsyncEngine:
    """The engine behind a session, connection, engine or MemoryClient, prepared for our vector
    parameters (`store.engine.prepare_engine`: the caller's engine may be a plain one).

    A session is used for the engine it is bound to: the job runs in its own transactions (it
    must hold the agent's advisory lock and commit in steps), so rows the caller's session has
    not committed yet are not seen."""
    from arandu_pipelines.store.engine import prepare_engine

    return prepare_engine(_engine_of(target, name))


def _engine_of(target: object, name: str) -> AsyncEngine:
    if isinstance(target, AsyncEngine):
        return target
    if isinstance(target, AsyncSession):
        bind = target.bind
        if isinstance(bind, AsyncEngine):
            return bind
        if isinstance(bind, AsyncConnection):
            return bind.engine
        raise ValidationError(f"{name}: the session is not bound to an engine; create it with "
                              "arandu_pipelines.db.create_session_factory(engine)")
    if isinstance(target, AsyncConnection):
        return target.engine
    eng = getattr(target, "engine", None)
    if isinstance(eng, AsyncEngine):
        return eng
    raise ValidationError(f"{name} must be an AsyncSession, AsyncEngine or MemoryClient, "
                          f"got {type(target).__name__}")


def one_of(spec_name: str, spec_value: T | None, our_name: str, our_value: T | None) -> T | None:
    """The value given under either name; both given (and different) is a caller error."""
    if spec_value is not None and our_value is not None and spec_value is not our_value:
        raise ValidationError(f"pass either {spec_name}= or {our_name}= (they are the same argument), not both")
    return spec_value if spec_value is not None else our_value


def target_of(session: object | None, engine: object | None) -> AsyncEngine:
    """`session` (the spec's name, first positional) or `engine=` (ours)."""
    got = one_of("session", session, "engine", engine)
    if got is None:
        raise ValidationError("session is required: pass an AsyncSession, an AsyncEngine or a MemoryClient")
    return engine_from(got)


@asynccontextmanager
async def connection_for(target: object, name: str = "session") -> AsyncIterator[AsyncConnection]:
    """A connection to run a helper's statements on.

    With an `AsyncSession` the statements join the session's transaction and the caller commits
    (the specification's contract for its CRUD helpers); with an engine or a MemoryClient they
    run in a transaction of their own, committed on success."""
    from arandu_pipelines.store.engine import prepare_connection

    if isinstance(target, AsyncSession):
        engine_from(target, name)
        yield await prepare_connection(await target.connection())
        return
    if isinstance(target, AsyncConnection):
        engine_from(target, name)
        yield await prepare_connection(target)
        return
    async with engine_from(target, name).begin() as conn:
        yield conn


def field_of(obj: object, *names: str) -> object:
    """The first present attribute (or dict key) of `names`, else None: facts arrive as dicts,
    dataclasses (FactDetail, FactRef) or rows."""
    for n in names:
        if isinstance(obj, Mapping):
            if n in obj:
                return obj[n]
        elif hasattr(obj, n):
            return getattr(obj, n)
    return None

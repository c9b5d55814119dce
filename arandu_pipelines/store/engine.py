"""Engine and URL handling. The library talks to Postgres through SQLAlchemy's async engine on
psycopg 3.

Vectors are query parameters wrapped by `vec()` (one) or `vecs()` (a `vector[]`). On a connection
that knows pgvector's type (looked up once when the connection opens) they travel in pgvector's
binary format: 1.5 KB of float32 per 384-d vector, nothing to format in Python or to parse in
Postgres. An import sends each sentence's vector three times (reconciliation's candidates, the fact
row, the message row); as text literals that cost ~0.65 s of the event loop's CPU on the 788 dev
messages (formatting, array quoting, sending 3.3 KB each) plus Postgres's float parsing. Anywhere
else (a connection opened before the extension existed, a plain psycopg connection given
`register_vectors`) they fall back to the text literal, with the type left for Postgres to infer
from the statement's CAST.

The dumpers are registered on our connections only (the engine's connect hook; an engine the
caller built is given the hook by `prepare_engine`), never in psycopg's global adapters map: the
library changes nothing in the process beyond what it opens.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import pgvector
import psycopg
from psycopg.adapt import Dumper, PyFormat
from psycopg.pq import Format
from sqlalchemy import event, text
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import (
    AsyncConnection,
    AsyncEngine,
    async_sessionmaker,
    create_async_engine,
)

from arandu_pipelines.settings import settings

# scheme://user:PASSWORD@host — the password runs to the last '@' of the URL token, since a
# mistyped URL may carry an unescaped '@' or '/' inside it.
_URL_TOKEN = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*://)(?P<rest>[^\s'\"<>]+)")
_KV_PASSWORD = re.compile(r"(?i)(password\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s'\"]+)")


def _redact_token(match: re.Match[str]) -> str:
    scheme, rest = match.group("scheme"), match.group("rest")
    at = rest.rfind("@")
    if at < 0:
        return scheme + rest
    userinfo, host = rest[:at], rest[at:]
    if ":" in userinfo:
        userinfo = userinfo.split(":", 1)[0] + ":***"
    return scheme + userinfo + host


def redact(text: str) -> str:
    """`text` with every password removed: URL userinfo (scheme://user:***@host) and libpq
    key=value `password=***`. Applied to every message that may quote a database URL."""
    if not isinstance(text, str):
        text = str(text)
    return _KV_PASSWORD.sub(r"\1***", _URL_TOKEN.sub(_redact_token, text))


def _scheme(url: str) -> str:
    head = url.split("://", 1)[0] if "://" in url else url.split(":", 1)[0]
    return head[:20] if head and head.replace("+", "").replace(".", "").replace("-", "").isalnum() \
        else "(none)"


def normalize_url(database_url: str, driver: str = "psycopg") -> str:
    """Accept postgres://, postgresql://, postgresql+psycopg2:// and return the wanted driver.
    The error for anything else names the scheme only: the URL may hold a password."""
    from arandu_pipelines.errors import ValidationError

    if not isinstance(database_url, str):
        raise ValidationError(
            f"database_url must be a string (postgresql://user:pass@host/db), "
            f"got {type(database_url).__name__}")
    url = database_url.strip()
    for prefix in ("postgresql+psycopg2://", "postgresql+psycopg://", "postgresql://", "postgres://"):
        if url.startswith(prefix):
            return f"postgresql+{driver}://" + url[len(prefix):]
    raise ValidationError(
        "database_url must be a PostgreSQL URL (postgresql://user:pass@host/db); its scheme is "
        f"{_scheme(url)!r}: use 'postgresql://' (the rest of the URL is not shown, it may hold a "
        "password)"
    )


def resolve_database_url(database_url: str | None = None) -> str:
    """Explicit URL, else DATABASE_URL, else the embedded server (started on demand)."""
    url = database_url or settings.database_url
    if url:
        return normalize_url(url)
    from arandu_pipelines.store.embedded import embedded_url

    return normalize_url(embedded_url())


def start_batch_process(database_url: str | None = None) -> int:
    """Lower this process's CPU priority for batch work (`priority.lower_priority`), after making
    sure the database runs. When it is the embedded server and nobody has started it yet, this
    process starts it, and every PostgreSQL process forks from that server: started after the
    lowering, all of them — the backends of serving processes included — would inherit the nice
    value and SCHED_IDLE (a non-root process cannot take a lowered priority back). Returns the
    increment applied; ValueError for an invalid ARANDU_BATCH_NICE / ARANDU_BATCH_IDLE."""
    from arandu_pipelines import priority

    priority.batch_nice_from_env()   # a bad setting fails before anything starts
    priority.batch_idle_from_env()
    resolve_database_url(database_url)
    return priority.lower_priority()


def create_engine(database_url: str, pool_size: int = 10, max_overflow: int = 10) -> AsyncEngine:
    """One retrieve() runs the independent steps of its plan on up to five pooled connections at
    once; ten kept open lets two run together without overflow connections, which are opened
    (several ms) and closed again around every call. A URL SQLAlchemy cannot parse raises
    ValidationError with the password removed (SQLAlchemy's own message quotes the whole URL)."""
    from arandu_pipelines.errors import ValidationError

    url = normalize_url(database_url)
    try:
        engine = create_async_engine(
            url,
            pool_size=pool_size,
            max_overflow=max_overflow,
            pool_recycle=1800,
            connect_args={"application_name": "arandu-pipelines"},
        )
    except (SQLAlchemyError, ValueError) as exc:  # unparseable URL, bad port, unknown option
        raise ValidationError(
            f"database_url {redact(url)!r} is not a valid PostgreSQL URL: "
            f"{type(exc).__name__}: {redact(str(exc))[:300]}"
        ) from None
    event.listen(engine.sync_engine, "connect", _on_connect)   # every connection from the start
    return engine


def prepare_engine(engine: AsyncEngine) -> AsyncEngine:
    """Give `engine` the connect hook that teaches each new connection our vector parameters
    (idempotent). Engines made by `create_engine` have it; an engine the caller built (a session
    passed to a spec-shaped function) gets it here, and its connections already in the pool are
    taught at their next checkout."""
    sync = engine.sync_engine
    if not event.contains(sync, "connect", _on_connect):
        event.listen(sync, "connect", _on_connect)
        event.listen(sync, "checkout", _on_checkout)
    return engine


_VECTOR_OIDS = "to_regtype('vector')::oid, to_regtype('vector[]')::oid"  # NULLs before the extension
_CONNECT_SQL = f"SELECT {_VECTOR_OIDS}"


def _on_connect(dbapi_connection: Any, _record: Any) -> None:
    """One statement per new connection: pgvector's type oids, so vectors go binary on it (text
    literals until the extension exists). Nothing else: the backend keeps the server's priority,
    since any connection may hold an agent's advisory lock (see priority.py)."""
    conn = dbapi_connection.driver_connection
    _text_vectors(conn)
    try:
        cur = dbapi_connection.cursor()
        cur.execute(_CONNECT_SQL)
        vector_oid, array_oid = cur.fetchone()
        cur.close()
        dbapi_connection.rollback()
    except (psycopg.Error, TypeError):  # best effort (TypeError: no row): text vectors work all the same
        return
    if vector_oid and array_oid:
        _binary_vectors(conn, int(vector_oid), int(array_oid))


def _on_checkout(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
    """A connection opened before `prepare_engine` hooked its engine: text vectors at least."""
    _ensure_vectors(dbapi_connection.driver_connection)


def _ensure_vectors(conn: Any) -> None:
    try:
        conn.adapters.get_dumper(Vector, PyFormat.AUTO)
    except psycopg.ProgrammingError:   # no dumper yet (binary ones, once set, are kept)
        _text_vectors(conn)


async def prepare_connection(conn: AsyncConnection) -> AsyncConnection:
    """`conn` (checked out already, e.g. a caller's session's) able to send our vector
    parameters."""
    raw = await conn.get_raw_connection()
    _ensure_vectors(raw.driver_connection)
    return conn


def create_session_factory(engine: AsyncEngine) -> async_sessionmaker:
    return async_sessionmaker(engine, expire_on_commit=False)


class Vector:
    """A query parameter that Postgres receives as a pgvector `vector` (see the module docstring)."""

    __slots__ = ("data",)

    def __init__(self, values: Sequence[float] | np.ndarray) -> None:
        self.data = np.asarray(values, dtype=np.float32).reshape(-1)

    def __len__(self) -> int:
        return len(self.data)

    def literal(self) -> str:
        """pgvector text literal; compact but lossless enough for float32 similarity."""
        return "[" + _vec_format(len(self.data)) % tuple(self.data.tolist()) + "]"


class VectorArray:
    """A query parameter that Postgres receives as `vector[]`; None elements are NULL."""

    __slots__ = ("items",)

    def __init__(self, items: Iterable[Vector | None]) -> None:
        self.items = list(items)


def vec(values: Sequence[float] | np.ndarray | None) -> Vector | None:
    """`values` as a vector parameter (None stays NULL)."""
    return None if values is None else Vector(values)


def vecs(values: Iterable[Sequence[float] | np.ndarray | None]) -> VectorArray:
    """`values` as one vector[] parameter (for unnest); None elements are NULL."""
    return VectorArray(vec(v) for v in values)


@lru_cache(maxsize=8)
def _vec_format(n: int) -> str:
    return ",".join(["%.7g"] * n)


class _VectorText(Dumper):
    oid = 0  # unknown: Postgres takes the type from the statement's CAST(... AS vector)

    def dump(self, obj: Vector) -> bytes:
        return obj.literal().encode()


class _VectorArrayText(Dumper):
    oid = 0

    def dump(self, obj: VectorArray) -> bytes:
        return ("{" + ",".join('"' + v.literal() + '"' if v is not None else "NULL"
                               for v in obj.items) + "}").encode()


def _text_vectors(conn: Any) -> None:
    """Send Vector / VectorArray parameters of this psycopg connection as text literals."""
    register_vectors(conn)


def register_vectors(context: Any) -> Any:
    """Let a psycopg connection (or cursor, or `AdaptersMap`) you opened yourself take `vec()` /
    `vecs()` parameters, as text literals; returns it. The library's own connections need no
    call (the engine's connect hook does it, in binary), and nothing is registered in psycopg's
    global adapters: `with register_vectors(psycopg.connect(url)) as conn: ...`."""
    adapters = getattr(context, "adapters", context)
    adapters.register_dumper(Vector, _VectorText)
    adapters.register_dumper(VectorArray, _VectorArrayText)
    return context


def _vector_bytes(v: Vector) -> bytes:
    """pgvector's binary format (vector_recv), as the pgvector package writes it."""
    return pgvector.Vector(v.data).to_binary()


@lru_cache(maxsize=64)
def _binary_dumpers(vector_oid: int, array_oid: int) -> tuple[type[Dumper], type[Dumper]]:
    class VectorBinary(Dumper):
        format = Format.BINARY
        oid = vector_oid

        def dump(self, obj: Vector) -> bytes:
            return _vector_bytes(obj)

    class VectorArrayBinary(Dumper):
        """PostgreSQL's binary array (array_recv): ndim, has-nulls, element oid, then one
        dimension (length, lower bound 1), then each element as int32 length (-1: NULL) + bytes."""

        format = Format.BINARY
        oid = array_oid

        def dump(self, obj: VectorArray) -> bytes:
            items = obj.items
            if not items:
                return struct.pack(">iii", 0, 0, vector_oid)
            nulls = any(v is None for v in items)
            parts = [struct.pack(">iiiii", 1, int(nulls), vector_oid, len(items), 1)]
            for v in items:
                if v is None:
                    parts.append(b"\xff\xff\xff\xff")
                else:
                    body = _vector_bytes(v)
                    parts.append(struct.pack(">i", len(body)) + body)
            return b"".join(parts)

    return VectorBinary, VectorArrayBinary


async def binary_vectors_after_create(conn: AsyncConnection) -> None:
    """For a connection that was opened before `CREATE EXTENSION vector` (the one that ran the
    first migration, kept in the pool): look the type up now, so it sends vectors binary too."""
    row = (await conn.execute(text(f"SELECT {_VECTOR_OIDS}"))).first()
    if row and row[0] and row[1]:
        raw = await conn.get_raw_connection()
        _binary_vectors(raw.driver_connection, int(row[0]), int(row[1]))


def _binary_vectors(conn: Any, vector_oid: int, array_oid: int) -> None:
    """Send Vector / VectorArray parameters of this psycopg connection in binary."""
    single, array = _binary_dumpers(vector_oid, array_oid)
    conn.adapters.register_dumper(Vector, single)
    conn.adapters.register_dumper(VectorArray, array)

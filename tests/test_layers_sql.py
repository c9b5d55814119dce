"""Issue 17 item 3: `MemoryClient` is a facade, not a repository.

* `client.py` and `cli.py` hold no SQL: every statement lives in a store-layer query module
  (store/facts_queries.py, store/entity_queries.py, store/agent_rows.py, ...). The check parses
  both files (ast), so a statement cannot slip back in as an f-string or a lazy import.
* `recent_messages` is context for extraction, passed explicitly (`EventInput.recent_messages`),
  never through the caller's `metadata`: the stored metadata is exactly what was given, the
  context still reaches the LLM prompt, and a retried extraction still sees it.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

import arandu_pipelines
from arandu_pipelines.client import MemoryClient
from arandu_pipelines.errors import ValidationError
from tests.conftest import rows
from tests.fake_openai import ENTITY_SCAN, INFORMED, T1, Status, defaults, provider

PACKAGE = Path(arandu_pipelines.__file__).resolve().parent
FACADES = ("client.py", "cli.py")
# statement shapes, upper case as the code base writes SQL (docstrings say "select" in prose)
SQL_TEXT = re.compile(r"\b(SELECT\b.*\bFROM|INSERT\s+INTO|DELETE\s+FROM|UPDATE\s+\w+\s+SET|"
                      r"CREATE\s+(TABLE|INDEX)|ALTER\s+TABLE|pg_advisory)", re.DOTALL)
SQL_CALLS = {"text", "execute", "exec_driver_sql", "executemany", "select", "insert", "update",
             "delete"}


def sql_in(path: Path) -> list[str]:
    """Every place in a module that builds or runs SQL: SQLAlchemy imports of statement builders,
    `text()` / `sa.select()` ... calls, any `.execute()`, and string literals or f-strings shaped
    like a statement."""
    tree = ast.parse(path.read_text(), str(path))
    in_fstring = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sqlalchemy"):
            names = {a.name for a in node.names} & (SQL_CALLS | {"sql"})
            found += [f"line {node.lineno}: from {node.module} import {n}" for n in sorted(names)]
        elif isinstance(node, ast.Call) and _runs_sql(node.func):
            found.append(f"line {node.lineno}: {ast.unparse(node)[:80]}")
        elif isinstance(node, ast.JoinedStr):
            parts = "{}".join(v.value for v in node.values
                              if isinstance(v, ast.Constant) and isinstance(v.value, str))
            if SQL_TEXT.search(parts):
                found.append(f"line {node.lineno}: {ast.unparse(node)[:80]}")
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and id(node) not in in_fstring and SQL_TEXT.search(node.value)):
            found.append(f"line {node.lineno}: {node.value[:80]!r}")
    return found


def _runs_sql(func: ast.expr) -> bool:
    """`text(...)`, `sa.text/select/insert/update/delete(...)`, `<anything>.execute(...)`; not
    `validate.text(...)` or a dict's `.update(...)`."""
    if isinstance(func, ast.Name):
        return func.id in {"text", "select"}
    if not isinstance(func, ast.Attribute):
        return False
    if func.attr in {"execute", "exec_driver_sql", "executemany"}:
        return True
    return (func.attr in SQL_CALLS and isinstance(func.value, ast.Name)
            and func.value.id in {"sa", "sqlalchemy"})


@pytest.mark.parametrize("module", FACADES)
def test_facades_hold_no_sql(module: str) -> None:
    assert sql_in(PACKAGE / module) == [], f"SQL in {module}: move it to a store/ query module"


def test_the_sql_check_sees_sql(tmp_path: Path) -> None:
    """The check above cannot pass by being blind: each way SQL used to sit in the client is
    flagged."""
    samples = {
        "from sqlalchemy import text\n": 1,
        "x = text('SELECT 1 FROM t')\n": 2,  # the call and the literal
        "async def f(conn):\n    await conn.execute(q)\n": 1,
        "Q = f'SELECT {cols} FROM memory_facts WHERE agent_id = :a'\n": 1,
        "Q = 'DELETE FROM memory_facts WHERE id = :id'\n": 1,
        "import sqlalchemy as sa\nq = sa.select(t)\n": 1,
        "q = sa.delete(t)\n": 1,
        "d = {}\nd.update(x=1)\nreport.rows.update(d)\n": 0,  # dict methods are not SQL
        '"""Select the newest facts from memory."""\n': 0,  # prose is not SQL
    }
    for source, expected in samples.items():
        path = tmp_path / "sample.py"
        path.write_text(source)
        assert len(sql_in(path)) == expected, (source, sql_in(path))


# ---- recent_messages: explicit context, not metadata ---------------------------------------------
AGENT = "agent_layers"
MSG = "She moved to Lisbon last spring."
CONTEXT = "Ana Souza told me about her new job at Acme Corp."
GOOD = {"entities": [{"name": "Ana Souza", "type": "person"}, {"name": "Lisbon", "type": "place"}],
        "facts": [{"subject": "Ana Souza", "text": "Ana Souza moved to Lisbon", "confidence": 0.9,
                   "importance_category": "biographical_milestone", "attribute_key": "residence",
                   "value": "Lisbon"}],
        "relations": [], "updated_profiles": []}


async def test_recent_messages_reach_the_prompt_not_the_metadata(fresh_db_url, embeddings, fake):
    """Before: write() stored the context inside the caller's metadata (`_recent_messages`), so
    it came back in the event row (and in retrieve()'s sources) as if the caller had sent it."""
    fake.on((INFORMED, MSG), GOOD)
    defaults(fake)
    async with MemoryClient(fresh_db_url, llm=provider(fake), embeddings=embeddings) as memory:
        result = await memory.write(AGENT, MSG, speaker_name="Rafael", occurred_at=T1,
                                    recent_messages=["older, dropped", *[f"m{i}" for i in range(9)],
                                                     CONTEXT],
                                    metadata={"channel": "chat"})
    assert result.success, result.error
    prompts = [r.prompt for r in fake.calls(INFORMED, MSG)]
    assert prompts and all(CONTEXT in p for p in prompts)  # the context reached extraction
    assert all("older, dropped" not in p for p in prompts)  # the last 10 only
    (metadata, trace), = rows(fresh_db_url, "SELECT metadata, trace_json FROM memory_events "
                                            "WHERE agent_id = %s", (AGENT,))
    assert metadata == {"channel": "chat"}  # exactly what the caller gave
    assert trace == {"recent_messages": [*[f"m{i}" for i in range(9)], CONTEXT]}


async def test_a_retried_extraction_sees_the_same_context(fresh_db_url, embeddings, fake):
    """The context is kept apart from metadata, not dropped: extract_pending() of an event whose
    first extraction failed sends the same recent messages."""
    fake.on(INFORMED, Status(500, "down"))
    fake.on(ENTITY_SCAN, Status(503, "still down"))
    defaults(fake)
    async with MemoryClient(fresh_db_url, llm=provider(fake, max_retries=1),
                            embeddings=embeddings) as memory:
        first = await memory.write(AGENT, MSG, speaker_name="Rafael", occurred_at=T1,
                                   recent_messages=[CONTEXT])
        assert first.success is False
        fake.reset()
        fake.on((INFORMED, MSG), GOOD)
        defaults(fake)
        report = await memory.extract_pending(AGENT)
    assert report.events_extracted == 1 and report.facts_added == 1
    prompts = [r.prompt for r in fake.calls(INFORMED, MSG)]
    assert prompts and all(CONTEXT in p for p in prompts)


async def test_context_in_metadata_is_refused_naming_the_fix(memory):
    with pytest.raises(ValidationError, match=r"recent_messages=\[") as err:
        await memory.write(AGENT, MSG, speaker_name="Rafael",
                           metadata={"_recent_messages": [CONTEXT]})
    assert "metadata['_recent_messages']" in str(err.value)
    assert await memory.stats(AGENT) == {t: 0 for t in await memory.stats(AGENT)}  # nothing stored


def test_context_is_a_keyword_only_field_of_the_event() -> None:
    """`EventInput.recent_messages` is keyword-only: a positional argument list written for the
    old field order can never land in it by mistake."""
    from arandu_pipelines.write.events import EventInput

    event = EventInput(AGENT, MSG, "Rafael", T1, recent_messages=[CONTEXT])
    assert event.metadata == {} and event.recent_messages == [CONTEXT]
    with pytest.raises(TypeError):
        EventInput(AGENT, MSG, "Rafael", T1, "s", None, {}, "api", None, None, [CONTEXT])  # type: ignore[misc]


async def test_an_event_stored_before_keeps_its_context_on_retry(fresh_db_url, embeddings, fake):
    """Events written before this change carry the context in metadata `_recent_messages`; a
    pending one still gets it when extraction runs (store/erase.py scrubs both places)."""
    fake.on((INFORMED, MSG), GOOD)
    defaults(fake)
    async with MemoryClient(fresh_db_url, llm=provider(fake), embeddings=embeddings) as memory:
        rows(fresh_db_url, "INSERT INTO memory_events (agent_id, speaker, text, occurred_at, "
                           "metadata, content_hash) VALUES (%s, 'Rafael', %s, %s, %s, 'legacy') "
                           "RETURNING id", (AGENT, MSG, T1, json.dumps({"_recent_messages": [CONTEXT]})))
        report = await memory.extract_pending(AGENT)
    assert report.events_extracted == 1
    prompts = [r.prompt for r in fake.calls(INFORMED, MSG)]
    assert prompts and all(CONTEXT in p for p in prompts)

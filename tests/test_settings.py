"""Issue 17, items 2 and 6: one settings object for the environment, and no process-wide side
effects from importing or using the library.

* every variable is read in one place (`arandu_pipelines/settings.py`): an AST walk finds no
  other `os.environ` / `os.getenv` in the package, and every `ARANDU_*` name the package mentions
  is a declared setting, listed in docs/deploy.md;
* one policy for a bad value: `SettingsError` naming the variable and the fix, also where a
  consumer used to fail with a bare `int()` error or fall back to its default silently;
* importing and using the library (MemoryClient write + retrieve on the local model) leaves the
  process environment, its niceness, scheduling policy and session, and psycopg's global
  adapters as they were (checked in a subprocess, a fresh interpreter);
* MemoryConfig fields that did nothing are gone and are refused as overrides.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from arandu_pipelines.config import MemoryConfig, apply_overrides
from arandu_pipelines.errors import ValidationError
from arandu_pipelines.settings import VARIABLES, Settings, SettingsError

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "arandu_pipelines"


# ---- one place --------------------------------------------------------------------------------------
def _environ_uses(path: Path) -> list[str]:
    """`os.environ`, `os.getenv`, `os.putenv` and `from os import environ/getenv` in a module."""
    tree = ast.parse(path.read_text(), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv", "putenv", "unsetenv"):
            found.append(f"{path.relative_to(ROOT)}:{node.lineno} os.{node.attr}")
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            for alias in node.names:
                if alias.name in ("environ", "getenv", "putenv"):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} from os import {alias.name}")
    return found


def test_the_environment_is_read_in_settings_only():
    uses = [u for p in sorted(PACKAGE.rglob("*.py")) if p.name != "settings.py"
            for u in _environ_uses(p)]
    assert uses == [], "read the environment through arandu_pipelines.settings: " + ", ".join(uses)


def test_every_arandu_variable_the_package_names_is_a_declared_setting():
    names = set()
    for p in PACKAGE.rglob("*.py"):
        names |= set(re.findall(r"\bARANDU_[A-Z][A-Z0-9_]*[A-Z0-9]\b", p.read_text()))
    assert names - set(VARIABLES) == set()


def test_every_setting_is_documented_in_deploy_md():
    doc = (ROOT / "docs" / "deploy.md").read_text()
    missing = [n for n in VARIABLES if f"`{n}`" not in doc]
    assert missing == []


# ---- one policy for a bad value -----------------------------------------------------------------------
BAD = {
    "ARANDU_BATCH_NICE": "lots", "ARANDU_BATCH_IDLE": "maybe", "ARANDU_QUERY_ENCODER": "fp16",
    "ARANDU_PREPARED_STATEMENTS": "sometimes", "ARANDU_SERVER_WATCH_SEC": "0",
    "ARANDU_EMBEDDING_DIMENSIONS": "big", "ARANDU_LLM_TIMEOUT": "-3", "ARANDU_LLM_JSON_MODE": "perhaps",
    "ARANDU_EMBEDDINGS": "openai", "ARANDU_CONSOLIDATION_CRON": "every 6 hours please",
    "ARANDU_CONSOLIDATION_FRESHNESS_HOURS": "half a day", "ARANDU_EXTRACTION_SLA_MINUTES": "30.5",
    "ARANDU_SENSOR_INTERVAL_SECONDS": "0", "ARANDU_IMPORT_SETTLE_SECONDS": "soon",
    "ARANDU_RETRY_BASE_SECONDS": "nan", "ARANDU_STALE_PENDING_MINUTES": "-1",
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_a_bad_value_names_the_variable_and_the_fix(name):
    with pytest.raises(SettingsError) as err:
        Settings({name: BAD[name]}).get(name)
    msg = str(err.value)
    assert name in msg and repr(BAD[name]) in msg and "unset it for the default" in msg
    assert err.value.variable == name
    assert isinstance(err.value, ValidationError) and isinstance(err.value, ValueError)


def test_unset_or_blank_means_the_default():
    s = Settings({"ARANDU_BATCH_NICE": "  ", "ARANDU_QUERY_ENCODER": " ONNX "})
    assert s.batch_nice == 10 and s.batch_idle is True
    assert s.query_encoder == "onnx"
    assert Settings({}).check()["ARANDU_CONSOLIDATION_CRON"] == "0 */6 * * *"


def test_openai_from_env_refuses_bad_numbers_by_name(monkeypatch):
    """Was a bare `int()` / `float()` error that named no variable; an unknown JSON mode was
    silently 'auto'."""
    from arandu_pipelines.providers.openai import OpenAIProvider

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    for name, value in (("ARANDU_EMBEDDING_DIMENSIONS", "big"), ("ARANDU_LLM_TIMEOUT", "soon"),
                        ("ARANDU_LLM_JSON_MODE", "perhaps")):
        with monkeypatch.context() as m:
            m.setenv(name, value)
            with pytest.raises(SettingsError, match=name):
                OpenAIProvider.from_env()


def test_dagster_settings_fail_by_name_instead_of_falling_back(monkeypatch):
    """The sensors used the default silently for an unparsable value; the backlog check raised a
    bare int() error."""
    from arandu_pipelines.assets import checks
    from arandu_pipelines.sensors import import_settle_seconds

    monkeypatch.setenv("ARANDU_IMPORT_SETTLE_SECONDS", "soon")
    with pytest.raises(SettingsError, match="ARANDU_IMPORT_SETTLE_SECONDS"):
        import_settle_seconds()
    monkeypatch.setenv("ARANDU_EXTRACTION_SLA_MINUTES", "half an hour")
    with pytest.raises(SettingsError, match="ARANDU_EXTRACTION_SLA_MINUTES"):
        checks.backlog_minutes()


# ---- no process-wide side effects ------------------------------------------------------------------------
# A fresh interpreter imports the package and writes, retrieves and imports through MemoryClient
# on the local model; nothing process-wide may differ afterwards.
SIDE_EFFECTS = r"""
import asyncio, json, os, sys
def state():
    return {"nice": os.getpriority(os.PRIO_PROCESS, 0), "sid": os.getsid(0), "pgid": os.getpgid(0),
            "policy": os.sched_getscheduler(0)}
env0, state0 = dict(os.environ), state()
import psycopg
from arandu_pipelines import MemoryClient
from arandu_pipelines.providers.local_embeddings import LocalEmbeddings
from arandu_pipelines.store.engine import Vector
imported = dict(os.environ)

async def main(url):
    emb = LocalEmbeddings()
    async with MemoryClient(url, embeddings=emb) as m:
        await m.write("side-fx", "I moved to Lisbon last spring and I love surfing.", "Ana")
        got = await m.retrieve("side-fx", "Where does Ana live?")
        assert got.facts, got
        report = await m.import_messages([{"agent_id": "side-fx", "session_id": "s1", "speaker": "Bruno",
                                           "text": "My sister Carla works at a bakery in Porto.",
                                           "occurred_at": "2024-05-01T10:00:00Z"}])
        assert report.agents == ["side-fx"], report
    emb.warm_up()

asyncio.run(main(sys.argv[1]))
try:
    psycopg.adapters.get_dumper(Vector, psycopg.adapt.PyFormat.AUTO)
    global_dumper = True
except psycopg.ProgrammingError:
    global_dumper = False
changed = sorted(k for k in set(env0) | set(os.environ) if env0.get(k) != os.environ.get(k))
print(json.dumps({"changed": changed, "changed_by_import": sorted(set(imported) ^ set(env0)),
                  "before": state0, "after": state(), "global_dumper": global_dumper}))
"""


@pytest.mark.slow  # loads the model and spaCy in a fresh interpreter (~20 s on the shared machine)
def test_using_the_library_changes_nothing_process_wide(fresh_db_url):
    env = {k: v for k, v in os.environ.items()
           if k not in ("OMP_WAIT_POLICY", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE",
                        "TOKENIZERS_PARALLELISM", "DATABASE_URL")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    p = subprocess.run([sys.executable, "-c", SIDE_EFFECTS, fresh_db_url], check=False, env=env,
                       capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert p.returncode == 0, p.stderr[-3000:]
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert out["changed"] == [], out            # was OMP_WAIT_POLICY, HF_HUB_OFFLINE, ...
    assert out["after"] == out["before"], out    # niceness, session, group, policy
    assert out["global_dumper"] is False         # adapters live on our connections only


def test_the_process_env_defaults_are_applied_only_on_request(monkeypatch):
    from arandu_pipelines import settings as settings_mod

    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "true")    # the owner's own choice is kept
    done = settings_mod.apply_process_env()
    assert done == {"OMP_WAIT_POLICY": "PASSIVE"}
    assert os.environ["TOKENIZERS_PARALLELISM"] == "true"


# ---- MemoryConfig fields that did nothing ----------------------------------------------------------------
DEAD = ("embed_batch_size", "memify_merge_similarity_threshold")


@pytest.mark.parametrize("name", DEAD)
def test_dead_config_fields_are_gone_and_refused_as_overrides(name):
    assert name not in {f.name for f in dataclasses.fields(MemoryConfig)}
    for unknown in ("warn", "raise"):   # retrieve warns on unknown keys; these are refused
        with pytest.raises(ValidationError, match=name) as err:
            apply_overrides(MemoryConfig(), {name: 0.5}, unknown=unknown)
        assert "remove" in str(err.value)


def test_client_level_fields_are_refused_as_per_call_overrides():
    """embedding_dimensions sizes the schema when the client initializes; per call it did nothing."""
    with pytest.raises(ValidationError, match="embedding_dimensions") as err:
        apply_overrides(MemoryConfig(), {"embedding_dimensions": 768}, unknown="warn")
    assert "MemoryConfig(embedding_dimensions=" in str(err.value)
    assert MemoryConfig(embedding_dimensions=768).embedding_dimensions == 768


async def test_retrieve_refuses_a_dead_override(memory):
    with pytest.raises(ValidationError, match="embed_batch_size"):
        await memory.retrieve("nobody", "anything", config_overrides={"embed_batch_size": 8})

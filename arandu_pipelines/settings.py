"""Environment configuration: every variable arandu-pipelines reads, in one place, one policy.

Why one module: the variables used to be read in eleven modules with three policies for a bad
value (a ValueError naming the variable, a bare `int()`/`float()` error naming nothing, or the
default used silently). Here each variable is declared once (name, type, range, default, what it
does) and parsed by one rule:

* unset, or only whitespace: the default;
* a valid value: used;
* anything else: `SettingsError` (a `ValidationError`, hence a `ValueError`) whose message names
  the variable, shows the value (secrets are never shown), says what it accepts and how to get
  the default back. Nothing falls back silently.

Variables are read when a value is needed, not at import, so a library process never fails on a
variable only the Dagster layer uses, and a test that sets a variable sees it. Each raw value is
parsed once (cached by its text). `Settings(environ=...)` reads a given mapping instead of the
process environment (a snapshot, or a check of a deployment's environment before it starts:
`Settings(env).check()`).

The library never writes the process environment. `apply_process_env()` sets the few variables
that must be in the environment before a native library loads (OpenMP's wait policy, the HF
tokenizers' thread pool); it is called by the processes this project owns — the CLI and the
Dagster run worker — and is documented for applications that embed the library.

docs/deploy.md ("Environment variables") lists every variable; a test keeps the two in step.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from arandu_pipelines.errors import ValidationError


class SettingsError(ValidationError):
    """An environment variable holds a value arandu-pipelines cannot use. The message names the
    variable and the fix; `variable` carries its name."""

    def __init__(self, variable: str, message: str) -> None:
        super().__init__(message)
        self.variable = variable


@dataclass(frozen=True)
class Variable:
    """One environment variable: its name, default, what it accepts and which layer reads it."""

    name: str
    default: Any
    accepts: str                      # what a valid value looks like, for the error message
    doc: str                          # what it does (docs/deploy.md's table)
    parse: Callable[[str], Any]       # text -> value; raises ValueError with the reason
    layer: str = "library"            # library | dagster | cli
    secret: bool = False              # never shown in a message


# ---- parsers (each raises ValueError with a short reason; `_parse` turns it into SettingsError) --
def _text(raw: str) -> str:
    return raw.strip()


def _path(raw: str) -> Path:
    return Path(raw.strip()).expanduser()


def _int(lo: int, hi: int) -> Callable[[str], int]:
    def parse(raw: str) -> int:
        try:
            value = int(raw.strip())
        except ValueError:
            raise ValueError("not an integer") from None
        if not lo <= value <= hi:
            raise ValueError(f"out of range {lo}..{hi}")
        return value
    return parse


def _float(lo: float, hi: float = math.inf) -> Callable[[str], float]:
    def parse(raw: str) -> float:
        try:
            value = float(raw.strip())
        except ValueError:
            raise ValueError("not a number") from None
        if not math.isfinite(value) or not lo <= value <= hi:
            raise ValueError(f"must be a finite number >= {lo:g}")
        return value
    return parse


_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


def _bool(raw: str) -> bool:
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ValueError("not a boolean")


def _choice(*choices: str) -> Callable[[str], str]:
    def parse(raw: str) -> str:
        value = raw.strip().lower()
        if value not in choices:
            raise ValueError("not one of the choices")
        return value
    return parse


def _tristate(raw: str) -> bool | None:
    """true / false, or auto (None: the provider decides)."""
    value = raw.strip().lower()
    if value == "auto":
        return None
    return _bool(value)


def _cron(raw: str) -> str:
    value = " ".join(raw.split())
    if len(value.split(" ")) != 5:
        raise ValueError("not a five-field cron expression")
    return value


def _spacy(raw: str) -> str:
    """A spaCy pipeline name; "none" / "off" turn the NER pass off (returned as "")."""
    value = raw.strip()
    return "" if value.lower() in ("none", "off") else value


# ---- the variables ---------------------------------------------------------------------------------
_BOOL = "1/true/yes/on or 0/false/no/off"
VARIABLES: dict[str, Variable] = {v.name: v for v in (
    # library
    Variable("DATABASE_URL", None, "a PostgreSQL URL (postgresql://user:pass@host/db)",
             "The memory database; unset: the embedded PostgreSQL under ARANDU_HOME.", _text,
             secret=True),
    Variable("ARANDU_HOME", None, "a directory path",
             "Where the embedded server keeps its data (default: the user data directory; "
             "/var/lib/arandu-pipelines as root).", _path),
    Variable("ARANDU_SERVER_WATCH_SEC", 2.0, "a number of seconds > 0",
             "How often the embedded server's watchdog checks for live users.", _float(0.01)),
    Variable("ARANDU_QUERY_ENCODER", "int8", "one of int8, onnx, torchscript, eager",
             "The local model's query encoder (a later one is used if the wanted one cannot "
             "be built).", _choice("int8", "onnx", "torchscript", "eager")),
    Variable("ARANDU_PREPARED_STATEMENTS", True, _BOOL,
             "Prepare the read path's plan-stable statements on the server.", _bool),
    Variable("ARANDU_SPACY_MODEL", None, "a spaCy pipeline name, or none",
             "Overrides MemoryConfig.spacy_model (the NER pass of offline extraction); none: "
             "rules only.", _spacy),
    Variable("ARANDU_BATCH_NICE", 10, "an integer from 0 (disabled) to 19",
             "Nice increment of batch processes (CLI --low-priority, Dagster run workers).",
             _int(0, 19)),
    Variable("ARANDU_BATCH_IDLE", True, _BOOL,
             "Batch processes also run under SCHED_IDLE (Linux).", _bool),
    Variable("ARANDU_QUERY_BRIDGE", True, _BOOL,
             "The query's vocabulary bridge (typos, hyphen forms, informal words); 0 turns it off "
             "for A/B measurements (read per call).", _bool),
    Variable("OPENAI_API_KEY", None, "an API key", "OpenAIProvider.from_env(): the API key.",
             _text, secret=True),
    Variable("OPENAI_BASE_URL", None, "an http(s) URL",
             "OpenAIProvider.from_env(): an OpenAI-compatible endpoint.", _text),
    Variable("ARANDU_LLM_MODEL", None, "a model name",
             "OpenAIProvider.from_env() and the Dagster LLM resource: the chat model.", _text),
    Variable("ARANDU_EMBEDDING_MODEL", None, "a model name",
             "OpenAIProvider.from_env(): the embedding model.", _text),
    Variable("ARANDU_EMBEDDING_DIMENSIONS", None, "an integer from 1 to 16000",
             "OpenAIProvider.from_env(): the embedding size.", _int(1, 16_000)),
    Variable("ARANDU_LLM_TIMEOUT", None, "a number of seconds > 0",
             "OpenAIProvider.from_env(): the request timeout.", _float(0.001)),
    Variable("ARANDU_LLM_JSON_MODE", None, "true, false or auto",
             "OpenAIProvider.from_env(): ask for JSON output (auto: detect).", _tristate),
    Variable("ANTHROPIC_API_KEY", None, "an API key",
             "AnthropicProvider: the API key when none is passed.", _text, secret=True),
    # Dagster layer
    Variable("ARANDU_IMPORT_DIR", None, "a directory path",
             "Where the import sensor looks for files (default: ARANDU_HOME/imports).", _path,
             layer="dagster"),
    Variable("ARANDU_EMBEDDINGS", "local", "local or hashing",
             "The Dagster embeddings resource (hashing: smoke tests only).",
             _choice("local", "hashing"), layer="dagster"),
    Variable("ARANDU_LLM_BASE_URL", None, "an http(s) URL",
             "The Dagster LLM resource's endpoint (read by Dagster as an EnvVar).", _text,
             layer="dagster"),
    Variable("ARANDU_LLM_API_KEY", None, "an API key",
             "The Dagster LLM resource's key (read by Dagster as an EnvVar).", _text,
             layer="dagster", secret=True),
    Variable("ARANDU_CONSOLIDATION_CRON", "0 */6 * * *", "a five-field cron expression (UTC)",
             "When every agent's consolidation runs (read when the code location loads).", _cron,
             layer="dagster"),
    Variable("ARANDU_CONSOLIDATION_FRESHNESS_HOURS", 12.0, "a number of hours > 0",
             "Consolidation's freshness policy fails after this many hours (warns at 3/4).",
             _float(0.001), layer="dagster"),
    Variable("ARANDU_EXTRACTION_SLA_MINUTES", 30, "an integer number of minutes >= 1",
             "The extraction backlog check fails for events pending longer than this.",
             _int(1, 10**6), layer="dagster"),
    Variable("ARANDU_SENSOR_INTERVAL_SECONDS", 15, "an integer number of seconds >= 1",
             "Minimum interval of the import and extraction sensors.", _int(1, 86_400),
             layer="dagster"),
    Variable("ARANDU_IMPORT_SETTLE_SECONDS", 2.0, "a number of seconds >= 0",
             "A file must be unchanged this long before the import sensor takes it.", _float(0.0),
             layer="dagster"),
    Variable("ARANDU_RETRY_BASE_SECONDS", 60.0, "a number of seconds >= 0",
             "First wait before a failed event's extraction is retried (doubling per attempt).",
             _float(0.0), layer="dagster"),
    Variable("ARANDU_STALE_PENDING_MINUTES", 10.0, "a number of minutes >= 0",
             "Events pending longer than this are picked up again by the extraction sensor.",
             _float(0.0), layer="dagster"),
    Variable("ARANDU_DAGSTER_PG_URL", None, "a PostgreSQL URL",
             "Dagster's own storage (default: database `dagster` on the DATABASE_URL server, or "
             "the embedded server).", _text, layer="dagster", secret=True),
    Variable("DAGSTER_HOME", None, "a directory path",
             "Dagster's home for `arandu-pipelines dev` (default: ARANDU_HOME/dagster).", _path,
             layer="dagster"),
)}


@lru_cache(maxsize=256)
def _parse(name: str, raw: str) -> Any:
    var = VARIABLES[name]
    if raw.strip() == "":
        return var.default
    try:
        return var.parse(raw)
    except ValueError as exc:
        shown = "(hidden)" if var.secret else repr(raw)
        default = "" if var.default is None else f" ({_show(var.default)})"
        raise SettingsError(name, f"environment variable {name}={shown} is not valid ({exc}): it "
                                  f"must be {var.accepts}; fix it, or unset it for the "
                                  f"default{default}") from None


def _opt_path(value: Any) -> Path | None:
    return None if value is None else Path(value)


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


class Settings:
    """The environment configuration, read when a value is asked for (see the module docstring).

    `settings` (the module-level instance) reads the process environment; `Settings(mapping)`
    reads a mapping. Every attribute raises `SettingsError` for an invalid value."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        self._environ = environ

    def _env(self) -> Mapping[str, str]:
        return os.environ if self._environ is None else self._environ

    def get(self, name: str) -> Any:
        """The parsed value of variable `name` (its default when unset or blank)."""
        if name not in VARIABLES:
            raise KeyError(f"{name} is not an arandu-pipelines setting (see settings.VARIABLES)")
        raw = self._env().get(name)
        return VARIABLES[name].default if raw is None else _parse(name, raw)

    def is_set(self, name: str) -> bool:
        """Whether `name` holds a non-blank value (Dagster's EnvVar is used only then)."""
        if name not in VARIABLES:
            raise KeyError(f"{name} is not an arandu-pipelines setting (see settings.VARIABLES)")
        return bool((self._env().get(name) or "").strip())

    def check(self, layer: str | None = None) -> dict[str, Any]:
        """Every variable (of `layer`, if given) parsed: raises on the first invalid one. For a
        deployment check before anything starts."""
        return {n: self.get(n) for n, v in VARIABLES.items() if layer is None or v.layer == layer}

    # ---- library ----
    @property
    def database_url(self) -> str | None:
        return self.get("DATABASE_URL") or None

    @property
    def home(self) -> Path | None:
        return _opt_path(self.get("ARANDU_HOME"))

    @property
    def server_watch_sec(self) -> float:
        return float(self.get("ARANDU_SERVER_WATCH_SEC"))

    @property
    def query_encoder(self) -> str:
        return str(self.get("ARANDU_QUERY_ENCODER"))

    @property
    def prepared_statements(self) -> bool:
        return bool(self.get("ARANDU_PREPARED_STATEMENTS"))

    @property
    def spacy_model(self) -> str | None:
        """The pipeline forced by the environment ("" = none), or None: MemoryConfig decides."""
        value = self.get("ARANDU_SPACY_MODEL")
        return None if value is None else str(value)

    @property
    def batch_nice(self) -> int:
        return int(self.get("ARANDU_BATCH_NICE"))

    @property
    def batch_idle(self) -> bool:
        return bool(self.get("ARANDU_BATCH_IDLE"))

    @property
    def query_bridge(self) -> bool:
        return bool(self.get("ARANDU_QUERY_BRIDGE"))

    @property
    def anthropic_api_key(self) -> str | None:
        return self.get("ANTHROPIC_API_KEY") or None

    def openai_kwargs(self) -> dict[str, Any]:
        """OpenAIProvider keyword arguments given by the environment (only those set)."""
        names = {"OPENAI_API_KEY": "api_key", "OPENAI_BASE_URL": "base_url",
                 "ARANDU_LLM_MODEL": "model", "ARANDU_EMBEDDING_MODEL": "embedding_model",
                 "ARANDU_EMBEDDING_DIMENSIONS": "dimensions", "ARANDU_LLM_TIMEOUT": "timeout",
                 "ARANDU_LLM_JSON_MODE": "json_mode"}
        return {kw: self.get(var) for var, kw in names.items() if self.get(var) is not None}

    # ---- Dagster layer ----
    @property
    def import_dir(self) -> Path | None:
        return _opt_path(self.get("ARANDU_IMPORT_DIR"))

    @property
    def embeddings_provider(self) -> str:
        return str(self.get("ARANDU_EMBEDDINGS"))

    @property
    def consolidation_cron(self) -> str:
        return str(self.get("ARANDU_CONSOLIDATION_CRON"))

    @property
    def consolidation_freshness_hours(self) -> float:
        return float(self.get("ARANDU_CONSOLIDATION_FRESHNESS_HOURS"))

    @property
    def extraction_sla_minutes(self) -> int:
        return int(self.get("ARANDU_EXTRACTION_SLA_MINUTES"))

    @property
    def sensor_interval_seconds(self) -> int:
        return int(self.get("ARANDU_SENSOR_INTERVAL_SECONDS"))

    @property
    def import_settle_seconds(self) -> float:
        return float(self.get("ARANDU_IMPORT_SETTLE_SECONDS"))

    @property
    def retry_base_seconds(self) -> float:
        return float(self.get("ARANDU_RETRY_BASE_SECONDS"))

    @property
    def stale_pending_minutes(self) -> float:
        return float(self.get("ARANDU_STALE_PENDING_MINUTES"))

    @property
    def dagster_pg_url(self) -> str | None:
        return self.get("ARANDU_DAGSTER_PG_URL") or None

    @property
    def dagster_home(self) -> Path | None:
        return _opt_path(self.get("DAGSTER_HOME"))


settings = Settings()


# ---- the environment of processes this project owns ----------------------------------------------
#: Set before torch / tokenizers load, in processes the project owns (`apply_process_env`).
#: OMP_WAIT_POLICY=PASSIVE: idle OpenMP threads sleep instead of spinning, so torch's pool does not
#: steal the cores Postgres needs between two encodes (measured: CPU per retrieve 76 -> 37 ms
#: under load). TOKENIZERS_PARALLELISM=false: no tokenizer thread pool (and no warning at fork).
PROCESS_ENV: dict[str, str] = {"OMP_WAIT_POLICY": "PASSIVE", "TOKENIZERS_PARALLELISM": "false"}


def apply_process_env(values: Mapping[str, str] | None = None) -> dict[str, str]:
    """Set `values` (default `PROCESS_ENV`) in this process's environment where not set already,
    and return what was set. Only for a process's owner: the CLI, the Dagster run worker, a bench
    or an application's own start-up (before torch is imported). The library never calls it."""
    done: dict[str, str] = {}
    for name, value in (PROCESS_ENV if values is None else values).items():
        if name not in os.environ:
            os.environ[name] = value
            done[name] = value
    return done


def child_environ(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This process's environment plus `extra`, for a child process this project starts."""
    return {**os.environ, **(extra or {})}


__all__ = ["PROCESS_ENV", "VARIABLES", "Settings", "SettingsError", "Variable",
           "apply_process_env", "child_environ", "settings"]

"""The run executor: in-process, and the one place a run worker lowers its CPU priority.

Runs are batch work (import, extraction, consolidation, checks). A run launched by the daemon,
the UI or a deployment's run launcher executes in a process of its own (the run worker: a
`dagster api execute_run` process or the code server's run subprocess), and Dagster creates the
job's executor in that process before any step computes. That is where priority is lowered,
explicitly, once: never in a resource (resources are also set up by `materialize()` and
`execute_in_process()` inside a test or a serving script, which Dagster always runs with its own
`execute_in_process_executor`, so this hook never fires there).

`ARANDU_BATCH_NICE` (default 10; 0 = off) and `ARANDU_BATCH_IDLE` (default 1) configure it; an
invalid value fails the run with an error naming the variable. The embedded PostgreSQL is
started (or joined) first, at normal priority (see `store.engine.start_batch_process`).
"""

from dagster import Failure, InitExecutorContext, executor, in_process_executor

from arandu_pipelines.settings import apply_process_env, settings


def lower_run_worker_priority(context: InitExecutorContext) -> int:
    """Lower the run worker's priority (nice, own session/autogroup, SCHED_IDLE on Linux).

    Only for a run on a persistent instance: an ephemeral instance means the caller executes the
    job inside its own process (a script or a test) and keeps its priority. Returns the increment
    applied (0 when off or skipped)."""
    if context.instance is None or context.instance.is_ephemeral:
        return 0
    from arandu_pipelines.store.engine import start_batch_process

    apply_process_env()   # before torch loads in this process (see settings.PROCESS_ENV)
    try:
        return start_batch_process(settings.database_url)
    except ValueError as exc:   # a bad ARANDU_BATCH_NICE / ARANDU_BATCH_IDLE: say which
        raise Failure(str(exc), allow_retries=False) from None


# Dagster's stubs: `executor()` does not list the config schema type an executor definition
# exposes, and `executor_creation_fn` is Optional though the built-in one is always set.
@executor(name="in_process", config_schema=in_process_executor.config_schema)  # type: ignore[call-overload]
def batch_in_process_executor(init_context: InitExecutorContext):
    """Executes all steps of a run in the run worker's process (one agent's steps are short SQL
    statements, and the embedding model loads once per run), after lowering that process's CPU
    priority for batch work (ARANDU_BATCH_NICE, default 10, 0 = off)."""
    lower_run_worker_priority(init_context)
    return in_process_executor.executor_creation_fn(init_context)  # type: ignore[misc]


__all__ = ["batch_in_process_executor", "lower_run_worker_priority"]

"""The code location: one `Definitions` with every asset, check, job and sensor (consolidation
runs by automation condition, so there is no schedule).

Loaded by `workspace.yaml` and by `dg` (pyproject `[tool.dg.project]`), both under the location
name `arandu_pipelines` (run history is keyed by it; `dagster dev -m arandu_pipelines.definitions`
would name it after the module, so use the workspace). Resources come from the environment (see
`resources/`): DATABASE_URL (unset: the embedded server), ARANDU_LLM_* (unset: offline),
ARANDU_EMBEDDINGS (default: local MiniLM), ARANDU_IMPORT_DIR (the drop directory).

Runs use the in-process executor (`jobs/executor.py`): the steps of one agent's run are short SQL
statements, and one process loads the embedding model once for the whole run instead of once per
step. That executor is also where a run worker lowers its own CPU priority (batch work); nothing
else in the code location changes the priority of the process it runs in.
"""

from dagster import Definitions

from arandu_pipelines.assets import ALL_ASSETS, MEMORY_HEALTH_CHECKS
from arandu_pipelines.jobs import ALL_JOBS
from arandu_pipelines.jobs.executor import batch_in_process_executor
from arandu_pipelines.resources import default_resources
from arandu_pipelines.sensors import ALL_SENSORS

defs = Definitions(
    assets=ALL_ASSETS,
    asset_checks=MEMORY_HEALTH_CHECKS,
    jobs=ALL_JOBS,
    sensors=ALL_SENSORS,
    resources=default_resources(),
    executor=batch_in_process_executor,
)

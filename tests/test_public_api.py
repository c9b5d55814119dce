"""Every name the specification imports from `arandu` imports from `arandu_pipelines` (issue 15).

The names are collected from the seeds themselves (`from arandu[.x] import A, (B, C)` and
`import arandu.x`), so a seed that documents a new name makes this test fail until it exists.
"""

from __future__ import annotations

import importlib

import pytest

from tests.seed_code import SEEDS, documented_names

pytestmark = pytest.mark.skipif(not SEEDS.is_dir(), reason="the specification (seeds) is not on this machine")

NAMES = sorted(documented_names(), key=lambda mn: (mn[0], mn[1] or ""))


def _importable(module: str, name: str | None) -> bool:
    try:
        mod = importlib.import_module(module)
    except ImportError:
        return False
    return name is None or hasattr(mod, name)


def test_the_seeds_document_64_names() -> None:
    # A guard on the collector itself: fewer means the regex lost the multi-line imports.
    assert len(NAMES) == 64, NAMES


def test_every_documented_name_imports() -> None:
    present = [mn for mn in NAMES if _importable(*mn)]
    missing = [f"{m}.{n}" if n else m for m, n in NAMES if (m, n) not in present]
    print(f"\npublic API: {len(present)}/{len(NAMES)} documented names import")
    assert not missing, f"{len(missing)} documented names missing: {missing}"


@pytest.mark.parametrize("module,name", NAMES, ids=[f"{m}.{n}" for m, n in NAMES])
def test_documented_name(module: str, name: str | None) -> None:
    assert _importable(module, name)

"""docs/architecture.md's module map lists every module of the package, and nothing else.

Why: the map is how the next engineer finds where a job lives; after a move or a new module it
goes stale silently unless something compares it with the tree. Pure file reading, no database.
"""

from __future__ import annotations

import re
from pathlib import Path

import arandu_pipelines

ROOT = Path(arandu_pipelines.__file__).resolve().parent
DOC = ROOT.parent / "docs" / "architecture.md"

#: Modules the map may list before their branch is merged, with the branch that brings them.
#: Once the file exists it is checked like any other; drop the entry then.
PENDING: dict[str, str] = {}  # module rows a branch in flight will add: path -> branch


def package_modules() -> set[str]:
    """Every module path relative to the package, except empty `__init__.py` files."""
    found = set()
    for path in ROOT.rglob("*.py"):
        if "__pycache__" in path.parts:
            continue
        if path.name == "__init__.py" and not path.read_text(encoding="utf-8").strip():
            continue
        found.add(path.relative_to(ROOT).as_posix())
    return found


def module_map() -> str:
    """The text of the doc's "## Module map" section."""
    text = DOC.read_text(encoding="utf-8")
    start = text.index("\n## Module map")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else len(text)]


def map_rows() -> set[str]:
    """The module paths the map's tables name in their first column."""
    return set(re.findall(r"^\| `([\w/]+\.py)` \|", module_map(), flags=re.MULTILINE))


def test_every_module_is_in_the_map():
    missing = sorted(package_modules() - map_rows())
    assert not missing, (
        f"modules missing from docs/architecture.md's module map: {missing}; add a row "
        "`| `path` | its one job |` to the table of its layer")


def test_the_map_names_no_module_that_does_not_exist():
    rows = map_rows()
    stale = sorted(rows - package_modules() - set(PENDING))
    assert not stale, (
        f"docs/architecture.md's module map lists modules that no longer exist: {stale}; "
        "remove or rename their rows")


def test_each_module_is_listed_once():
    rows = re.findall(r"^\| `([\w/]+\.py)` \|", module_map(), flags=re.MULTILINE)
    twice = sorted({r for r in rows if rows.count(r) > 1})
    assert not twice, f"listed more than once in the module map: {twice}"

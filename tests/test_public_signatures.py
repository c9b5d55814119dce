"""Every signature the specification declares (`def f(...) -> T` blocks and `@dataclass class X`
headers in seed 004) matches our public function or type (issue 15): each documented parameter
is accepted under its name, positional ones at their position."""

from __future__ import annotations

import ast
import importlib
import inspect
import re

import pytest

from tests.seed_code import SEEDS, python_examples, reindent
from tests.test_seed_examples import is_declaration

pytestmark = pytest.mark.skipif(not SEEDS.is_dir(), reason="the specification (seeds) is not on this machine")

MODULES = ["arandu_pipelines", "arandu_pipelines.write", "arandu_pipelines.read", "arandu_pipelines.db",
           "arandu_pipelines.background", "arandu_pipelines.protocols"]
DECLS = [e for e in python_examples() if is_declaration(e)]
FUNCS = [e for e in DECLS if re.match(r"^(async def|def) ", e.code.strip())]
TYPES = [e for e in DECLS if e not in FUNCS]


def find(name: str) -> object:
    for m in MODULES:
        obj = getattr(importlib.import_module(m), name, None)
        if obj is not None:
            return obj
    raise AssertionError(f"{name} is documented by the specification but not public in any of {MODULES}")


@pytest.mark.parametrize("example", FUNCS, ids=[e.id for e in FUNCS])
def test_documented_function_signature(example) -> None:
    tree = ast.parse(reindent(example.code.strip()) + "    ...\n" if example.code.strip().endswith(":")
                     else example.code.strip() + ":\n    ...\n")
    spec = tree.body[0]
    assert isinstance(spec, (ast.FunctionDef, ast.AsyncFunctionDef))
    ours = find(spec.name)
    params = list(inspect.signature(ours).parameters.values())
    names = [p.name for p in params]
    assert inspect.iscoroutinefunction(ours) == isinstance(spec, ast.AsyncFunctionDef), "sync/async differs"
    for i, a in enumerate(spec.args.args):
        assert i < len(params) and params[i].name == a.arg, \
            f"{spec.name}: positional parameter {i} is {a.arg!r} in the spec, {names[i] if i < len(names) else None!r} here"
    for a in spec.args.kwonlyargs:
        assert a.arg in names, f"{spec.name}: keyword {a.arg!r} of the spec is not accepted"
    required = [p.name for p in params if p.default is inspect.Parameter.empty
                and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    documented = {a.arg for a in spec.args.args + spec.args.kwonlyargs}
    assert set(required) <= documented, f"{spec.name}: requires parameters the spec does not pass"


@pytest.mark.parametrize("example", TYPES, ids=[e.id for e in TYPES])
def test_documented_type_exists(example) -> None:
    name = re.search(r"class (\w+)", example.code).group(1)
    assert inspect.isclass(find(name))

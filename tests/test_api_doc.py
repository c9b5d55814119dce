"""docs/api.md documents every public name, and the public signatures are typed (issue 15).

Public = `__all__` of the package and of db / read / write / background / providers /
protocols, plus providers.anthropic.AnthropicProvider. A name counts as documented when a
heading of docs/api.md names it (`### \\`name\\``)."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

MODULES = ["arandu_pipelines", "arandu_pipelines.db", "arandu_pipelines.read", "arandu_pipelines.write",
           "arandu_pipelines.background", "arandu_pipelines.providers", "arandu_pipelines.protocols"]
DOC = Path(__file__).resolve().parents[1] / "docs" / "api.md"

#: Public callables whose annotations still say Any, each owned by a module outside the public
#: face (see docs/api.md, "Typing"). A new entry needs a reason; an entry that is fixed fails.
KNOWN_ANY: set[str] = set()  # every public signature is typed


def public_names() -> set[str]:
    names = {n for m in MODULES for n in importlib.import_module(m).__all__}
    return names | {"AnthropicProvider"}


def public_objects() -> dict[str, object]:
    from arandu_pipelines.providers.anthropic import AnthropicProvider

    out: dict[str, object] = {"AnthropicProvider": AnthropicProvider}
    for m in MODULES:
        mod = importlib.import_module(m)
        for n in mod.__all__:
            out.setdefault(n, getattr(mod, n))
    return out


def test_every_public_name_has_an_entry() -> None:
    headings = set(re.findall(r"^#{2,4} `([\w.]+)`", DOC.read_text(encoding="utf-8"), re.MULTILINE))
    missing = sorted(public_names() - headings)
    print(f"\npublic names: {len(public_names())}, documented: {len(public_names()) - len(missing)}")
    assert not missing, f"not documented in docs/api.md: {missing}"


def _annotated_any(fn: object) -> bool:
    try:
        sig = inspect.signature(fn)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
    texts = [str(p.annotation) for p in sig.parameters.values()] + [str(sig.return_annotation)]
    return any(re.search(r"\bAny\b", t) for t in texts)


def test_public_signatures_have_no_any() -> None:
    found: set[str] = set()
    for name, obj in public_objects().items():
        if inspect.isclass(obj):
            if hasattr(obj, "__dataclass_fields__"):
                members = [(k, v) for k, v in vars(obj).items() if k != "__init__"]
            else:
                members = list(vars(obj).items())
            for k, v in members:
                if callable(v) and (not k.startswith("_") or k == "__init__") and _annotated_any(v):
                    found.add(f"{name}.{k}")
        elif callable(obj) and _annotated_any(obj):
            found.add(name)
    assert found - KNOWN_ANY == set(), f"public signatures with Any: {sorted(found - KNOWN_ANY)}"
    assert KNOWN_ANY - found == set(), f"fixed, remove from KNOWN_ANY: {sorted(KNOWN_ANY - found)}"


def test_retrieve_is_typed() -> None:
    from arandu_pipelines import MemoryClient
    from arandu_pipelines.read import RetrieveResult

    assert inspect.signature(MemoryClient.retrieve).return_annotation in ("RetrieveResult", RetrieveResult)

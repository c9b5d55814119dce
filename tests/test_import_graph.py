"""The package's import graph: one-way layers, no private reach-ins, no cycle.

Why: a change to one layer must not ripple into the layers under it. The graph is read with
`ast` (nothing is imported, so no side effect can hide an edge), and includes imports made
inside functions: a deferred import is still a dependency, it only hides a cycle from Python.

Layers, lowest first (a module may import its own layer and the layers under it):

    base        errors, types, protocols, config, validate, vocab, keys, settings, providers/,
                ... (shared helpers with no memory logic of their own)
    store       store/ (engine, schema, queries, targets: the handles the spec's functions take)
    pipelines   write/, read/, background/   (siblings: public names only between them)
    client      client, db, the package's __init__, and the FACADES below
    shell       cli and the Dagster shell (assets/, jobs/, sensors/, resources/,
                definitions, partitions, devserver)

The one exception, by module and with its reason, is FACADES: the specification exports its
whole-pipeline functions from `arandu.write` / `arandu.read`, and they run over a MemoryClient,
so those package namespaces are facades one layer up from the modules beside them. They import
the client inside the function (importing the client loads write/ and read/ modules, whose
package is then still loading), and no library module imports them.

Not modelled: that importing `a.b.c` first runs `a/__init__` and `a/b/__init__`. Those edges are
Python's, not the source's; with them every write/ module would "reach" the facades above.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import arandu_pipelines

PACKAGE = "arandu_pipelines"
ROOT = Path(arandu_pipelines.__file__).resolve().parent

SHELL_TOP = {"cli", "assets", "jobs", "sensors", "resources", "definitions",
             "partitions", "devserver"}
CLIENT_TOP = {"client", "db"}

#: Modules in a library package that belong to the client layer, each with its reason.
FACADES = {
    "arandu_pipelines.write": "the spec's `arandu.write` namespace: re-exports run_write_pipeline",
    "arandu_pipelines.write.api": "run_write_pipeline(session, ...) runs MemoryClient.write",
    "arandu_pipelines.read": "the spec's `arandu.read` namespace: re-exports run_read_pipeline",
    "arandu_pipelines.read.api": "run_read_pipeline(session, ...) runs MemoryClient.retrieve",
}
PIPELINE_TOP = {"write", "read", "background"}
STORE_TOP = {"store"}
RANK = {"base": 0, "store": 1, "pipelines": 2, "client": 3, "shell": 4}


def layer_of(module: str) -> str:
    """The layer of a dotted module name inside the package."""
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else "__init__"
    if module in FACADES:
        return "client"
    if top == "__init__":
        return "client"  # the package's __init__ re-exports the public API
    if top in SHELL_TOP:
        return "shell"
    if top in CLIENT_TOP:
        return "client"
    if top in PIPELINE_TOP:
        return "pipelines"
    if top in STORE_TOP:
        return "store"
    return "base"


def package_of(module: str) -> str:
    """The unit privacy is judged at: the top-level subpackage, or the top-level module."""
    parts = module.split(".")
    return ".".join(parts[:2])


def unit_of(module: str) -> str:
    """The node of the package-level graph: a facade counts with the client it fronts."""
    return f"{PACKAGE}.client" if module in FACADES else package_of(module)


@dataclass(frozen=True)
class Edge:
    src: str
    dst: str
    names: tuple[str, ...]  # names taken with `from dst import a, b`
    lineno: int


def module_files() -> dict[str, Path]:
    """Every module of the package (migrations' version scripts are Alembic's, not ours)."""
    out: dict[str, Path] = {}
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT.parent).with_suffix("")
        parts = list(rel.parts)
        if "versions" in parts:
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _resolve(module: str, is_pkg: bool, level: int, target: str | None) -> str:
    """Absolute name of a (possibly relative) `from ... import` target."""
    if level == 0:
        return target or ""
    base = module.split(".")
    if not is_pkg:
        base = base[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def parse_edges(modules: dict[str, Path]) -> tuple[list[Edge], dict[str, list[tuple[str, str, int]]]]:
    """Import edges between package modules + attribute accesses on imported modules.

    Returns (edges, attr_uses): attr_uses[src] lists (imported module, attribute, line) for
    every `alias.attr` where alias is bound to a package module by an import.
    """
    edges: list[Edge] = []
    attr_uses: dict[str, list[tuple[str, str, int]]] = defaultdict(list)
    for mod, path in modules.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        is_pkg = path.name == "__init__.py"
        bound: dict[str, str] = {}  # local alias -> package module it names
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] != PACKAGE:
                        continue
                    edges.append(Edge(mod, alias.name, (), node.lineno))
                    if alias.asname:
                        bound[alias.asname] = alias.name
            elif isinstance(node, ast.ImportFrom):
                target = _resolve(mod, is_pkg, node.level, node.module)
                if target.split(".")[0] != PACKAGE:
                    continue
                plain: list[str] = []
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    if sub in modules:  # `from pkg import submodule`
                        edges.append(Edge(mod, sub, (), node.lineno))
                        bound[alias.asname or alias.name] = sub
                    else:
                        plain.append(alias.name)
                if plain or not node.names:
                    edges.append(Edge(mod, target, tuple(plain), node.lineno))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in bound):
                attr_uses[mod].append((bound[node.value.id], node.attr, node.lineno))
    return edges, attr_uses


def _known(modules: dict[str, Path], name: str) -> str:
    """The nearest module of the package that `name` is (or lives in)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name


def _graph() -> tuple[dict[str, Path], list[Edge], dict[str, list[tuple[str, str, int]]]]:
    modules = module_files()
    edges, attrs = parse_edges(modules)
    edges = [Edge(e.src, _known(modules, e.dst), e.names, e.lineno) for e in edges]
    return modules, [e for e in edges if e.dst and e.dst != e.src], attrs


def test_the_walk_sees_the_whole_package() -> None:
    """Guard the test itself: it must find the layers and the deferred imports."""
    modules, edges, _ = _graph()
    layers = {layer_of(m) for m in modules}
    assert layers == set(RANK), layers
    assert len(modules) > 100
    srcs = {e.src for e in edges}
    assert f"{PACKAGE}.client" in srcs and f"{PACKAGE}.write.pipeline" in srcs
    # an import inside a function body is an edge: the facade's deferred import of the client
    assert any(e.src == f"{PACKAGE}.write.api" and e.dst == f"{PACKAGE}.client" for e in edges)
    # `from pkg import submodule` is an edge to the submodule, not to the package
    assert any(e.src == f"{PACKAGE}.write.extract_rules" and e.dst == f"{PACKAGE}.write.lexicon"
               for e in edges)


def test_layers_import_one_way() -> None:
    """No module imports a layer above its own; store, write, read, background stay library."""
    _, edges, _ = _graph()
    bad = [
        f"{e.src}:{e.lineno} ({layer_of(e.src)}) imports {e.dst} ({layer_of(e.dst)})"
        for e in edges
        if RANK[layer_of(e.dst)] > RANK[layer_of(e.src)]
    ]
    assert not bad, "upward imports:\n" + "\n".join(bad)


def test_library_never_imports_dagster() -> None:
    """The memory library runs without Dagster; only the shell may import it."""
    bad = []
    for mod, path in module_files().items():
        if layer_of(mod) == "shell":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
                     else [])
            bad += [f"{mod}:{node.lineno} imports {n}" for n in names
                    if n.split(".")[0] in {"dagster", "dagster_postgres", "dagster_webserver"}]
    assert not bad, "\n".join(bad)


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def test_no_private_name_crosses_a_package() -> None:
    """`from x import _name` and `x._name` only inside one (sub)package.

    A leading underscore says "free to change"; a reach-in from elsewhere makes that a lie.
    Private *modules* (`store/_server_watchdog.py`) follow the same rule.
    """
    _, edges, attrs = _graph()
    bad = []
    for e in edges:
        if package_of(e.src) == package_of(e.dst):
            continue
        tail = e.dst.split(".")[1:]
        if any(_private(p) for p in tail):
            bad.append(f"{e.src}:{e.lineno} imports private module {e.dst}")
        bad += [f"{e.src}:{e.lineno} imports {e.dst}.{n}" for n in e.names if _private(n)]
    for src, uses in attrs.items():
        bad += [f"{src}:{line} uses {dst}.{attr}" for dst, attr, line in uses
                if package_of(src) != package_of(dst) and _private(attr)]
    assert not bad, "private reach-ins:\n" + "\n".join(sorted(set(bad)))


def _private_definitions(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Private names each package defines: functions, classes, assignments, `self._x = ...`."""
    out: dict[str, set[str]] = defaultdict(set)
    for mod, path in modules.items():
        names = out[package_of(mod)]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            targets = (node.targets if isinstance(node, ast.Assign)
                       else [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign))
                       else [])
            for t in targets:
                for sub in ast.walk(t):
                    if isinstance(sub, ast.Name):
                        names.add(sub.id)
                    elif (isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name)
                          and sub.value.id in {"self", "cls"}):
                        names.add(sub.attr)
        out[package_of(mod)] = {n for n in names if _private(n)}
    return out


#: (module, attribute) pairs where the object is not ours, so the name only looks like one of ours.
FOREIGN_PRIVATE = {
    ("arandu_pipelines.store.embedded", "_lock"): "the embedded-server wheel's own lock, "
    "taken to restart its postmaster (a third-party object; we hold no lock named so there)",
}


def test_no_private_attribute_of_another_package() -> None:
    """`obj._name` (or getattr(obj, "_name")) where `_name` is defined only in another package:
    e.g. write/ calling `client._pipeline(...)`. What a caller needs is passed to it or public."""
    modules = module_files()
    owners: dict[str, set[str]] = defaultdict(set)
    for pkg, names in _private_definitions(modules).items():
        for n in names:
            owners[n].add(pkg)
    bad = []
    for mod, path in modules.items():
        here = package_of(mod)
        for node in ast.walk(ast.parse(path.read_text())):
            name = None
            if (isinstance(node, ast.Attribute) and _private(node.attr)
                    and not (isinstance(node.value, ast.Name) and node.value.id in {"self", "cls"})):
                name = node.attr
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                  and node.func.id in {"getattr", "setattr", "hasattr"} and len(node.args) >= 2
                  and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)
                  and _private(node.args[1].value)):
                name = node.args[1].value
            if (name and owners.get(name) and here not in owners[name]
                    and (mod, name) not in FOREIGN_PRIVATE):
                bad.append(f"{mod}:{node.lineno} uses ._{name.lstrip('_')} of {sorted(owners[name])}")
    assert not bad, "private attributes reached across packages:\n" + "\n".join(sorted(bad))


def _sccs(nodes: list[str], succ: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components (iterative: no recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(succ.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(succ.get(nxt, ())))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        comp.append(top)
                        if top == node:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_sccs_finds_a_planted_cycle() -> None:
    """Guard the detector: a 3-cycle plus a tail is one component of three."""
    succ = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set()}
    assert _sccs(list(succ), succ) == [["a", "b", "c"]]


def test_no_module_cycle() -> None:
    """No two modules of the package reach each other, even through deferred imports."""
    modules, edges, _ = _graph()
    succ: dict[str, set[str]] = defaultdict(set)
    for e in edges:
        succ[e.src].add(e.dst)
    cycles = _sccs(sorted(modules), succ)
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_facades_are_only_entered_from_above() -> None:
    """A facade is client layer: no library module may import it (that would be a cycle that
    only the facade's deferred import hides)."""
    _, edges, _ = _graph()
    bad = [f"{e.src}:{e.lineno} imports facade {e.dst}" for e in edges
           if e.dst in FACADES and e.src not in FACADES and RANK[layer_of(e.src)] < RANK["client"]]
    assert not bad, "\n".join(bad)


def test_no_package_cycle() -> None:
    """Between top-level packages too: write/read/background never import each other both ways."""
    _, edges, _ = _graph()
    succ: dict[str, set[str]] = defaultdict(set)
    for e in edges:
        a, b = unit_of(e.src), unit_of(e.dst)
        if a != b and a != PACKAGE:
            succ[a].add(b)
    nodes = sorted(set(succ) | {d for s in succ.values() for d in s})
    cycles = _sccs(nodes, succ)
    assert not cycles, "package cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)

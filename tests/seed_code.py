"""Read the specification's code from the seeds: its `arandu` imports and its python examples.

Shared by tests/test_public_api.py (every documented name imports) and tests/test_seed_examples.py
(every documented example runs). `arandu` maps to `arandu_pipelines`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"
if not SEEDS.is_dir():  # worktrees live in /work/wt/NAME, the main checkout in /work/main
    SEEDS = Path("/work/shared/seeds")

_FROM = re.compile(r"^\s*from\s+(arandu(?:\.[\w.]+)?)\s+import\s+(\([^)]*\)|[^\n#]+)", re.M)
_IMPORT = re.compile(r"^\s*import\s+(arandu(?:\.[\w.]+)?)\b", re.M)


def map_module(module: str) -> str:
    """`arandu[.x]` -> `arandu_pipelines[.x]`."""
    return "arandu_pipelines" + module[len("arandu"):]


def seed_texts() -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(SEEDS.glob("*.txt"))}


def documented_names() -> set[tuple[str, str | None]]:
    """Every (module, name) the seeds import from arandu; name None for `import arandu.x`."""
    found: set[tuple[str, str | None]] = set()
    for text in seed_texts().values():
        for module, names in _FROM.findall(text):
            body = re.sub(r"#[^\n]*", "", names.strip("()"))
            for part in body.split(","):
                name = part.strip().split(" as ")[0].strip()
                if name:
                    found.add((map_module(module), name))
        for module in _IMPORT.findall(text):
            found.add((map_module(module), None))
    return found


@dataclass(frozen=True)
class Example:
    seed: str
    line: int        # 1-based line of the opening fence
    section: str     # nearest heading above it
    code: str

    @property
    def id(self) -> str:
        return f"{self.seed[:3]}:{self.line}"


_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")


def python_examples() -> list[Example]:
    """Every ```python block of every seed, with the heading it sits under."""
    out: list[Example] = []
    for seed, text in seed_texts().items():
        lines = text.splitlines()
        section = ""
        i = 0
        while i < len(lines):
            line = lines[i]
            m = _HEADING.match(line)
            if m:
                section = m.group(2).strip()
            if line.strip().startswith("```python") or line.strip() == "```py":
                start = i
                body: list[str] = []
                i += 1
                while i < len(lines) and not lines[i].strip().startswith("```"):
                    body.append(lines[i])
                    i += 1
                out.append(Example(seed, start + 1, section, "\n".join(body)))
            i += 1
    return out


def map_code(code: str) -> str:
    """The example with `arandu` imports pointed at `arandu_pipelines`."""
    code = re.sub(r"^(\s*)from\s+arandu(\.|\s)", r"\1from arandu_pipelines\2", code, flags=re.M)
    return re.sub(r"^(\s*)import\s+arandu(\.|\s|$)", r"\1import arandu_pipelines\2", code, flags=re.M)

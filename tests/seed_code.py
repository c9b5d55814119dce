"""Read the specification's code from the seeds: its `arandu` imports and its python examples.

Shared by tests/test_public_api.py (every documented name imports) and tests/test_seed_examples.py
(every documented example runs). `arandu` maps to `arandu_pipelines`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

# $ARANDU_SEEDS, else `shared/seeds` beside the repository, else beside the folder that holds
# its git worktrees (a worktree sits one level deeper): never a path of one machine's layout.
_REPO = Path(__file__).resolve().parents[1]
SEEDS = next((p for p in [*([Path(os.environ["ARANDU_SEEDS"])] if os.environ.get("ARANDU_SEEDS")
                            else []),
                          _REPO / ".." / "shared" / "seeds", _REPO / ".." / ".." / "shared" / "seeds"]
              if p.is_dir()), _REPO / ".." / "shared" / "seeds")

_FROM = re.compile(r"^\s*from\s+(arandu(?:\.[\w.]+)?)\s+import\s+(\([^)]*\)|[^\n#]+)", re.MULTILINE)
_IMPORT = re.compile(r"^\s*import\s+(arandu(?:\.[\w.]+)?)\b", re.MULTILINE)


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
    code = re.sub(r"^(\s*)from\s+arandu(\.|\s)", r"\1from arandu_pipelines\2", code, flags=re.MULTILINE)
    return re.sub(r"^(\s*)import\s+arandu(\.|\s|$)", r"\1import arandu_pipelines\2", code, flags=re.MULTILINE)


# ---- indentation ---------------------------------------------------------------------------------
# The seeds are documentation pages flattened to text: code blocks lost their indentation. It is
# rebuilt from Python's block structure (a line ending in ':' opens a block; else/elif/except/
# finally sit one level up; return/raise/break/continue close one; a comment after the body of a
# for/if/while starts the next step of the enclosing code; imports, `asyncio.run(...)` and
# top-level defs/classes go back to column 0; a def inside a class body is a method). What that
# cannot know comes from `hints`: {line number within the block (0-based): indentation level}.
_STRINGS = re.compile(r"'''.*?'''|\"\"\".*?\"\"\"|'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"")
_TOP = re.compile(r"^(import |from \S+ import |asyncio\.run\(|if __name__|scheduler\.(add_job|start)\()")
_DEDENT_SELF = re.compile(r"^(else|elif\b|except\b|except:|finally)\b")
_CLOSES = re.compile(r"^(return\b|raise\b|break$|continue$|pass$)")


def _code_part(line: str) -> str:
    s = _STRINGS.sub('""', line)
    return s.split("#", 1)[0].rstrip()


def reindent(code: str, hints: dict[int, int] | None = None) -> str:
    hints = hints or {}
    out: list[str] = []
    level, depth = 0, 0
    class_level: int | None = None
    openers: list[tuple[str, int]] = []  # (keyword, level) of the blocks opened so far
    in_doc = False
    for i, raw in enumerate(code.splitlines()):
        line = raw.strip()
        if not line:
            out.append("")
            continue
        if in_doc:  # inside a multi-line docstring: keep the line at the docstring's level
            out.append("    " * level + line)
            if line.count('"""') % 2 == 1:
                in_doc = False
            continue
        part = _code_part(line)
        if depth == 0 and line.startswith("#") and i not in hints:
            # A comment after the body of a loop/if starts the next step of the enclosing code.
            inner = openers[-1] if openers else None
            if inner and inner[0] in ("for", "if", "elif", "else", "while") and inner[1] == level - 1 \
                    and not _opens_block(out):
                level = inner[1]
                openers.pop()
            out.append("    " * level + line)
            continue
        if depth == 0:
            if _TOP.match(line):
                level, class_level = 0, None
            elif re.match(r"^(async def |def |@)", line):
                if class_level is not None:
                    level = class_level + 1
                elif not _opens_block(out):
                    level = 0
            elif line.startswith("class "):
                level, class_level = 0, 0
            elif _DEDENT_SELF.match(line):
                word = line.split()[0].rstrip(":")
                match = {"else": ("if", "elif", "for", "while", "try", "except"), "elif": ("if", "elif"),
                         "except": ("try", "except"), "finally": ("try", "except", "else")}[word]
                target = next((lv for kw, lv in reversed(openers) if kw in match and lv < level), max(level - 1, 0))
                if _opens_block(out):  # the block above has only a comment: give it a body
                    out.append("    " * level + "pass")
                level = target
            if i in hints:
                level = hints[i]
            openers = [(kw, lv) for kw, lv in openers if lv < level or (lv == level and _DEDENT_SELF.match(line))]
        out.append("    " * (level + (1 if depth > 0 else 0)) + line)
        if depth == 0 and line.count('"""') % 2 == 1:
            in_doc = True
        depth += part.count("(") + part.count("[") + part.count("{") - part.count(")") - part.count("]") - part.count("}")
        depth = max(depth, 0)
        if depth == 0:
            if part.endswith(":"):
                head = _code_part(_logical_start(out)).split()
                openers.append((head[0].rstrip(":") if head else "", level))
                level += 1
            elif _CLOSES.match(line):
                level = max(level - 1, 0)
    return "\n".join(out) + "\n"


def _logical_start(lines: list[str]) -> str:
    """The first physical line of the statement that ends the output (bracket continuation)."""
    depth = 0
    for prev in reversed(lines):
        part = _code_part(prev.strip())
        depth += part.count(")") + part.count("]") + part.count("}") - part.count("(") - part.count("[") - part.count("{")
        if depth <= 0 and prev.strip():
            return prev.strip()
    return lines[0].strip() if lines else ""


def _opens_block(lines: list[str]) -> bool:
    """Whether the last non-blank line opened a block (ends with ':')."""
    for prev in reversed(lines):
        if prev.strip() and not prev.strip().startswith("#"):
            return _code_part(prev.strip()).endswith(":")
        if prev.strip().startswith("#"):
            continue
    return False

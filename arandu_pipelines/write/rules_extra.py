"""Rules as data: patterns the sentence rules of `extract_rules` missed or got half right.

`RULES` is a table of (kind, pattern); `apply(result, text, speaker)` runs each pattern over the
message and hands every match to the builder registered for its kind (`BUILDERS`), which adds
facts, relations and typed entities to the extraction result. Then `repair` fixes entity typing
that a person would not accept:

- "Austin, Texas" is one place (not place:austin + person:texas);
- weekdays, months and demonyms ("Saturdays", "May", "Brazilian") are not entities;
- "Rafael and Rafael live in ..." (from "My name is Rafael and I live ...") names him once;
- "X is married" next to "X is married to Y" is the same fact with its object lost: dropped;
- a works_at edge to an organisation the same message says was left is dropped.

Every pattern is linear: literal words and bounded repetitions of capitalised tokens separated
by single spaces (no nested unbounded quantifiers).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from arandu_pipelines.write.types import (
    ExtractedEntity,
    ExtractedFact,
    ExtractedRelation,
    ExtractionResult,
)

_UP = r"[A-ZÀ-ÖØ-Ý]"
_NAME = rf"{_UP}[\w'’-]*(?: (?:d[aeo]s? )?{_UP}[\w'’-]*){{0,4}}"
_ORG_NOUNS = ("fintech|company|startup|start-up|bank|firm|brand|agency|retailer|manufacturer|airline"
              "|university|school|nonprofit|non-profit|ngo|charity|organization|organisation|corporation"
              "|empresa|banco|marca|agência|universidade|escola")

RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    # "Stone is a Brazilian fintech, founded in 2012": a fact about Stone, an organisation
    ("is_organization", re.compile(
        rf"(?:^|(?<=[.!?] ))(?P<s>{_NAME}) (?:is|was|é|era) (?:an?|uma?) (?:[\w-]+ ){{0,3}}?(?:{_ORG_NOUNS})\b[^.!?\n]*")),
    # "Ricardo Gomes is co-founder of Vertix", "Ana is the CEO at Orion Tech": a role at an organisation
    ("role_of", re.compile(
        rf"(?:^|(?<=[.!?] ))(?P<s>{_NAME}) (?:is|was|é|era) (?:the |a |an |o |a )?"
        rf"(?P<role>(?:co-?)?founder|(?:co-?)?owner|CEO|CTO|COO|CFO|president|chair(?:man|woman)?|"
        rf"(?:co-?)?fundador[a]?|dono|dona|presidente|diretor[a]?) (?:of|at|da|do|de) (?P<o>{_NAME})")),
    # "Marcos Tavares is married to Carolina" / "Marcos é casado com a Carolina"
    ("married_to", re.compile(
        rf"(?:(?<![\w])[OA] )?(?P<s>{_NAME}) (?:is|got|has been|é|está) (?:married to |casad[oa] com (?:[oa] )?)"
        rf"(?P<o>{_NAME})")),
    # "Still working at Acme though", "Still remote at Acme": the speaker still works there
    ("still_works", re.compile(
        rf"(?:^|(?<=[.!?] ))(?:I'm |I am |)(?:[Ss]till) (?:working|remote|employed|trabalhando) "
        rf"(?:at|for|with|na|no|em) (?P<o>{_NAME})")),
    # "joined Orion Tech as head of engineering": the role completes the join fact
    ("joined_as", re.compile(rf"\b(?:joined|joins|join) (?P<o>{_NAME}) as (?P<role>(?:an? |the )?[a-z][^.,;!?\n]{{0,50}})")),
    # "I study biology at USP", "Ana studies law at Harvard"
    ("studies_at", re.compile(
        rf"(?:^|(?<=[.!?,] ))(?P<s>I|{_NAME}) (?:study|studies|studying|am studying|is studying) "
        rf"(?P<field>[a-z][a-z ]{{0,40}}?) at (?P<o>{_NAME})")),
    # "My birthday is on March 3", "Ana's birthday is May 15"
    ("birthday", re.compile(
        rf"(?:\b[Mm]y|(?P<s>{_NAME})'s) birthday is (?:on )?(?P<d>(?:{_UP}[a-z]+ \d{{1,2}}(?:st|nd|rd|th)?"
        rf"|\d{{1,2}}(?:st|nd|rd|th)? (?:of )?{_UP}[a-z]+))\b")),
    # "Clara Rezende saiu da Vertix e foi pra Orion Tech como head de engenharia"
    ("pt_left_for", re.compile(
        rf"(?P<s>{_NAME}) saiu d[aoe] (?P<f>{_NAME}) e foi (?:pra|para)(?: [ao])? (?P<o>{_NAME})"
        rf"(?: como (?P<role>[^.,;!?\n]{{1,60}}))?")),
    # "Here's a photo of my horse painting I did recently", "Here's a peek at the space I designed":
    # what the speaker shows is something they made (the photo itself is not the fact)
    ("shown_work", re.compile(
        r"(?:^|(?<=[.!?] )|(?<=, ))(?i:here['’]s|here is|check out|take a look at|this is)"
        r"(?: (?i:a|the|my) (?:photo|pic|picture|peek|shot|snap|look) (?:of|at|from))? "
        r"(?P<np>(?i:my|our|the|this|a|an|one of my) (?:[a-z][\w-]* ){0,3}?[a-z][\w-]*) (?:(?:that|which) )?"
        r"(?P<who>I|we) (?:just |recently |finally )?"
        r"(?P<v>made|did|painted|drew|designed|built|knitted|sewed|baked|carved|wrote|finished|created|took)\b")),
    # "O Thiago Nogueira a contratou pessoalmente": the object pronoun is the last named person
    ("pt_hired_pronoun", re.compile(
        rf"(?:^|(?<=[.!?] ))(?:[OA] )?(?P<s>{_NAME}) (?P<pron>[ao]) contratou(?P<adv> pessoalmente)?")),
)


def _entity(result: ExtractionResult, name: str, etype: str) -> None:
    for e in result.entities:
        if e.name == name or name in e.aliases:
            if e.entity_type in ("other", "concept"):
                e.entity_type = etype
            return
    result.entities.append(ExtractedEntity(name, etype))


def _add_fact(result: ExtractionResult, f: ExtractedFact) -> None:
    if any(x.subject == f.subject and x.fact_text.casefold() == f.fact_text.casefold() for x in result.facts):
        return
    result.facts.append(f)


def _sentence_of(text: str, pos: int) -> str:
    a = max(text.rfind(". ", 0, pos), text.rfind("! ", 0, pos), text.rfind("? ", 0, pos))
    a = 0 if a < 0 else a + 2
    b = min([i for i in (text.find(". ", pos), text.find("! ", pos), text.find("? ", pos)) if i >= 0] or [len(text)])
    return text[a:b + 1].strip() if b < len(text) else text[a:].strip()


def _is_organization(result: ExtractionResult, m: re.Match[str], speaker: str, text: str) -> None:
    s = m.group("s")
    if s.lower() in ("i", "he", "she", "it", "this", "that", "my", "ele", "ela") or s == speaker or any(
            e.name == s and e.entity_type in ("person", "pet") for e in result.entities):
        return
    _entity(result, s, "organization")
    sent = m.group(0).strip().rstrip(".!")
    # the sentence is about s, not the speaker: replace a generic fact of the speaker on it
    result.facts = [f for f in result.facts if not (f.subject == speaker and s in f.fact_text)]
    _add_fact(result, ExtractedFact(s, sent, "description", None, "stable_preference",
                                    source_text=_sentence_of(text, m.start())))


def _married_to(result: ExtractionResult, m: re.Match[str], speaker: str, text: str) -> None:
    s, o = m.group("s"), m.group("o")
    _entity(result, s, "person")
    _entity(result, o, "person")
    pt = "casad" in m.group(0)
    fact = f"{s} é casado com {o}" if pt else f"{s} is married to {o}"
    if "casada" in m.group(0):
        fact = f"{s} é casada com {o}"
    result.facts = [f for f in result.facts
                    if not (f.subject == s and f.attribute_key == "relationship_status")]
    _add_fact(result, ExtractedFact(s, fact, "partner", o, "relationship_change",
                                    mentions=[o], source_text=_sentence_of(text, m.start())))
    result.relations.append(ExtractedRelation(s, "partner_of", o))  # the project's spouse/partner edge


def _role_of(result: ExtractionResult, m: re.Match[str], speaker: str, text: str) -> None:
    s, o = m.group("s"), m.group("o")
    if s == speaker or any(e.name == s and e.entity_type not in ("person", "other") for e in result.entities):
        return
    _entity(result, s, "person")
    _entity(result, o, "organization")
    fact = m.group(0).strip().rstrip(".!")
    # the sentence's generic restatement or its bare occupation ("X is the CEO") is this fact, half-read
    result.facts = [f for f in result.facts
                    if not (f.subject == s and fact.casefold().startswith(f.fact_text.casefold()))]
    _add_fact(result, ExtractedFact(s, fact, "employer", o, "biographical_milestone",
                                    mentions=[o], source_text=_sentence_of(text, m.start())))
    result.relations.append(ExtractedRelation(s, "works_at", o))


def _still_works(result: ExtractionResult, m: re.Match[str], speaker: str, text: str) -> None:
    o = m.group("o")
    _entity(result, o, "organization")
    _add_fact(result, ExtractedFact(speaker, f"{speaker} works at {o}", "employer", o, "biographical_milestone",
                                    mentions=[o], source_text=_sentence_of(text, m.start())))
    result.relations.append(ExtractedRelation(speaker, "works_at", o))


def _pt_left_for(result: ExtractionResult, m: re.Match[str], speaker: str, text: str) -> None:
    s, f_, o, role = m.group("s"), m.group("f"), m.group("o"), m.group("role")
    _entity(result, s, "person")
    _entity(result, f_, "organization")
    _entity(result, o, "organization")
    joined = f"{s} entrou na {o}" + (f" como {role.strip()}" if role else "")
    # the clause's generic restatement ("... saiu da X e foi pra Y ...") is replaced by the two facts
    result.facts = [x for x in result.facts if not (x.subject == s and " e foi " in x.fact_text)]
    _add_fact(result, ExtractedFact(s, joined, "employer", o, "biographical_milestone",
                                    mentions=[o], source_text=_sentence_of(text, m.start())))
    result.relations = [r for r in result.relations
                        if not (r.source == s and r.rel_type == "works_at" and r.target == f_ and not r.retracts)]
    result.relations.append(ExtractedRelation(s, "works_at", o))


def _pt_hired_pronoun(result: ExtractionResult, m: re.Match[str], speaker: str, text: str) -> None:
    s = m.group("s")
    people = [e.name for e in result.entities if e.entity_type == "person" and not e.is_speaker
              and e.name != s and text.find(e.name) >= 0 and text.find(e.name) < m.start()]
    if not people:
        return
    obj = max(people, key=lambda n: text.rfind(n, 0, m.start()))
    _entity(result, s, "person")
    result.facts = [f for f in result.facts if not (s in f.fact_text and " a contratou" in f.fact_text)]
    _add_fact(result, ExtractedFact(s, f"{s} contratou {obj}" + (" pessoalmente" if m.group("adv") else ""),
                                    None, None, "specific_event", mentions=[obj],
                                    source_text=_sentence_of(text, m.start())))
    result.relations.append(ExtractedRelation(s, "hired", obj))


def _joined_as(result: ExtractionResult, m: re.Match[str], speaker: str, text: str) -> None:
    o, role = m.group("o"), m.group("role").strip()
    for f in result.facts:
        if f.attribute_key == "employer" and f.value == o and f.fact_text.endswith(f"joined {o}"):
            f.fact_text = f"{f.fact_text} as {role}"


def _studies_at(result: ExtractionResult, m: re.Match[str], speaker: str, text: str) -> None:
    s = speaker if m.group("s") == "I" else m.group("s")
    o, field = m.group("o"), m.group("field").strip()
    verb = "studies"
    _entity(result, o, "organization")
    result.facts = [f for f in result.facts if not (f.subject == s and f" at {o}" in f.fact_text
                                                    and f.attribute_key in (None, "event"))]
    _add_fact(result, ExtractedFact(s, f"{s} {verb} {field} at {o}", "school", o, "biographical_milestone",
                                    mentions=[o], source_text=_sentence_of(text, m.start())))
    result.relations.append(ExtractedRelation(s, "studies_at", o))


def _birthday(result: ExtractionResult, m: re.Match[str], speaker: str, text: str) -> None:
    s = m.group("s") or speaker
    day = m.group("d")
    if s != speaker:
        _entity(result, s, "person")
    result.facts = [f for f in result.facts if not (f.subject == s and "birthday" in f.fact_text
                                                    and f.attribute_key in (None, "event"))]
    _add_fact(result, ExtractedFact(s, f"{s}'s birthday is on {day}", "birthday", day, "biographical_milestone",
                                    source_text=_sentence_of(text, m.start())))


_VAGUE_NOUNS = frozenset(["one", "thing", "stuff", "something", "piece", "pic", "photo", "picture"])


def _shown_work(result: ExtractionResult, m: re.Match[str], speaker: str, text: str) -> None:
    np = m.group("np")
    words = np.split()
    if words[-1].lower() in _VAGUE_NOUNS:
        return  # "here's something I just finished": nothing named
    first = words[0].lower()
    if first in ("my", "our", "this"):
        np = ("an " if words[1][:1].lower() in "aeiou" else "a ") + " ".join(words[1:])
    elif np.lower().startswith("one of my "):
        np = "one of " + speaker + "'s " + " ".join(words[3:])
    who = speaker if m.group("who") == "I" else f"{speaker} and others"
    _add_fact(result, ExtractedFact(speaker, f"{who} {m.group('v')} {np}", "event", None, "specific_event",
                                    source_text=_sentence_of(text, m.start())))


BUILDERS: dict[str, Callable[[ExtractionResult, re.Match[str], str, str], None]] = {
    "joined_as": _joined_as,
    "studies_at": _studies_at,
    "birthday": _birthday,
    "is_organization": _is_organization,
    "married_to": _married_to,
    "still_works": _still_works,
    "role_of": _role_of,
    "pt_left_for": _pt_left_for,
    "pt_hired_pronoun": _pt_hired_pronoun,
    "shown_work": _shown_work,
}


def apply(result: ExtractionResult, text: str, speaker: str,
          generic: list[ExtractedFact] | None = None, *,
          content_words: Callable[[str], int]) -> None:
    """Run every rule of `RULES` over the message, then `repair` the entities. A restated
    sentence (`generic`, the extractor's free-text facts) whose sentence a rule here matched,
    with fewer than two content words left outside the match, gives way to the rule's fact
    ("Still working at Acme though" is "Rafael works at Acme", not also "Rafael is still
    working at Acme though") -- as extract_rules does for its own rules. `content_words` is
    extract_rules' counter, passed in so that the two modules do not import each other."""
    for kind, rx in RULES:
        for m in rx.finditer(text):
            n = len(result.facts)
            BUILDERS[kind](result, m, speaker, text)
            for f in result.facts[n:]:
                f.rule_kind = f.rule_kind or f"extra.{kind}"
            if generic and len(result.facts) > n:
                sentence = _sentence_of(text, m.start())
                if content_words(sentence.replace(m.group(0), " ")) < 2:
                    gone = {id(f) for f in generic if (f.source_text or "").strip() in sentence}
                    result.facts = [f for f in result.facts if id(f) not in gone]
    repair(result, text)


# ---- entity repairs ---------------------------------------------------------------------------------
_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "segunda", "terça", "terca", "quarta", "quinta", "sexta", "sábado", "sabado", "domingo"]
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december", "janeiro", "fevereiro", "março", "marco", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro", "novembro", "dezembro"]
_DEMONYM_RE = re.compile(
    r"(?i)^(?:\w+(?:ian|ean|ese|ish|ic|an|ino|ina|ano|ana|ês|esa|eiro|eira)s?)$")
_NOT_DEMONYM = frozenset(["ana", "juliana", "mariana", "adrian", "brian", "ryan", "susan", "morgan", "jordan", "christian", "ian", "dean", "sebastian", "vivian", "lillian", "bryan", "logan", "megan", "dylan", "stan", "jonathan", "ethan", "nathan", "evan", "duncan"])
_KNOWN_DEMONYMS = frozenset(
    ["brazilian", "american", "british", "english", "french", "german", "italian", "spanish", "portuguese", "mexican", "canadian", "chinese", "japanese", "korean", "indian", "russian", "argentinian", "argentine", "chilean", "colombian", "peruvian", "irish", "scottish", "dutch", "swedish", "norwegian", "danish", "finnish", "polish", "greek", "turkish", "african", "european", "asian", "latino", "latina", "brasileiro", "brasileira", "americano", "americana", "inglês", "francês", "alemão", "italiano", "espanhol", "português", "mexicano"])


def _not_an_entity(name: str, etype: str) -> bool:
    low = name.lower().removesuffix("s")
    if low in _WEEKDAYS or name.lower() in _WEEKDAYS or (name.lower() in _MONTHS and etype == "other"):
        return True
    if name.lower() in _KNOWN_DEMONYMS or low in _KNOWN_DEMONYMS:
        return True
    return etype == "other" and " " not in name and name.lower() not in _NOT_DEMONYM and bool(
        _DEMONYM_RE.match(name)) and name.lower().endswith(("ian", "ese", "ish"))


def repair(result: ExtractionResult, text: str) -> None:
    _merge_place_pairs(result, text)
    drop = {e.name for e in result.entities if not e.is_speaker and _not_an_entity(e.name, e.entity_type)}
    if drop:
        result.entities = [e for e in result.entities if e.name not in drop]
        for f in result.facts:
            f.mentions = [m for m in f.mentions if m not in drop]
        result.relations = [r for r in result.relations if r.source not in drop and r.target not in drop]
    for f in result.facts:  # "Rafael and Rafael live in ..." -> "Rafael lives in ..."
        dup = re.match(rf"{re.escape(f.subject)} and {re.escape(f.subject)} (\w+)", f.fact_text)
        if dup:
            from arandu_pipelines.write.language import conj_en

            f.fact_text = f"{f.subject} {conj_en(dup.group(1))}{f.fact_text[dup.end():]}"
    left = {(r.source, r.target) for r in result.relations if r.rel_type == "former_employee_of" and not r.retracts}
    result.relations = [r for r in result.relations
                        if not (r.rel_type == "works_at" and not r.retracts and (r.source, r.target) in left)]


def _merge_place_pairs(result: ExtractionResult, text: str) -> None:
    """"Austin, Texas": a place followed by ", Region" is one place named "Austin, Texas"."""
    places = [e for e in result.entities if e.entity_type == "place"]
    for p in places:
        m = re.search(rf"{re.escape(p.name)}, ({_UP}\w+(?: {_UP}\w+)?)", text)
        if not m:
            continue
        region = m.group(1)
        other = next((e for e in result.entities if e.name == region and not e.is_speaker), None)
        if other is not None and other.entity_type not in ("other", "person", "place"):
            continue
        full = f"{p.name}, {region}"
        old = p.name
        p.name = full
        if old not in p.aliases:
            p.aliases.append(old)
        if other is not None:
            result.entities.remove(other)
        for f in result.facts:
            if old in f.fact_text and full not in f.fact_text:
                f.fact_text = f.fact_text.replace(old, full, 1)
            if f.value == old:
                f.value = full
            f.mentions = [full if x == old else x for x in f.mentions if x != region]
        for r in result.relations:
            r.source = full if r.source == old else r.source
            r.target = full if r.target == old else r.target
        result.relations = [r for r in result.relations if region not in (r.source, r.target)]

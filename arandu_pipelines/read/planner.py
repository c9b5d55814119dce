"""The deterministic planner: regexes and schema lookups, no LLM, so the same query always gets
the same plan (an LLM planner was dropped by the spec for exactly that non-determinism).

`plan_retrieval()` is pure; it decides the strategy (skip greetings, else multi-signal), spots
aggregation queries ("who are my friends?" -> `person:%` when the agent has person entities),
broad queries ("tell me everything about ...") and time expressions. Entities are resolved
against the database afterwards (entities.py); the index steps are chosen later, on the same
`RetrievalPlan` object (read/plan.py, "One plan, one executor" in docs/retrieval.md).
"""

from __future__ import annotations

import re
from datetime import datetime

from arandu_pipelines.read.plan import PatternQuery, RetrievalPlan
from arandu_pipelines.read.temporal import has_temporal_intent, parse_time

_GREETING_PHRASES = (
    # English
    r"hi|hello|hey|hiya|yo|howdy|sup|good (?:morning|afternoon|evening|night)|thanks(?: a lot| so much)?|"
    r"thank you(?: so much| very much)?|thx|ty|ok(?:ay)?|bye|goodbye|see you(?: later| soon)?|cheers|"
    r"how are you(?: doing)?|how(?:'s| is) it going|how are things|what'?s up|wh?at'?s new|"
    r"(?:nice|good|great) to (?:meet|see) you|"
    # Portuguese
    r"oi|ol[aá]|e a[ií]|ea[ií]|bom dia|boa tarde|boa noite|(?:muito )?obrigad[oa]|valeu|tchau|"
    r"at[eé] mais|at[eé] logo|tudo (?:bem|bom|certo|tranquilo|joia|jóia|ok)|beleza|blz|fala|"
    r"como (?:vai|vais|est[aá]|estamos|anda|andam|tem passado|voc[eê] (?:est[aá]|vai))"
)
_GREETING = re.compile(
    rf"^\s*(?:(?:{_GREETING_PHRASES})"
    r"(?:\s+(?:there|everyone|all|pessoal|gente|again|de novo|você|voce|vc|man|mate|buddy|amigo|amiga))?"
    r"[\s!.,?;:)(\-~*]*)+"
    r"(?:[\U0001F300-\U0001FAFF\u2600-\u27BF]\s*)*$",
    re.IGNORECASE,
)
_BROAD = re.compile(
    r"\b(?:tell me (?:everything|all)|everything (?:about|you know)|all (?:about|you know)|"
    r"what do you know about|summar(?:y|ize|ise)|overview|full picture|"
    r"tudo (?:sobre|que voc[eê] sabe)|me (?:conte|fale|diga) tudo|o que voc[eê] sabe sobre|resum[oa])\b",
    re.IGNORECASE,
)
# The query asks about the present state ("where does Rafael work now?"): the newest fact of a
# topic is the answer, older ones of the same topic are treated as superseded (rank.py).
_PRESENT = re.compile(
    r"\b(?:now|right now|currently|current|these days|nowadays|at the moment|at present|still|"
    r"atualmente|agora|hoje em dia|no momento|ainda|atual|atuais)\b",
    re.IGNORECASE,
)
_AGG_CUE = re.compile(
    r"\b(?:who are|which (?:are|of)|list|all (?:of )?my|name (?:all|my)|how many|quais s[aã]o|"
    r"quem s[aã]o|liste|listar|todos os meus|todas as minhas|quantos|quantas|meus|minhas)\b",
    re.IGNORECASE,
)
# Category words (plural, EN + PT) -> entity-type prefix.
_AGG_NOUNS: dict[str, str] = {
    "friends": "person", "people": "person", "family": "person", "relatives": "person",
    "colleagues": "person", "coworkers": "person", "contacts": "person", "kids": "person",
    "children": "person", "amigos": "person", "amigas": "person", "pessoas": "person",
    "familiares": "person", "colegas": "person", "parentes": "person", "filhos": "person",
    "projects": "project", "projetos": "project",
    "companies": "organization", "organizations": "organization", "organisations": "organization",
    "clients": "organization", "customers": "organization", "employers": "organization",
    "empresas": "organization", "clientes": "organization", "organizações": "organization",
    "places": "place", "cities": "place", "countries": "place", "lugares": "place",
    "cidades": "place", "países": "place",
    "pets": "pet", "animals": "pet", "animais": "pet",
    "tools": "tool", "ferramentas": "tool", "products": "product", "produtos": "product",
    "events": "event", "eventos": "event", "skills": "skill", "habilidades": "skill",
}


def is_greeting(query: str) -> bool:
    q = query.strip()
    return not q or bool(_GREETING.match(q))


def aggregation_prefixes(query: str) -> list[str]:
    """Entity-type prefixes an aggregation query asks about (before the schema check)."""
    if not _AGG_CUE.search(query):
        return []
    words = re.findall(r"\w+", query.lower())
    return sorted({_AGG_NOUNS[w] for w in words if w in _AGG_NOUNS})


def plan_retrieval(
    query_text: str,
    schema_prefixes: list[str] | None,
    reference: datetime,
    timezone: str = "UTC",
) -> RetrievalPlan:
    """Strategy, pattern queries, broadness and time windows of a query. Pure and deterministic.

    `schema_prefixes` = entity types the agent has; None means "not looked up yet" (aggregation
    prefixes are then kept as candidates and checked by the caller).
    """
    if is_greeting(query_text):
        return RetrievalPlan(strategy="skip", reason="greeting", similarity_query=query_text, query=query_text)
    plan = RetrievalPlan(similarity_query=query_text, query=query_text)
    wanted = aggregation_prefixes(query_text)
    if wanted:
        present = wanted if schema_prefixes is None else [p for p in wanted if p in set(schema_prefixes)]
        plan.aggregation_prefixes = present
        plan.pattern_queries = [PatternQuery(f"{p}:%") for p in present]
        if present:
            plan.reason = "aggregation"
    if _BROAD.search(query_text):
        plan.broad_query = True
        plan.max_facts = 100
        if plan.reason == "deterministic":
            plan.reason = "broad"
    plan.time_windows, plan.time_anchors = parse_time(query_text, reference, timezone)
    plan.temporal_intent = has_temporal_intent(query_text) or bool(plan.time_windows)
    plan.present_intent = bool(_PRESENT.search(query_text))
    return plan

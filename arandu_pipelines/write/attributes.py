"""Attribute key canonicalization: keep the LLM's free-form keys on a small, stable vocabulary.

The key matters: facts of the same subject and a *single-valued* key (location, employer, ...)
supersede each other deterministically in reconciliation, without an LLM call. So "city",
"Current City", "home.location" and "residence" must all become `location`, while a genuinely
new, well-formed key ("coffee_order") is kept and tracked in `memory_attribute_registry`, and
junk ("info", "misc", "x.y.z.w") is dropped (the fact is kept, without a key).

Pipeline (the spec's): **exact** (built-in catalog, `extra_attribute_keys`, keys the registry
already marks active) -> **alias** (built-in aliases, `attribute_aliases`) -> **dotted variant**
(`food.preference` <-> `food_preference`, plural -> singular) -> **suffix** (`work.employer` ->
`employer`, `current_city` -> `location`) -> **open catalog** (`validate_proposed_key`: kept as
"propose") -> **drop**.

`canonicalize_key_local` is the pure part (used inside extraction, which has no database
handle); `canonicalize_attribute_key` is the spec's async API (registry lookup + recording a
proposal); `record_attribute_keys` records a batch of decisions set-based.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal

from sqlalchemy import text

from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.keys import SINGLE_VALUED_ATTRIBUTES

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

Action = Literal["allow", "map", "propose", "drop"]

# Built-in catalog: single-valued keys (one current value) + common multi-valued ones.
CATALOG: frozenset[str] = SINGLE_VALUED_ATTRIBUTES | frozenset(
    {
        "employment_status", "preference", "dislike", "hobby", "interest", "skill", "language",
        "pet", "family", "friend", "relationship", "event", "plan", "goal", "health", "education",
        "nationality", "birthday", "hometown", "possession", "project", "habit", "opinion", "trait",
        "travel", "achievement", "contact", "gender", "religion", "belief", "routine", "work",
        "experience", "degree", "certification", "allergy", "medication", "vehicle", "home",
        "music", "food", "sport", "book", "movie", "finance", "role",
    }
)

ALIASES: dict[str, str] = {
    # location
    "city": "location", "current_city": "location", "residence": "location", "lives_in": "location",
    "address": "location", "country": "location", "current_location": "location",
    "place_of_residence": "location", "home_city": "location", "living_in": "location",
    "cidade": "location", "moradia": "location", "endereco": "location",
    # work
    "job": "occupation", "profession": "occupation", "job_title": "occupation",
    "position": "occupation", "career": "occupation", "profissao": "occupation", "cargo": "occupation",
    "company": "employer", "workplace": "employer", "works_at": "employer",
    "employer_name": "employer", "empresa": "employer", "current_employer": "employer",
    "employment": "employment_status", "job_status": "employment_status",
    # relationships
    "spouse": "partner", "wife": "partner", "husband": "partner", "girlfriend": "partner",
    "boyfriend": "partner", "significant_other": "partner", "marital_status": "relationship_status",
    "civil_status": "relationship_status", "estado_civil": "relationship_status",
    "children": "family", "kids": "family", "parents": "family", "sibling": "family",
    "siblings": "family", "friends": "friend",
    # education
    "university": "school", "college": "school", "alma_mater": "school", "faculdade": "school",
    "universidade": "school", "escola": "school", "studies": "education", "study": "education",
    # preferences and the like
    "likes": "preference", "like": "preference", "favorite": "preference", "favourite": "preference",
    "favorites": "preference", "preferences": "preference", "dislikes": "dislike",
    "hobbies": "hobby", "interests": "interest", "skills": "skill", "languages": "language",
    "speaks": "language", "pets": "pet", "dietary_preference": "diet", "dietary_restriction": "diet",
    "diet_type": "diet", "birth_date": "birthday", "date_of_birth": "birthday", "dob": "birthday",
    "birthdate": "birthday", "aniversario": "birthday", "age_years": "age", "idade": "age",
    "full_name": "name", "nickname": "name", "medical": "health", "medical_condition": "health",
    "condition": "health", "goals": "goal", "plans": "plan", "projects": "project",
    "traits": "trait", "personality": "trait", "origin": "hometown", "born_in": "hometown",
    "birthplace": "hometown", "citizenship": "nationality",
}

# Namespaces a dotted proposed key may start with (deployers add more via extra_namespaces).
NAMESPACES: frozenset[str] = frozenset(
    {
        "personal", "work", "career", "family", "social", "health", "preference", "food", "music",
        "sport", "hobby", "education", "location", "finance", "travel", "pet", "tech", "project",
        "event", "goal", "habit", "relationship", "home", "media", "book", "movie", "game",
        "language", "skill", "contact", "schedule", "identity", "lifestyle",
    }
)
# Keys that say nothing: a fact with one of these is better off without a key.
JUNK_KEYS: frozenset[str] = frozenset(
    {
        "info", "information", "data", "misc", "miscellaneous", "other", "others", "fact", "facts",
        "thing", "things", "stuff", "general", "unknown", "attribute", "key", "value", "note",
        "notes", "detail", "details", "statement", "text", "none", "null", "na", "n_a", "true",
        "false", "item", "topic", "category", "type",
    }
)
_WELL_FORMED = re.compile(r"^[a-z][a-z0-9_]{1,40}(\.[a-z][a-z0-9_]{1,40}){0,2}$")
MAX_KEY_LEN = 64
PROMOTE_AFTER = 3  # a proposed key seen this many times becomes active


def normalize_key(raw: str) -> str:
    """Lowercase, strip, spaces/hyphens/slashes to dots, other punctuation removed; underscores
    kept. normalize_key("Personal Info") == "personal.info"."""
    key = (raw or "").strip().lower()
    key = re.sub(r"[\s\-/]+", ".", key)
    key = re.sub(r"[^\w.]", "", key, flags=re.ASCII)
    key = re.sub(r"\.{2,}", ".", key).strip("._")
    return key[:MAX_KEY_LEN]


def validate_proposed_key(key: str, extra_namespaces: set[str] | frozenset[str] | None = None) -> bool:
    """Well-formed (snake_case segments, at most three, 64 chars) and meaningful; a dotted key must
    start with a known namespace (built-in or `extra_namespaces`). An undotted key is its own
    namespace: any well-formed, non-junk snake_case key of at most four words passes."""
    if not key or len(key) > MAX_KEY_LEN or not _WELL_FORMED.match(key):
        return False
    segments = key.split(".")
    if any(s in JUNK_KEYS for s in segments) and key not in CATALOG:
        return False
    if len(segments) == 1:
        return len(key.split("_")) <= 4 and not key.replace("_", "").isdigit()
    allowed = NAMESPACES | CATALOG | frozenset(extra_namespaces or ())
    return segments[0] in allowed


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ses", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def canonicalize_key_local(
    raw_key: str | None,
    config: MemoryConfig | None = None,
    registry_active: Iterable[str] = (),
) -> tuple[str | None, Action, dict[str, Any]]:
    """The database-free part of canonicalization: (key, action, metadata)."""
    meta: dict[str, Any] = {"raw": raw_key}
    if not raw_key or not isinstance(raw_key, str):
        meta["step"] = "empty"
        return None, "drop", meta
    key = normalize_key(raw_key)
    meta["normalized"] = key
    extra = frozenset(normalize_key(k) for k in (config.extra_attribute_keys if config else ()))
    known = CATALOG | extra | frozenset(registry_active)
    deployer = ({normalize_key(k): normalize_key(v) for k, v in config.attribute_aliases.items()}
                if config is not None else {})

    def known_or_alias(k: str) -> tuple[str, str] | None:
        """The deployer's aliases first (they override the built-in catalog), then the known
        keys, then the built-in aliases; alias targets are followed (hometown -> city -> location)."""
        step = None
        for _ in range(4):
            if k in deployer and deployer[k] != k:
                k, step = deployer[k], "alias"
                continue
            if k in known:
                return k, step or "exact"
            if k in ALIASES:
                k, step = ALIASES[k], "alias"
                continue
            break
        return (k, step) if step else None

    if not key:
        meta["step"] = "empty"
        return None, "drop", meta
    # 1. exact / 2. alias
    hit = known_or_alias(key)
    if hit is not None:
        meta["step"] = hit[1]
        return hit[0], ("allow" if hit[0] == key else "map"), meta
    # 3. dotted variant and plural
    variants = [key.replace(".", "_"), key.replace("_", "."), _singular(key),
                _singular(key.replace(".", "_"))]
    for v in variants:
        hit = known_or_alias(v)
        if hit is not None:
            meta["step"] = "variant"
            return hit[0], "map", meta
    # 4. suffix: the last segment (dotted), then the last word(s) (snake_case)
    segments = key.split(".")
    words = segments[-1].split("_")
    suffixes = [segments[-1]] if len(segments) > 1 else []
    suffixes += ["_".join(words[i:]) for i in range(1, len(words))]
    for s in suffixes:
        for v in (s, _singular(s)):
            hit = known_or_alias(v)
            if hit is not None:
                meta["step"] = "suffix"
                return hit[0], "map", meta
    # 5. open catalog
    namespaces = frozenset(config.extra_namespaces) if config else frozenset()
    if validate_proposed_key(key, namespaces):
        meta["step"] = "open_catalog"
        return key, "propose", meta
    meta["step"] = "drop"
    return None, "drop", meta


async def load_registry(conn: Any, agent_id: str) -> dict[str, str]:
    """key -> status of the agent's registry (one query)."""
    rows = (
        await conn.execute(
            text("SELECT key, status FROM memory_attribute_registry WHERE agent_id = :a"),
            {"a": agent_id},
        )
    ).all()
    return {r.key: r.status for r in rows}


async def record_attribute_keys(
    conn: Any, agent_id: str, decisions: list[tuple[str | None, str, str]], proposed_by: str = "llm"
) -> int:
    """Count sightings of canonical keys in the registry, set-based: `decisions` are
    (canonical_key, action, raw_key). Proposed keys start as 'proposed' and become 'active' after
    PROMOTE_AFTER sightings; catalog keys are recorded as 'active'. Returns rows touched."""
    counts: dict[str, tuple[int, str, str]] = {}
    for key, action, raw in decisions:
        if not key or action == "drop":
            continue
        n, status, example = counts.get(key, (0, "proposed" if action == "propose" else "active", raw))
        counts[key] = (n + 1, status, example)
    if not counts:
        return 0
    keys = sorted(counts)
    await conn.execute(
        text(
            "INSERT INTO memory_attribute_registry "
            "(agent_id, key, status, seen_count, proposed_by, example_raw_key, first_seen_at, last_seen_at) "
            "SELECT :a, q.k, q.st, q.n, :by, left(q.ex, 128), now(), now() "
            "FROM unnest(CAST(:keys AS text[]), CAST(:sts AS text[]), CAST(:ns AS int[]), "
            "CAST(:exs AS text[])) AS q(k, st, n, ex) "
            "ON CONFLICT (agent_id, key) DO UPDATE SET "
            "seen_count = memory_attribute_registry.seen_count + EXCLUDED.seen_count, "
            "last_seen_at = now(), updated_at = now(), "
            "status = CASE WHEN memory_attribute_registry.status = 'proposed' AND "
            "memory_attribute_registry.seen_count + EXCLUDED.seen_count >= :promote "
            "THEN 'active' ELSE memory_attribute_registry.status END"
        ),
        {
            "a": agent_id,
            "by": proposed_by[:20],
            "keys": keys,
            "sts": [counts[k][1] for k in keys],
            "ns": [counts[k][0] for k in keys],
            "exs": [counts[k][2] or k for k in keys],
            "promote": PROMOTE_AFTER,
        },
    )
    return len(keys)


async def canonicalize_attribute_key(
    session: AsyncSession | AsyncConnection,
    agent_id: str,
    raw_key: str,
    config: MemoryConfig,
) -> tuple[str | None, Action, dict[str, object]]:
    """The spec's API: canonical key, action (allow | map | propose | drop) and metadata.

    `session` is an AsyncSession or AsyncConnection. Keys the agent's registry marks active count
    as known; a "propose" is recorded in the registry (seen_count + 1, promoted to active after
    PROMOTE_AFTER sightings). The caller commits.
    """
    registry = await load_registry(session, agent_id)
    active = [k for k, st in registry.items() if st == "active"]
    key, action, meta = canonicalize_key_local(raw_key, config, active)
    if action == "propose":
        meta["registry_status_before"] = registry.get(key or "")
        await record_attribute_keys(session, agent_id, [(key, action, raw_key)])
    return key, action, meta


__all__ = [
    "ALIASES",
    "CATALOG",
    "NAMESPACES",
    "canonicalize_attribute_key",
    "canonicalize_key_local",
    "load_registry",
    "normalize_key",
    "record_attribute_keys",
    "validate_proposed_key",
]

"""Canonical keys and name normalisation.

Entity keys are `type:slug`. Slugs fold case and Latin accents ("São Paulo" -> "sao_paulo") but
keep letters of every other script, so "Мария" and "王伟" get distinct, stable keys instead of
collapsing to an empty string.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from functools import lru_cache

_NON_WORD = re.compile(r"[^\w]+", re.UNICODE)
_SPACES = re.compile(r"\s+")
MAX_SLUG = 120

TYPE_SYNONYMS = {
    "org": "organization",
    "organisation": "organization",
    "company": "organization",
    "employer": "organization",
    "business": "organization",
    "team": "organization",
    "city": "place",
    "country": "place",
    "location": "place",
    "state": "place",
    "people": "person",
    "human": "person",
    "animal": "pet",
}

REL_TYPE_ALIASES = {
    "boss": "reports_to",
    "manager_of": "manages",
    "spouse": "partner_of",
    "spouse_of": "partner_of",
    "married_to": "partner_of",
    "wife_of": "partner_of",
    "husband_of": "partner_of",
    "girlfriend_of": "partner_of",
    "boyfriend_of": "partner_of",
    "dating": "partner_of",
    "partner": "partner_of",
    "lives_at": "lives_in",
    "resides_in": "lives_in",
    "moved_to": "lives_in",
    "located_in": "lives_in",
    "employed_by": "works_at",
    "works_for": "works_at",
    "employee_of": "works_at",
    "colleague_of": "works_with",
    "coworker_of": "works_with",
    "friend": "friend_of",
    "friends_with": "friend_of",
    "sibling_of": "family_of",
    "parent_of": "family_of",
    "child_of": "family_of",
    "relative_of": "family_of",
    "studies_in": "studies_at",
    "student_at": "studies_at",
    "has_pet": "owns",
    "pet_of": "owned_by",
}

CANONICAL_REL_TYPES = frozenset(
    {
        "works_at", "manages", "reports_to", "family_of", "friend_of", "partner_of", "owns",
        "lives_in", "member_of", "studies_at", "works_with", "former_employee_of", "hired",
    }
)

# Attributes with one current value per entity: a new value supersedes the old (UPDATE).
SINGLE_VALUED_ATTRIBUTES = frozenset(
    {"location", "employer", "occupation", "partner", "school", "age", "relationship_status",
     "name", "diet"}
)


# Legal-form words an organisation's name may carry or drop ("Acme Corp" said as "Acme").
ORG_SUFFIXES = frozenset(
    {"corp", "corporation", "inc", "incorporated", "ltd", "limited", "llc", "co", "company", "plc",
     "gmbh", "ag", "sa", "s a", "ltda", "eireli", "group", "holdings"}
)
_ORG_SUFFIX_RE = re.compile(
    r"(?:[\s,]+(?:" + "|".join(sorted((re.escape(w).replace("\\ ", r"\.?\s*") for w in ORG_SUFFIXES),
                                     key=len, reverse=True)) + r")\.?)+$"
)


def org_core(name: str) -> str:
    """The name without a leading "the" and trailing legal forms: "The Acme Corp." -> "acme"."""
    folded = fold(name).rstrip(". ")
    folded = folded.removeprefix("the ")
    core = _ORG_SUFFIX_RE.sub("", folded).strip(" ,.")
    return core or folded


@lru_cache(maxsize=1 << 16)
def fold(text: str) -> str:
    """Case- and accent-insensitive form used for alias matching (memoised: hot and pure)."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return _SPACES.sub(" ", stripped).strip()


def slugify(name: str) -> str:
    slug = _NON_WORD.sub("_", fold(name)).strip("_")
    if not slug:
        slug = "x" + hashlib.sha1(name.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    if len(slug) > MAX_SLUG:
        digest = hashlib.sha1(slug.encode()).hexdigest()[:8]
        slug = slug[: MAX_SLUG - 9] + "_" + digest
    return slug


def normalize_type(entity_type: str | None) -> str:
    t = slugify(entity_type or "other") if entity_type else "other"
    if t.startswith("x") and len(t) == 11 and not (entity_type or "").isascii():
        return "other"
    return TYPE_SYNONYMS.get(t, t)[:64]


def entity_key(entity_type: str | None, name: str) -> str:
    return f"{normalize_type(entity_type)}:{slugify(name)}"


def split_key(key: str) -> tuple[str, str]:
    t, _, slug = key.partition(":")
    return (t, slug) if slug else ("", t)


def normalize_rel_type(raw: str) -> str:
    """Lowercase snake_case, with common aliases mapped to the usual types."""
    t = re.sub(r"[\s\-]+", "_", raw.strip().lower())
    t = re.sub(r"[^\w]", "", t).strip("_") or "related_to"
    return REL_TYPE_ALIASES.get(t, t)[:64]


def normalize_attribute_key(raw: str | None) -> str | None:
    if not raw:
        return None
    key = re.sub(r"[\s\-]+", ".", raw.strip().lower())
    key = re.sub(r"[^\w.]", "", key).strip(".")
    return key[:64] or None


def normalize_fact_text(text: str) -> str:
    """For exact-duplicate checks: folded, punctuation-free, single-spaced."""
    return _SPACES.sub(" ", _NON_WORD.sub(" ", fold(text))).strip()

"""The gender a first name usually has, as data: who "he" / "she" can stand for.

Without it every named person is "compatible" with any pronoun, so "Patty cried for a day ... Did
he say what he wants to do?" resolved "he" to Patty, the one person in the window (the son was
named three turns back). The lists are Faker's (MIT, maintained per locale): each locale's person
provider has `first_names_female` and `first_names_male`. Only those provider modules are read (no
Faker() instance); the union over `LOCALES` is built once, on first use (~0.07 CPU s, ~5,000
names).

- a name only in the female lists is "f", only in the male lists "m";
- a name in both (Alex, Jordan, Jean, Taylor) or in neither (a nickname, a pet's name) is unknown
  (None), and unknown takes either pronoun, as before;
- `UNISEX`: short forms that Faker files under one gender but people use for either ("Sam" is
  male-only in Faker; Samantha is Sam too): unknown.

Conversation evidence beats this table: a kin noun in apposition ("my wife Patty") gives the noun's
gender in person_antecedents, before the table is asked. Only the first word of a name is looked
up. English and Portuguese names are covered (plus es, it, fr, de); other scripts give None.
"""

from __future__ import annotations

import importlib
from contextvars import ContextVar
from functools import lru_cache

# what the conversation says (write/gender_evidence.py: "my brother Nikita", "Noor ... her bump"),
# lent for the message being extracted; it beats the table; a None value: evidence conflicts
EVIDENCE: ContextVar[dict[str, str | None] | None] = ContextVar("name_gender_evidence", default=None)

# locales whose lists are read (English, Portuguese, and the European languages names in
# English and Brazilian chats most often come from)
LOCALES = ("en_US", "en_GB", "en_IE", "en_IN", "en_NZ", "pt_BR", "pt_PT", "es_ES", "es_MX", "it_IT", "fr_FR",
           "de_DE")
# short forms used for either gender that a list files under one (kept small, documented)
UNISEX = frozenset({
    "sam", "alex", "jordan", "chris", "pat", "jamie", "robin", "taylor", "casey", "morgan", "riley", "jesse",
    "charlie", "frankie", "billie", "bobbie", "jo", "max", "nicky", "toni", "terry", "kim", "lee", "dana",
    "drew", "quinn", "avery", "cameron", "rowan", "sky", "ash", "kai", "noa", "andy", "mel", "val", "ray"})


@lru_cache(maxsize=1)
def _tables() -> tuple[frozenset[str], frozenset[str]]:
    """(female names, male names), casefolded, over `LOCALES`; empty when Faker is missing."""
    female: set[str] = set()
    male: set[str] = set()
    for loc in LOCALES:
        try:
            provider = importlib.import_module(f"faker.providers.person.{loc}").Provider
        except ImportError:
            continue
        female |= {n.casefold() for n in getattr(provider, "first_names_female", ())}
        male |= {n.casefold() for n in getattr(provider, "first_names_male", ())}
    return frozenset(female), frozenset(male)


def gender_of(name: str | None) -> str | None:
    """"f" / "m" for a name whose first word the conversation's evidence (`EVIDENCE`) or, without
    any, the lists give one gender, else None."""
    if not name:
        return None
    first = name.split()[0].strip(".,'’").casefold()
    evidence = EVIDENCE.get()
    if evidence and first in evidence:
        return evidence[first]
    return table_gender(first)


def listed(first: str) -> bool:
    """Whether a casefolded first name is in either list (a name, whatever its gender)."""
    female, male = _tables()
    return first in female or first in male


def table_gender(first: str) -> str | None:
    """"f" / "m" for a casefolded first name by the lists alone (no conversation evidence)."""
    if not first or first in UNISEX:
        return None
    female, male = _tables()
    f, m = first in female, first in male
    return "f" if f and not m else "m" if m and not f else None


_MALE_WORDS = frozenset({"he", "him", "his", "himself", "he's", "he'd", "he'll", "ele", "dele", "nele"})
_FEMALE_WORDS = frozenset({"she", "her", "hers", "herself", "she's", "she'd", "she'll", "ela", "dela", "nela"})


def pronoun_gender(word: str | None) -> str | None:
    """"m" for he / him / his / ele ..., "f" for she / her / ela ..., else None ("they", "I")."""
    low = (word or "").lower().replace("’", "'")
    return "m" if low in _MALE_WORDS else "f" if low in _FEMALE_WORDS else None


# the forms of one person's pronoun by case: a known gender's, else singular "they"
_FORMS = {"m": {"subject": "he", "object": "him", "possessive": "his", "reflexive": "himself"},
          "f": {"subject": "she", "object": "her", "possessive": "her", "reflexive": "herself"}}
_NEUTRAL = {"subject": "they", "object": "them", "possessive": "their", "reflexive": "themselves"}


def person_gender(name: str | None) -> str | None:
    """"m" / "f" for ONE named person ("Caroline", "Mary Ann") whose gender `gender_of` knows; None
    for a plural or a phrase ("Jon and others", "Gina and their team", "Melanie's kids"), which
    take "their" whatever the first word's gender (session 17, gender17)."""
    words = (name or "").split()
    if not words or len(words) > 3:
        return None
    if any(not w[:1].isupper() or w.endswith(("'s", "’s")) or not w.replace("-", "").replace("'", "").isalpha()
           for w in words):
        return None
    return gender_of(name)


def pronoun_for(name: str | None, case: str) -> str:
    """The pronoun (`case`: "subject", "object", "possessive", "reflexive") a careful writer uses
    for `name`: "his"/"her" ... when it is one person of known gender (`person_gender`), else
    singular "they" ("their", "themselves"). The one choice for every rule that writes a pronoun
    for a named person (write/readability.py, write/own_possessive.py, write/agreement.py)."""
    return gendered_pronoun(person_gender(name), case)


def gendered_pronoun(gender: str | None, case: str) -> str:
    """The pronoun of `case` for a person of `gender` ("m" / "f"; else singular "they"): for a
    phrase whose gender a kin noun shows ("Lena's dad", write/repeated_names.py)."""
    return _FORMS[gender][case] if gender in _FORMS else _NEUTRAL[case]


def conflicts(name: str | None, pronoun_gender: str | None) -> bool:
    """Whether `name`'s known gender is not `pronoun_gender` ("m" / "f"): Patty is not "he"."""
    if pronoun_gender not in ("m", "f"):
        return False
    g = gender_of(name)
    return g is not None and g != pronoun_gender

"""Shared word lists: the one source of the pronoun, kinship and negation vocabularies that more
than one layer needs (write/ resolves and filters aliases with them, background/ scores emotions
with the negations). It lives at the package root, below write/, read/ and background/, so each
imports it without importing a sibling; words only the rule extractor needs stay in
`write/lexicon.py`.

All entries are lower-case and accent-folded where callers compare folded text (`fold()`); the
accented Portuguese kinship forms are kept too for callers that compare case-folded text only.
"""

from __future__ import annotations

#: Words by which the speaker refers to themself (and the tags chat logs use for them).
SELF_REFERENCES: frozenset[str] = frozenset(
    {"i", "me", "my", "mine", "myself", "i'm", "im", "eu", "mim", "comigo", "meu", "minha",
     "eu mesmo", "eu mesma", "user", "the user", "speaker"}
)

#: Pronouns for someone other than the speaker: never a name, never an alias.
OTHER_PRONOUNS: frozenset[str] = frozenset(
    {"you", "voce", "he", "she", "it", "we", "they", "ele", "ela"}
)

#: Kinship and social roles ("my sister", "minha chefe"): a relation to the speaker, not a name.
RELATIONSHIP_TERMS: frozenset[str] = frozenset(
    {"girlfriend", "boyfriend", "wife", "husband", "partner", "brother", "sister", "mother", "father",
     "mom", "dad", "son", "daughter", "friend", "best friend", "boss", "colleague", "coworker",
     "namorada", "namorado", "esposa", "marido", "irmão", "irmã", "irmao", "irma", "mãe", "mae",
     "pai", "filho", "filha", "amigo", "amiga", "chefe", "colega"}
)

#: Words that negate what follows ("not happy", "nunca feliz"); tokens ending in "n't" count too.
NEGATIONS: frozenset[str] = frozenset(
    ["not", "no", "never", "nor", "isn't", "wasn't", "don't", "didn't", "nao", "nunca", "nem", "jamais"] + ["n't"]
)

#: Words that can never be an alias of an entity: pronouns and relationship roles.
NOT_ALIASES: frozenset[str] = SELF_REFERENCES | OTHER_PRONOUNS | RELATIONSHIP_TERMS

__all__ = ["NEGATIONS", "NOT_ALIASES", "OTHER_PRONOUNS", "RELATIONSHIP_TERMS", "SELF_REFERENCES"]

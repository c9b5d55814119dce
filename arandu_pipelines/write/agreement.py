"""Agreement in the person rewrite: the verbs and words around a substituted subject (session 17,
branch agree17).

extract_rules' rewriter (`_EnRewrite`) turns "I/you/he" into a name and conjugates the verb right
after it. The other words whose form depended on that subject kept their first-person (or
contracted) reading, and a reader deletes such a fact as broken English:

- a coordinated verb: "Sometimes I just sit there and stare" -> "... sits there and stare". The
  rewriter conjugated "and VERB" only for a short list of verbs (`_EN_COORD_VERBS`). Any other
  word after "and" may be a noun ("I love pizza and pasta"), so here the sentence's parse decides
  (`coordinated`): the word is a base-form verb (VB/VBP) in a `conj` relation whose head is the
  very verb the rewriter conjugated; "I want to sit and stare" keeps "stare" (its head is the
  infinitive "sit"). A parse is asked only where a cheap test passes (a word after "and"/"or",
  adverbs skipped, that the lemmatizer's own verb index lists and `conj_en` would change); the
  verb after ", then" ("I run after I get home, then crash") the same way (`after_then`, session
  18): a subjectless base-form verb the parse hangs on a conjugated verb;
- a contact relative clause: "Having someone you trust ..." -> "someone Walter trust": "you"
  after an indefinite pronoun ("someone", "anything") or after a determiner + noun ("the way
  you dance") is the relative clause's subject (`relative_subject`);
- a compound subject with "I": "Kayla, my dad and I are leaving" -> "... and Dale is leaving".
  "are"/"were" never follow a lone "I", so "X and I are" is plural whatever X is; and a kin or
  role noun conjunct at a clause start ("my dad and I love hiking") is one too
  (`compound_with_i`); "I love my dad and I miss him" is not (the conjunct does not open the
  clause);
- "'s" = has: "He's already taken me under his wing" was "Earl is already taken Dale": an
  irregular participle (no "-ed") is "has" when an object or particle follows it
  (`s_is_has`); "He's known as ...", "She's done with it" stay "is";
- "'d better" / "'d best" = had ("I'd better go" was "Dale would better go", `d_is_had`);
- the reflexive "myself"/"yourself" of a named singular person (`reflexive`): "himself" /
  "herself" when the chat or the name lists show the gender (write/gender_evidence.py,
  write/name_gender.py `pronoun_for`, the choice readability's "his"/"her" uses too);
  otherwise an emphatic one (after an object: "restoring it myself", "write him yourself") is
  dropped ("Howard is restoring it": nothing is lost, the name already
  says who), and an object one ("taught myself to knit") stays "themselves" (singular they).

Past tense never changes (`conj_en` leaves it), "I let them go", "make me laugh" have no
substituted subject before their verb and are not touched.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from arandu_pipelines.write import name_gender
from arandu_pipelines.write.language import conj_en
from arandu_pipelines.write.person_antecedents import PERSON_NOUNS

STAGE = "agreement"

# ---- coordinated verbs ------------------------------------------------------------------------


@lru_cache(maxsize=4)
def _verb_index(path: str) -> frozenset[str]:
    """Base forms the pipeline's lemmatizer tables list as verbs (WordNet's, ~8,700): the
    prefilter. Read from the model's files (write/parses.py loads the pipeline without its
    lemmatizer); empty when the model has none."""
    from pathlib import Path

    from spacy.lookups import Lookups

    where = Path(path) / "lemmatizer" / "lookups"
    try:
        table = Lookups().from_disk(where).get_table("lemma_index")
        return frozenset(table.get("verb", ()))
    except (OSError, KeyError, ValueError):
        return frozenset()


def may_be_verb(parses: Any, word: str) -> bool:
    """The cheap test before a parse: a lower-case word the lemmatizer's verb index lists and that
    `conj_en` would change (so "and pasta", "and then", "and went" never cost a parse)."""
    if parses is None or not word.isalpha() or not word.islower() or conj_en(word) == word:
        return False
    nlp = parses.nlp()
    return nlp is not None and nlp.path is not None and word in _verb_index(str(nlp.path))


def _word_token(parses: Any, text: str, word_at: int, word: str) -> Any:
    """The parse token of `word` at char `word_at` of `text`, or None (no parse, no verb)."""
    if not may_be_verb(parses, word):
        return None
    from arandu_pipelines.write.parses import PARSE

    doc = parses.doc(text, PARSE, STAGE)
    if doc is None:
        return None
    w = doc.char_span(word_at, word_at + len(word))
    return w[0] if w is not None and len(w) == 1 else None


def coordinated(parses: Any, text: str, verb_at: int, word_at: int, word: str,
                verbs: tuple[int, ...] = ()) -> bool:
    """Whether `word` at char `word_at` of `text` is a base-form verb coordinated with the verb at
    char `verb_at` (the one whose subject became a name), or with another verb of the same subject
    the rewriter conjugated (char offsets `verbs`: "I run after I get home and then crash" -- the
    parse joins "crash" to "run", not to the nearer "get"): parse-confirmed, see module docstring."""
    tok = _word_token(parses, text, word_at, word)
    if tok is None:
        return False
    # a conjunct of the finite verb itself; the small model tags some such verbs as nouns ("I get
    # up at six and jog": jog/NN conj of "get"), never a plural noun
    return tok.dep_ == "conj" and tok.tag_ in ("VB", "VBP", "NN", "NNP") and (
        tok.head.idx == verb_at or tok.head.idx in verbs)


def after_then(parses: Any, text: str, verbs: tuple[int, ...], word_at: int, word: str) -> bool:
    """Whether `word` right after ", then" is a second verb of the substituted subject: "I feed
    the cats, then make coffee" -> "... feeds the cats, then makes coffee". The parse must show a
    base-form verb with no subject of its own ("then we eat" has one) hanging (as `conj` or the
    small model's `dep`) on a verb the rewriter conjugated (char offsets `verbs`); "I like the
    fall, then winter" has no verb after "then"."""
    tok = _word_token(parses, text, word_at, word)
    if tok is None or tok.tag_ not in ("VB", "VBP", "NN") or tok.dep_ not in ("conj", "dep"):
        return False
    if tok.tag_ == "NN" and any(c.dep_ in ("det", "poss", "amod", "compound", "nummod") for c in tok.children):
        return False  # the small model tags a clause-final verb as a noun ("then crash."), never one with a det
    return tok.head.idx in verbs and not any(c.dep_ in ("nsubj", "nsubjpass", "expl") for c in tok.children)


# ---- relative clauses -------------------------------------------------------------------------

# pronouns that take no object: "you" right after one opens a relative clause ("someone you trust")
_INDEFINITE = frozenset({"someone", "somebody", "something", "anyone", "anybody", "anything", "everyone",
                         "everybody", "everything", "nobody", "nothing", "no-one"})
# determiners before a noun that a contact relative clause may follow ("the way you dance")
_DETERMINERS = frozenset({"the", "a", "an", "that", "this", "those", "these", "every", "any", "some", "each"})
_NOT_NOUN = frozenset({"more", "less", "most", "least", "same", "only", "other", "one's", "thing's", "very", "way's"})


def relative_subject(prev: str, prev2: str, nxt: str) -> bool:
    """Whether "you" after the lower-cased words `prev2 prev` is the subject of a contact relative
    clause ("someone you trust", "the way you dance"); `nxt` (the word after "you") is no plural
    marker ("something you guys ...")."""
    if nxt in ("both", "all", "two", "guys", "folks", "lot", "people"):
        return False
    if prev in _INDEFINITE:
        return True
    return prev2 in _DETERMINERS and prev.isalpha() and prev not in _NOT_NOUN and prev not in _DETERMINERS


# ---- compound subjects with "I" ---------------------------------------------------------------

# finite forms a lone "I" never takes: "X and I are" is a plural subject whatever X is
_PLURAL_ONLY = frozenset({"are", "were", "aren't", "weren't", "'re"})
# words before a conjunct that show it opens its clause
_CLAUSE_OPEN = frozenset({"", ",", ";", ":", "(", "so", "then", "and", "but", "because", "when", "since", "while",
                          "if", "now", "today", "tomorrow", "tonight", "yesterday"})
_POSSESSIVES = frozenset({"my", "our", "the", "his", "her", "their"})


@lru_cache(maxsize=1)
def _person_nouns() -> frozenset[str]:
    return frozenset(PERSON_NOUNS | {n + "s" for n in PERSON_NOUNS if not n.endswith("s")} | {"parents", "kids"})


def compound_with_i(before: list[str], verb: str) -> bool:
    """Whether "and I" ends a compound subject: `before` are the lower-cased words before "and",
    last first (punctuation kept as words, "" past the start), `verb` the word after "I".
    "Kayla, my dad and I are ..." (a plural-only verb), "My mom and I love ..." (a person noun
    conjunct opening its clause); not "I love my dad and I miss him"."""
    if verb.replace("’", "'") in _PLURAL_ONLY:
        return True
    if len(before) < 3 or before[0] not in _person_nouns():
        return False
    k = 1 if before[1] in _POSSESSIVES else 2  # one adjective between: "my little sister and I"
    return len(before) > k + 1 and before[k] in _POSSESSIVES and before[k + 1] in _CLAUSE_OPEN


# ---- contractions -----------------------------------------------------------------------------

# participles without "-ed" that, with an object or particle after them, make "'s" = has
_IRREGULAR_PARTICIPLES = frozenset({
    "taken", "given", "written", "shown", "told", "taught", "brought", "bought", "made", "found", "lost", "won",
    "known", "seen", "heard", "met", "sent", "built", "kept", "left", "spent", "put", "read", "thrown", "broken",
    "chosen", "driven", "eaten", "forgotten", "forgiven", "grown", "hidden", "ridden", "sold", "stolen", "worn",
    "begun", "drunk", "sung", "caught", "felt", "held", "paid", "run", "set", "cut", "hit", "hurt", "let", "led"})
# what may follow such a participle when "'s" is "has" ("He's taken me under his wing", "she's made a cake")
_AFTER_HAS = frozenset({
    "me", "him", "her", "us", "them", "it", "you", "my", "his", "our", "their", "your", "a", "an", "the", "some",
    "this", "that", "these", "those", "up", "over", "off", "out", "care", "part", "lots", "so", "many", "more",
    "every", "all", "two", "three", "several", "no"})


def s_is_has(participle: str, after: str) -> bool:
    """Whether "'s" before the lower-cased `participle` (adverbs skipped) and the word `after` it is
    "has": an irregular participle with an object or particle after it. "-ed" participles and
    "been"/"got" are decided by the caller as before."""
    return participle in _IRREGULAR_PARTICIPLES and after in _AFTER_HAS


def d_is_had(word: str) -> bool:
    """"'d better" / "'d best" is "had" ("I'd better go help" -> "had better go help")."""
    return word in ("better", "best")


# ---- reflexives -------------------------------------------------------------------------------

# words after which "myself"/"yourself" is emphatic, not the verb's object ("restoring it myself")
_EMPHATIC_AFTER = frozenset({"it", "them", "him", "her", "us", "me", "this", "that", "these", "those",
                             "everything", "all", "one"})


def reflexive(name: str | None, prev: str) -> str | None:
    """The reflexive for a singular person `name` ("myself" for the speaker, "yourself" for the
    addressee) after the lower-cased word `prev`: "himself"/"herself" when the gender is known,
    else "" for an emphatic one (the caller drops it) and None for an object one (the caller keeps
    "themselves")."""
    form = name_gender.pronoun_for(name, "reflexive")
    if form != "themselves":
        return form
    return "" if prev in _EMPHATIC_AFTER else None


__all__ = ["STAGE", "after_then", "compound_with_i", "coordinated", "d_is_had", "may_be_verb", "reflexive", "relative_subject",
           "s_is_has"]

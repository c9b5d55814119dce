"""Which names a he / she / his / her / him may stand for, beside what the resolvers already read
(session 17, branch ante17). Read by extract_rules' `last_person` (the last person named before
the pronoun in the message) and by write/person_antecedents.py (the pronoun's own sentence, the
previous turns, the session's older names). Five wrong choices of one class, each a general rule:

- a place, team or school is never "he" / "she" (`place_like`): "this is my sixth year as head
  coach at Brookfield and I've never had a quarterback like Malik. He's a junior" made "Brookfield
  is a junior" ("<X> and I" had typed Brookfield a person). A one-word name no first-name list
  knows that the text also uses after "at" / "in", or that ends like a place
  (write/name_subjects.weak_person), is skipped by `last_person` for a he / she;
- a person spaCy's NER recognised whom no rule has typed yet (`ner_person`): "a quarterback like
  Malik. He's a junior", "I don't want to miss Kayla's last year at home. She starts nursing
  school" (Tyler, typed, was taken). The rules type a name a person only after a person verb or
  "with" / "met" (the NER label is applied later, write/nlp.apply_labels), so `last_person` now
  also counts such a name for a SUBJECT he / she (`subject_pronoun`; an object or possessive
  more often points past the nearest name), except the owner of a relative ("after Diane's
  mother. ... she has my nose": `owner_of_person`) and when the sentence names, before it,
  someone of the pronoun's known gender ("Maya is driving her friend Jess ... She got a ticket":
  `same_gender_before`);
- recency inside the sentence (`missed_names`): "I'm carving an eagle to give Tyler when he
  graduates" became "... when Earl graduates" because NER typed Tyler GPE, so no candidate read
  him and the earlier sentence's Earl was taken. A listed first name in an object slot (not a
  place preposition's, not part of a longer proper name) is the sentence's own candidate, and
  person_antecedents' `_same_sentence` takes it even when its gender is unknown;
- the previous turns spoke, with a pronoun of this gender, of someone named in words no candidate
  read (`window_unread`): "coming home to Biscuit helps a ton. He just curls up next to me" ->
  "I'm glad you have him" became the man the session named six turns back. The session's older
  names are then not asked;
- a vehicle or vessel is "she" (`she_thing_before`): "I bought a used delivery truck last week.
  She needs a lot of love" took a woman named turns ago.

Gender agreement stays the resolvers' (the chat's evidence, then the name lists). No parse of its
own: regexes, the message's NER labels (ExtractionContext.ner) and the parse the caller has.
"""

from __future__ import annotations

import re
from typing import Any

from arandu_pipelines.write import lexicon as L
from arandu_pipelines.write import name_subjects


def place_like(name: str, text: str) -> bool:
    """Whether `name` reads as a place or an organisation in `text` rather than a person: a one-word
    name no first-name list knows, used after "at" / "in" or ending like a place name."""
    return name_subjects.weak_person(name, text)


def ner_person(name: str, ner: dict[str, str] | None, text: str) -> bool:
    """Whether spaCy's NER labelled `name` a PERSON in this message (`ner`: casefolded text ->
    label, ExtractionContext.ner) and it is not place-like (`place_like`)."""
    if not ner or not name:
        return False
    if ner.get(name.casefold()) != "PERSON":
        return False
    return not place_like(name, text)


# prepositions whose object is where someone goes or is, not someone ("moved to Tyler", "in Florence")
_PLACE_PREPS = frozenset({"at", "in", "to", "from", "near", "into", "around", "across", "through", "outside",
                          "toward", "towards", "on", "past", "via", "inside", "by"})
# slots of a person acted on or for ("give Tyler", "a gift for Ana", "a quarterback like Malik")
_OBJECT_DEPS = frozenset({"dobj", "dative", "iobj", "pobj", "appos", "conj"})


def missed_names(span: object, names: set[str], known: set[str]) -> list[str]:
    """First names of the name lists in `span` (a spaCy span, parsed with NER) that spaCy's NER did
    not take for a person ("to give Tyler when he graduates": Tyler typed GPE), standing where a
    person is acted on or for: the object of a verb or of a preposition that is not a place's
    ("to Tyler", "at Florence" stay places), never part of a longer proper name ("Tyler Street")
    nor a clause subject (the caller's rules read those). `names`: the chat's speakers, casefolded;
    `known`: the keys the caller's candidates already hold. Person antecedents
    (write/person_antecedents._same_sentence) read them as the sentence's own candidates."""
    out: list[str] = []
    for tok in span:  # type: ignore[attr-defined]
        low = tok.lower_
        if tok.tag_ != "NNP" or not tok.is_alpha or not tok.text[:1].isupper() or tok.ent_type_ == "PERSON" \
                or low in names or low in known or not name_subjects.listed_name(tok.text):
            continue
        if any(n.tag_ in ("NNP", "NNPS") for n in (tok.doc[tok.i - 1] if tok.i > 0 else None,
                                                   tok.doc[tok.i + 1] if tok.i + 1 < len(tok.doc) else None)
               if n is not None):
            continue  # "Tyler Street", "Grace Church": a longer proper name
        if tok.dep_ not in _OBJECT_DEPS or tok.dep_ == "pobj" and tok.head.lower_ in _PLACE_PREPS:
            continue
        if tok.text not in out:
            out.append(tok.text)
    return out


_SENTENCE_RE = re.compile(r"[^.!?…]+[.!?…]*")
_WORD_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’-]*")
_GENDER_WORDS = {"m": frozenset({"he", "him", "his", "he's", "he'd", "he'll", "himself"}),
                 "f": frozenset({"she", "her", "hers", "she's", "she'd", "she'll", "herself"})}
# capitalised inside a sentence without being anyone: calendar words, "I", titles
_NOT_SOMEONE = frozenset({"i", "i'm", "i've", "i'd", "i'll", "mr", "mrs", "ms", "dr", "ok", "okay", "omg", "lol"}
                         | {w.casefold() for w in (*L.MONTHS_EN, *L.WEEKDAYS_EN)})


def window_unread(turns: list[tuple[str | None, str]], gender: str, names: set[str], record: list[Any]) -> bool:
    """Whether the previous turns name someone the candidates could not read and then speak of them
    with a pronoun of `gender`: "coming home to Biscuit helps a ton. He just curls up next to me"
    (Biscuit: no PERSON to NER, no kin or pet noun) -> "I'm glad you have him" is Biscuit, not the
    man the session named six turns back. The session's older names (write/session_names.py) are
    then not asked. A capitalised word inside a sentence that is no speaker, no calendar word and
    no name of the session's record counts as someone; the pronoun must follow it in the same turn
    (regex only, no parse)."""
    pronouns = _GENDER_WORDS.get(gender, frozenset())
    recorded = {str(getattr(e, "name", "")).split()[0].casefold() for e in record if getattr(e, "name", "")}
    for _, text in turns:
        if _names_then_pronoun(text or "", pronouns, names | recorded):
            return True
    return False


def _names_then_pronoun(text: str, pronouns: frozenset[str], known: set[str]) -> bool:
    """Whether `text` speaks with one of `pronouns` of someone it named, unread, before: its first
    such pronoun comes after a capitalised word inside a sentence that is not in `known`. A turn
    whose pronoun comes first ("He shipped out to Great Lakes, Illinois") speaks of someone
    older, whom the capitalised words (a place here) do not replace."""
    seen = False
    for sentence in _SENTENCE_RE.finditer(text):
        for n, w in enumerate(_WORD_RE.finditer(sentence.group(0))):
            word = w.group(0)
            low = word.casefold().replace("’", "'")
            if low in pronouns:
                return seen
            bare = low.split("'")[0]
            if n > 0 and word[:1].isupper() and len(bare) > 1 and bare.isalpha() and low not in _NOT_SOMEONE \
                    and bare not in known:  # "a V3" is no one
                seen = True
    return False


_SUBJECT_PRONOUNS = frozenset({"he", "she", "he's", "she's", "he'd", "she'd", "he'll", "she'll"})


def subject_pronoun(pronoun: str | None) -> bool:
    """Whether `pronoun` is a subject he / she (a contraction included). Only a subject takes a
    name no rule typed (`ner_person`): an object or possessive ("check out this pic of him")
    more often points past the nearest name, to what the other speaker asked about."""
    return (pronoun or "").casefold().replace("’", "'") in _SUBJECT_PRONOUNS


_OWNER_RE = re.compile(r"\s*['’]s\s+(?:[a-z]+\s+){0,2}?(?P<noun>[a-z]+(?:-in-law)?)\b")


def owner_of_person(text: str, pos: int, name: str, person_nouns: frozenset[str]) -> bool:
    """Whether the name at `pos` of `text` owns a person noun (`person_nouns`: person_antecedents'
    PERSON_NOUNS): "after Diane's mother. ... she has my nose", "Giovanna's cousin runs a shop ...
    while she made them": the relative, whom the rules do not read as a name, may be the one
    meant, so the owner is not taken."""
    if text[pos: pos + len(name)] != name:
        return False
    m = _OWNER_RE.match(text, pos + len(name))
    return m is not None and m.group("noun") in person_nouns


_CAP_RE = re.compile(r"\b[A-Z][a-z]+(?:-[A-Z][a-z]+)?\b")
_CALENDAR = frozenset(w.casefold() for w in (*L.MONTHS_EN, *L.WEEKDAYS_EN))


def same_gender_before(text: str, pos: int, gender: str, exclude: set[str]) -> bool:
    """Whether the sentence of `text` holding `pos` names, before it, someone whose known gender
    (the chat's evidence, then the name lists: write/name_gender.py) is `gender`: "Maya is now
    driving her friend Jess to school. She got a ticket" -> Maya may be meant as well as Jess, so
    an untyped Jess (`ner_person`) is not taken. `exclude`: casefolded names that do not count
    (the speaker, the mention itself)."""
    from arandu_pipelines.write import name_gender

    start = max(text.rfind(c, 0, pos) for c in ".!?") + 1
    for m in _CAP_RE.finditer(text, start, pos):
        low = m.group(0).casefold()
        if low not in exclude and low not in _CALENDAR and name_gender.gender_of(m.group(0)) == gender:
            return True
    return False


# things English speakers call "she": vehicles and vessels ("I bought an old truck. She needs work")
_SHE_THINGS_RE = re.compile(
    r"\b(?:car|truck|van|boat|ship|yacht|sailboat|canoe|kayak|motorcycle|motorbike|bike|plane|camper|rv|jeep|"
    r"tractor|trailer|engine|locomotive)s?\b", re.IGNORECASE)


def she_thing_before(text: str, gender: str) -> bool:
    """Whether a "she" may be the vehicle or vessel `text` (the message before the pronoun) names:
    "I bought a used delivery truck last week. She needs a lot of love" is the truck, never a
    woman the session named turns ago (write/session_names.py is then not asked)."""
    return gender == "f" and _SHE_THINGS_RE.search(text) is not None

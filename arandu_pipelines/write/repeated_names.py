"""A person named again in their own fact becomes the pronoun a careful writer uses (session 18).

First-person resolution writes "Lena has been playing piano since Lena was six", "they keep Melanie
motivated", "Jon believes if Jon keeps pushing, Jon will reach his dreams": correct, but nobody
writes a fact like that, and 17 % of the facts of the dev pair and heldout-1..8 did (229 of 1,350
at the start of session 18). write/readability.py already turns a repeated possessive inside the
subject's own clause into "his"/"her"; it leaves a repeat in subject or object position because,
without the gender, "they" needs a new verb agreement and "her"/"herself" needs the clause
structure. Both are known here:

- only a fact that opens with its subject, a person of known gender (the chat's evidence, then the
  name lists: write/name_gender.py `pronoun_for`), or a kin noun of that person with a gender
  ("Lena's dad"); a compound opening ("Luna and Oliver ...", "Jon and others ...") is left;
- each later repeat, by its role in the fact's parse: a clause subject of a finite verb is "he" /
  "she" ("since she was six"); a possessive "his" / "her"; an object or the subject of a small
  clause ("it made Caroline happy") "him" / "her", or "himself" / "herself" when the verb's own
  subject (through "wants to ...") is the person ("Caroline taught Caroline to knit"); any other
  role (apposition, compound, a conjunct "Melanie and her family") keeps the name;
- a repeat after another capitalized word that could be a person of the same or unknown gender,
  or after a kin or role noun of that or no shown gender ("the director called: Megan is ..."),
  keeps the name ("Priya met Ana before Priya left" stays: "she" could be Ana), so the pronoun
  can only point at the subject.

The parse runs only for facts with a repeat (about one in six) and is shared through the chunk's
parse cache (write/parses.py).
"""

from __future__ import annotations

import re
from typing import Any

from arandu_pipelines.write import name_gender
from arandu_pipelines.write.lexicon import MONTHS_EN, WEEKDAYS_EN
from arandu_pipelines.write.person_antecedents import FEMALE, MALE, PERSON_NOUNS
from arandu_pipelines.write.role_subjects import OCCUPATIONS

STAGE = "repeated_names"

_FINITE = frozenset({"VBD", "VBZ", "VBP", "MD"})
_OBJECT_DEPS = frozenset({"dobj", "dative", "pobj", "obj", "iobj"})
_SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass"})
# words that open a sentence or are capitalized without naming a person
_NOT_PEOPLE = frozenset({"I", "The", "A", "An", "It", "This", "That", "And", "But", "So", "Now", "Then",
                         *MONTHS_EN, *WEEKDAYS_EN})


# "Priya says Marcus ...": a reported clause that opens with its own subject, right after the
# fact's opening subject and a verb of saying or thinking ("that" optional)
_REPORTED_RE = re.compile(
    r"^[A-Z][\w-]*(?: [A-Z][\w-]*)? (?:says|said|thinks|thought|believes|believed|feels|felt|knows|knew|hopes"
    r"|hoped|mentioned|told \w+|tells \w+|(?:is|was) (?:confident|sure|glad|happy|proud|worried|afraid))"
    r"(?: that)? (?=[A-Z])")


def apply(facts: list[Any], parses: Any) -> None:
    """Rewrite the repeats of each fact's subject in place (see the module docstring); then, in a
    reported clause ("Priya says Marcus has found Marcus's ..."), the repeats of that clause's own
    subject, by the same rules and guards."""
    for f in facts:
        text = f.fact_text
        opening = _opening(text, f.subject)
        if opening is not None:
            phrase, gender = opening
            if len(re.findall(_pattern(phrase), text)) >= 2:
                text = _rewrite(text, phrase, gender, parses)
        f.fact_text = _reported(text, parses)


def _reported(text: str, parses: Any) -> str:
    """The repeats of a reported clause's own subject rewritten, when the fact reports one."""
    m = _REPORTED_RE.match(text)
    if m is None:
        return text
    opening = _opening(text[m.end():], None)
    if opening is None:
        return text
    phrase, gender = opening
    if text[:m.end()].find(phrase) >= 0 or len(re.findall(_pattern(phrase), text)) < 2:
        return text  # the reporter is that person too ("Priya says Priya ..."): the first pass's
    return _rewrite(text, phrase, gender, parses, m.end())


def _pattern(phrase: str) -> str:
    return rf"(?<![\w'’]){re.escape(phrase)}(?![\w])"


def _opening(text: str, subject: str | None) -> tuple[str, str] | None:
    """The phrase the fact opens with and its gender ("m" / "f"), when it is one person."""
    m = re.match(r"([A-Z][\w-]*(?: [A-Z][\w-]*)?)(['’]s (\w+))?", text)
    if not m:
        return None
    name = m.group(1)
    if m.group(2):  # "Lena's dad ...": a kin noun that shows the gender
        kin = m.group(3).lower()
        gender = "m" if kin in MALE else "f" if kin in FEMALE else None
        phrase = m.group(0)
    else:
        if subject and subject != name and not subject.startswith(name):
            return None
        gender = name_gender.person_gender(name)
        phrase = name
    rest = text[len(phrase):]
    if gender not in ("m", "f") or re.match(r"\s*(?:and|&|,)\s", rest) or rest[:2] in ("'s", "’s"):
        return None
    return phrase, gender


def _rewrite(text: str, phrase: str, gender: str, parses: Any, origin: int = 0) -> str:
    """`text` with the repeats of `phrase` (said first at char `origin`) rewritten."""
    doc = _parse(text, parses)
    if doc is None:
        return text
    out: list[str] = []
    pos = 0
    starts = [m for m in re.finditer(_pattern(phrase), text) if m.start() >= origin][1:]
    for m in starts:
        if _other_person_between(text[origin + len(phrase):m.start()], phrase, gender):
            break
        possessive = text[m.end():m.end() + 2] in ("'s", "’s")
        if possessive:
            form = name_gender.gendered_pronoun(gender, "possessive")
            end = m.end() + 2
        else:
            case = _case(doc, m.start(), m.end(), phrase, text)
            if case is None:
                continue
            form = name_gender.gendered_pronoun(gender, case)
            end = m.end()
        out.append(text[pos:m.start()])
        out.append(form)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _parse(text: str, parses: Any) -> Any:
    if parses is None:
        return None
    from arandu_pipelines.write.parses import PARSE

    return parses.doc(text, PARSE, STAGE)


def _case(doc: Any, start: int, end: int, phrase: str, text: str) -> str | None:
    """"subject", "object" or "reflexive" for the repeat at [start, end), or None (keep the name)."""
    span = doc.char_span(start, end, alignment_mode="expand")
    if span is None:
        return None
    tok = span.root
    if re.match(r"\s*(?:and|&)\s", text[end:]):
        return None  # "Melanie and her family": a conjunct
    if tok.dep_ in _SUBJECT_DEPS:
        verb = tok.head
        finite = verb.tag_ in _FINITE or any(c.dep_ in ("aux", "auxpass") and c.tag_ in _FINITE
                                             for c in verb.children)
        if finite:
            return "subject"
        return "object" if verb.dep_ in ("ccomp", "xcomp") else None  # "made Caroline so happy"
    if tok.dep_ in _OBJECT_DEPS:
        verb = tok.head.head if tok.dep_ == "pobj" else tok.head
        if tok.dep_ == "pobj" or verb is None:
            return "object"
        return "reflexive" if _subject_of(verb) == phrase.split()[-1] or _subject_of(verb) == phrase else "object"
    return None


def _subject_of(verb: Any) -> str | None:
    """The text of `verb`'s subject, following "wants to VERB" up to the verb that has one."""
    for _ in range(4):
        for c in verb.children:
            if c.dep_ in _SUBJECT_DEPS:
                return str(c.text)
        if verb.dep_ not in ("xcomp", "conj") or verb.head is verb:
            return None
        verb = verb.head
    return None

_PREDICATE_ROLE_RE = re.compile(r"\b(?:is|was|are|were|be|been|being|became|become|as)\s+(?:a|an)\s+(?:[\w-]+\s+)?[\w-]+")


def _other_person_between(between: str, phrase: str, gender: str) -> bool:
    """Whether a capitalized word between the opening and the repeat may be another person the
    pronoun could point at: a name of the same or an unknown gender, or a kin noun of that gender."""
    own = set(phrase.replace("'s", " ").replace("’s", " ").split())
    # a role said of the subject ("was a baker for thirty years") is no other person
    between = _PREDICATE_ROLE_RE.sub(" ", between)
    for w in re.findall(r"[A-Za-z][\w-]*", between):
        low = w.lower()
        if (gender == "m" and low in MALE) or (gender == "f" and low in FEMALE):
            return True
        if low not in MALE and low not in FEMALE and (low in PERSON_NOUNS or low in OCCUPATIONS):
            return True  # "the director called: Megan is ..." -- "she" could be the director
        if not w[:1].isupper() or w in own or w in _NOT_PEOPLE or (w.isupper() and len(w) >= 2):
            continue
        g = name_gender.person_gender(w)
        if g is None or g == gender:
            return True
    return False

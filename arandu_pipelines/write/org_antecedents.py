"""Organisation and thing antecedents inside a message: "they" for an institution, "it" for the
speaker's thing.

People write "Oh, news from the library. They asked me to start a book club", "My internship at
Ledger ended Friday and they want me back", "We finally bought a used camper. It sleeps four".
A fact needs a subject it can name: "They asked Sam ..." is dropped (`subject_first`), and "...
they want Sam back" is kept with nobody in it. write/antecedents.py resolves pronouns into the
PREVIOUS turn, for things of the pronoun's number (a plural "they"), and leaves a pronoun with a
noun before it in the same message to the in-message reading; write/person_antecedents.py
resolves "he"/"she". Neither takes a singular institution for "they" (English uses the plural
for an organisation's people) nor an "it" whose antecedent is the previous sentence's object.
This module does, conservatively, and writes the resolution into the message before the rules
read it (as person_antecedents does, and with the same `restore` of the message as written):

- "they" (a subject) or "them" (an object) -> the ONE organisation-like phrase named before it: a spaCy ORG entity or
  a singular noun of `ORG_NOUNS` ("the library", "my company", "a clinic"), in the message
  before the pronoun; when the message holds no candidate of any kind, in the previous turn
  (the pronoun then within `REACH` characters of the start). Anything else "they" could stand
  for makes it ambiguous and the sentence is left alone: a plural noun phrase ("my parents",
  "the kids", "two books"), a coordination ("Ana and Leo"), a person (PERSON entity, a kin or
  person noun: a singular "they" may be that person), a second organisation. The speakers are
  never candidates (an ORG-tagged speaker name is skipped). The verb agrees: "they want" ->
  "Ledger wants", "they're" -> "the library is", "they don't" -> "the clinic doesn't".
  Since session 16 (write/group_antecedents.py) a subject "they" also takes the ONE group of
  people or pair of people under the same rule ("My parents retired. They bought an RV" -> "My
  parents bought an RV"; "Tyler and Rose ... They moved" -> "Tyler and Rose moved"), a class or
  camp counts as an organisation ("a pottery class. They gave me ..."), and a generic "they"
  ("they say it's going to rain") is never resolved.
- "it" (the subject that opens a sentence, of a content verb: not a copula "It's tough" / "It's
  been a wild ride" nor "It felt / took / made ...", which are about the doing the previous
  sentence told, not the thing; not an expletive) -> the previous sentence's one singular object noun phrase, when
  that sentence's subject is "I"/"we" and the thing is the speaker's: "my/our <thing>", or
  "a <thing>" that "I"/"we" bought / got / built / adopted ... ("We finally bought a used camper.
  It sleeps four" -> "Our camper sleeps four", which the rules make "Sam's camper sleeps four":
  a fact about the speaker's thing, adjectives left to the sentence that said them). The
  previous sentence must name no other thing (a prepositional object "at the store" makes "it"
  ambiguous). Such a sentence is otherwise dropped: write/extract_rules' `_link_antecedents`
  resolves "It" only after a sentence whose SUBJECT is a thing.

English only; with no spaCy pipeline nothing changes. Cost: a regex prefilter (`worth_resolving`)
lets through only messages with a "they" next to an organisation word or a capitalised word,
or a sentence-initial "It" after a sentence with "my"/"our" or an owning verb; the message up to
the last such pronoun's sentence is parsed (NER only when a proper noun is in it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from arandu_pipelines.write import group_antecedents as G
from arandu_pipelines.write.antecedents import (
    _CONTRACTIONS,
    _VAGUE,
    MAX_PARSE_CHARS,
    REACH,
    Replacement,
    _bare_reaction,
    _pronoun_role,
    _replacement,
    _voice,
    context_turns,
)
from arandu_pipelines.write.language import third_singular
from arandu_pipelines.write.types import ExtractionContext

STAGE = "org_antecedents"
# singular nouns for an institution whose people a speaker calls "they"
ORG_NOUNS = frozenset({
    "library", "company", "school", "team", "shelter", "club", "hospital", "church", "agency", "studio", "store",
    "restaurant", "band", "university", "office", "clinic", "gym", "museum", "council", "firm", "center", "centre",
    "college", "academy", "bank", "bakery", "cafe", "café", "charity", "foundation", "nonprofit", "organization",
    "organisation", "startup", "business", "shop", "salon", "theater", "theatre", "gallery", "hotel", "airline",
    "department", "label", "publisher", "newspaper", "magazine", "orchestra", "choir", "league", "union",
    "association", "society", "committee", "board", "employer", "landlord", "vet", "pharmacy", "daycare",
    "kindergarten", "preschool", "brand", "factory", "warehouse", "lab", "laboratory", "institute", "ministry",
    "government", "embassy", "consulate", "court", "police", "venue", "dealership", "garage", "supermarket", "zoo",
    "farm", "winery", "brewery", "channel", "troupe"})
# "a <thing>" that I/we bought, got ...: the speaker's own thing
OWN_VERBS = frozenset({"bought", "got", "gotten", "adopted", "built", "made", "rented", "leased", "ordered",
                       "received", "inherited", "have", "purchased", "found", "started", "opened", "planted",
                       "knitted", "knit", "sewed", "sewn", "painted", "baked", "designed", "brought", "won",
                       "acquired", "picked", "grabbed", "scored", "snagged", "borrowed"})
# "Ledger" after "an internship at", "I work for": a proper noun the parse did not tag is a workplace
_WORK_WORDS = frozenset({"work", "works", "worked", "working", "job", "internship", "intern", "interning",
                         "interned", "volunteer", "volunteering", "volunteered", "position", "role", "interview",
                         "shift", "shifts", "employed", "hired", "apply", "applied", "applying", "career", "gig"})
_PLACE_TAILS = frozenset({"downtown", "uptown", "nearby"})
_TIME_NOUNS = frozenset({"day", "days", "week", "weeks", "month", "months", "year", "years", "hour", "hours",
                         "minute", "minutes", "night", "nights", "weekend", "weekends", "morning", "mornings",
                         "evening", "evenings", "summer", "winter", "spring", "fall", "autumn", "time", "times",
                         "ago", "today", "tonight", "yesterday", "tomorrow", "friday", "monday", "tuesday",
                         "wednesday", "thursday", "saturday", "sunday"})
_MONTHS = frozenset({"january", "february", "march", "april", "may", "june", "july", "august", "september",
                     "october", "november", "december"})
_THEY_RE = re.compile(r"(?i)(?<![\w'’])(?:they|them|their)(?![\w])")
# a sentence-initial "It" with a content verb after it (a copula, modal or "It felt/took ..." is
# never resolved here: see `_it_replacement`), so most "It's ..." cost no parse
_IT_RE = re.compile(r"(?<=[.!?…])\s+It\s+(?:(?:also|really|just|even|still|only|actually)\s+)?(?!(?:is|was|feels?|felt|"
                    r"takes?|took|makes?|made|means?|meant|seems?|seemed|sounds?|sounded|looks?|looked|goes|went|"
                    r"gets?|got|turned|ended|worked|happened|would|will|could|might|may|can|must|should|has\s+been|"
                    r"had\s+been|isn|wasn|doesn|didn|won)\b)[a-z]+\b")
_ORG_WORD_RE = re.compile(r"(?i)(?<![\w'’])(?:" + "|".join(sorted((re.escape(w) for w in ORG_NOUNS | G.GROUP_NOUNS), key=len,
                                                                   reverse=True)) + r")(?![\w])")
_PROPER_RE = re.compile(r"(?<=[\w,;:)'’\"-] )(?!I['’])[A-Z][\w&'’.-]+")
_OWNED_RE = re.compile(r"(?i)(?<![\w'’])(?:my|our|(?:i|we)(?:['’]ve)?\s+(?:\w+\s+){0,2}?(?:bought|got|adopted|built|"
                       r"made|rented|leased|ordered|received|inherited|have|has|purchased|found|started|opened|"
                       r"planted|knitted|knit|sewed|painted|baked|designed|brought|won|acquired|picked|grabbed|"
                       r"scored|snagged|borrowed))(?![\w])")
_SENT_END_RE = re.compile(r"[.!?…]+(?=\s|$)")
# "It felt ...", "It took forever", "It made me cry": the experience of the previous sentence
_EXPERIENCE_VERBS = frozenset({"feel", "feels", "felt", "take", "takes", "took", "make", "makes", "made", "mean",
                               "means", "meant", "go", "goes", "went", "turn", "turns", "turned", "end", "ended",
                               "work", "works", "worked", "happen", "happened", "seem", "seems", "seemed"})
_NOT_AGENTS = frozenset({"GPE", "LOC", "FAC", "DATE", "TIME", "CARDINAL", "ORDINAL", "MONEY", "QUANTITY", "PERCENT"})
_SUBJ = ("nsubj", "nsubjpass")


def worth_resolving(text: str, previous: str = "", names: frozenset[str] = frozenset()) -> bool:
    """Whether `text` may hold a pronoun this module resolves (cheap: regex only); `previous`: the
    previous turn's text, `names`: the speakers' names (folded), which hint at no organisation."""
    return bool(_they_hits(text, previous, names) or _it_hits(text))


def _hints_org(text: str, names: frozenset[str]) -> bool:
    """An organisation word, or a capitalised word inside a sentence that is no speaker's name."""
    return _ORG_WORD_RE.search(text) is not None or any(
        not _name_or_date(m.group(0).casefold().rstrip(".'’"), names) for m in _PROPER_RE.finditer(text))


def _name_or_date(word: str, names: frozenset[str]) -> bool:
    """A speaker's name or its short form ("Mel" for Melanie), a weekday or a month."""
    return word in names or word in _TIME_NOUNS or word in _MONTHS or (
        len(word) >= 3 and any(n.startswith(word) for n in names))


def _they_hits(text: str, previous: str, names: frozenset[str]) -> list[re.Match[str]]:
    out = []
    for m in _THEY_RE.finditer(text):
        hints = _hints_org if m.group(0).lower() == "their" else _hints  # "their" is never a group's here
        if hints(text[: m.start()], names) or (previous and m.start() < REACH and hints(previous, names)):
            out.append(m)
    return out


def _hints(text: str, names: frozenset[str]) -> bool:
    """An organisation, or a group of people or two people "they" may stand for (group_antecedents)."""
    return _hints_org(text, names) or G.hints_people(text)


def _it_hits(text: str) -> list[re.Match[str]]:
    out = []
    for m in _IT_RE.finditer(text):
        ends = [e.end() for e in _SENT_END_RE.finditer(text, 0, m.start() + 1)]
        prev = text[ends[-2] if len(ends) >= 2 else 0: m.start()]
        if _OWNED_RE.search(prev):
            out.append(m)
    return out


# ---- "they" -> an organisation ------------------------------------------------------------------------
@dataclass(frozen=True)
class _Cand:
    key: str  # what makes two mentions one candidate
    phrase: str | None  # what replaces the pronoun; None: an org it cannot say clearly, or a competitor
    org: bool
    plural: bool = False  # a group of people or a pair (group_antecedents): "they" only, no agreement change


def _names(ctx: ExtractionContext, turns: list[tuple[str | None, str]]) -> set[str]:
    out: set[str] = set()
    for n in [ctx.speaker_name, ctx.addressee, *[w for w, _ in turns]]:
        if n:
            out |= {n.casefold(), n.split()[0].casefold()}
    out |= {n.casefold() for n, t in (ctx.known_types or {}).items() if t == "person"}
    return out


def _person_nouns() -> frozenset[str]:
    from arandu_pipelines.write.person_antecedents import PERSON_NOUNS

    return PERSON_NOUNS | {"guy", "girl", "lady", "woman", "man", "person", "someone", "somebody", "friend",
                           "neighbor", "neighbour", "doctor", "nurse", "manager", "owner", "instructor"}


_PERSON_NOUNS = _person_nouns()


def _workplace(root: Any) -> bool:
    """A proper noun that is where someone works: "(an internship / I work) at / for X"."""
    return root.pos_ == "PROPN" and root.dep_ == "pobj" and root.head.lower_ in ("at", "for", "with") \
        and root.head.head.lower_ in _WORK_WORDS


# "a place called X": a business's name (a place of this kind is where people work)
_BUSINESS_NOUNS = ORG_NOUNS | {"place", "spot", "joint", "caterer", "bistro", "diner", "pub", "bar"}


def _called(root: Any) -> bool:
    """The name a business noun is given: "a Lebanese place called Cedar Table", "a bakery named X"."""
    verb = root.head
    return root.dep_ in ("oprd", "dobj", "attr") and verb.lower_ in ("called", "named") and verb.dep_ == "acl" \
        and verb.head.lower_ in _BUSINESS_NOUNS and verb.head.pos_ == "NOUN"


def _org_phrase(chunk: Any, who: str | None, speaker: str) -> str | None:
    """The organisation as the current speaker would say it: "a clinic" -> "the clinic", "your
    school" (said by the other speaker) -> "my school"; None when unclear ("their club")."""
    words = [t for t in chunk if t.dep_ != "punct"]
    if words and words[0].lower_ in ("a", "an", "this", "that", "one"):
        rest = "".join(t.text_with_ws for t in words[1:]).strip()
        return f"the {rest}" if rest else None
    if words and words[0].lower_ == "our" and who == speaker and speaker:  # "our church" is the speaker's
        rest = "".join(t.text_with_ws for t in words[1:]).strip()  # (mid-sentence the rules would say "their")
        return f"{speaker}'s {rest}" if rest else None
    return _voice(chunk, who, speaker)


def _candidates(span: Any, who: str | None, speaker: str, names: set[str]) -> list[_Cand]:
    """Everything in `span` "they" could stand for: organisations, and the competitors that make
    it ambiguous (plural phrases, coordinations, people)."""
    out: list[_Cand] = []
    covered: set[int] = set()
    out += _pairs(span, who, speaker, covered)
    for ent in span.ents:
        if ent.root.i in covered:
            continue  # a conjunct of a pair of people
        if ent.label_ in ("ORG", "FAC", "PERSON", "GPE") and _called(ent.root):
            out.append(_Cand(ent.text.casefold(), ent.text, True))  # "a Thai place called Golden Basil"
            covered |= set(range(ent.start, ent.end)) | {ent.root.head.head.i}
        elif ent.label_ == "NORP" and ent.root.dep_ in ("amod", "compound"):
            covered |= set(range(ent.start, ent.end))  # "a Lebanese place": an adjective, no people
        elif ent.label_ in ("ORG", "GPE", "FAC", "PERSON") and _workplace(ent.root):
            out.append(_Cand(ent.text.casefold(), ent.text, True))  # "an internship at Quillbridge"
            covered |= set(range(ent.start, ent.end))
        elif ent.label_ == "ORG" and ent.text.casefold() not in names \
                and ent.text.split()[0].casefold() not in names and ent.root.dep_ not in ("npadvmod", "intj"):
            text = ent.text[4:] if ent.text.lower().startswith("the ") else ent.text
            out.append(_Cand(text.casefold(), text, True))
            covered |= set(range(ent.start, ent.end))
        elif ent.label_ in _NOT_AGENTS:
            covered |= set(range(ent.start, ent.end))  # "on Elm Street", "in May": not what "they" is
        elif ent.label_ in ("PERSON", "NORP") and ent.text.casefold() not in names \
                and ent.text.split()[0].casefold() not in names:
            out.append(_Cand(ent.text.casefold(), None, False))  # a singular "they" may be that person
            covered |= set(range(ent.start, ent.end))
    for chunk in span.noun_chunks:
        root = chunk.root
        low = root.lower_
        if root.i in covered or root.pos_ == "PRON" or root.tag_ in ("CD", "WP", "WDT"):
            continue
        if any(c.dep_ == "conj" and c.pos_ in ("NOUN", "PROPN") for c in root.children):
            out.append(_Cand(chunk.text.casefold() + "+", None, False))  # "Ana and Leo", "the school and the church"
        if root.tag_ in ("NNS", "NNPS"):
            if low not in _TIME_NOUNS:  # "my parents", "the boys": a group of people (group_antecedents)
                group = G.group_phrase(chunk, lambda c: _org_phrase(c, who, speaker))
                out.append(_Cand(chunk.text.casefold(), group, False, group is not None))
            continue
        if low in _PERSON_NOUNS and root.pos_ == "NOUN":
            out.append(_Cand(chunk.text.casefold(), None, False))
            continue
        if low in _PLACE_TAILS and chunk.start < root.i and chunk.doc[root.i - 1].lower_ in ORG_NOUNS:
            chunk, low = chunk.doc[chunk.start: root.i], chunk.doc[root.i - 1].lower_  # "the shelter downtown"
        if root.pos_ == "PROPN":
            if _workplace(root):
                text = "".join(t.text_with_ws for t in chunk if t.dep_ not in ("det", "punct")).strip()
                out.append(_Cand(text.casefold(), text, True))
            elif chunk.text.casefold() not in names and root.lower_ not in names:
                out.append(_Cand(chunk.text.casefold(), None, False))  # an unknown name may be a person
            continue
        if low in G.GROUP_NOUNS and root.pos_ == "NOUN" and root.tag_ == "NN":
            phrase = G.class_phrase(chunk) or _org_phrase(chunk, who, speaker)  # "his obedience class"
            key = " ".join(t.lower_ for t in chunk if t.dep_ not in ("det", "poss", "punct"))
            out.append(_Cand(key, phrase, True))
        elif low in ORG_NOUNS and root.pos_ == "NOUN":
            phrase = _org_phrase(chunk, who, speaker)
            key = " ".join(t.lower_ for t in chunk if t.dep_ not in ("det", "poss", "punct"))
            out.append(_Cand(key, phrase, True))
    return out


def _pairs(span: Any, who: str | None, speaker: str, covered: set[int]) -> list[_Cand]:
    """"Tyler and Rose", "Jake and his wife": pairs of people (group_antecedents.pair_phrase);
    their conjuncts go into `covered` so they are not counted again one by one."""
    labels = {t.i: ent.label_ for ent in span.ents for t in ent}
    out: list[_Cand] = []
    for tok in span:
        if tok.dep_ == "conj" or tok.i in covered or not any(c.dep_ == "conj" for c in tok.children):
            continue
        found = G.pair_phrase(tok, labels)
        if found is None:
            continue
        text, idx = found
        owned = any(w in ("my", "our") for w in text.lower().split())
        phrase = text if who == speaker or not owned else None  # "my sister" in the other speaker's turn
        out.append(_Cand(text.casefold() + "+", phrase, False, True))
        covered |= set(idx) | {t.i for i in idx for t in span.doc[i].subtree if t.i < max(idx) + 1}
    return out


def _pick(cands: list[_Cand], plural: bool = True) -> _Cand | None:
    """The one organisation, or (with `plural`) the one group of people, when nothing else is a
    candidate; None otherwise."""
    keys = {c.key for c in cands}
    ones = [c for c in cands if c.org or (plural and c.plural)]
    if len(keys) != 1 or not ones:
        return None
    return next((c for c in ones if c.phrase), None)


def _ner(parses: Any, doc: Any, names: set[str]) -> None:
    from arandu_pipelines.write.person_antecedents import _ner as ner

    ner(parses, doc, names, STAGE)


def _from_turn(parses: Any, turns: list[tuple[str | None, str]], speaker: str, names: set[str]) -> _Cand | None:
    from arandu_pipelines.write.parses import PARSE
    from arandu_pipelines.write.person_antecedents import turn_part

    who, text = turns[-1]
    part = turn_part(text[-MAX_PARSE_CHARS:])
    if part is None:
        return None
    doc = parses.doc(part, PARSE, STAGE)
    if doc is None:
        return None
    _ner(parses, doc, names)
    return _pick(_candidates(doc[:], who, speaker, names))


def _they_replacements(doc: Any, tok: Any, np: str, plural: bool = False) -> list[Replacement]:
    """"they want" -> "<np> wants"; "they're" -> "<np> is"; conjoined verbs agree too."""
    after = tok.nbor(1) if tok.i + 1 < len(doc) else None
    out: list[Replacement] = []
    if after is not None and after.text.lower() in _CONTRACTIONS:
        verb = _CONTRACTIONS[after.text.lower()]
        verb = verb if plural else {"are": "is", "have": "has"}.get(verb, verb)
        end = after.idx + len(after.text)
        return [Replacement(tok.idx, end, doc.text[tok.idx: end], f"{np} {verb}")]
    out.append(Replacement(tok.idx, tok.idx + len(tok.text), tok.text, np))
    if plural:
        return out  # "they bought" -> "my parents bought"
    head = tok.head
    verbs = [head] + [c for c in head.children if c.dep_ == "conj" and c.pos_ in ("VERB", "AUX")
                      and not any(s.dep_ in _SUBJ for s in c.children)]
    for v in verbs:
        finite = sorted([v] + [c for c in v.children if c.dep_ in ("aux", "auxpass")], key=lambda t: t.i)
        first = next((t for t in finite if t.tag_ in ("VBP", "VBD")), None)
        if first is None or first.i < tok.i:
            continue
        if first.tag_ == "VBD" and first.lower_ != "were":
            continue  # past tense agrees already
        new = third_singular(first.text)
        if new != first.text:
            out.append(Replacement(first.idx, first.idx + len(first.text), first.text, new))
    return out


def _sentence_start(doc: Any, tok: Any, np: str) -> str:
    """A group put at a sentence start opens with a capital ("They moved" -> "My parents moved"; the
    rules read "my" there only as "My")."""
    first = next((t for t in tok.sent if not t.is_punct and not t.is_space), None)
    return np[:1].upper() + np[1:] if first is not None and first.i == tok.i else np


# ---- "their" -> an organisation's ----------------------------------------------------------------------
def _their_replacement(doc: Any, tok: Any, parses: Any, turns: list[tuple[str | None, str]], speaker: str,
                       names: set[str]) -> Replacement | None:
    """"I volunteer at the Elm Street library. I help out with their reading program" -> "... with
    the Elm Street library's reading program": a possessive "their" for the ONE organisation
    named before it (the "they" rule's candidates and competitors: a plural, a person, a group of
    people, a second organisation leave it). Not when a "they"/"them" comes before it in its
    sentence ("they want their book back": the rules then say the organisation once, and the
    possessive reads right after it), and never for a group of people ("my parents ... their
    house" is write/group_antecedents.py's plural, left as written)."""
    if any(t.lower_ in ("they", "them") for t in doc[tok.sent.start: tok.i]):
        return None
    here = _candidates(doc[: tok.i], speaker, speaker, names)
    if here:
        found = _pick(here, plural=False)
    elif turns and tok.idx < REACH:
        found = _from_turn(parses, turns, speaker, names)
    else:
        found = None
    if found is None or not found.org or not found.phrase:
        return None
    phrase = found.phrase
    owner = phrase + ("'" if phrase.endswith("s") else "'s")
    return Replacement(tok.idx, tok.idx + len(tok.text), tok.text, owner)


# ---- "it" -> the speaker's thing ---------------------------------------------------------------------
def _owned_object(sent: Any, who: str | None, speaker: str) -> str | None:
    """The previous sentence's one singular thing, as "my <thing>" / "our <thing>", when it is the
    speaker's (see the module docstring); None when there is not exactly one."""
    things = []
    for chunk in sent.noun_chunks:
        root = chunk.root
        if root.pos_ == "PRON" or root.dep_ in _SUBJ or root.lower_ in _TIME_NOUNS or root.tag_ in ("CD", "WP"):
            continue
        if root.tag_ in ("NNS", "NNPS") or root.lower_ in _PERSON_NOUNS:
            continue  # "for my kids": people and plurals are not what "it" stands for
        if root.dep_ in ("npadvmod", "ROOT", "intj", "appos", "attr"):
            continue
        things.append(chunk)
    if len(things) != 1:
        return None
    chunk = things[0]
    root = chunk.root
    if root.dep_ != "dobj" or root.tag_ not in ("NN",) or root.lower_ in _VAGUE or root.lower_ in _PERSON_NOUNS:
        return None
    verb = root.head
    subj = [c for c in verb.children if c.dep_ in _SUBJ]
    if not subj and verb.dep_ == "conj":
        subj = [c for c in verb.head.children if c.dep_ in _SUBJ]
    if len(subj) != 1 or subj[0].lower_ not in ("i", "we"):
        return None
    first = chunk[0]
    if first.lower_ in ("my", "our"):
        owner = first.lower_
    elif first.lower_ in ("a", "an") and verb.lower_ in OWN_VERBS:
        owner = "my" if subj[0].lower_ == "i" else "our"
    else:
        return None
    if owner == "our" and speaker:
        owner = f"{speaker}'s"
    if any(c.dep_ == "neg" for c in verb.children):
        return None  # "We didn't buy a camper. It ..."
    head = [t.text for t in chunk if t.i == root.i or (t.dep_ == "compound" and t.head.i == root.i)]
    return f"{owner} {' '.join(head)}"


def _it_replacement(doc: Any, tok: Any, who: str | None, speaker: str) -> Replacement | None:
    sent = tok.sent
    lead = [t for t in sent if not t.is_punct and not t.is_space]
    if not lead or lead[0].i != tok.i or tok.text != "It" or sent.start == 0:
        return None
    if _pronoun_role(tok) != "subj" or _bare_reaction(tok):
        return None
    head = tok.head
    if head.pos_ != "VERB" or head.lower_ in _EXPERIENCE_VERBS or any(c.dep_ in ("aux", "auxpass") and
                                                                     c.lower_ in ("been", "'s", "’s")
                                                                     for c in head.children):
        return None  # "I built a website. It's been a wild ride" / "It's tough": the doing, not the thing
    prev = doc[sent.start - 1].sent
    np = _owned_object(prev, who, speaker)
    if np is None:
        return None
    return _replacement(doc, tok, np, judge=False)


# ---- entry points ------------------------------------------------------------------------------------
def _part(text: str, hits: list[re.Match[str]]) -> str:
    """What of a message is parsed: up to the end of the sentence of its last candidate pronoun."""
    end = _SENT_END_RE.search(text, max(m.end() for m in hits))
    return text[: end.end() if end else len(text)][:MAX_PARSE_CHARS]


def parse_texts(items: list[tuple[str, str, list[tuple[str | None, str]]]]) -> list[str]:
    """The message parts `replacements` will parse for these (text, speaker, previous turns),
    regex only, so the write pipeline parses them in the chunk's batch (write/parses.py). The
    names are the speakers' (the context may know more: a text missed here is parsed when first
    read, which changes the cost, never the result)."""
    out: list[str] = []
    for text, speaker, turns in items:
        names = frozenset(x for n in [speaker, *[w for w, _ in turns[-1:]]] if n
                          for x in (n.casefold(), n.split()[0].casefold()))
        hits = _they_hits(text, turns[-1][1] if turns else "", names) + _it_hits(text)
        if hits:
            out.append(_part(text, hits))
    return list(dict.fromkeys(out))


def replacements(text: str, ctx: ExtractionContext, spacy_model: str | None = None) -> list[Replacement]:
    """The "they"/"it" of `text` this module resolves, with what to put in their place. Empty when
    nothing is clear."""
    turns = context_turns(ctx)
    names = _names(ctx, turns)
    hits = _they_hits(text, turns[-1][1] if turns else "", frozenset(names)) + _it_hits(text)
    if not hits:
        return []
    from arandu_pipelines.write.parses import PARSE, for_context

    parses = for_context(ctx, spacy_model)
    doc = parses.doc(_part(text, hits), PARSE, STAGE)
    if doc is None:
        return []
    speaker = (ctx.speaker_name or "").strip()
    _ner(parses, doc, names)
    out: list[Replacement] = []
    for tok in doc:
        if tok.lower_ == "they" and G.generic(tok):
            continue  # "they say it's going to rain": people in general
        if (tok.lower_ == "they" and tok.dep_ in _SUBJ) or (tok.lower_ == "them" and tok.dep_ in ("dobj", "pobj", "dative", "nsubj")):
            here = _candidates(doc[: tok.i], speaker, speaker, names)
            if here:
                found = _pick(here)
            elif turns and tok.idx < REACH:
                found = _from_turn(parses, turns, speaker, names)
            else:
                found = None
            if found is not None and found.phrase and tok.lower_ == "them":
                if not found.plural:  # an object "them" for people is left as written
                    out.append(Replacement(tok.idx, tok.idx + len(tok.text), tok.text, found.phrase))
            elif found is not None and found.phrase:
                np = _sentence_start(doc, tok, found.phrase) if found.plural else found.phrase
                out += _they_replacements(doc, tok, np, found.plural)
        elif tok.lower_ == "their" and tok.dep_ == "poss":
            rep = _their_replacement(doc, tok, parses, turns, speaker, names)
            if rep is not None:
                out.append(rep)
        elif tok.lower_ == "it":
            rep = _it_replacement(doc, tok, speaker, speaker)
            if rep is not None:
                out.append(rep)
    return out


def rewrite(text: str, spans: list[tuple[int, int]], ctx: ExtractionContext) -> tuple[str, list[tuple[int, int]]]:
    """`text` with its resolved pronouns replaced and the sentence `spans` moved to match."""
    from arandu_pipelines.write.person_antecedents import splice

    return splice(text, spans, replacements(text, ctx, ctx.spacy_model))

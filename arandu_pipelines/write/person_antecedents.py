"""Person antecedents: who "he" / "she" / "his" / "her" of a message is, when it is someone named
a sentence or a turn earlier.

People write "He's a beagle mix" after "I adopted a rescue dog", "She just turned eight" after
"my granddaughter", "He got into med school!" after the other speaker's "How's your brother?".
Without the antecedent the sentence has no subject a fact can carry and it is dropped. This module
(the animate counterpart of write/antecedents.py, which resolves "it"/"they" for things) finds,
conservatively, what such a pronoun stands for:

- the pronoun is the subject ("he", "she") or a possessive determiner ("his", "her") of a clause
  (spaCy parse), or an object "him"/"her" of a verb ("We drove him to the office", "so proud of
  her") whose clause subject cannot be the one meant (I / we / you / a pronoun of the other
  gender: `_object_free`); "they" is left alone (a singular "they" is rarely unambiguous in chat,
  and a plural one is the thing resolver's);
- once a mention is resolved in a sentence, a later possessive or object of the same gender in it
  stays as written ("We took my dad to his favourite diner"), and a pronoun further into the
  message than `REACH` takes the referent an earlier pronoun of its gender took from the turns;
- the names put in a pronoun's place are typed person / pet for the rules (`animate_context`), so
  that "Mia's driving test is in late May" and "Rufus stole a pizza" are news about someone even
  when this message does not say what Mia or Rufus is;
- candidates are animate: a person's name (spaCy PERSON entity, a proper noun apposed to a kin or
  pet noun: "my sister Ana", "Oscar, my guinea pig", "a husky named Juno", "my niece Olivia"
  parsed as a compound), or a kin / pet noun phrase ("my dog", "your brother", "a rescue dog"
  that "I" adopted / got / have, a capitalised kin word of an earlier turn: "Dad is staying with
  us" said by the speaker is "my dad", said by the other speaker "<their name>'s dad"); the chat's
  speakers ("I", "you", and the turns' speaker names) are never candidates;
- the window is the message before the pronoun; when it holds no animate candidate, the
  session's previous two turns taken together (ExtractionContext.previous_turns); the window
  must hold exactly ONE compatible candidate (mentions of one person merge); when the other
  speaker's last turn ends in a question naming someone, that question alone is the window
  ("How's your brother?" -> "He's doing great"), as for "it" in write/antecedents.py (its first
  question too when the last asks about something else; a name NER missed when the question's
  subject: "How's Biscuit doing?", `_question_name`); an animal only wished for ("begging for a
  dog") and a caption's people when the turn's words name someone are no candidates; gender agrees
  when the text shows it ("my sister" is she, "my brother" he; a pet or a name of unknown gender
  takes either), else the sentence is left as it is; when the window holds NO compatible candidate
  (none at all, or only ones of the other gender), the one compatible person or pet the session
  named in its last six turns (write/session_names.py, `ExtractionContext.named_before`) is taken;
  two or more leave it as it is;
- a candidate with a name is replaced by the name ("Biscuit is a beagle mix": the name is what a
  later question asks about; "Lily is Nadia's granddaughter" is the relation rules' fact); one
  without is replaced by its noun phrase moved into the current speaker's mouth ("your brother"
  said by the other speaker -> "my brother", which the rewrite makes "Nadia's brother");
- a candidate named in the same message by a name is left to extract_rules (`last_person`, which
  already resolves "My granddaughter Lily ... She ..." to Lily).

"His/Her name is X" becomes "<antecedent> is named X". Only a pronoun within the first `REACH`
characters of a reply looks into previous turns (further in, the reply has named someone itself
or the reference is too far to trust). English only; with no spaCy pipeline nothing changes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from arandu_pipelines.write import kin_antecedents as K
from arandu_pipelines.write import lexicon as L
from arandu_pipelines.write import name_gender, name_subjects, pronoun_people
from arandu_pipelines.write.antecedents import (
    _CONTRACTIONS,
    _QUESTION_RE,
    MAX_PARSE_CHARS,
    MAX_STATEMENT_CHARS,
    PERSON_PRONOUN_RE,
    REACH,
    TURNS,
    Replacement,
    _bare_reaction,
    _voice,
    context_turns,
)
from arandu_pipelines.write.grammar_defects import is_laughter
from arandu_pipelines.write.role_subjects import OCCUPATIONS
from arandu_pipelines.write.types import ExtractionContext

STAGE = "person_antecedents"
PRONOUN_RE = PERSON_PRONOUN_RE
_MALE_PRON = frozenset({"he", "his", "him"})
_FEMALE_PRON = frozenset({"she", "her"})
MALE = frozenset({
    "brother", "dad", "father", "son", "husband", "boyfriend", "grandpa", "grandfather", "uncle", "nephew",
    "grandson", "stepdad", "stepbrother", "stepson", "hubby", "fiance", "fiancé", "father-in-law",
    "brother-in-law", "ex-husband", "daddy", "papa", "boy", "guy", "man"})
FEMALE = frozenset({
    "sister", "mom", "mum", "mother", "daughter", "wife", "girlfriend", "grandma", "grandmother", "aunt", "niece",
    "granddaughter", "stepmom", "stepsister", "stepdaughter", "fiancee", "fiancée", "mother-in-law",
    "sister-in-law", "ex-wife", "mommy", "mama", "girl", "lady", "woman"})
# nouns for one person whose gender the word does not show
PERSON_NOUNS = frozenset(
    {k for k in L.REL_TERMS_EN if " " not in k and not k.endswith(("s", "ren"))}
    | {"baby", "bestie", "mentor", "teacher", "coach", "therapist", "grandkid", "grandchild", "youngest", "oldest",
       "toddler", "newborn", "partner", "cousin", "classmate", "boss"}) | MALE | FEMALE
PET_NOUNS = frozenset({t.split()[-1] for t in L.PET_TERMS_EN} | {
    "husky", "beagle", "lab", "labrador", "retriever", "poodle", "terrier", "pug", "corgi", "kitty", "pony",
    "gecko", "lizard", "snake", "doggo", "pooch", "shepherd", "chihuahua", "dachshund", "bulldog", "collie",
    "spaniel", "rescue", "tabby"})
# every noun for one person or animal a pronoun may stand for (kin, role, pet)
# occupations (write/role_subjects.py): "The inspector came by. She said ..." -> "My inspector said ..."
ANIMATE_NOUNS = PERSON_NOUNS | PET_NOUNS | K.ROLE_NOUNS | OCCUPATIONS
_OCCUPATION_ONLY = OCCUPATIONS - PERSON_NOUNS - PET_NOUNS - K.ROLE_NOUNS
# "I adopted / got / have a dog": the indefinite animal or relative is the clause subject's own
_OWN_VERBS = frozenset({"adopt", "adopted", "adopting", "get", "got", "gotten", "getting", "have", "has", "had",
                        "having", "rescue", "rescued", "bought", "buy", "welcomed", "foster", "fostered", "fostering"})
_NAMING_VERBS = frozenset({"named", "called"})


@dataclass(frozen=True)
class _Cand:
    key: str  # what makes two mentions the same candidate (the name, else the phrase)
    phrase: str | None  # what replaces the pronoun; None: it counts, but cannot be said clearly
    gender: str | None  # "m" / "f" / None (unknown: takes either)
    named: bool
    subject: bool = False  # the candidate is its clause's subject ("How's your brother?")
    head: str = ""  # the noun ("puppy"): two unnamed mentions of one head may be one referent
    # a name apposed to a person noun the rules' relation patterns do not read ("one girl on the
    # team, Kira, ..."): resolved here; "my brother Carlos ... He" stays extract_rules' last_person's
    apposed: bool = False
    kind: str = "person"  # "pet" for an animal: how the rules type the name put in the pronoun's place


# a capitalised kin word used as a name in an earlier turn ("Dad is staying with us"): the turn
# speaker's relative (write/people_forms.py does the same for the current message)
_KIN_NAMES = frozenset({"dad", "daddy", "mom", "mommy", "mum", "mummy", "grandma", "grandpa", "granny", "nana",
                        "papa", "grandad", "granddad"})
# an object pronoun: "We drove him to the office", "gave her a hug", "so proud of him"
_OBJECT_DEPS = frozenset({"dobj", "dative", "pobj"})


def worth_resolving(text: str) -> bool:
    """Whether `text` has a pronoun this module could resolve (cheap: regex only)."""
    return bool(text) and PRONOUN_RE.search(text) is not None


_SENT_END_RE = re.compile(r"[.!?…]+(?=\s|$)")


def _sentence_end(text: str, start: int) -> int:
    m = _SENT_END_RE.search(text, start)
    return m.end() if m else len(text)


def _pron_gender(tok: Any) -> str:
    return "m" if tok.lower_ in _MALE_PRON else "f"


def _pronoun_slot(tok: Any) -> str | None:
    """'subj' for a subject he/she, 'poss' for a possessive his/her, 'obj' for an object him/her
    of a verb (or of a preposition after a verb or adjective: "proud of her"); None otherwise."""
    low = tok.lower_
    if low in ("he", "she") and tok.dep_ in ("nsubj", "nsubjpass"):
        return "subj"
    if low in ("his", "her") and tok.dep_ == "poss":
        return "poss"
    if low in ("him", "her") and tok.tag_ == "PRP" and tok.dep_ in _OBJECT_DEPS:
        head = tok.head.head if tok.dep_ == "pobj" else tok.head
        if head.tag_.startswith(("VB", "JJ")):
            return "obj"
    return None


def own_subject_pronoun(tok: Any) -> bool:
    """Whether the possessive `tok` ("his"/"her") belongs to the subject of its own clause, that
    subject being "he"/"she" of the same gender: "He passed his exam", "She and her wife moved",
    "He fell and bruised his hip" (a conjoined verb shares its subject). The subject is the first
    nsubj found walking up from the possessive's head, so a clause with its own subject ("She
    said his hip hurts") stops there. Such a possessive stays a pronoun when the subject is
    resolved: "Lena's nephew passed his exam", never "... passed Lena's nephew's exam"; the
    gender is the one the writer chose."""
    cur = tok.head
    for _ in range(len(tok.doc)):
        subj = [c for c in cur.children if c.dep_ in ("nsubj", "nsubjpass") and c.i != tok.i]
        if subj:
            s = subj[0]
            return s.lower_ in ("he", "she") and _pron_gender(s) == _pron_gender(tok)
        if cur.head.i == cur.i:
            return False
        cur = cur.head
    return False


def own_name_subject(tok: Any) -> bool:
    """Whether the possessive `tok` belongs to its clause's subject when that subject is a proper
    name whose known gender does not conflict: "Tyler scored second in his class" (the name NER
    typed ORG, so no candidate of the message said so); write/name_subjects.py."""
    cur = tok.head
    for _ in range(len(tok.doc)):
        subj = [c for c in cur.children if c.dep_ in ("nsubj", "nsubjpass") and c.i != tok.i]
        if subj:
            s = subj[0]
            return s.tag_ == "NNP" and s.i < tok.i and not name_gender.conflicts(s.text, _pron_gender(tok))
        if cur.head.i == cur.i:
            return False
        cur = cur.head
    return False


def _names(ctx: ExtractionContext, turns: list[tuple[str | None, str]]) -> set[str]:
    """The chat's speakers (never an antecedent of he/she: they are "I" and "you")."""
    out: set[str] = set()
    for n in [ctx.speaker_name, ctx.addressee, *[w for w, _ in turns]]:
        if n:
            out |= {n.casefold(), n.split()[0].casefold()}
    return out


def _name_of(root: Any) -> str | None:
    """A proper name apposed to an animate noun: "my sister Ana", "Oscar, my guinea pig",
    "a husky named Juno"."""
    for c in root.children:
        if c.dep_ in ("appos", "npadvmod") and c.tag_ == "NNP":
            return " ".join(t.text for t in c.subtree if t.tag_ == "NNP") or None
        if c.dep_ == "acl" and c.lower_ in _NAMING_VERBS:
            for o in c.children:
                if o.dep_ in ("oprd", "dobj", "attr", "xcomp") and o.tag_ == "NNP":
                    return " ".join(t.text for t in o.subtree if t.tag_ == "NNP")
    if root.dep_ == "appos" and root.head.tag_ == "NNP":
        return root.head.text
    nxt = root.nbor(1) if root.i + 1 < len(root.doc) else None
    if nxt is not None and nxt.tag_ == "NNP" and nxt.dep_ in ("appos", "compound", "nsubj", "npadvmod") \
            and nxt.text[:1].isupper():
        return nxt.text
    return None


def _is_subject(root: Any) -> bool:
    slot = root
    while slot.dep_ in ("conj", "appos") and slot.head.i != slot.i:
        slot = slot.head
    return slot.dep_ in ("nsubj", "nsubjpass", "attr")  # "Is your uncle in town?" parses him as attr


def _gender_of(root: Any) -> str | None:
    low = root.lower_
    return "m" if low in MALE else "f" if low in FEMALE else None


def _candidates(span: Any, who: str | None, speaker: str, names: set[str]) -> list[_Cand]:
    """Animate candidates of `span` in text order (see the module docstring)."""
    out: list[tuple[int, _Cand]] = []
    covered: set[int] = set()
    for chunk in span.noun_chunks:
        root = chunk.root
        low = root.lower_
        owned = K.possessor(root, who, speaker, ANIMATE_NOUNS)  # "My husband's birthday", "my sister's son"
        if owned is not None:
            tok, said = owned
            covered.add(tok.i)
            out.append((tok.i, _Cand(said.casefold(), said, _gender_of(tok), False, False, tok.lower_,
                                     kind="pet" if tok.lower_ in PET_NOUNS else "person")))
        kin = next((c for c in root.children if c.dep_ == "compound" and c.tag_ == "NN" and c.lower_ in ANIMATE_NOUNS
                    and first_word(chunk) in ("my", "your", "our")), None) if root.tag_ == "NNP" else None
        if kin is not None:  # "My niece Olivia plays ..." parsed as a compound: the name, with the noun's gender
            kname = " ".join(t.text for t in chunk if t.tag_ == "NNP" and t.i > kin.i)
            if kname and kname.casefold() not in names:
                covered |= {t.i for t in chunk}
                out.append((chunk.start, _Cand(kname.casefold(), kname, _gender_of(kin) or name_gender.gender_of(kname),
                                               True, _is_subject(root), "", K.read_here(kin.lower_),
                                               "pet" if kin.lower_ in PET_NOUNS else "person")))
            continue
        if root.tag_ not in ("NN", "NNP") or low not in ANIMATE_NOUNS:
            continue
        if root.dep_ == "attr" and any(c.dep_ == "nsubj" and c.lower_ in ("he", "she", "it", "they", "this", "that")
                                       for c in root.head.children):
            continue  # "He's a beagle": what someone is, not someone new (a misparsed subject still counts)
        if low in _OCCUPATION_ONLY and (root.dep_ == "attr" or first_word(chunk) in ("a", "an")
                                        and root.head.dep_ == "prep"):
            # "My dad is a retired electrician", "perfect for a baker": a role said of someone or of
            # anyone, not a person of its own (lead's merge fix of the15's occupation antecedents)
            continue
        name = _name_of(root) or K.apposed_name(root)
        if name and name.casefold() in names:
            name = None
        first = chunk[0].lower_
        phrase: str | None
        if first in ("my", "your"):
            phrase = _voice(chunk, who, speaker)
            if phrase and who and phrase.casefold().startswith(f"{who.casefold()}'s"):
                phrase = who + phrase[len(who):]  # _voice lower-cases a phrase that opened with "My"
        elif first in ("a", "an"):
            verb = root.head
            subj = [c for c in verb.children if c.dep_ == "nsubj"] if root.dep_ == "dobj" else []
            owner = None
            if subj and verb.lower_ in _OWN_VERBS and subj[0].lower_ == "i":
                owner = "my" if who == speaker else (f"{who}'s" if who else None)
            elif subj and verb.lower_ in _OWN_VERBS and subj[0].lower_ == "you" and who and who != speaker:
                owner = "my"  # "You got a dog?" asked of the current speaker
            words = [t.text_with_ws for t in chunk if t.i != chunk.start and t.dep_ != "punct"]
            phrase = f"{owner} {''.join(words).strip()}" if owner and words else None
            phrase = phrase or K.owned_phrase(chunk, who, speaker)  # "We got a puppy"
            if phrase is None and not name and _wished(root):
                continue  # "She's been begging her parents for a dog": no one yet, no referent
        elif len(chunk) == 1 and low in _KIN_NAMES and root.text[:1].isupper() and who \
                and root.dep_ not in ("npadvmod", "intj"):
            phrase = f"my {low}" if who == speaker else f"{who}'s {low}"  # "Dad is staying with us"
        else:
            # "our puppy", "the kid" asked about (write/kin_antecedents.py); "his brother", "the
            # dog" said in passing: counts, not said clearly
            phrase = K.owned_phrase(chunk, who, speaker)
        if name:
            phrase = name
        key = (name or phrase or chunk.text).casefold()
        covered |= {t.i for t in chunk}
        if name:
            covered |= {t.i for t in span.doc if t.text == name.split()[0]}
        # the noun's gender first ("my wife Patty"), else the name's (write/name_gender.py)
        gender = _gender_of(root) or (name_gender.gender_of(name) if name and low not in PET_NOUNS else None)
        out.append((chunk.start, _Cand(key, phrase, gender, bool(name), _is_subject(root),
                                       "" if name else low, bool(name) and K.read_here(low),
                                       "pet" if low in PET_NOUNS else "person")))
    for tok in span:  # "my youngest", "your little one": no noun chunk (write/kin_antecedents.py)
        if tok.i not in covered and (bare := K.bare_kin(tok, who, speaker)) is not None:
            out.append((tok.i, _Cand(bare.casefold(), bare, None, False, _is_subject(tok), tok.lower_)))
    for ent in span.ents:
        if ent.label_ == "PERSON" and len(ent) > 1 and ent[0].lower_ in _QUESTION_OPENERS and ent.start == ent.sent.start:
            # "Will Kenji manage the shop?": NER took the question's auxiliary into the name
            from spacy.tokens import Span

            ent = Span(ent.doc, ent.start + 1, ent.end, label=ent.label_)
        if ent.label_ != "PERSON" or ent.start in covered or ent.text.casefold() in names or is_laughter(ent.text.split()[0]) \
                or ent.text.split()[0].casefold() in names or ent.root.dep_ in ("npadvmod", "intj", "ROOT"):
            continue  # a vocative ("Thanks, Mel!") addresses a speaker
        if name_subjects.weak_person(ent.text, span.doc.text):
            continue  # "Brookfield": a one-word name no first-name list knows, PERSON to NER only (name_subjects)
        out.append((ent.start, _Cand(ent.text.casefold(), ent.text, name_gender.gender_of(ent.text), True,
                                     _is_subject(ent.root))))
    return [c for _, c in sorted(out, key=lambda x: x[0])]


# verbs whose object or "for" object is wished for, not there yet ("wants a puppy", "begging for a dog")
# (the parse runs without a lemmatizer: the forms are listed)
_WISH_VERBS = frozenset({
    "want", "wants", "wanted", "wanting", "wish", "wishes", "wished", "wishing", "need", "needs", "needed",
    "needing", "beg", "begs", "begged", "begging", "ask", "asks", "asked", "asking", "hope", "hopes", "hoped",
    "hoping", "pray", "prays", "prayed", "praying", "look", "looks", "looked", "looking", "long", "longs",
    "longed", "longing", "dream", "dreams", "dreamed", "dreamt", "dreaming"})
_WOULD = frozenset({"would", "'d", "’d"})


def _wished(root: Any) -> bool:
    """Whether an indefinite animal or person noun is only wished for: the object of want / wish /
    need, of "would love / like", or of "for" after beg / ask / hope / look ("She's been begging her
    parents for a dog", "He wants a puppy", "I would love a dog"): no one a later "she" / "he" can
    be (the girl who wants the dog is), so it does not make the pronoun ambiguous."""
    head = root.head
    if root.dep_ == "pobj" and head.lower_ == "for":
        return head.head.lower_ in _WISH_VERBS
    if root.dep_ != "dobj":
        return False
    if head.lower_ in _WISH_VERBS:
        return True
    return head.lower_ in ("love", "like") and any(c.lower_ in _WOULD for c in head.children)


# auxiliaries that open a yes/no question, which the small NER model reads as a first name
_QUESTION_OPENERS = frozenset({"will", "can", "did", "does", "do", "is", "was", "has", "have", "had", "would",
                               "could", "should", "are", "were", "may", "might", "shall"})


def first_word(chunk: Any) -> str:
    """The lower-cased first word of a noun chunk."""
    return str(chunk[0].lower_)


def _pick(cands: list[_Cand], gender: str) -> _Cand | None:
    """The one compatible candidate (distinct by key; unnamed mentions of one referent merge:
    write/kin_antecedents.same_referent), else None."""
    fit = {c.key: c for c in cands if c.gender in (None, gender)}
    kept: list[_Cand] = []
    for c in sorted(fit.values(), key=lambda c: c.phrase is None):  # a mention that says whose first
        same = next((k for k in kept if not c.named and not k.named
                     and K.same_referent(k.head, K.owner_word(k.phrase), c.head, K.owner_word(c.phrase))), None)
        if same is None:
            kept.append(c)
    if len(kept) != 1:
        return None
    c = kept[0]
    return c if c.phrase else None


def _ner(parses: Any, doc: Any, names: set[str], stage: str = STAGE) -> None:
    """Entities on `doc` (in place, write/parses.py) when it has a proper noun that is not a
    speaker's name: most parts have none, and the NER pass is then saved. `stage`: whose count
    the parse goes to (write/org_antecedents.py asks the same)."""
    from arandu_pipelines.write.parses import NER

    if any(t.tag_ in ("NNP", "NNPS") and t.lower_ not in names for t in doc):
        parses.doc(doc.text, NER, stage)


def turn_part(text: str) -> str | None:
    """What of a previous turn is read: all of a short turn, the last two sentences of a longer one."""
    if len(text) <= MAX_STATEMENT_CHARS:
        return text
    ends = [m.end() for m in _SENT_END_RE.finditer(text[:-1])]
    return text[ends[-2]:].strip() if len(ends) >= 2 else None


def _from_turns(parses: Any, turns: list[tuple[str | None, str]], speaker: str, names: set[str],
                gender: str, not_key: str | None = None, window: dict[str, bool] | None = None) -> _Cand | None:
    """The one compatible candidate of the previous `TURNS` turns taken together (a pet named two
    turns back and a sister named in the last turn make "she" ambiguous); None when a turn is
    too long to read whole or nothing is clear. `window` (when given) gets "fits": whether the
    window held a compatible candidate or could not be read (then the session's earlier names,
    write/session_names.py, are not asked)."""
    from arandu_pipelines.write.parses import PARSE

    if window is not None:
        window["fits"] = True  # until the window is read and holds no compatible candidate
    who, text = turns[-1]
    asked = [q.group(0).strip() for q in _QUESTION_RE.finditer(text)][-ASKED:] if who != speaker else []
    asked_only = False
    if asked:  # "How's your brother?" -> "He's doing great": what was asked about, first
        cands = _asked_about(parses, asked, who, speaker, names, gender, not_key)
        if cands is None:
            return None
        if cands:
            if window is None or _fits(cands, gender):
                return _pick(cands, gender)
            asked_only = True  # none fits: the turns are read only to know whether they hold one
    cands = []
    for who, text in turns[-TURNS:]:
        part = turn_part(text[-MAX_PARSE_CHARS:])
        if part is None:
            return None
        doc = parses.doc(part, PARSE, STAGE)
        if doc is None:
            return None
        _ner(parses, doc, names)
        cands += [c for c in _turn_candidates(doc, who, speaker, names) if c.key != not_key]
    if window is not None:
        window["fits"] = _fits(cands, gender)
    if asked_only:
        return None
    return _pick(cands, gender) if cands else None


# the other speaker's last questions read for whom they ask about: "How's Moose? Did the checkup go
# okay?" asks about Moose in its first question
ASKED = 2


def _asked_about(parses: Any, asked: list[str], who: str | None, speaker: str, names: set[str],
                 gender: str, not_key: str | None) -> list[_Cand] | None:
    """The candidates the other speaker's last question is about (its subject), or, when it has
    none, those of the question before it in the same turn when one of them fits `gender` ("How's
    Moose? Did the heart checkup go okay?" -> "He went home last week"); None when a question
    cannot be parsed. A question with no animate subject leaves the turns to be read as before."""
    from arandu_pipelines.write.parses import PARSE

    last: list[_Cand] = []
    for n, question in enumerate(reversed(asked)):
        doc = parses.doc(question[-MAX_PARSE_CHARS:], PARSE, STAGE)
        if doc is None:
            return None
        _ner(parses, doc, names)
        # only someone the question is about (its subject): "Can you show me one of Oscar?" asks
        # for a photo, and the reply's "He's so cute" may be about the one just shown
        every = _candidates(doc[:], who, speaker, names)
        cands = [c for c in every if c.subject and c.key != not_key]
        if not every:  # a question naming someone the candidates read ("after your grandma?") is theirs
            cands = [c for c in _question_name(doc, names) if c.key != not_key]
        if cands and _fits(cands, gender):
            return cands
        if cands and n == 0:
            # the last question asks about someone the pronoun's gender does not fit ("Did Marco
            # start school? How is Emma doing?" -> "He started on Monday"): the question before
            # is asked when it names one who fits (session 18), else the last question's stand
            last = cands
    return last


def _question_name(doc: Any, names: set[str]) -> list[_Cand]:
    """The proper name a question is about when spaCy's NER did not read it as a person ("How's
    Rufus doing?", "Did Biscuit come along?", "Was Biscuit there cheering?": a pet's or an
    unusual name typed ORG / GPE or not at all): the question's subject, one or two capitalised
    proper nouns, no speaker, no calendar word or auxiliary. A he/she reply to a question about
    a name is about that name; what it is (person or pet) the reply does not say, so it is typed
    a person for the rules; gender from the evidence or the lists, else unknown (takes either)."""
    out: list[_Cand] = []
    for tok in doc:
        if tok.tag_ != "NNP" or tok.dep_ not in ("nsubj", "nsubjpass", "attr", "acomp") or not tok.is_alpha \
                or not tok.text[:1].isupper() or tok.lower_ in names or tok.lower_ in _QUESTION_OPENERS \
                or tok.lower_ in _NOT_NAMES or is_laughter(tok.text) or _quoted(doc, tok) \
                or any(c.dep_ in ("poss", "conj") for c in tok.children):
            continue  # "Carmen's Cocina", a title in quotes: a thing's name; "Rufus and Max": two
        if tok.dep_ in ("attr", "acomp") and (tok.head.lower_ not in _BE or any(
                c.dep_ in ("nsubj", "nsubjpass", "expl") for c in tok.head.children)):
            continue  # "Was Biscuit there?", "How is Moose?" read the name so; "Who is Tom?", "Is that Tom?" do not ask about him
        parts = [t for t in doc[max(tok.sent.start, tok.i - 1): tok.i] if t.tag_ == "NNP" and t.dep_ == "compound"]
        name = " ".join(t.text for t in [*parts, tok])
        if name.casefold() in names or any(c.key == name.casefold() for c in out) \
                or name_subjects.weak_person(name, doc.text):
            continue  # "How was Brookfield?": a place's or a team's name (write/name_subjects.py)
        out.append(_Cand(name.casefold(), name, name_gender.gender_of(name), True, True))
    return out if len(out) == 1 else []


def _quoted(doc: Any, tok: Any) -> bool:
    """Whether `tok` stands between quotation marks of its sentence (a title: "Carmen's Cocina")."""
    before = doc[tok.sent.start: tok.i].text
    return sum(before.count(q) for q in ('"', "“", "”")) % 2 == 1


_BE = frozenset({"is", "was", "are", "were", "'s", "’s"})
# capitalised words that open or fill a question and are no one's name
_NOT_NAMES = frozenset({"how", "what", "who", "when", "where", "why", "which", "i", "ok", "okay", "omg", "wow",
                        "christmas", "easter", "thanksgiving", "halloween", "today", "tonight", "tomorrow",
                        "yesterday"} | {d.lower() for d in L.WEEKDAYS_EN})


_CAPTION_RE = re.compile(r"\[(?:shared a photo|image|photo|foto)\b", re.IGNORECASE)


def _turn_candidates(doc: Any, who: str | None, speaker: str, names: set[str]) -> list[_Cand]:
    """The candidates of an earlier turn. A photo caption the turn ends with ("Here's Tyler at his
    graduation. [shared a photo: a young man in a uniform ...]") shows someone the words named:
    its people count only when the words name no one (else "a young man" would make "he"
    ambiguous with Tyler)."""
    m = _CAPTION_RE.search(doc.text)
    cut = next((t.i for t in doc if t.idx >= m.start()), len(doc)) if m else len(doc)
    said = _candidates(doc[:cut], who, speaker, names)
    if said or cut >= len(doc):
        return said
    return _candidates(doc[cut:], who, speaker, names)


_WORD_RE = re.compile(r"[a-z]+(?:-[a-z]+)*")


def _unread_here(doc: Any, tok: Any, names: set[str]) -> bool:
    """Whether the message names, before the pronoun, someone this module's candidates did not
    read: a capitalised word inside a sentence that is no speaker ("coming home to Biscuit helps.
    He just curls up next to me"); the session's older names are then not asked (lead's merge
    fix of window15, session 15: "He" had become a man named six turns back)."""
    return any(t.i > t.sent.start and t.text[:1].isupper() and t.text != "I" and t.is_alpha
               and t.lower_ not in names for t in doc[: tok.i])


def _window_noun(turns: list[tuple[str | None, str]], gender: str) -> bool:
    """Whether the 2-turn window holds a person or pet noun of the pronoun's gender (or of none)
    that its candidates did not take: "It's a boy, and she asked me to be his godmother" ...
    "I'm already building his library" is the boy's, not an older name's (lead's merge fix)."""
    other = FEMALE if gender == "m" else MALE if gender == "f" else frozenset()
    return any(w in ANIMATE_NOUNS and w not in other
               for _, text in turns[-TURNS:] for w in _WORD_RE.findall(text.lower()))


def _fits(cands: list[_Cand], gender: str) -> bool:
    """Whether any candidate is compatible with a pronoun of `gender` (said clearly or not)."""
    return any(c.gender in (None, gender) for c in cands)


def _from_record(record: list[Any], gender: str, names: set[str], not_key: str | None) -> _Cand | None:
    """The one compatible person or pet the session named in its last turns (write/session_names.py),
    asked only when the 2-turn window holds no compatible candidate: "My son Tyler enlisted" ...
    (two turns about Patty) ... "He wants to be a hospital corpsman" -> Tyler."""
    if not record:
        return None
    e = pick_named(record, gender, set(names) | ({not_key} if not_key else set()))
    if e is None:
        return None
    return _Cand(e.name.casefold(), e.name, e.gender, True, kind=e.kind)


def pick_named(record: list[Any], gender: str, exclude: set[str]) -> Any:
    """The one entry of a session_names record (`Named`: name, kind, gender, strong, key)
    compatible with a pronoun of `gender` ("m" / "f"), never a speaker (`exclude`, casefolded
    names); None when there is none, more than one, or only one that may be a place ("went to
    Florence": it counts, never taken). An entry whose gender no noun showed asks
    name_gender again (this message's evidence may know it)."""
    fit = [e for e in record if e.key not in exclude and e.name.casefold() not in exclude
           and (e.gender if e.gender is not None or e.strong else name_gender.gender_of(e.name)) in (None, gender)]
    return fit[0] if len(fit) == 1 and getattr(fit[0], "taken", True) else None


def replacements(text: str, ctx: ExtractionContext, spacy_model: str | None = None,
                 typed: dict[str, str] | None = None) -> list[Replacement]:
    """He/she/his/her/him of `text` that stand for one person or pet named before, with what to put
    in their place (see the module docstring). Empty when nothing is clear. `typed` (when given)
    receives each name put in a pronoun's place with "person" / "pet" (write/name_subjects.py:
    the rules then type the name as this module knew it)."""
    found, animate = resolve(text, ctx, spacy_model)
    if typed is not None:
        for name, kind in animate.items():
            typed.setdefault(name.casefold(), kind)
    return found


def resolve(text: str, ctx: ExtractionContext,
            spacy_model: str | None = None) -> tuple[list[Replacement], dict[str, str]]:
    """`replacements`, and the names put in a pronoun's place with their type ("person" / "pet"):
    the rules must read "Mia's driving test ..." and "Rufus stole a pizza" as news about a person
    or pet even when this message does not say what Mia or Rufus is (`animate_context`)."""
    if not worth_resolving(text):
        return [], {}
    from arandu_pipelines.write.parses import PARSE, for_context

    parses = for_context(ctx, spacy_model)
    last = list(PRONOUN_RE.finditer(text))[-1]
    part = text[: _sentence_end(text, last.end())][:MAX_PARSE_CHARS]
    doc = parses.doc(part, PARSE, STAGE)
    if doc is None or not any(_pronoun_slot(t) for t in doc):
        return [], {}
    turns = context_turns(ctx)
    speaker = (ctx.speaker_name or "").strip()
    names = _names(ctx, turns)
    _ner(parses, doc, names)
    record = list(ctx.named_before or [])  # write/session_names.py (extract_offline fills it)
    out: list[Replacement] = []
    said_key: dict[int, str] = {}  # token index of a resolved pronoun -> its candidate's key
    animate: dict[str, str] = {}
    said: dict[int, set[str]] = {}  # sentence start -> genders of the mentions resolved in it
    taken: dict[str, _Cand] = {}  # gender -> the candidate a pronoun of this message took from the turns
    for tok in doc:
        slot = _pronoun_slot(tok)
        if slot is None:
            continue
        if slot == "subj" and _bare_reaction(tok):
            continue  # "He's so cute!": a reaction to what was just shown, which may not be named
        gender = _pron_gender(tok)
        if slot == "poss" and (own_subject_pronoun(tok) or own_name_subject(tok)):
            continue  # "He passed his exam": "his" is the clause's own subject's, and stays a pronoun
        if slot == "obj" and not _object_free(tok):
            continue  # "My brother drove him", "He called him": the object is someone else
        if slot == "poss" and _candidates(doc[tok.sent.start: tok.i], speaker, speaker, names):
            continue  # "My brother's doing great at his new job": its own sentence says whose
        if slot != "subj" and gender in said.get(tok.sent.start, ()) and not _names_after(doc, tok):
            # "He passed his first exam", "We drove him to his dorm" -> "... my nephew to his dorm":
            # the sentence has said who; a later possessive or object stays as written
            continue
        near = _same_sentence(doc, tok, gender, speaker, names)
        if near is not None:  # "I'm carving an eagle to give Tom when he graduates": Tom
            rep = _replacement(doc, tok, slot, near)
            if rep is not None:
                out.append(rep)
                said_key[tok.i] = near.casefold()
                said.setdefault(tok.sent.start, set()).add(gender)
            continue
        not_subject = _other_gender_subject(tok, said_key) if slot == "poss" else None
        here = [c for c in _candidates(doc[: tok.i], speaker, speaker, names) if c.key != not_subject]
        if here:
            if any(c.named and not c.apposed for c in here):
                continue  # a name in this message: extract_rules' last_person reads it
            found = _pick(here, gender)
        elif (turns or record) and (tok.idx < REACH or gender in taken):
            # a later pronoun of the gender a pronoun of this message took from the turns is the
            # same one ("He shipped out Monday. ... We drove him to the office")
            found = taken.get(gender)
            if found is None:
                window: dict[str, bool] = {}
                found = _from_turns(parses, turns, speaker, names, gender, not_subject, window) if turns else None
                if found is None and not window.get("fits") and not _unread_here(doc, tok, names) \
                        and not _window_noun(turns, gender) \
                        and not pronoun_people.window_unread(turns[-TURNS:], gender, names, record) \
                        and not pronoun_people.she_thing_before(doc[: tok.i].text, gender):
                    # no compatible candidate in the window: the one the session named earlier
                    # (write/session_names.py), when exactly one fits
                    found = _from_record(record, gender, names, not_subject)
            if found is not None:
                taken[gender] = found
        else:
            found = None
        if found is None or found.phrase is None:
            continue
        rep = _replacement(doc, tok, slot, found.phrase)
        if rep is not None:
            out.append(rep)
            said_key[tok.i] = found.key
            said.setdefault(tok.sent.start, set()).add(gender)
            if found.named:
                animate[found.phrase] = found.kind
    return out, animate


# a clause subject that cannot be the object's referent ("We drove him", "She hugged him")
_OTHER_SUBJECTS = frozenset({"i", "we", "you", "they", "it", "this", "that"})


def _object_free(tok: Any) -> bool:
    """Whether an object "him"/"her" may stand for someone named before: its clause's subject
    (the first nsubj walking up; a conjoined verb shares it) is the speaker, the listener, a group
    or thing, or a pronoun of the other gender, or there is none ("Drove him to the office").
    A third person of the same gender as subject ("He called him", "My brother drove him") makes
    the object someone else, and a named or noun subject may be the one named before: both stay."""
    cur = tok.head
    for _ in range(len(tok.doc)):
        subj = [c for c in cur.children if c.dep_ in ("nsubj", "nsubjpass")]
        if subj:
            s = subj[0]
            if s.lower_ in _OTHER_SUBJECTS:
                return True
            return s.lower_ in ("he", "she") and _pron_gender(s) != _pron_gender(tok)
        if cur.head.i == cur.i:
            return True
        cur = cur.head
    return True


def animate_context(ctx: ExtractionContext, animate: dict[str, str]) -> ExtractionContext:
    """`ctx` with the names `resolve` put in a pronoun's place known as people or pets (as if the
    memory knew them), so that the rules type "Mia" of "Mia's driving test is in late May" a
    person; names the context already knows keep their type."""
    if not animate:
        return ctx
    from dataclasses import replace

    aliases = dict(ctx.known_aliases or {})
    types = dict(ctx.known_types or {})
    for name, kind in animate.items():
        display = aliases.setdefault(name.lower(), name)
        types.setdefault(display, kind)
    return replace(ctx, known_aliases=aliases, known_types=types)


def _same_sentence(doc: Any, tok: Any, gender: str, speaker: str, names: set[str]) -> str | None:
    """The name a pronoun stands for when its own sentence names, before it, exactly one compatible
    person and that person's gender is known to be the pronoun's (name table or the chat's evidence,
    write/gender_evidence.py): "I'm carving an eagle to give Tom when he graduates" -> Tom, never an
    older candidate of an earlier sentence or turn. None (the caller's rules as before) when the
    sentence names no one, names a person of unknown gender ("Sam": extract_rules' last_person
    reads that name), has a second compatible candidate, or when the compatible person, or a he/she of the same gender, is
    a subject before the pronoun ("Earl is carving an eagle to give Tom when he graduates", "Tom
    started a list of everything he needs": either may be meant, so it stays as written). A listed
    first name NER took for a place ("give Tyler when he graduates": GPE) is a candidate here too
    (write/pronoun_people.missed_names), taken with its gender unknown: no other rule reads it."""
    sent = doc[tok.sent.start: tok.i]
    cands = _candidates(sent, speaker, speaker, names)
    missed = pronoun_people.missed_names(sent, names, {c.key for c in cands})
    fit = {c.key: c for c in [*cands, *(_Cand(n.casefold(), n, name_gender.gender_of(n), True) for n in missed)]
           if c.gender in (None, gender)}
    if len(fit) != 1:
        return None
    c = next(iter(fit.values()))
    # a first name NER took for a place ("to give Tyler when he graduates": GPE) is read by no
    # other rule: its gender may be unknown (write/pronoun_people.py)
    if not c.named or c.gender != gender and not (c.gender is None and c.phrase in missed) \
            or c.subject or not c.phrase:
        return None
    if any(t.lower_ in ("he", "she") and _pron_gender(t) == gender and t.dep_ in ("nsubj", "nsubjpass")
           for t in sent):
        return None
    return c.phrase


def _other_gender_subject(tok: Any, said_key: dict[int, str]) -> str | None:
    """The candidate key of the resolved he/she that is the subject of the possessive `tok`'s
    clause when its gender is the other one: "She asked me to be his godmother" -> "his" is not
    whoever "she" is (a name of unknown gender took "she"), so that candidate is left out."""
    cur = tok.head
    for _ in range(len(tok.doc)):
        subj = [c for c in cur.children if c.dep_ in ("nsubj", "nsubjpass") and c.i != tok.i]
        if subj:
            s = subj[0]
            if s.lower_ in ("he", "she") and _pron_gender(s) != _pron_gender(tok):
                return said_key.get(s.i)
            return None
        if cur.head.i == cur.i:
            return None
        cur = cur.head
    return None


def _names_after(doc: Any, tok: Any) -> bool:
    """"His name is Biscuit": the possessive is what the naming rule reads, so it is replaced."""
    return tok.i + 1 < len(doc) and doc[tok.i + 1].lower_ == "name"


def _replacement(doc: Any, tok: Any, slot: str, np: str) -> Replacement | None:
    after = tok.nbor(1) if tok.i + 1 < len(doc) else None
    if slot == "poss":
        # "His name is Biscuit" -> "<np> is named Biscuit"
        if after is not None and after.lower_ == "name" and after.i + 2 < len(doc) \
                and after.nbor(1).lower_ in ("is", "'s", "’s") and after.nbor(2).tag_ == "NNP":
            cop = after.nbor(1)
            return Replacement(tok.idx, cop.idx + len(cop.text), doc.text[tok.idx: cop.idx + len(cop.text)],
                               f"{np} is named")
        return Replacement(tok.idx, tok.idx + len(tok.text), tok.text, f"{np}'s")
    if after is not None and after.text.lower() in _CONTRACTIONS:
        verb = _CONTRACTIONS[after.text.lower()]
        nxt = after.nbor(1) if after.i + 1 < len(doc) else None
        while nxt is not None and nxt.pos_ == "ADV" and nxt.i + 1 < len(doc):
            nxt = nxt.nbor(1)  # "She's already got me ...": the participle after the adverbs
        if verb == "is" and nxt is not None and (nxt.tag_ == "VBN" or nxt.lower_ in ("got", "gotten", "been")):
            verb = "has"
        end = after.idx + len(after.text)
        return Replacement(tok.idx, end, doc.text[tok.idx: end], f"{np} {verb}")
    return Replacement(tok.idx, tok.idx + len(tok.text), tok.text, np)


def rewrite(text: str, spans: list[tuple[int, int]], ctx: ExtractionContext,
            typed: dict[str, str] | None = None) -> tuple[str, list[tuple[int, int]]]:
    """`text` with its resolved pronouns replaced, and the sentence `spans` moved to match (a
    replacement never crosses a sentence boundary). Unchanged when nothing is resolved. `typed`:
    see `replacements`."""
    return splice(text, spans, replacements(text, ctx, ctx.spacy_model, typed))


def rewrite_typed(text: str, spans: list[tuple[int, int]], ctx: ExtractionContext,
                  typed: dict[str, str] | None = None) -> tuple[str, list[tuple[int, int]], ExtractionContext]:
    """`rewrite`, and the context the rules then read: `animate_context` of the names put in
    (also given to `typed`, see `replacements`)."""
    found, animate = resolve(text, ctx, ctx.spacy_model)
    if typed is not None:
        for name, kind in animate.items():
            typed.setdefault(name.casefold(), kind)
    new_text, new_spans = splice(text, spans, found)
    return new_text, new_spans, animate_context(ctx, animate)


def splice(text: str, spans: list[tuple[int, int]], found: list[Replacement]) -> tuple[str, list[tuple[int, int]]]:
    """`text` with the replacements `found` made (overlapping ones skipped) and the sentence
    `spans` moved to match; also used by write/org_antecedents.py."""
    reps = sorted(found, key=lambda r: r.start)
    if not reps:
        return text, spans
    out: list[str] = []
    shifts: list[tuple[int, int]] = []  # (original end, cumulative shift after it)
    pos, shift = 0, 0
    for r in reps:
        if r.start < pos or text[r.start: r.end] != r.original:
            continue
        out.append(text[pos: r.start])
        said = r.text
        before = text[: r.start].rstrip()
        if not before or before[-1] in ".!?…" or r.original[:1].isupper():
            said = said[:1].upper() + said[1:]
        out.append(said)
        shift += len(said) - (r.end - r.start)
        shifts.append((r.end, shift))
        pos = r.end
    out.append(text[pos:])

    def moved(i: int) -> int:
        by = 0
        for end, s in shifts:  # in text order: the last replacement ending at or before i
            if end <= i:
                by = s
        return i + by

    return "".join(out), [(moved(a), moved(b)) for a, b in spans]


def restore(result: Any, text: str, spans: list[tuple[int, int]], said: str,
            said_spans: list[tuple[int, int]]) -> None:
    """After extraction from the rewritten `text`: the result's sentences and its facts' source
    sentences as the message wrote them, so that the write pipeline embeds the message's own
    sentences (its search vectors, and the vectors facts reuse) and nothing else."""
    back = {text[a:b]: said[c:d] for (a, b), (c, d) in zip(spans, said_spans, strict=True)}
    back |= {k.strip(): v.strip() for k, v in list(back.items())}
    result.sentences = [back.get(x, x) for x in result.sentences]
    for f in result.facts:
        if f.source_text is not None:
            f.source_text = back.get(f.source_text, f.source_text)

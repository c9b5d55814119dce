"""Person antecedents: who "he" / "she" / "his" / "her" of a message is, when it is someone named
a sentence or a turn earlier.

People write "He's a beagle mix" after "I adopted a rescue dog", "She just turned eight" after
"my granddaughter", "He got into med school!" after the other speaker's "How's your brother?".
Without the antecedent the sentence has no subject a fact can carry and it is dropped. This module
(the animate counterpart of write/antecedents.py, which resolves "it"/"they" for things) finds,
conservatively, what such a pronoun stands for:

- the pronoun is the subject ("he", "she") or a possessive determiner ("his", "her") of a clause
  (spaCy parse); objects ("him", "her") and "they" are left alone (a singular "they" is rarely
  unambiguous in chat, and a plural one is the thing resolver's);
- candidates are animate: a person's name (spaCy PERSON entity, a proper noun apposed to a kin or
  pet noun: "my sister Ana", "Oscar, my guinea pig", "a husky named Juno"), or a kin / pet noun
  phrase ("my dog", "your brother", "a rescue dog" that "I" adopted / got / have); the chat's
  speakers ("I", "you", and the turns' speaker names) are never candidates;
- the window is the message before the pronoun; when it holds no animate candidate, the
  session's previous two turns taken together (ExtractionContext.previous_turns); the window
  must hold exactly ONE compatible candidate (mentions of one person merge); when the other
  speaker's last turn ends in a question naming someone, that question alone is the window
  ("How's your brother?" -> "He's doing great"), as for "it" in write/antecedents.py; gender agrees
  when the text shows it ("my sister" is she, "my brother" he; a pet or a name of unknown gender
  takes either), else the sentence is left as it is;
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
from arandu_pipelines.write import name_gender
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
_MALE_PRON = frozenset({"he", "his"})
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
    """'subj' for a subject he/she, 'poss' for a possessive his/her; None for anything else."""
    low = tok.lower_
    if low in ("he", "she") and tok.dep_ in ("nsubj", "nsubjpass"):
        return "subj"
    if low in ("his", "her") and tok.dep_ == "poss":
        return "poss"
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
            out.append((tok.i, _Cand(said.casefold(), said, _gender_of(tok), False, False, tok.lower_)))
        if root.tag_ not in ("NN", "NNP") or low not in ANIMATE_NOUNS:
            continue
        if root.dep_ == "attr" and any(c.dep_ == "nsubj" and c.lower_ in ("he", "she", "it", "they", "this", "that")
                                       for c in root.head.children):
            continue  # "He's a beagle": what someone is, not someone new (a misparsed subject still counts)
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
                                       "" if name else low, bool(name) and K.read_here(low))))
    for tok in span:  # "my youngest", "your little one": no noun chunk (write/kin_antecedents.py)
        if tok.i not in covered and (bare := K.bare_kin(tok, who, speaker)) is not None:
            out.append((tok.i, _Cand(bare.casefold(), bare, None, False, _is_subject(tok), tok.lower_)))
    for ent in span.ents:
        if ent.label_ != "PERSON" or ent.start in covered or ent.text.casefold() in names or is_laughter(ent.text.split()[0]) \
                or ent.text.split()[0].casefold() in names or ent.root.dep_ in ("npadvmod", "intj", "ROOT"):
            continue  # a vocative ("Thanks, Mel!") addresses a speaker
        out.append((ent.start, _Cand(ent.text.casefold(), ent.text, name_gender.gender_of(ent.text), True,
                                     _is_subject(ent.root))))
    return [c for _, c in sorted(out, key=lambda x: x[0])]


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
                gender: str) -> _Cand | None:
    """The one compatible candidate of the previous `TURNS` turns taken together (a pet named two
    turns back and a sister named in the last turn make "she" ambiguous); None when a turn is
    too long to read whole or nothing is clear."""
    from arandu_pipelines.write.parses import PARSE

    who, text = turns[-1]
    asked = [q.group(0).strip() for q in _QUESTION_RE.finditer(text)][-1:] if who != speaker else []
    if asked:  # "How's your brother?" -> "He's doing great": what was asked about, first
        doc = parses.doc(asked[0][-MAX_PARSE_CHARS:], PARSE, STAGE)
        if doc is None:
            return None
        _ner(parses, doc, names)
        # only someone the question is about (its subject): "Can you show me one of Oscar?" asks
        # for a photo, and the reply's "He's so cute" may be about the one just shown
        cands = [c for c in _candidates(doc[:], who, speaker, names) if c.subject]
        if cands:
            return _pick(cands, gender)
    cands = []
    for who, text in turns[-TURNS:]:
        part = turn_part(text[-MAX_PARSE_CHARS:])
        if part is None:
            return None
        doc = parses.doc(part, PARSE, STAGE)
        if doc is None:
            return None
        _ner(parses, doc, names)
        cands += _candidates(doc[:], who, speaker, names)
    return _pick(cands, gender) if cands else None


def replacements(text: str, ctx: ExtractionContext, spacy_model: str | None = None) -> list[Replacement]:
    """He/she/his/her of `text` that stand for one person or pet named before, with what to put in
    their place (see the module docstring). Empty when nothing is clear."""
    if not worth_resolving(text):
        return []
    from arandu_pipelines.write.parses import PARSE, for_context

    parses = for_context(ctx, spacy_model)
    last = list(PRONOUN_RE.finditer(text))[-1]
    part = text[: _sentence_end(text, last.end())][:MAX_PARSE_CHARS]
    doc = parses.doc(part, PARSE, STAGE)
    if doc is None or not any(_pronoun_slot(t) for t in doc):
        return []
    turns = context_turns(ctx)
    speaker = (ctx.speaker_name or "").strip()
    names = _names(ctx, turns)
    _ner(parses, doc, names)
    out: list[Replacement] = []
    said_subj: dict[int, str] = {}  # sentence start -> gender of a subject pronoun resolved in it
    for tok in doc:
        slot = _pronoun_slot(tok)
        if slot is None:
            continue
        if slot == "subj" and _bare_reaction(tok):
            continue  # "He's so cute!": a reaction to what was just shown, which may not be named
        gender = _pron_gender(tok)
        if slot == "poss" and own_subject_pronoun(tok):
            continue  # "He passed his exam": "his" is the clause's own subject's, and stays a pronoun
        if slot == "poss" and _candidates(doc[tok.sent.start: tok.i], speaker, speaker, names):
            continue  # "My brother's doing great at his new job": its own sentence says whose
        if slot == "poss" and said_subj.get(tok.sent.start) == gender and not _names_after(doc, tok):
            continue  # "He passed his first exam" -> "My nephew passed his first exam", as written
        here = _candidates(doc[: tok.i], speaker, speaker, names)
        if here:
            if any(c.named and not c.apposed for c in here):
                continue  # a name in this message: extract_rules' last_person reads it
            found = _pick(here, gender)
        elif tok.idx < REACH and turns:
            found = _from_turns(parses, turns, speaker, names, gender)
        else:
            found = None
        if found is None or found.phrase is None:
            continue
        rep = _replacement(doc, tok, slot, found.phrase)
        if rep is not None:
            out.append(rep)
            if slot == "subj":
                said_subj[tok.sent.start] = gender
    return out


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
        if verb == "is" and nxt is not None and nxt.tag_ == "VBN":
            verb = "has"
        end = after.idx + len(after.text)
        return Replacement(tok.idx, end, doc.text[tok.idx: end], f"{np} {verb}")
    return Replacement(tok.idx, tok.idx + len(tok.text), tok.text, np)


def rewrite(text: str, spans: list[tuple[int, int]], ctx: ExtractionContext) -> tuple[str, list[tuple[int, int]]]:
    """`text` with its resolved pronouns replaced, and the sentence `spans` moved to match (a
    replacement never crosses a sentence boundary). Unchanged when nothing is resolved."""
    return splice(text, spans, replacements(text, ctx, ctx.spacy_model))


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

"""Event and thing antecedents: a sentence-initial "It" for the one definite or possessive thing
said just before it, and a verbless fragment that completes the previous sentence's object.

People give news as "Next step is the building inspection. It's on October 3rd", "Guess what
came in the mail? The postcard! It's on my fridge now", or answer "How did the internship end?"
with "It ended last Friday". The rules need a subject they can name: "It's on October 3rd" says
nothing, and "The internship ended ..." is about no one. write/org_antecedents.py resolves "It"
only for the speaker's object of an owning verb ("We bought a camper. It sleeps four") and
write/antecedents.py only into the previous turn, where a small parse of "How did the internship
end?" reads "end" as a noun. This module writes, before the rules read the message (like
org_antecedents, with the same `restore` of the message as written):

- "It" (the subject opening a sentence) -> the ONE singular thing of the sentence just before it
  in the same message, when that thing is definite or possessive ("the inspection", "my
  postcard", "The postcard!" alone); or, for the message's first sentence when nothing before it
  in the message names a thing, the ONE such thing of the other speaker's last question ("How did
  the internship end?", "When is your interview?"). Any other thing there (an "a <thing>", a
  place, an organisation, a proper noun, a second definite thing) makes it ambiguous and nothing
  changes; people, plurals, dates and vague nouns ("the thing", "a lot") are not candidates. In a
  copular sentence ("Next step is the building inspection") subject and attribute are one thing.
- the phrase as the current speaker says it: "my"/"your" flip across speakers; "the <thing>" is
  the speaker's ("my inspection") when it is what their own sentence is about (a subject, an
  attribute, a fragment) or what the other speaker asked about as a subject, and the thing is not
  a public one (a game, a movie, the weather: `PUBLIC`); otherwise it stays "the <thing>".
- only predicates that state something of a thing: a content verb ("It ended last Friday", "It
  arrived"), or a copula with a place or time ("It's on my fridge", "It's at noon"). Judgements
  and experience ("It's great", "It was fun", "It's tough", "It felt ...", "It took ...",
  "It's been a ride"), expletives ("It's hard to ..."), weather ("It rained") are left alone:
  they are about the situation, and write/antecedents.py keeps its "I found <thing> great".
- a verbless fragment after a sentence that paints / dyes / colours an object ("We painted the
  van this week. Teal with yellow letters.") completes that object: "We painted the van teal with
  yellow letters this week." (the fragment stays as written; alone it gives no fact).

- a demonstrative or "The" noun-phrase subject that points back ("We won the grant! That money
  covers a new roof" -> "our grant covers ..."): write/demonstrative_subjects.py (session 16), on
  the same parse of the message and the same splice.

English only; with no spaCy pipeline nothing changes. Cost: a regex prefilter (`_hits`) lets
through only a sentence-initial "It" + a content verb or copula + preposition after a sentence
with the/my/our/your (or a message-initial one after a question with the/your), and a sentence
after a paint/dye verb; the message up to the last such sentence (and the question) is parsed,
batched with the chunk's other parses (`parse_texts`).
"""

from __future__ import annotations

import re
from typing import Any

from arandu_pipelines.write import demonstrative_subjects, own_things
from arandu_pipelines.write import lexicon as L
from arandu_pipelines.write.antecedents import (
    _CONTRACTIONS,
    _REACTION_ADJ,
    _VAGUE,
    MAX_PARSE_CHARS,
    REACH,
    Replacement,
    _bare_reaction,
    _pronoun_role,
    context_turns,
    sentence_spans,
)
from arandu_pipelines.write.org_antecedents import (
    _PERSON_NOUNS,
    _TIME_NOUNS,
    ORG_NOUNS,
    OWN_VERBS,
)
from arandu_pipelines.write.types import ExtractionContext

STAGE = "thing_antecedents"
# things a speaker attends, watches or shares rather than has: "the game" stays "the game"
PUBLIC = L.PUBLIC_THINGS
# places: "it" may be a place, so a place is a competitor (never the thing resolved)
# (a home, a room, a garden is a thing one has: "How's the new apartment?" "It has a balcony")
_PLACE_NOUNS = frozenset({"city", "town", "country", "park", "beach", "lake", "river", "mountain", "island",
                          "village", "neighborhood", "neighbourhood", "street", "place", "area", "coast", "state"})
# "It felt / took / made / went ...": the doing the sentence told; weather and verdict verbs
_NOT_THING_VERBS = frozenset({
    "feel", "take", "make", "mean", "go", "turn", "work", "happen", "seem", "look", "sound", "get", "become",
    "suck", "rock", "rule", "matter", "hurt", "count", "depend", "rain", "snow", "pour", "drizzle", "hail",
    "storm", "freeze", "thunder", "be", "do", "help", "remind", "give", "bring", "keep", "let", "show", "teach",
    "stink", "blow", "kill", "shine"})
# "the <thing>" I/we made, fixed or got is the speaker's ("I finished the quilt. It has twelve squares")
_MAKE_VERBS = OWN_VERBS | {"finished", "fixed", "repaired", "restored", "renovated", "remodeled", "remodelled",
                           "assembled", "framed", "booked", "scheduled", "planned", "organized", "organised",
                           "wrote", "written", "recorded", "sewed", "crocheted", "carved", "cooked", "brewed"}
_IRREGULAR = frozenset({"felt", "took", "taken", "made", "meant", "went", "gone", "got", "gotten", "became", "hurt",
                        "froze", "frozen", "was", "were", "been", "did", "done", "gave", "given", "brought", "kept",
                        "let", "shown", "taught", "stank", "blew", "blown", "shone"})


def _inflected(bases: frozenset[str]) -> frozenset[str]:
    """The verbs' forms a parse without lemmatizer shows ("takes", "happened", "seeming")."""
    out = set(bases)
    for b in bases:
        stem = b.removesuffix("e")
        out |= {b + "s", b + "es", stem + "ed", b + "d", stem + "ing"}
    return frozenset(out)


_NOT_THING_FORMS = _inflected(_NOT_THING_VERBS) | _IRREGULAR
_COPULA_FORMS = frozenset({"is", "'s", "’s", "was", "be", "are", "were"})
_LEAD_WORDS = frozenset({"and", "so", "but", "well", "oh", "anyway", "now", "yeah", "yes", "plus", "also"})
# verbs whose object a bare predicate completes: "painted the van. Teal with yellow letters."
RESULT_VERBS = frozenset({"paint", "painted", "repaint", "repainted", "dye", "dyed", "color", "colored", "colour",
                          "coloured", "stain", "stained", "spray", "sprayed"})
_INTENSIFIERS = frozenset({"so", "such", "very", "really", "super", "too", "pretty", "quite", "totally", "just",
                           "not", "absolutely", "kinda", "sort", "kind"})
# colour words, which a small parse often reads as a proper noun ("Teal with yellow letters.")
COLOURS = frozenset({"red", "orange", "yellow", "green", "blue", "purple", "violet", "pink", "white", "black", "grey",
                     "gray", "brown", "beige", "teal", "turquoise", "navy", "maroon", "burgundy", "gold", "silver",
                     "cream", "ivory", "lavender", "lilac", "mint", "olive", "coral", "peach", "magenta", "cyan",
                     "crimson", "scarlet", "indigo", "tan", "charcoal", "sage", "mustard", "rust", "aqua"})
_FRAGMENT_POS = frozenset({"ADJ", "NOUN", "PROPN", "ADP", "DET", "CCONJ", "NUM", "PUNCT", "SPACE"})

_DEF_RE = re.compile(r"(?<![\w'’])(?:(?i:the|my|our|your|this|that)\s+[a-z]|[A-Z][a-z]+['’]s\s+[a-z])")
# a sentence-initial "It" with a content verb, or a copula with a preposition after it
_IT_START = r"(?:(?:And|So|But|Well|Oh|Anyway|Now|Yeah|Yes|Plus),?\s+)?It"
_IT_PRED_RE = re.compile(
    _IT_START + r"(?:(?:['’]s|\s+is|\s+was|\s+will\s+be|['’]ll\s+be)\s+(?:(?:now|still|already|finally|actually|"
    r"officially|just)\s+)?(?:on|in|at|from|by|under|behind|next|inside|outside|back|due|until|till|through|"
    r"over|up|out|near|above|below)\b|\s+(?:(?:also|really|just|even|still|only|actually|finally|already|"
    r"officially|will|['’]ll|should|might)\s+)*(?!(?:is|was|feels?|felt|takes?|took|makes?|made|means?|meant|"
    r"seems?|seemed|sounds?|sounded|looks?|looked|goes|went|gets?|got|turned|worked|happened|would|could|"
    r"may|can|must|has\s+been|had\s+been|isn|wasn|doesn|didn|won|rained|snowed|sucks|sucked|rocks|rocked|"
    r"helps?|helped|reminds?|reminded|gives?|gave|brings?|brought|keeps?|kept|lets|shows?|showed|matters?|"
    r"mattered|hurts?|be|rains?|snows?|depends?|did|does|do|had|and|but|so|or|all|too|never|not)\b)[a-z]+\b)")
_FRAGMENT_AFTER_RE = re.compile(r"(?i)(?<![\w'’])(?:" + "|".join(sorted(RESULT_VERBS | OWN_VERBS | {
    "finished", "fixed", "repaired", "restored", "renovated", "assembled"})) + r")\s+(?:\w+\s+)?(?:the|my|our|a|an|"
    r"his|her|their|your)\s")
_QUESTION_RE = re.compile(r"[^.!?…]*\?")


# ---- prefilter -----------------------------------------------------------------------------------------


def _last_question(turns: list[tuple[str | None, str]], speaker: str) -> str | None:
    """The other speaker's last question of the previous turn: what a reply's "It" may point at."""
    if not turns:
        return None
    who, text = turns[-1]
    if who is not None and who == speaker:
        return None
    asked = [q.group(0).strip() for q in _QUESTION_RE.finditer(text[-MAX_PARSE_CHARS:])]
    return asked[-1] if asked and _DEF_RE.search(asked[-1]) else None


def _hits(text: str, question: str | None) -> int:
    """The end of the last sentence this module may change (0: none), by regex only."""
    sents = sentence_spans(text[:MAX_PARSE_CHARS])
    last = 0
    for i, (a, b) in enumerate(sents):
        body = text[a:b].strip()
        if i and body[:1].isupper() and len(body) <= 60 and len(body.split()) <= 8 \
                and _FRAGMENT_AFTER_RE.search(text[sents[i - 1][0]: sents[i - 1][1]]):
            last = b  # a short sentence after a paint / own verb: maybe a fragment describing its object
        if not _IT_PRED_RE.match(body):
            continue
        if i and (_DEF_RE.search(text[sents[i - 1][0]: sents[i - 1][1]]) or last == sents[i - 1][1]):
            last = b  # after a definite thing, or after an "It" that may be resolved (the same thing again)
        elif question is not None and a < REACH and not any(_DEF_RE.search(text[x:y]) for x, y in sents[:i]):
            last = b
    return last


def worth_resolving(text: str, question: str | None = None) -> bool:
    """Whether `text` may hold something this module changes (cheap: regex only)."""
    return _hits(text, question) > 0


def parse_texts(items: list[tuple[str, str, list[tuple[str | None, str]]]]) -> list[str]:
    """The texts `replacements` will parse for these (text, speaker, previous turns), regex only,
    so the write pipeline parses them in the chunk's batch (write/parses.py)."""
    out: list[str] = []
    for text, speaker, turns in items:
        question = _last_question(turns[-1:], speaker)
        end = _hits(text, question)
        previous = _previous(turns, speaker)
        dem_end, need_prev = demonstrative_subjects.hits(text, previous)
        if max(end, dem_end):
            out.append(text[:max(end, dem_end)])
            if end and question is not None:
                out.append(question)
            if dem_end and need_prev and previous is not None:
                out.append(previous)
    return list(dict.fromkeys(out))


def _previous(turns: list[tuple[str | None, str]], speaker: str) -> str | None:
    """The previous turn's text a demonstrative subject may point into (its last MAX_PARSE_CHARS)."""
    return turns[-1][1][-MAX_PARSE_CHARS:] if turns else None


# ---- candidates --------------------------------------------------------------------------------------
_DO_WORDS = frozenset({"did", "does", "do", "will", "can", "would", "could"})


def _chunk_tokens(chunk: Any) -> tuple[list[Any], bool]:
    """The chunk's words, without a verb a small parse folded into it: in "How did the internship
    end?" the model reads "end" as the noun ROOT of "the internship end"."""
    words = [t for t in chunk if not t.is_punct]
    root = chunk.root
    sent = root.sent
    if len(words) >= 3 and words[-1].i == root.i and root.tag_ == "NN" and words[-2].pos_ == "NOUN" \
            and sent.text.rstrip().endswith("?") and any(t.lower_ in _DO_WORDS for t in sent) \
            and not any(t.tag_.startswith("VB") and t.lower_ not in _DO_WORDS for t in sent):
        words = words[:-1]  # "Did the new couch arrive?": no verb but the auxiliary
        while words and words[0].pos_ not in ("DET", "ADJ", "NOUN", "PROPN", "NUM") and words[0].tag_ != "PRP$":
            words = words[1:]  # "How did the internship"
        return words, True
    return words, False


def _det(words: list[Any]) -> str:
    return words[0].lower_ if words and words[0].dep_ in ("det", "poss") else ""


def _possessor(words: list[Any]) -> list[Any] | None:
    """"my mom's" of "my mom's birthday", "Tom's" of "Tom's party"; None without a possessive 's."""
    k = next((j for j, t in enumerate(words) if t.dep_ == "case" and t.lower_ in ("'s", "’s", "'", "’")), None)
    if k is None or k == 0:
        return None
    owner = words[:k]
    if owner[0].lower_ in ("my", "your", "our", "the") or all(t.pos_ == "PROPN" for t in owner):
        return words[: k + 1]
    return None


def _candidates(sent: Any) -> list[tuple[list[Any], bool, str]]:
    """(words, definite/possessive, role) of every thing in `sent` that "it" could stand for;
    role is 'about' for a subject, attribute or fragment, else 'other'."""
    ents = {t.i: e.label_ for e in sent.ents for t in e}
    chunks = list(sent.noun_chunks)
    out: list[tuple[list[Any], bool, str]] = []
    subjects: list[tuple[Any, tuple[list[Any], bool, str]]] = []
    attrs: set[int] = set()
    for chunk in chunks:
        words, repaired = _chunk_tokens(chunk)
        if not words:
            continue
        root = words[-1] if repaired else chunk.root
        low = root.lower_
        label = ents.get(root.i, "")
        if root.pos_ == "PRON" or root.tag_ in ("CD", "WP", "WDT", "NNS", "NNPS") or label in (
                "DATE", "TIME", "CARDINAL", "ORDINAL", "MONEY", "QUANTITY", "PERCENT", "PERSON", "NORP"):
            continue
        if low in _TIME_NOUNS or low in _VAGUE or low in _PERSON_NOUNS or root.dep_ == "npadvmod":
            continue
        det = _det(words)
        thing = root.pos_ == "NOUN" and (det in ("the", "my", "our", "your", "this", "that") or (
            _possessor(words) is not None and det not in ("his", "her", "their", "its"))) and not label \
            and low not in ORG_NOUNS and low not in _PLACE_NOUNS
        role = "about" if repaired or root.dep_ in ("nsubj", "nsubjpass", "attr", "ROOT") or _made(root) \
            or _recalled(root) else "other"
        if root.dep_ in ("nsubj", "nsubjpass"):
            subjects.append((root, (words, thing, role)))
            continue
        if root.dep_ == "attr":
            attrs.add(root.head.i)
        out.append((words, thing, role))
    # "Next step is the inspection": subject and attribute are one thing, said by the attribute
    return [c for root, c in subjects if root.head.i not in attrs] + out


def _made(root: Any) -> bool:
    """"I finished the quilt", "We fixed the car": the object of I/we + a making or having verb."""
    verb = root.head
    if root.dep_ != "dobj" or verb.lower_ not in _MAKE_VERBS or any(c.dep_ == "neg" for c in verb.children):
        return False
    subj = [c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")]
    if not subj and verb.dep_ == "conj":
        subj = [c for c in verb.head.children if c.dep_ in ("nsubj", "nsubjpass")]
    return len(subj) == 1 and subj[0].lower_ in ("i", "we")


def _recalled(root: Any) -> bool:
    """"Remember the recital I told you about?": the speaker brings up their own thing again."""
    return root.dep_ == "dobj" and root.head.lower_ in ("remember", "recall") \
        and root.sent.text.rstrip().endswith("?") and not any(c.dep_ == "nsubj" and c.lower_ not in ("you",)
                                                               for c in root.head.children)


def _told_of(root: Any) -> bool:
    """"The cake you made", "the book Sam lent me": a clause on the thing that names someone else."""
    return any(c.dep_ in ("relcl", "acl") and any(t.dep_ in ("nsubj", "nsubjpass") and t.lower_ not in ("i", "we")
                                                   for t in c.subtree) for c in root.children)


def _phrase(words: list[Any], role: str, who: str | None, speaker: str) -> str | None:
    """The thing as the current speaker says it (head noun and its compounds), or None."""
    root = words[-1]
    head = [t.text for t in words if t.i == root.i or (t.dep_ == "compound" and t.head.i == root.i)]
    det = _det(words)
    mine = who is None or who == speaker
    owned = _possessor(words)
    if owned is not None:  # "my mom's birthday" -> "my mom's birthday" (said by the other: "Ana's mom's")
        first = {"my": "my" if mine else f"{who}'s", "your": "your" if mine else "my",
                 "our": f"{speaker}'s" if mine and speaker else None}.get(owned[0].lower_, owned[0].text)
        if first is None or (not mine and who is None):
            return None
        rest = "".join(t.text_with_ws for t in owned[1:]).strip()
        return f"{first} {rest} {' '.join(head)}".replace(" 's", "'s").replace(" ’s", "’s")
    if det in ("my", "our"):
        if not mine:
            owner = f"{who}'s"
        else:
            owner = "my" if det == "my" or not speaker else f"{speaker}'s"
    elif det == "your":
        owner = "my" if not mine else "your"
    elif det == "the" and role == "about" and root.lower_ not in PUBLIC and not _told_of(root):
        owner = "my"  # "this experience" points at what was shown or said: it stays "the"
    else:
        owner = "the"
    return f"{owner} {' '.join(head)}"


def _pick(cands: list[tuple[list[Any], bool, str]]) -> tuple[list[Any], str] | None:
    if len(cands) != 1 or not cands[0][1]:
        return None
    return cands[0][0], cands[0][2]


# ---- the "It" sentence -----------------------------------------------------------------------------------
def _opens(tok: Any) -> bool:
    """`tok` opens its sentence (after at most a discourse word and a comma)."""
    lead = [t for t in tok.sent if t.i < tok.i and not t.is_punct and not t.is_space]
    return tok.text == "It" and (not lead or (len(lead) == 1 and lead[0].lower_ in _LEAD_WORDS))


def _states_of_a_thing(tok: Any) -> bool:
    """The "It" clause states something of a thing: a content verb, or a copula + place or time."""
    if tok.dep_ not in ("nsubj", "nsubjpass") or _pronoun_role(tok) != "subj" or _bare_reaction(tok):
        return False
    head = tok.head
    kids = list(head.children)
    if any(c.dep_ in ("aux", "auxpass") and c.lower_ in ("been", "'s", "’s") for c in kids):
        return False  # "It's been a wild ride"
    if any(c.dep_ in ("xcomp", "ccomp", "csubj") and c.i > tok.i for c in kids):
        return False
    if head.lower_ in _COPULA_FORMS:
        if any(c.dep_ in ("acomp", "oprd") for c in kids):
            return False
        if any(c.dep_ == "attr" and c.ent_type_ not in ("DATE", "TIME") for c in kids):
            return False
        return any(c.dep_ == "prep" or (c.dep_ in ("npadvmod", "attr") and c.ent_type_ in ("DATE", "TIME"))
                   for c in kids)
    if any(c.dep_ == "prt" and c.lower_ in ("off", "out") for c in kids):
        return False  # "It paid off", "It turned out fine": how the doing went
    return head.pos_ == "VERB" and head.lower_ not in _NOT_THING_FORMS and not any(c.dep_ == "acomp" for c in kids)


def _it_replacement(doc: Any, tok: Any, np: str) -> Replacement:
    """"It's on ..." -> "<np> is on ..."; "It ended" -> "<np> ended"."""
    after = tok.nbor(1) if tok.i + 1 < len(doc) else None
    if after is not None and after.text.lower() in _CONTRACTIONS:
        end = after.idx + len(after.text)
        return Replacement(tok.idx, end, doc.text[tok.idx: end], f"{np} {_CONTRACTIONS[after.text.lower()]}")
    return Replacement(tok.idx, tok.idx + len(tok.text), tok.text, np)


# ---- the fragment ----------------------------------------------------------------------------------------
def _fragment(sent: Any) -> bool:
    """A short verbless predicate: "Teal with yellow letters.", "Bright red and white."."""
    words = [t for t in sent if not t.is_punct and not t.is_space]
    if not words or len(words) > 8 or sent.text.rstrip().endswith("?"):
        return False
    first = words[0]
    if first.lower_ in _INTENSIFIERS or first.lower_ in _REACTION_ADJ:
        return False
    if first.lower_ not in COLOURS and (first.pos_ != "ADJ" or first.ent_type_):
        return False  # a colour, or an adjective ("Bright pink ..."); not a name, not a reaction
    return all(t.pos_ in _FRAGMENT_POS for t in sent) and not any(t.ent_type_ == "PERSON" for t in words)


def _describes(words: list[Any]) -> bool:
    """A fragment that can only describe a thing: a colour in its first two words ("Green velvet",
    "Bright yellow with a white roof"), or adjectives alone ("Small but cozy", "Brand new");
    never a verdict with a noun ("Big mistake", "Best decision ever")."""
    if any(t.lower_ in COLOURS for t in words[:2]):
        return True
    return words[0].tag_ == "JJ" and all(t.pos_ in ("ADJ", "CCONJ", "ADV") for t in words) \
        and not any(t.lower_ in _INTENSIFIERS or t.lower_ in _REACTION_ADJ for t in words)


def _owned_thing(sent: Any, speaker: str) -> str | None:
    """The previous sentence's one thing the speaker got, made or has ("We bought a couch", "I
    finished the quilt"), as they would say it; None otherwise."""
    from arandu_pipelines.write.org_antecedents import _owned_object

    if (np := _owned_object(sent, speaker, speaker)) is not None:
        return np
    found = _pick(_candidates(sent))
    if found is None or found[0][-1].dep_ != "dobj" or not _made(found[0][-1]):
        return None
    return _phrase(found[0], found[1], speaker, speaker)


def _completed_object(sent: Any) -> Any | None:
    """The object of a paint/dye verb with no complement yet: "We painted the van this week"."""
    root = sent.root
    if root.lower_ not in RESULT_VERBS or any(c.dep_ == "neg" for c in root.children):
        return None
    objs = [c for c in root.children if c.dep_ == "dobj"]
    if len(objs) != 1 or any(c.dep_ in ("oprd", "acomp", "xcomp", "ccomp") for c in root.children):
        return None
    obj = objs[0]
    if obj.pos_ not in ("NOUN", "PROPN") or obj.lower_ in _PERSON_NOUNS:
        return None
    return obj


# ---- entry points ----------------------------------------------------------------------------------------
def _names(ctx: ExtractionContext, turns: list[tuple[str | None, str]]) -> set[str]:
    from arandu_pipelines.write.org_antecedents import _names as names

    return names(ctx, turns)


def _ner(parses: Any, doc: Any, names: set[str]) -> None:
    from arandu_pipelines.write.person_antecedents import _ner as ner

    ner(parses, doc, names, STAGE)


def replacements(text: str, ctx: ExtractionContext, spacy_model: str | None = None) -> list[Replacement]:
    """What this module writes into `text` (see the module docstring); empty when nothing is clear."""
    speaker = (ctx.speaker_name or "").strip()
    turns = context_turns(ctx)
    question = _last_question(turns[-1:], speaker)
    it_end = _hits(text, question)
    previous = _previous(turns, speaker)
    owned = own_things.for_context(ctx)  # what the speaker called their own before (write/own_things.py)
    dem_end, need_prev = demonstrative_subjects.hits(text, previous, own_things.heads(owned))
    end = max(it_end, dem_end)
    if not end:
        return []
    from arandu_pipelines.write.parses import PARSE, for_context

    parses = for_context(ctx, spacy_model)
    doc = parses.doc(text[:end], PARSE, STAGE)
    if doc is None:
        return []
    names = _names(ctx, turns)
    _ner(parses, doc, names)  # dates and people are no things: NER only when a proper noun is there
    out: list[Replacement] = []
    if dem_end:  # "That money covers ..." -> "our $5,000 grant covers ..." (write/demonstrative_subjects.py)
        prev_doc = parses.doc(previous, PARSE, STAGE) if need_prev and previous is not None else None
        if prev_doc is not None:
            _ner(parses, prev_doc, names)
        out += demonstrative_subjects.replacements(doc, prev_doc, turns[-1][0] if turns else None, speaker, owned)
    if not it_end:
        return out
    sents = list(doc.sents)
    resolved: dict[int, str] = {}  # sentence index -> what its opening "It" became
    for i, sent in enumerate(sents):
        if i and _fragment(sent):
            obj = _completed_object(sents[i - 1])
            words = [t for t in sent if not t.is_punct and not t.is_space]
            if obj is not None:
                said = doc.text[words[0].idx: words[-1].idx + len(words[-1].text)]
                said = said[:1].lower() + said[1:]
                at = max(t.idx + len(t.text) for t in obj.subtree)
                out.append(Replacement(at, at, "", f" {said}"))
            elif _describes(words) and (thing := _owned_thing(sents[i - 1], speaker)) is not None:
                first = words[0]  # "We bought a couch. Green velvet." -> "... My couch is green velvet."
                out.append(Replacement(first.idx, first.idx + len(first.text), first.text,
                                       f"{thing} is {first.text[:1].lower()}{first.text[1:]}"))
            continue
        tok = next((t for t in sent if t.lower_ == "it"), None)
        if tok is None or not _opens(tok) or not _states_of_a_thing(tok):
            continue
        np: str | None = None
        if i:
            prev = sents[i - 1]
            if i - 1 in resolved and not [c for c in _candidates(prev) if c[0][-1].lower_ != "it"]:
                np = resolved[i - 1]  # "It's on May 3rd. It starts at noon.": the same thing again
            elif not any(t.lower_ in ("it", "this", "that", "these", "those") and t.pos_ == "PRON" for t in prev):
                found = _pick(_candidates(prev))
                np = _phrase(found[0], found[1], speaker, speaker) if found else None
        if np is None and question is not None and turns[-1][0] is not None and tok.idx < REACH and not any(
                _candidates(s) for s in sents[:i]):  # (whose "my"/"your" it was must be known)
            qdoc = parses.doc(question, PARSE, STAGE)
            if qdoc is not None:
                _ner(parses, qdoc, names)
            found = _pick(_candidates(qdoc[:])) if qdoc is not None else None
            who = turns[-1][0]
            np = _phrase(found[0], found[1], who, speaker) if found else None
        if np is None:
            continue
        resolved[i] = np
        out.append(_it_replacement(doc, tok, np))
    return out


def rewrite(text: str, spans: list[tuple[int, int]], ctx: ExtractionContext) -> tuple[str, list[tuple[int, int]]]:
    """`text` with its resolved "It"s and completed objects, and the sentence `spans` moved to match."""
    from arandu_pipelines.write.person_antecedents import splice

    return splice(text, spans, replacements(text, ctx, ctx.spacy_model))

"""Demonstrative noun-phrase subjects that point back: "That money covers ...", "This house has ...".

Chat news often goes on with a demonstrative noun phrase for something just named: "We won the
$5,000 community grant! That money covers a new roof and new mats", "Remember the cabin we
rented? That place just sold", "I finally bought the kayak I wanted. That thing is so fast". The
rules cannot keep "That money covers ..." (the fact is about nothing named; write/elaboration.py
drops what opens with a bare "This/That" on purpose) and plain_forms only rewrites "this/those"
as "the", which is about no one either. write/thing_antecedents.py calls this module with its
parse of the message (the same `restore` of the message as written) to write the subject as the
thing it points at, as the current speaker says it:

- the sentence opens (after at most a discourse word) with "That/This/Those/These" + a noun
  phrase that is the subject of the sentence's verb, and the verb states something of the thing:
  a content verb ("just sold", "covers ..."), "has"/"have", or a copula with a place, a time or a
  plain description ("is so fast"). Reactions stay as they are: verbs of seeming, reminding,
  meaning ("That trail looks magical", "That sign reminds me ..."), a verdict adjective ("That
  bowl is gorgeous"), an attribute ("That place is a gem");
- the antecedent is the ONE compatible noun phrase in the same message before it, or (when the
  message has none) in the previous turn: the same head noun ("this house" <- "the house on
  Elm Street"), or a noun the head is a general word for (`HYPERNYMS`: money <- grant, prize,
  raise ...; place <- cabin, house, restaurant ...). "That thing" / "That one" takes the one thing
  of the sentence just before (as write/thing_antecedents.py's "It" does). Two different
  compatible phrases, people ("That kid": write/person_antecedents.py), dates and vague nouns
  leave the sentence as today;
- the same head noun: only the demonstrative is rewritten ("That old cabin" -> "our old cabin");
  a general word: the whole phrase becomes the antecedent ("That money" -> "our $5,000 community
  grant"). The owner: the speaker's ("my"/"our") when the speaker got, made or has it ("I/we" +
  a verb of `OWN_VERBS`/`MAKE_VERBS`, also in a relative clause: "the cabin we rented"), the
  antecedent's own possessive flipped across speakers ("my" of the other speaker -> "Ana's"),
  the answerer's ("my") for "the <thing>" the other speaker asked about as the subject of a
  question ("How's the dance studio?" "The dance studio is on tenuous grounds" -> "my dance
  studio ..."; not a public thing of lexicon.PUBLIC_THINGS nor weather/nature, `NATURE`),
  else "the";
- "The" opens such a subject too: "The money covers ..." after "We won the grant" (a general
  word), or the same noun when the owner found is not "the" ("We adopted a puppy. The puppy
  chews everything" -> "Our puppy ..."; "I saw the movie. The movie ..." stays). "The thing
  is, ..." is no thing.

- "The <noun>" with nothing compatible in the message or the previous turn: the speaker's own
  thing when the speaker called it theirs earlier in the conversation ("I'm organising a pancake
  breakfast" ... "The pancake breakfast raised $4,200" -> "My pancake breakfast ..."; the record is
  write/own_things.py's, session 17). A contracted verb ("The store's doing great") is read as the
  verb, and a conjunct of a question's subject ("How are Luna and the kittens?") as asked about.

English only; with no spaCy pipeline nothing changes. Cost: the regex `hits` lets through only a
sentence opening with a demonstrative or "The" + a word that (or whose `HYPERNYMS` entry) occurs
earlier in the message or in the previous turn (35 of the 1,805 turns of the dev pair and
heldout-1..8); the previous turn is parsed only then, batched with the chunk's parses.
"""

from __future__ import annotations

import re
from typing import Any

from arandu_pipelines.write import lexicon as L
from arandu_pipelines.write import own_things
from arandu_pipelines.write.antecedents import (
    _REACTION_ADJ,
    _VAGUE,
    MAX_PARSE_CHARS,
    Replacement,
    sentence_spans,
)
from arandu_pipelines.write.org_antecedents import (
    _PERSON_NOUNS,
    _TIME_NOUNS,
    OWN_VERBS,
)

DEMONSTRATIVES = frozenset({"this", "that", "these", "those"})
# a general noun and the nouns it is a general word for ("That money" <- "the grant")
HYPERNYMS: dict[str, frozenset[str]] = {
    "money": frozenset({"grant", "prize", "raise", "bonus", "donation", "donations", "scholarship", "paycheck",
                        "check", "cheque", "inheritance", "refund", "loan", "award", "salary", "winnings",
                        "funding", "fund", "funds", "savings", "dollars", "bucks", "reward", "stipend", "jackpot",
                        "tips"}),
    "cash": frozenset({"grant", "prize", "raise", "bonus", "donation", "refund", "winnings", "dollars", "bucks",
                       "tips", "jackpot"}),
    "place": frozenset({"cabin", "house", "home", "apartment", "flat", "condo", "restaurant", "cafe", "café", "bar",
                        "shop", "store", "bakery", "studio", "cottage", "hotel", "inn", "gym", "venue", "diner",
                        "office", "farm", "ranch", "lodge", "resort", "villa", "bistro", "pub", "library", "museum",
                        "club", "clinic", "campsite", "cafeteria", "salon", "boutique", "warehouse", "barn",
                        "garage", "bookstore", "pizzeria", "brewery", "winery", "motel", "hostel", "bungalow"}),
    "house": frozenset({"cabin", "cottage", "bungalow", "villa", "farmhouse", "townhouse"}),
    "car": frozenset({"truck", "van", "suv", "jeep", "sedan", "convertible", "hatchback", "minivan", "pickup"}),
    "boat": frozenset({"kayak", "canoe", "sailboat", "yacht", "dinghy", "raft"}),
    "dog": frozenset({"puppy", "pup"}),
    "animal": frozenset({"puppy", "pup", "dog", "cat", "kitten", "horse", "pony", "rabbit", "bunny", "hamster",
                         "parrot", "bird", "turtle", "lizard", "snake", "goat", "chicken"}),
    "pet": frozenset({"puppy", "pup", "dog", "cat", "kitten", "rabbit", "bunny", "hamster", "parrot", "bird",
                      "turtle", "lizard", "snake", "pony"}),
    "instrument": frozenset({"guitar", "piano", "violin", "cello", "drum", "drums", "ukulele", "flute", "keyboard",
                             "saxophone", "trumpet", "banjo", "harp", "clarinet"}),
    "gift": frozenset({"present"}),
    "present": frozenset({"gift"}),
}
# weather and nature are no one's: "How's the snow up there?" "The snow came early"
NATURE = frozenset({"snow", "rain", "wind", "heat", "cold", "ice", "fog", "frost", "sunshine", "air", "water", "tide",
                    "waves", "surf", "sky", "sun", "weather", "humidity", "smoke", "pollen", "leaves", "temperature"})
# the one thing of the sentence just before: "I bought the kayak. That thing is so fast."
GENERIC = frozenset({"thing", "one"})
MAKE_VERBS = OWN_VERBS | frozenset({"finished", "fixed", "repaired", "restored", "renovated", "remodeled",
                                    "assembled", "booked", "wrote", "recorded", "crocheted", "carved", "cooked",
                                    "brewed", "earned", "raised", "saved", "bought", "sold", "moved"})
# "That trail looks magical", "That sign reminds me ...", "That money means a lot": a reaction
_REACTION_VERBS = frozenset({
    "look", "looks", "looked", "sound", "sounds", "sounded", "seem", "seems", "seemed", "feel", "feels", "felt",
    "remind", "reminds", "reminded", "mean", "means", "meant", "make", "makes", "made", "give", "gives", "gave",
    "bring", "brings", "brought", "matter", "matters", "mattered", "rock", "rocks", "rocked", "suck", "sucks",
    "sucked", "rule", "rules", "help", "helps", "helped", "show", "shows", "showed", "teach", "teaches", "taught",
    "deserve", "deserves", "deserved", "inspire", "inspires", "inspired", "touch",
    "touches", "touched", "warm", "warms", "amaze", "amazes", "blow", "blows", "kill", "kills"})
_VERDICTS = _REACTION_ADJ | frozenset({"magical", "spooky", "special", "precious", "unreal", "insane", "lucky",
                                       "worth", "priceless", "legendary", "iconic", "classic", "hilarious", "sad",
                                       "awful", "terrible", "horrible", "bad", "best", "worst", "excellent",
                                       "delicious", "tasty", "yummy", "pretty", "cool", "dope", "sick", "fire",
                                       "wholesome", "breathtaking", "inspiring", "cozy", "lovely", "fine", "ok",
                                       "okay"})
_LEAD = r"(?:(?:And|So|But|Well|Oh|Anyway|Now|Yeah|Yes|Plus|Also),?\s+)?"
_OPEN_RE = re.compile(_LEAD + r"(?P<det>That|This|These|Those|The)\s+(?!(?:is|was|are|were|looks?|sounds?|seems?|makes?|"
                      r"made|reminds?|means?|must|would|could|will|can|really|just|has|had|"
                      r"way|kind|sort|same|best|worst|first|last|only|most|rest|other|problem|point|truth|key|"
                      r"fact|reason|idea|goal|plan|end)\b)(?P<np>(?:[\w$,.'’-]+\s+){0,3}?)(?P<head>[a-z][a-z'’-]*)"
                      r"\s+(?:(?:just|also|finally|still|already|now|actually|really|officially|only)\s+)?"
                      r"(?:['’]s\b|[a-z]+\b)")
_WORD_RE = re.compile(r"[a-z][a-z'’-]*")


def _singular(word: str) -> str:
    w = word.lower()
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith(("ches", "shes", "xes", "sses")):
        return w[:-2]
    return w[:-1] if w.endswith("s") and not w.endswith("ss") and len(w) > 3 else w


def _compatible(head: str, other: str) -> bool:
    """`other` (a noun said before) is what a demonstrative `head` noun can stand for."""
    h, o = _singular(head), other.lower()
    return h == _singular(o) or o in HYPERNYMS.get(h, frozenset()) or _singular(o) in HYPERNYMS.get(h, frozenset())


# ---- prefilter ---------------------------------------------------------------------------------------


def hits(text: str, previous: str | None, owned: frozenset[str] = frozenset()) -> tuple[int, bool]:
    """(the end of the last sentence that may change (0: none), whether the previous turn may hold
    its antecedent), by regex only. `owned`: the words of what the speaker called their own
    earlier (write/own_things.heads): "The store's ..." may be "My store ..." (session 17)."""
    text = text[:MAX_PARSE_CHARS]
    prev_words = {_singular(w) for w in _WORD_RE.findall(previous.lower())} if previous else set()
    last, need_prev = 0, False
    for a, b in sentence_spans(text):
        body = text[a:b].strip()
        m = _OPEN_RE.match(body)
        if m is not None:
            # "The store's doing great": the head is "store" ('s is the verb, session 17)
            words = [_CONTRACTED_RE.sub("", m.group("head"))] + _WORD_RE.findall(m.group("np").lower())
            here = {_singular(w) for w in _WORD_RE.findall(text[:a].lower())}
            for w in words:
                h = _singular(w)
                names = {h} | HYPERNYMS.get(h, frozenset())
                if h in GENERIC and a > 0 and m.group("det") != "The" or names & here:
                    last = b
                elif names & prev_words:
                    last, need_prev = b, True
                elif m.group("det") == "The" and h in owned and h not in GENERIC:
                    last = max(last, b)
    return last, need_prev


_CONTRACTED_RE = re.compile(r"['’](?:s|re|ve|d|ll)$")


# ---- the demonstrative sentence ---------------------------------------------------------------------
def _subject(sent: Any) -> Any | None:
    """The head noun of the sentence's opening demonstrative subject, or None."""
    words = [t for t in sent if not t.is_punct and not t.is_space]
    if not words:
        return None
    i = 1 if words[0].lower_ in ("and", "so", "but", "well", "oh", "anyway", "now", "yeah", "yes", "plus",
                                 "also") and len(words) > 1 else 0
    det = words[i]
    if det.lower_ not in DEMONSTRATIVES and det.lower_ != "the" or det.dep_ != "det" \
            or det.head.pos_ not in ("NOUN", "PROPN"):
        return None
    noun = det.head
    if det.lower_ == "the" and noun.lower_ in GENERIC:
        return None  # "The thing is, ...": no thing
    if noun.dep_ not in ("nsubj", "nsubjpass") or noun.head.dep_ != "ROOT":
        return None
    if noun.lower_ in _PERSON_NOUNS or _singular(noun.lower_) in _PERSON_NOUNS or noun.lower_ in _TIME_NOUNS \
            or (noun.lower_ in _VAGUE and noun.lower_ not in GENERIC):
        return None
    return noun


def _states(noun: Any) -> bool:
    """The clause states something of the thing, not a reaction to it (module doc)."""
    verb = noun.head
    kids = list(verb.children)
    if verb.lower_ in _REACTION_VERBS or sent_is_question(noun):
        return False
    if any(c.dep_ in ("acomp", "oprd") and any(t.lower_ in _VERDICTS for t in c.subtree) for c in kids):
        return False
    if verb.lemma_ == "be" or verb.lower_ in ("is", "was", "are", "were", "'s", "’s", "be"):
        return not any(c.dep_ == "attr" for c in kids)
    return verb.pos_ in ("VERB", "AUX")


def sent_is_question(tok: Any) -> bool:
    return tok.sent.text.rstrip().endswith("?")


# ---- antecedents -------------------------------------------------------------------------------------
def _chunks(doc_or_span: Any) -> list[Any]:
    """Noun chunks that can be a thing pointed back at (no pronouns, people, dates, demonstratives)."""
    out = []
    for chunk in doc_or_span.noun_chunks:
        root = chunk.root
        if root.pos_ not in ("NOUN",) or root.lower_ in _PERSON_NOUNS or root.lower_ in _TIME_NOUNS:
            continue
        if chunk[0].lower_ in DEMONSTRATIVES or root.lower_ in _VAGUE or root.ent_type_ in ("PERSON", "DATE", "TIME"):
            continue
        out.append(chunk)
    return out


def _owner_verb(root: Any) -> Any | None:
    """The I/we verb that got, made or has `root` ("we won the grant", "the cabin we rented")."""
    verbs = [root.head] if root.dep_ == "dobj" else []
    verbs += [c for c in root.children if c.dep_ == "relcl"]
    for verb in verbs:
        if verb.lower_ not in MAKE_VERBS or any(c.dep_ == "neg" for c in verb.children):
            continue
        subj = [c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")]
        if not subj and verb.dep_ == "conj":
            subj = [c for c in verb.head.children if c.dep_ in ("nsubj", "nsubjpass")]
        if len(subj) == 1 and subj[0].lower_ in ("i", "we"):
            return subj[0]
    return None


def _owner(chunk: Any, who: str | None, speaker: str) -> str | None:
    """How the current speaker says whose the thing is: "my"/"our"/"Ana's"/"the"; None: unknown."""
    first = chunk[0].lower_
    mine = who is None or who == speaker
    if first in ("my", "our"):
        if mine:
            return first
        return f"{who}'s" if who else None
    if first == "your":
        return "my" if not mine else "your"
    if chunk[0].dep_ == "poss" or first in ("his", "her", "their", "its"):
        return None  # "Tom's cabin", "her bakery": the phrase keeps its owner (see _words)
    if first == "the" and not mine and _asked_about(chunk.root):
        return "my"  # "How's the dance studio?" "The dance studio is on tenuous grounds": the answerer's
    subj = _owner_verb(chunk.root)
    if subj is not None:
        own = "my" if subj.lower_ == "i" else "our"
        if mine:
            return own
        return f"{who}'s" if who else None
    return "the"


def _asked_about(root: Any) -> bool:
    """The other speaker asked how the thing is ("How's the new job?", "Did the package come?"):
    what the question is about, as its subject, and not a public thing (a game, the weather)."""
    # "How are Luna and the kittens?": a conjunct of the subject is asked about too (session 17)
    role = root.head.dep_ if root.dep_ == "conj" else root.dep_
    return root.sent.text.rstrip().endswith("?") and role in ("nsubj", "nsubjpass", "attr") \
        and root.lower_ not in L.PUBLIC_THINGS and root.lower_ not in NATURE and not root.ent_type_ \
        and not _acts_on_listener(root)


def _acts_on_listener(root: Any) -> bool:
    """"Did the clinic call you back?": the thing acts on the listener, so it is someone they deal
    with (an organisation, a shop), not a thing of theirs ("How's the new job?")."""
    return any(t.lower_ == "you" and t.dep_ in ("dobj", "dative", "iobj") for t in root.head.children)


def _body(chunk: Any) -> str:
    """The chunk without its determiner: "$5,000 community grant" of "the $5,000 community grant"."""
    words = [t for t in chunk if not (t.i == chunk.start and t.dep_ in ("det", "poss"))]
    return "".join(t.text_with_ws for t in words).strip()


def _find(noun: Any, where: list[Any]) -> list[Any]:
    """The chunks of `where` (spans) compatible with the demonstrative's head `noun`."""
    if noun.lower_ in GENERIC:
        return []
    return [c for span in where for c in _chunks(span) if _compatible(noun.lower_, c.root.text)]


def _generic(prev: Any) -> list[Any]:
    """"That thing": the one singular definite, possessive or owned thing of the sentence before."""
    things = [c for c in _chunks(prev) if c.root.tag_ == "NN" and c.root.dep_ != "npadvmod"]
    if len(things) != 1:
        return []
    c = things[0]
    ok = c[0].lower_ in ("the", "my", "our", "your") or _owner_verb(c.root) is not None
    return [c] if ok else []


def _one(chunks: list[Any]) -> Any | None:
    """The antecedent when all compatible chunks are the same thing (same head and body words)."""
    if not chunks:
        return None
    keys = {_singular(c.root.text) for c in chunks}
    if len(keys) != 1:
        return None
    bodies = {_body(c).lower() for c in chunks}
    longest = max(bodies, key=len)
    if any(b not in longest for b in bodies):
        return None  # "the red car ... the blue car": two things
    return next(c for c in chunks if _body(c).lower() == longest)


def _phrase(noun: Any, chunk: Any, who: str | None, speaker: str) -> tuple[int, str] | None:
    """(end char of what is replaced, the new words) for the demonstrative phrase of `noun`."""
    det = next(t for t in noun.children if t.dep_ == "det")
    owner = _owner(chunk, who, speaker)
    if chunk[0].dep_ == "poss" and chunk[0].lower_ not in ("my", "our", "your"):
        if who is not None and who != speaker and chunk[0].lower_ in ("his", "her", "their", "its"):
            return None  # whose "her" it was is a person of another turn
        owner = ""
    if owner is None:
        return None
    same = _singular(chunk.root.text) == _singular(noun.text)
    if same and det.lower_ == "the" and owner in ("the", ""):
        return None  # "I saw the movie. The movie ...": already as plain as it gets
    if same and owner:
        new = owner  # the same noun: only the demonstrative changes ("That old cabin" -> "our old cabin")
        end = det.idx + len(det.text)
    else:
        body = _body(chunk) if owner else "".join(t.text_with_ws for t in chunk).strip()
        new = f"{owner} {body}".strip()
        end = noun.idx + len(noun.text)
    if det.text[:1].isupper():
        new = new[:1].upper() + new[1:]
    return end, new


def replacements(doc: Any, prev_doc: Any | None, prev_who: str | None, speaker: str,
                 owned: list[own_things.Phrase] | None = None) -> list[Replacement]:
    """The demonstrative subjects of `doc` (the message, parsed) written as their antecedent;
    `owned`: what the speaker called their own before (write/own_things.py), asked when neither
    the message nor the previous turn names the thing."""
    out: list[Replacement] = []
    sents = list(doc.sents)
    for i, sent in enumerate(sents):
        noun = _subject(sent)
        if noun is None or not _states(noun):
            continue
        who: str | None = speaker
        if noun.lower_ in GENERIC:
            found = _generic(sents[i - 1]) if i else []
        else:
            found = _find(noun, sents[:i])
            if not found and prev_doc is not None:
                found, who = _find(noun, list(prev_doc.sents)), prev_who
        chunk = _one(found)
        if chunk is None:
            if not found and owned and (mine := _owned(noun, owned)) is not None:
                out.append(mine)
            continue
        said = _phrase(noun, chunk, who, speaker)
        if said is None:
            continue
        det = next(t for t in noun.children if t.dep_ == "det")
        end, new = said
        out.append(Replacement(det.idx, end, doc.text[det.idx: end], new))
    return out


def _owned(noun: Any, owned: list[own_things.Phrase]) -> Replacement | None:
    """"The pancake breakfast raised ..." -> "My pancake breakfast ..." when the speaker said the
    thing as theirs before ("I'm organising a pancake breakfast"): a "The" subject whose noun has
    no phrase or clause after it ("The car in front of me", "the shop we loved" are other things)."""
    det = next((t for t in noun.children if t.dep_ == "det"), None)
    if det is None or det.lower_ != "the" or noun.lower_ in GENERIC or noun.lower_ in NATURE or noun.ent_type_:
        return None
    if any(c.dep_ in ("prep", "relcl", "acl", "appos") for c in noun.children):
        return None
    mods = [t for t in noun.lefts if t.i > det.i]
    if any(t.dep_ not in ("compound", "amod") for t in mods):
        return None
    mine = own_things.owner(noun.text, [t.lower_ for t in mods], owned)
    if mine is None:
        return None
    new = mine[:1].upper() + mine[1:] if det.text[:1].isupper() else mine
    return Replacement(det.idx, det.idx + len(det.text), det.text, new)


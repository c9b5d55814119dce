"""Kin, role and pet noun phrases as antecedents of "he" / "she": the phrases
write/person_antecedents.py counted but could not say, and names introduced by apposition.

People rarely name the relative or pet a chat is about: "Our new puppy is a collie mix. He's
about four months old", "How's the kid?" -> "She made the honor roll", "We got a puppy!" ... "He's
a collie mix". person_antecedents found such a phrase as the one candidate but had no words for
it ("our puppy", "the kid" belong to no one it could name), so the sentence kept its "he" and the
fact was dropped. It also left every name of the message to extract_rules' `last_person`, which
only sees names it typed as people: "There's one girl on the team, Kira, twelve, ... she has her
first meet next month" gave nothing. This module holds what person_antecedents asks about a
candidate (it is called from there, on the same parse):

- `owned_phrase`: the candidate in the current speaker's mouth when person_antecedents had none:
  "our <noun>" (the speaker's, or the other speaker's "our" -> "<name>'s <noun>"); "a <noun>" that
  "we" adopted / got / have (-> "our <noun>"); "the <noun>" in the other speaker's question to the
  current speaker ("How's the puppy?" asks about the listener's puppy: -> "my puppy"); a generic
  person noun ("the girl", "the guy") is never anyone's;
- `apposed_name`: a name set off by commas after a person noun's prepositional phrase ("a guy at
  the gym, Marco, ...": spaCy hangs the apposition on "gym"), so the name and the noun are one
  candidate with the noun's gender;
- `same_referent`: two unnamed mentions with one head noun and no conflicting owner ("our new
  puppy" ... "the puppy") are one candidate, so a definite re-mention does not make the pronoun
  ambiguous;
- `ROLE_NOUNS`: role nouns for one person (student, client, patient, doctor ...) count as
  candidates like kin nouns (they also make a pronoun ambiguous when two fit).

And for what the rules then read:
- `apposed_to_person` (extract_rules._scan_entities): a name apposed to a person noun ("a new kid
  in my class, Omar") is typed a person, so "Omar sits alone at lunch" (its "He" resolved) is read;
- `relative_fragment` (fact_quality._relative): "Kira, twelve, who's improved so much", what the
  restater leaves of the introducing sentence, said as a clause ("Kira has improved so much");
- `possessed_subject` (fact_quality._split_actions): a fact split at its second verb repeats "Ann's
  daughter", not the bare owner ("Ann joined the rowing team" was wrong).

Gender comes from the noun (person_antecedents' MALE / FEMALE tables); only one compatible
candidate is ever resolved (person_antecedents' `_pick`). English only.
"""

from __future__ import annotations

import re
from typing import Any

# role nouns for one person, gender not shown (kin nouns are person_antecedents' PERSON_NOUNS)
ROLE_NOUNS = frozenset({
    "student", "pupil", "client", "patient", "tutor", "trainer", "doctor", "nurse", "instructor", "vet",
    "landlord", "landlady", "tenant", "babysitter", "nanny", "caregiver", "counselor", "counsellor", "pastor",
    "mentee", "apprentice", "swimmer", "player", "athlete", "grandbaby", "stepkid", "bestfriend"})
# person nouns that say what someone is, not whose: "the girl" is no one's girl
GENERIC = frozenset({"boy", "girl", "guy", "man", "woman", "lady", "person", "player", "swimmer", "athlete"})
_HOUSEHOLD = frozenset({"baby", "toddler", "newborn", "grandkid", "grandchild", "grandbaby", "puppy", "pup", "kitten"})
# words after a noun that say which one is meant ("the kid next door", "the dog upstairs"); the
# parse does not always hang them on the noun
_WHICH_ONE = frozenset({"next", "from", "at", "in", "on", "across", "down", "up", "upstairs", "downstairs", "who",
                        "that", "with", "of", "over"})
_WE_OWN = frozenset({"adopt", "adopted", "get", "got", "gotten", "have", "has", "had", "rescue", "rescued",
                     "bought", "buy", "welcomed", "foster", "fostered"})


def _household(root: Any) -> bool:
    """A relative or pet one asks a person about by "the" alone ("How's the baby?", "the puppy"):
    no role noun ("the new teacher" is not the listener's) and nothing that says which one ("the
    kid next door", "the dog at the shelter")."""
    from arandu_pipelines.write.lexicon import PET_TERMS_EN, REL_TERMS_EN

    low = root.lower_
    kin = REL_TERMS_EN.get(low) in ("family_of", "partner_of") or low in _HOUSEHOLD or low in PET_TERMS_EN
    after = root.nbor(1).lower_ if root.i + 1 < len(root.doc) else ""
    return kin and after not in _WHICH_ONE \
        and not any(c.dep_ in ("prep", "relcl", "acl", "advmod", "npadvmod") for c in root.children)


def _rest(chunk: Any) -> str:
    """The chunk's words after its determiner ("our new puppy" -> "new puppy")."""
    return "".join(t.text_with_ws for t in chunk if t.i != chunk.start and t.dep_ != "punct").strip()


def _owner_of(who: str | None, speaker: str, mine: str) -> str | None:
    """`mine` ("our" / "my") when the turn is the current speaker's, else the turn speaker's name."""
    if not who:
        return None
    return mine if who == speaker else f"{who}'s"


def _voiced(det: str, who: str | None, speaker: str) -> str | None:
    """A possessive determiner of a turn by `who` in the current speaker's mouth."""
    if det == "our":
        return _owner_of(who, speaker, "our")
    if det == "my":
        return _owner_of(who, speaker, "my")
    if det == "your" and who:
        return "my" if who != speaker else "your"
    return None


def owned_phrase(chunk: Any, who: str | None, speaker: str) -> str | None:
    """The candidate `chunk` (of a turn by `who`) as the current `speaker` would say it, for the
    determiners person_antecedents has no words for (see the module docstring); None otherwise."""
    root = chunk.root
    first = chunk[0].lower_
    rest = _rest(chunk)
    if root.dep_ == "conj" and chunk[0].tag_ not in ("DT", "PRP$", "POS"):
        # "your son and daughter": the second noun shares the first one's "your"
        det = next((c.lower_ for c in root.head.children if c.dep_ == "poss"), None)
        owner = _voiced(det, who, speaker) if det else None
        return f"{owner} {chunk.text}" if owner and root.lower_ not in GENERIC else None
    if not rest or root.lower_ in GENERIC:
        return None
    if first == "our":
        owner = _owner_of(who, speaker, "our")
        return f"{owner} {rest}" if owner else None
    if first == "the":
        asked = root.sent[-1].text == "?" or root.sent.text.rstrip().endswith("?")
        if asked and who and who != speaker and _household(root):
            return f"my {rest}"  # "How's the puppy?" asked of the current speaker
        return None
    if first in ("a", "an") and root.dep_ == "dobj" and root.head.lower_ in _WE_OWN \
            and any(c.dep_ == "nsubj" and c.lower_ == "we" for c in root.head.children):
        owner = _owner_of(who, speaker, "our")  # "We got a puppy!"
        return f"{owner} {rest}" if owner else None
    return None


def possessor(root: Any, who: str | None, speaker: str, nouns: frozenset[str]) -> tuple[Any, str] | None:
    """A relative or pet named as the owner of something ("My husband's birthday is Friday"):
    (its noun token, its phrase in the current speaker's mouth), else None."""
    for c in root.children:
        if c.dep_ == "poss" and c.tag_ == "NN" and c.lower_ in nouns:
            det = next((d.lower_ for d in c.children if d.dep_ == "poss"), None)
            owner = _voiced(det, who, speaker) if det else None
            if owner:
                mods = "".join(t.text_with_ws for t in c.lefts if t.dep_ in ("amod", "compound")).strip()
                return c, f"{owner} {mods + ' ' if mods else ''}{c.text}"
    return None


_RANKED = frozenset({"youngest", "oldest", "eldest"})


def bare_kin(tok: Any, who: str | None, speaker: str) -> str | None:
    """"my youngest", "your little one": a child named by an adjective, which spaCy parses as no
    noun chunk; its phrase in the current speaker's mouth, else None."""
    low = tok.lower_
    if tok.dep_ not in ("nsubj", "nsubjpass", "dobj", "pobj", "attr", "conj"):
        return None
    ranked = low in _RANKED and tok.tag_ in ("JJS", "JJ", "NN")
    little = low == "one" and any(c.dep_ == "amod" and c.lower_ in ("little", "baby") for c in tok.children)
    if not (ranked or little):
        return None
    det = next((c.lower_ for c in tok.children if c.dep_ == "poss"), None)
    owner = _voiced(det, who, speaker) if det else None
    if owner is None:
        return None
    mods = "".join(t.text_with_ws for t in tok.lefts if t.dep_ == "amod").strip()
    return f"{owner} {mods + ' ' if mods else ''}{tok.text}"


def read_here(noun: str) -> bool:
    """Whether a pronoun after a name apposed to `noun` is resolved by person_antecedents: not
    for a relationship or pet noun ("my brother Carlos", "my dog Rex"), whose pattern already types
    the name and whose "he" extract_rules' last_person reads (as an inferred subject, confidence
    0.80); yes for any other person noun ("one girl on the team, Kira", "a guy at the gym, Marco")."""
    from arandu_pipelines.write.lexicon import PET_TERMS_EN, REL_TERMS_EN

    return noun not in REL_TERMS_EN and noun not in PET_TERMS_EN


def apposed_name(root: Any) -> str | None:
    """A name set off by commas after the person noun's prepositional phrase: "a guy at the gym,
    Marco, who ..." (spaCy makes Marco an apposition of "gym")."""
    for prep in root.children:
        if prep.dep_ != "prep":
            continue
        for pobj in prep.children:
            if pobj.dep_ != "pobj":
                continue
            for c in pobj.children:
                if c.dep_ == "appos" and c.tag_ == "NNP" and c.i > 0 and c.nbor(-1).text == ",":
                    return " ".join(t.text for t in c.subtree if t.tag_ == "NNP") or None
    return None


def owner_word(phrase: str | None) -> str | None:
    """The owner part of a candidate's phrase ("my", "our", "Tom's"); None for no phrase."""
    return phrase.split()[0].casefold() if phrase else None


def same_referent(head_a: str, owner_a: str | None, head_b: str, owner_b: str | None) -> bool:
    """Two unnamed mentions are one candidate when their head nouns agree and at most one of them
    says whose it is, or both say the same owner ("our new puppy" ... "the puppy", "my new puppy"
    ... "my puppy")."""
    return bool(head_a) and head_a == head_b and (owner_a is None or owner_b is None or owner_a == owner_b)


_GROUPS = frozenset({"family", "fam", "parents", "kids", "folks", "pets", "grandkids", "grandparents"})


def possessed_subject(text: str, subject: str, nouns: frozenset[str]) -> str | None:
    """"Ann's new puppy" when a fact about `subject` opens with the subject's kin, role or pet noun
    phrase (at most three words after "'s"), else None. A fact split at its second verb
    (fact_quality._split_actions: "Ann's daughter is majoring in biology and joined the rowing
    team") repeats this phrase, not the bare owner ("Ann joined the rowing team" was wrong).
    `nouns`: the person and pet nouns (person_antecedents.ANIMATE_NOUNS)."""
    from arandu_pipelines.write.lexicon import REL_TERMS_EN

    for poss in ("'s ", "’s "):
        if text.startswith(subject + poss):
            at = len(subject) + len(poss)
            words = text[at:].split(" ", 3)[:3]
            for i, w in enumerate(words):
                w = re.sub(r"['’]s$", "", w)  # "Ann's fam's been awesome"
                low = w.lower()
                if low in nouns or low in REL_TERMS_EN or low in _GROUPS:
                    return text[:at] + " ".join([*words[:i], w])
    return None


_APPOSED_RE: re.Pattern[str] | None = None


def apposed_to_person(before: str, nouns: frozenset[str]) -> bool:
    """Whether the text `before` a proper name ends with a person noun (and at most a short
    prepositional phrase) and a comma: "one girl on the team, Kira", "a new kid in my class, Omar",
    "my coach, Dee". extract_rules types such a name as a person (it had typed only a name before
    a known person verb or after "with" / "met"), so the sentence whose "she" became "Kira" is read.
    `nouns`: the person nouns (person_antecedents.PERSON_NOUNS; the pattern is built once)."""
    global _APPOSED_RE
    if _APPOSED_RE is None:
        alt = "|".join(sorted((nouns | ROLE_NOUNS) - {"oldest", "youngest"}, key=len, reverse=True))
        _APPOSED_RE = re.compile(
            rf"(?i)(?<![\w'’-])(?:{alt})(?:\s+(?:on|in|at|from|of|with)\s+(?:(?:the|my|our|a|an|your)\s+)?"
            rf"[\w'’-]+(?:\s+[\w'’-]+)?)?\s*,\s*$")
    return _APPOSED_RE.search(before[-80:]) is not None


# "Kira, twelve, who's improved so much": a name, an optional apposition, and a relative clause
_RELATIVE_TAIL_RE = re.compile(r"^(?P<n>[^,]+?)(?:,\s*[^,]{1,30})?,\s*who(?P<aux>['’]s|\s+is|\s+has|\s+was)\s+(?P<rest>[^,]+)$")


_ADVERBS = frozenset({"just", "already", "finally", "never", "always", "also", "since", "even", "still", "so"})


def relative_fragment(text: str, subject: str) -> str | None:
    """A fact that is only its subject's apposition and relative clause ("Kira, twelve, who's
    improved so much", what is left of "There's one girl on the team, Kira, twelve, who's ...")
    said as a clause: "Kira has improved so much"; None when `text` is not such a fragment."""
    m = _RELATIVE_TAIL_RE.match(text.rstrip(" .!"))
    if not m or m.group("n") != subject:
        return None
    aux, rest = m.group("aux").strip().lower(), m.group("rest").strip()
    if aux in ("'s", "’s"):
        # the verb after any adverb: "who's really turned things around" is "has", not "is"
        words = [w.lower() for w in rest.split()]
        first = next((w for w in words if not (w.endswith("ly") or w in _ADVERBS)), words[0])
        aux = "has" if first == "been" or first == "got" or first.endswith("ed") else "is"
    return f"{subject} {aux} {rest}"

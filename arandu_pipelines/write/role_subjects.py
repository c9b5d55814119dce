"""News about a role the speaker dealt with: "The inspector said ..." (session 15, branch the15).

Held-out chat lost whole news turns whose subject is a definite noun phrase for a person by role:
"The floor guy finished on April 20th", "The inspector said it was one of the cleanest trucks
she has seen", "The editor said the story made her laugh". The rules read no person in them (a
role noun is no name and no pronoun), so they gave no fact and no drop. The speaker tells them
as news of their own world (their contractor, their inspector), the way "My editor sent her
notes" already gave "S's editor sent her notes".

`rewrite_sentence` reads such a sentence as "My <role phrase> ..." so every rule and check runs
as for the speaker's own "my X"; `restore_facts` then puts the subject back as written ("The
inspector said ...") on facts filed on the speaker (the fact's `subject` stays the speaker). When
the other speaker's last turn introduced the noun as their own ("my coach"), it is read as "Your
<phrase>" (the listener's, filed on the listener) and written back the same way.

A role phrase is "The" + at most two modifiers + a noun of `ROLE_NOUNS` (the role nouns of
kin_antecedents and people_forms plus the occupation table below), or "The <noun> guy / lady /
woman / man / person" where the parse makes the first word a compound noun ("the floor guy",
"the cable guy"; "the old guy" is an adjective: no). It must be the subject of the sentence's
main verb (spaCy dependency parse, one parse per gated sentence), in a statement (not ending in
"?"). Left alone:
- a generic statement: the main verb is present tense or modal and carries a habitual adverb
  ("The doctor is always late", "The coach never listens"): a habit, not news; a past verb with
  one ("The vet never called back") is news;
- a phrase the message gave another owner before ("your / his / her / their / Ann's editor");
- a noun the other speaker's last turn named without "my" ("the coach", "a coach", "your coach"
  is the speaker's own and counts): whose it is is not said;
- a word after the noun that says which one ("the nurse at the front desk", "the doctor who
  ..."): no parse needed to leave it.
Reported speech ("The inspector said X") keeps the whole sentence, as annotators write it: the
rules' generic fact keeps "said ..." (no "mentioned that" marker: the reporter is a third party).
"""

from __future__ import annotations

import re
from typing import Any

STAGE = "role_subjects"

# Occupations and service roles a person deals with (a documented table, no data keys): joined
# with kin_antecedents.ROLE_NOUNS and the social role nouns of people_forms at first use.
OCCUPATIONS = frozenset({
    "inspector", "editor", "contractor", "plumber", "electrician", "mechanic", "judge", "director",
    "manager", "agent", "realtor", "lawyer", "attorney", "dentist", "surgeon", "pharmacist", "receptionist",
    "principal", "professor", "producer", "publisher", "recruiter", "interviewer", "examiner", "officer",
    "builder", "roofer", "painter", "carpenter", "architect", "designer", "photographer", "technician",
    "accountant", "banker", "broker", "owner", "host", "organizer", "organiser", "curator", "adjuster",
    "appraiser", "surveyor", "dermatologist", "pediatrician", "paediatrician", "specialist", "physio",
    "physiotherapist", "midwife", "obgyn", "optometrist", "chiropractor", "groomer", "breeder", "sitter",
    "walker", "trainer", "coach", "teacher", "tutor", "instructor", "therapist", "counselor", "counsellor",
    "doctor", "nurse", "vet", "landlord", "landlady", "boss", "supervisor", "mentor", "advisor", "adviser",
    "installer", "cleaner", "gardener", "landscaper", "mover", "caterer", "florist", "baker", "barber",
    "hairdresser", "stylist", "tailor", "dealer", "seller", "buyer", "client", "customer", "patient",
    "tenant", "nanny", "babysitter", "caregiver", "pastor", "priest", "rabbi", "conductor", "choreographer",
    "referee", "umpire", "ranger", "warden", "clerk", "cashier", "waiter", "waitress", "bartender", "chef",
    "driver", "pilot", "captain", "guide", "handyman", "repairman", "contractors", "vendor", "sponsor",
    "investor", "auditor", "consultant",
    "doula", "anesthesiologist", "radiologist", "optician", "podiatrist",
})
# words that name a person only with a noun before them: "the floor guy", "the cable lady"
COMPOUND_HEADS = frozenset({"guy", "guys", "lady", "woman", "man", "person", "folks", "people", "dude"})
# kin words are the subjects14 OWNED / people_forms classes, not roles; generic nouns need a compound
_NOT_ROLES = frozenset({"student", "pupil", "mentee", "grandbaby", "stepkid", "bestfriend", "swimmer", "player",
                        "athlete", "friend", "buddy", "pal", "cousin", "partner", "baby", "toddler", "newborn"})
HABITUAL = frozenset({"always", "usually", "never", "often", "sometimes", "generally", "typically", "normally",
                      "rarely", "seldom", "constantly", "forever"})
_WHICH = frozenset({"at", "in", "on", "from", "of", "next", "who", "that", "which", "whose", "across", "down",
                    "up", "over", "with", "near", "by", "behind", "outside", "inside", "around", "upstairs",
                    "downstairs", "and", "or", "for", "to", "i", "we", "you", "he", "she", "they", "'s", "’s"})
_OTHER_OWNER = r"(?:your|his|her|their|its|[A-Z][a-z]+['’]s)"
_SUBJECTS = frozenset({"nsubj", "nsubjpass"})
_PAST_TAGS = frozenset({"VBD", "VBN"})

_ROLE_WORDS: frozenset[str] | None = None


def role_nouns() -> frozenset[str]:
    """Every noun read as a person by role (see the module docstring)."""
    global _ROLE_WORDS
    if _ROLE_WORDS is None:
        from arandu_pipelines.write.kin_antecedents import ROLE_NOUNS

        social = frozenset({"coworker", "co-worker", "colleague", "neighbor", "neighbour", "classmate", "teammate",
                            "roommate", "boss", "manager", "mentor", "coach", "teacher", "therapist"})
        _ROLE_WORDS = (ROLE_NOUNS | social | OCCUPATIONS) - _NOT_ROLES
    return _ROLE_WORDS


# a discourse opener may come first: "Honestly the vet was so kind", "So the plumber came back"
_OPENERS = ("So|Well|And|But|Anyway|Anyways|Honestly|Also|Plus|Oh|Then|Today|Yesterday|Finally|Luckily|"
            "Thankfully|Apparently|Funny enough|Turns out")
_THE_RE = re.compile(r"^(?P<lead>\s*)(?:(?P<open>(?:" + _OPENERS + r")\b,?\s+)(?P<low>the)|The)\s+"
                     r"(?P<phrase>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2})(?=\s+(?P<next>[a-z’']+))")


def gate(text: str) -> bool:
    """Cheap test whether a sentence of `text` may start with "The <lower-case word>"."""
    return re.search(r"(?:^|[.!?…]\s+)(?:The\s+[a-z]|(?:" + _OPENERS + r")\b,?\s+the\s)", text) is not None


def _phrase(s: str) -> tuple[str, str] | None:
    """(phrase, head) of a sentence-initial "The <mods> <role noun>" (shortest phrase whose last
    word is a role noun or a compound head), or None."""
    m = _THE_RE.match(s)
    if m is None:
        return None
    words = m.group("phrase").split()
    roles = role_nouns()
    for k, w in enumerate(words):
        if w in roles or (k > 0 and w in COMPOUND_HEADS):
            nxt = words[k + 1] if k + 1 < len(words) else m.group("next")
            if nxt.lower() in _WHICH:
                return None
            return " ".join(words[:k + 1]), w
    return None


def _main_subject(doc: Any, at: int, head: str) -> bool:
    """The head noun (at character `at` of the parsed text) is the subject of the main verb, the
    phrase is a role (a compound head needs a noun compound), and the clause is no present-tense habit."""
    tok = next((t for t in doc if t.idx == at), None)
    if tok is None or tok.text.lower() != head or tok.dep_ not in _SUBJECTS:
        return False
    verb = tok.head
    if verb.dep_ != "ROOT":
        return False
    if head in COMPOUND_HEADS and not any(c.dep_ == "compound" and c.tag_ in ("NN", "NNS") for c in tok.children):
        return False
    past = verb.tag_ in _PAST_TAGS or any(
        c.dep_ in ("aux", "auxpass") and (c.tag_ in _PAST_TAGS or c.lower_ in ("did", "has", "have", "had", "was", "were"))
        for c in verb.children)
    habit = any(c.dep_ in ("advmod", "neg") and c.lower_ in HABITUAL for c in verb.children)
    return past or not habit


def _owner(text: str, a: int, head: str, ctx: Any) -> str | None:
    """ "My" (the speaker's), "Your" (the other speaker introduced it as theirs) or None (left alone)."""
    word = r"(?<![\w'’])" + re.escape(head) + r"(?![\w'’-])"
    if re.search(r"(?i)(?<![\w'’])" + _OTHER_OWNER + r"\s+(?:\w+\s+){0,2}" + re.escape(head) + r"(?![\w'’-])",
                 text[:a]):
        return None
    turns = getattr(ctx, "previous_turns", None) or []
    me = (getattr(ctx, "speaker_name", None) or "").strip()
    last = next((t for who, t in reversed(turns) if (who or "").strip() != me), None)
    if last and re.search("(?i)" + word, last):
        if re.search(r"(?i)(?<![\w'’])my\s+(?:[\w-]+\s+){0,2}" + re.escape(head) + r"(?![\w'’-])", last):
            return "Your"
        if re.search(r"(?i)(?<![\w'’])your\s+(?:[\w-]+\s+){0,2}" + re.escape(head) + r"(?![\w'’-])", last):
            return "My"
        return None
    return "My"


def rewrite_sentence(text: str, a: int, s: str, ctx: Any, parses: Any) -> str:
    """Sentence `s` (at `a` of the message `text`) with "The <role phrase>" read as "My/Your
    <phrase>" (module docstring); else `s` itself."""
    if parses is None or s.rstrip().endswith("?"):
        return s
    found = _phrase(s)
    if found is None:
        return s
    phrase, head = found
    owner = _owner(text, a, head, ctx)
    if owner is None:
        return s
    m = _THE_RE.match(s)
    assert m is not None
    body = s.strip()
    at = m.start("phrase") + len(phrase) - len(head) - (len(s) - len(s.lstrip()))
    doc = parses.doc(body, "parse", STAGE)
    if doc is None or not _main_subject(doc, at, head):
        return s
    det = owner if m.group("low") is None else owner.lower()
    return f"{m.group('lead')}{m.group('open') or ''}{det} {s[m.start('phrase'):]}"


def restored_phrases(pairs: list[tuple[str, str]]) -> list[str]:
    """The role phrases rewritten in a message, from (rewritten, original) sentence pairs."""
    out: list[str] = []
    for new, old in pairs:
        found = _phrase(old)
        if found is None:
            continue
        phrase = found[0]
        if re.search(r"(?:^|\s)(?:My|Your|my|your)\s+" + re.escape(phrase) + r"\b", new):
            out.append(phrase)
    return out


def restore_facts(facts: list[Any], phrases: list[str]) -> None:
    """ "Ann's inspector said ..." -> "The inspector said ..." on a fact whose subject is the
    owner (its `subject` stays the owner: the fact is filed on them)."""
    if not phrases:
        return
    for f in facts:
        who = (getattr(f, "subject", None) or "").strip()
        if not who:
            continue
        for phrase in phrases:
            rx = re.compile(re.escape(who) + r"['’]s\s+" + re.escape(phrase) + r"(?![\w'’-])")
            m = rx.search(f.fact_text)
            if m:
                # a pronoun of the same sentence resolved to the phrase: "the inspector" again
                det = "The" if not f.fact_text[:m.start()].strip() else "the"
                rest = rx.sub(f"the {phrase}", f.fact_text[m.end():])
                f.fact_text = f"{f.fact_text[:m.start()]}{det} {phrase}{rest}"
                break


__all__ = ["COMPOUND_HEADS", "HABITUAL", "OCCUPATIONS", "STAGE", "gate", "restore_facts", "restored_phrases",
           "rewrite_sentence", "role_nouns"]

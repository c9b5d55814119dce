"""Ill-formed facts: a spaCy parse finds the fact is not a well-formed declarative statement.

bench/facts.py's defect markers are regular expressions over the fact text; they name known
failure forms ("mentioned that", captions, an unresolved "you"). Reading kept facts shows broken
ones no pattern names: a noun phrase with no verb, two clauses glued into one, a phrase cut after
an adjective, a verb that does not agree with its subject, an imperative, "themselves" for one
person. This module is a second, independent figure: each fact is parsed with the project's own
pipeline (`arandu_pipelines.write.parses.load(model_name())`, en_core_web_sm: tagger + parser,
no NER) and a small table of named checks reads the parse. Each check is narrow on purpose (a
tagger error on chat text must not make a clean fact "ill-formed"): the figure is precise
rather than complete, and docs/facts.md gives the precision and a recall estimate read by hand.

A check is a function of one sentence (a spaCy Span); a fact is
ill-formed when any check fires on any of its sentences.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from arandu_pipelines.write.lexicon import IRREGULAR_PAST_EN

FINITE = frozenset({"VBZ", "VBP", "VBD", "MD"})
BE_FORMS = frozenset({"is", "was", "are", "were", "am", "'s", "’s"})
SUBJECTS = frozenset({"nsubj", "nsubjpass", "expl", "csubj", "csubjpass"})
# discourse words that may open a sentence before an imperative verb ("Now tell ...", "So send ...")
OPENERS = frozenset({"now", "so", "ok", "okay", "well", "then", "just", "please", "and", "oh", "hey", "also",
                     "alright", "maybe"})
# English adjectives that stand as a noun after "a" ("a little", "like a pro", "a regular"): an
# article + one of them at the end is whole, an article + any other adjective is cut ("is a retired")
NOMINAL_ADJECTIVES = frozenset({"little", "few", "lot", "bit", "pro", "regular", "local", "native", "single",
                                "classic", "natural", "must", "given", "private", "mobile", "professional"})
# past forms the tagger sometimes calls a plural present ("Anita swam/VBP ..."): no agreement to check
IRREGULAR_PAST = IRREGULAR_PAST_EN - {"were"}
# verbs that tag a quote after a comma ("Ana is tired, Bob says")
REPORTING = frozenset({"says", "said", "thinks", "thought", "believes", "feels", "felt", "knows", "hopes",
                       "guesses", "reckons", "admits", "admitted", "claims", "claimed", "writes", "wrote"})


def _words(sent: Any) -> list[Any]:
    return [t for t in sent if not t.is_punct and not t.is_space]


def _misread_noun(verb: Any) -> bool:
    """A noun compound the tagger read as a clause: "Rosa's chicken tinga recipe/VBP", "Megan's
    first foster fail/VBP": a plural-present "verb" whose subject carries a possessive."""
    return verb.tag_ == "VBP" and any(
        c.dep_ in ("nsubj", "nsubjpass") and c.tag_ in ("NN", "NNP") and any(g.dep_ == "poss" for g in c.children)
        for c in verb.children)


def no_finite_verb(sent: Any) -> bool:
    """No finite verb: a bare noun or prepositional phrase ("Gina's full support", "With a
    nonprofit called ...", "Megan's first foster fail"). A sentence opening with a name not
    followed by "'s" is left alone: there the tagger often calls the verb a noun ("Jamal
    scrambled/JJ eggs", "Olive chirps/NNS at ..."), so a capitalised noun opening without "'s" is
    never flagged (nor "Lobster every night" with it); a base-form root is the imperative check's."""
    words = _words(sent)
    if not words or sent.root.tag_ == "VB":
        return False
    if words[0].tag_ in ("NN", "NNP", "NNPS", "NNS") and words[0].text[:1].isupper() and (
            len(words) < 2 or words[1].tag_ != "POS"):
        return False
    if not any(_finite(t) and not _misread_noun(t) for t in words):
        return True
    # a noun phrase whose only finite verb is in its "which"/"who" clause ("Ana's dog, which she
    # adopted in May"); a clause with no wh-word is left alone: there the parser often makes the
    # main verb a noun ("The figurines Melanie bought remind/NN ...")
    root = sent.root
    if root.pos_ not in ("NOUN", "PROPN") or any(c.dep_ in SUBJECTS for c in root.children):
        return False
    in_relative = {t.i for c in root.children if c.dep_ == "relcl" and c.left_edge.tag_ in ("WDT", "WP", "WP$")
                   for t in c.subtree}
    return bool(in_relative) and not any(_finite(t) and t.i not in in_relative for t in words)


def _finite(t: Any) -> bool:
    """A finite verb; a past participle with a subject of its own and no auxiliary is a simple
    past the tagger mistook ("A buddy of Ana's adopted/VBN in 2022")."""
    return t.tag_ in FINITE or (t.tag_ == "VBN" and any(c.dep_ in ("nsubj", "nsubjpass") for c in t.children)
                                and not any(c.dep_ in ("aux", "auxpass") for c in t.children))


def glued_verbs(sent: Any) -> bool:
    """Two finite verbs glued: an auxiliary "is/was/are" on a finite verb ("Ana is loves
    painting"), a finite verb with a clause of its own parsed as an object ("Ana is fostering
    lets Ana help"), or a name's bare "is" followed by a whole clause with its own subject and no
    complement of its own ("Dale is nothing beats family", "Ana was the trip was fun")."""
    for t in sent:
        if t.dep_ in ("aux", "auxpass") and t.lower_ in BE_FORMS and t.head.tag_ in ("VBZ", "VBP"):
            return True
        # a finite verb the parser had to put in a noun's or an infinitive's slot, with a clause of
        # its own ("Ana is fostering lets/VBZ(dobj) Ana help cats", "... coaching lets/VBZ(xcomp)
        # Ana stay fit"), or a subject carrying "is" ("Ana is walking/nsubj helps Ana relax")
        if t.tag_ in ("VBZ", "VBD") and t.dep_ in ("dobj", "attr", "pobj", "xcomp", "nsubj") and any(
                c.dep_ in ("ccomp", "xcomp", "dobj", "nsubj") for c in t.children):
            return True
        if t.dep_ in ("nsubj", "nsubjpass", "dobj", "pobj") and any(
                c.dep_ in ("aux", "auxpass") and c.lower_ in BE_FORMS for c in t.children):
            return True
    root = sent.root
    if root.lower_ not in BE_FORMS:
        return False
    kids = list(root.children)
    subj = [c for c in kids if c.dep_ == "nsubj"]
    if not subj or subj[0].tag_ not in ("NNP", "NNPS"):
        return False
    if any(c.dep_ in ("attr", "acomp", "oprd", "prep", "advmod", "xcomp", "neg", "npadvmod") for c in kids):
        return False
    return any(c.dep_ == "ccomp" and c.i > root.i and any(g.dep_ in SUBJECTS for g in c.children)
               and not any(g.dep_ == "mark" for g in c.children) for c in kids)


def comma_splice(sent: Any) -> bool:
    """Two statements joined by a bare comma ("Priya loves choral music, her aunt sings in a
    choir", "Jamal hit a three, Jamal is still thinking about it"): a clause with its own subject
    before a comma, another with its own subject after it, and no "and"/"but"/"so" or subordinating
    word between them. The parser hangs the first clause on the second (a fronted ccomp) or the
    second on the first (a conj with no cc). A reporting verb after the comma is a quote's tag, not
    a second statement ("Ana is tired, Bob says"), unless it has a clause of its own."""
    for v in sent:
        head = v.head
        if v.dep_ == "ccomp" and v.i < head.i:
            first, second = v, head
            if head.lower_ in REPORTING and not any(c.dep_ == "ccomp" and c.i > head.i for c in head.children):
                continue
        elif v.dep_ == "conj" and v.i > head.i and head.pos_ in ("VERB", "AUX"):
            first, second = head, v
            if any(c.dep_ == "cc" and first.i < c.i < second.i for c in first.children):
                continue
        else:
            continue
        subj1 = [c for c in first.children if c.dep_ in SUBJECTS]
        subj2 = [c for c in second.children if c.dep_ in SUBJECTS]
        if not subj1 or not subj2 or not _finite_clause(first) or not _finite_clause(second):
            continue
        gap = sent.doc[max(t.i for t in first.subtree if t.i < subj2[0].i) + 1:subj2[0].left_edge.i]
        if [t.text for t in gap] == [","]:
            return True
    return False


def _finite_clause(verb: Any) -> bool:
    return verb.tag_ in FINITE or any(c.dep_ in ("aux", "auxpass") and c.tag_ in FINITE for c in verb.children)


def no_subject(sent: Any) -> bool:
    """A statement with its subject dropped: the sentence opens (after discourse words) with a
    finite verb that has no subject before it ("Is Lena's dad's birthday, so ...", "Makes Ana
    feel at home", "Loves the beach")."""
    words = _words(sent)
    i = 0
    while i < len(words) - 1 and words[i].lower_ in OPENERS:
        i += 1
    first = words[i] if words else None
    if first is None or first.tag_ not in ("VBZ", "VBD", "VBP"):
        return False
    # a subject only after the verb is a question's order, no statement either ("Is Ana's birthday")
    return not any(c.dep_ in SUBJECTS and c.i < first.i for c in first.children)


def elided_verb(sent: Any) -> bool:
    """A bare "do" standing for a verb of the chat's previous turn ("Owen and others did, 31-7
    over Riverside", "Dave did, but ...", "Ana does too"): the fact does not say what was done. A
    "do" with an object or a manner word is a verb of its own ("Ana did it", "Ana did great")."""
    for t in sent:
        if t.lower_ not in ("do", "does", "did") or t.dep_ not in ("ROOT", "conj", "ccomp") or t.tag_ == "VB":
            continue
        if not any(c.dep_ in SUBJECTS for c in t.children):
            continue
        if all(c.dep_ in SUBJECTS | {"punct", "cc", "conj", "npadvmod", "neg"}
               or (c.dep_ == "advmod" and c.lower_ in ("too", "also", "either", "again", "already", "not"))
               for c in t.children):
            return True
    return False


def dangling_end(sent: Any) -> bool:
    """The sentence ends where a noun is needed: on a determiner or possessive ("... bought
    the", "... with their"), a conjunction ("... Rome and"), or an adjective right after "a"/"an"
    ("Ray is a retired", "to provide a safe")."""
    words = _words(sent)
    if len(words) < 2:
        return False
    last = words[-1]
    if last.tag_ in ("DT", "PRP$", "CC") and last.lower_ in ("a", "an", "the", "their", "his", "her", "its", "our",
                                                             "and", "or", "but", "nor", "every", "some", "no"):
        return True
    return (last.tag_ in ("JJ", "JJR", "VBN") and words[-2].lower_ in ("a", "an")
            and last.lower_ not in NOMINAL_ADJECTIVES)


def imperative(sent: Any) -> bool:
    """An order to the listener, not a statement: the sentence opens (after discourse words) with
    a subjectless verb that takes an object or a name ("Write Tyler a line", "Send Ana the photos",
    "Now tell Bob about Rome"), or a subjectless "don't <verb>" ("..., don't worry")."""
    if any(_negative_order(t) for t in sent):
        return True
    words = _words(sent)
    i = 0
    while i < len(words) - 1 and words[i].lower_ in OPENERS:
        i += 1
    first = words[i] if words else None
    if first is None or first.i != sent.root.i:
        return False
    kids = list(first.children)
    if any(c.dep_ in SUBJECTS for c in kids):
        return False
    if first.tag_ == "VB":
        return True
    # the tagger calls a capitalised opening verb a proper noun ("Write/NNP Tyler a line")
    return first.tag_ == "NNP" and any(c.dep_ == "dative" for c in kids) and any(c.dep_ == "dobj" for c in kids)


def _negative_order(verb: Any) -> bool:
    """ "don't <verb>" with no subject of its own, as the main clause ("Dale is fine to drive,
    don't worry") or joined to a singular subject's clause ("Joel will email it but don't read
    it"); after a plural subject it is the same subject's verb ("Ana and Bob eat fish but don't
    eat meat")."""
    if verb.tag_ != "VB" or any(c.dep_ in SUBJECTS for c in verb.children):
        return False
    kids = list(verb.children)
    if not (any(c.dep_ == "aux" and c.lower_ == "do" for c in kids) and any(c.dep_ == "neg" for c in kids)):
        return False
    if verb.dep_ == "ROOT":
        return True
    head_subj = [c for c in verb.head.children if c.dep_ in ("nsubj", "nsubjpass")]
    return verb.dep_ == "conj" and bool(head_subj) and _singular(head_subj[0])


def _compound(subj: Any) -> bool:
    """Two or more joined subjects ("Ana and Bob", "Juno's owner Marco and Nadia")."""
    return any(c.dep_ == "conj" or (c.dep_ == "appos" and _compound(c)) for c in subj.children)


def _singular(subj: Any) -> bool:
    """A singular noun or name with no "and" anywhere in it (the parser may hang the second of
    two joined nouns lower: "passion for the project and belief ... are") and no plural "of"
    noun ("a couple of scouts have", "a group of friends were")."""
    if subj.tag_ not in ("NN", "NNP") or any(t.dep_ == "conj" for t in subj.subtree):
        return False
    return not any(c.dep_ == "prep" and c.lower_ == "of" and any(g.tag_ == "NNS" for g in c.children)
                   for c in subj.children)


def _plural(subj: Any) -> bool:
    """A plural subject: a lower-case plural noun ("the kids"; a capitalised one is often a pet's
    or a band's name, "Pickles has ...") or names joined by "and" ("Ana and Bob")."""
    if subj.tag_ == "NNS":
        return subj.text.islower() and not any(c.dep_ == "compound" for c in subj.children)
    return subj.tag_ == "NNP" and _compound(subj) and all(
        c.tag_ == "NNP" for c in subj.children if c.dep_ == "conj")


def _quoted(doc: Any) -> set[int]:
    """Indices of the tokens between a pair of double quotes."""
    inside, out = False, set()
    for t in doc:
        if t.text in ('"', "“", "”", "``", "''"):
            inside = not inside
        elif inside:
            out.add(t.i)
    return out


def agreement(sent: Any) -> bool:
    """A verb that does not agree with its subject: a singular noun or name with a plural present
    or "were" ("Ana love painting", "Ana were scared"), a plural noun or two joined names with a
    third-singular verb ("The kids loves", "Ana and Bob has a dog"), or a verb joined by "and" to
    a third-singular one in its base form ("Priya just sits there and stare")."""
    quoted = _quoted(sent.doc)
    for t in sent:
        subj = [c for c in t.children if c.dep_ in ("nsubj", "nsubjpass")]
        if t.i in quoted:  # a quoted title has its own grammar ("Pip and the Night Forest")
            continue
        # the finite word is the first auxiliary ("The kids is going") or the verb itself
        finite = next((a for a in t.children if a.dep_ in ("aux", "auxpass") and a.tag_ in FINITE and a.i < t.i),
                      t if t.tag_ in FINITE else None)
        if subj and finite is not None:
            s, word = subj[0], finite.lower_
            if _singular(s) and (word in ("were", "weren't", "weren’t") or (
                    finite.tag_ == "VBP" and not _misread_noun(finite) and word not in IRREGULAR_PAST
                    and not word.endswith("ed"))):
                return True
            if _plural(s) and finite.tag_ == "VBZ":
                return True
        if _base_after_third_singular(sent, t):
            return True
    return False


def _base_after_third_singular(sent: Any, t: Any) -> bool:
    """ "sits there and stare": a base-form verb joined to a third-singular one, with no subject,
    auxiliary or "to" of its own and no "to" between them (in "uses it to stay on track, visualize
    goals ..." the base form continues the infinitive); when the first verb has an object, the
    base form must have one too ("reads books and write poems"), else it is a noun of a list
    ("has the skills, passion, and drive/VB")."""
    head = t.head
    if t.dep_ != "conj" or t.tag_ != "VB" or head.tag_ != "VBZ" or head.i > t.i:
        return False
    if any(c.dep_ in SUBJECTS | {"aux", "auxpass"} for c in t.children):
        return False
    if any(w.tag_ == "TO" for w in sent.doc[head.i + 1:t.i]):
        return False
    head_object = any(c.dep_ in ("dobj", "attr", "acomp", "dative") for c in head.children)
    return not head_object or any(c.dep_ in ("dobj", "prep", "dative") for c in t.children)


def reflexive_mismatch(sent: Any) -> bool:
    """A reflexive that does not fit its clause's subject: "themselves" for one named person
    ("Howard is restoring it themselves"), "himself"/"herself" for two joined people."""
    for t in sent:
        if t.lower_ not in ("themselves", "himself", "herself"):
            continue
        verb = t.head
        while verb.dep_ in ("xcomp", "conj", "prep", "pobj") and not any(c.dep_ in SUBJECTS for c in verb.children):
            if verb.head.i == verb.i:
                break
            verb = verb.head
        subj = [c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")]
        if not subj:
            continue
        s = subj[0]
        if t.lower_ == "themselves" and s.tag_ == "NNP" and not _compound(s):
            return True
        if t.lower_ != "themselves" and (s.tag_ in ("NNS", "NNPS") or _compound(s)):
            return True
    return False


CHECKS: dict[str, Callable[[Any], bool]] = {
    "no_finite_verb": no_finite_verb,
    "glued_verbs": glued_verbs,
    "comma_splice": comma_splice,
    "no_subject": no_subject,
    "elided_verb": elided_verb,
    "dangling_end": dangling_end,
    "imperative": imperative,
    "agreement": agreement,
    "reflexive_mismatch": reflexive_mismatch,
}


def checks_of_doc(doc: Any) -> list[str]:
    """The names of the checks that fire on any sentence of a parsed fact."""
    return [name for name, check in CHECKS.items() if any(check(s) for s in doc.sents)]


def pipeline() -> Any:
    """The project's spaCy pipeline (None when it is not installed or is turned off)."""
    from arandu_pipelines.write.parses import load, model_name

    return load(model_name())


def ill_formed(texts: Iterable[str], nlp: Any = None) -> list[list[str]]:
    """Per text, the names of the checks that fire (one tagger + parser pass over all texts)."""
    texts = list(texts)
    nlp = nlp if nlp is not None else pipeline()
    if nlp is None or not texts:
        return [[] for _ in texts]
    off = [p for p in nlp.pipe_names if p not in ("tok2vec", "tagger", "parser", "attribute_ruler")]
    return [checks_of_doc(d) for d in nlp.pipe(texts, batch_size=64, disable=off)]

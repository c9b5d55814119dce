"""Two statements joined by a bare comma are two facts (session 17, wellformed17b).

A chat sentence often runs two clauses together with a comma: "I'd better go help Patty pack,
she's labeling everything in sight", "He's recovering well, he's way tougher than me", "I got in
through a charity spot, I'm raising money for the shelter". The extractor restates the sentence
whole and names the speaker, so the fact reads "Dale had better go help Patty pack, she's
labeling everything in sight": a comma splice whose second half has a pronoun nobody resolved,
and two statements (often about two people) in one fact.

`split` finds the first ", <subject> <finite verb>" after a head clause of at least three words
and returns the head and what becomes of the tail:

| tail opens with            | becomes                                                            |
|----------------------------|--------------------------------------------------------------------|
| the fact's subject / a name| a fact of its own about that name ("Nadia is raising money ...")    |
| he / she                   | the one name of the head the pronoun's gender fits ("Patty is       |
|                            | labeling ..."); none or two fit: the tail is cut                     |
| his / her + a person noun  | a fact about that person of the name "he"/"she" would be ("Priya's  |
| (session 18)               | aunt sings in a choir"); no name fits: the fact stays whole          |
| it + an evaluation         | cut: the speaker's comment on the head ("it was fun and therapeutic")|
| it + another verb          | "it" named from the head when its form says what "it" is: a copula  |
|                            | head's subject ("Blue is S's favorite, it makes ..." -> "Blue makes |
|                            | ..."), a progressive head's activity ("S has been practicing X, it   |
|                            | keeps ..." -> "Practicing X keeps ..."), a got/bought thing ("S got |
|                            | the tattoo ..., it stands for ..." -> "S's tattoo stands for ...");  |
|                            | otherwise the fact stays whole ("Ana had a baby, it's a girl")       |

Left whole: a head whose last clause opens with a subordinator ("when S does, S is sure ..."), a
reporting tag (", Bob says"), a tail of fewer than two words after its subject, "they"/"we"
tails (a group the head may not name). Regular expressions only; no parse.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from arandu_pipelines.write import name_gender
from arandu_pipelines.write.person_antecedents import PERSON_NOUNS

# ", <subject> <finite verb>": a pronoun with its contraction or verb, or a name with a plain verb
# ("Dale's dad" is a possessive, so a name takes no "'s")
_VERBS = (r"is|was|has|had|will|would|can|could|does|did|doesn['’]t|didn['’]t|isn['’]t|wasn['’]t|won['’]t|"
          r"can['’]t|might|must|should|keeps|loves|likes|wants|needs|makes|gets|goes|feels|looks|seems|"
          r"stands|cost|costs|[a-z]{2,}ed")
_SPLICE_RE = re.compile(
    r",\s+(?P<subj>(?:he|she|it)(?=['’]s\b|\s)|[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?(?=\s))"
    r"(?P<verb>['’]s\b|\s+(?:" + _VERBS + r")\b)")
# a head whose last clause is subordinate: the comma closes that clause, no splice
# ("after/before/since ..." with a person: a clause; "before 8 February 2023": a rendered date)
_SUBORDINATE_RE = re.compile(
    r"\b(?:(?i:when|whenever|if|because|although|though|while|unless|whether)|"
    r"(?i:after|before|since|until|once|as)\s+(?:[A-Z][a-z]+|he|she|they|we|it)\s)[^,;:–—]*$")
# a head opening with a preposition, subordinator or participle is a fronted adjunct, no clause:
# "After losing Gina's job, Gina wanted ..."
_ADJUNCT_HEAD_RE = re.compile(
    r"(?i)^(?:after|before|since|when|whenever|while|if|because|although|though|as|once|until|unless|with|"
    r"without|during|for|in|on|at|by|from|to|like|despite|instead|sometimes|[a-z]+ing)\b")


def _last_clause_adjunct(head: str) -> bool:
    """Whether the head's last comma-part is a fronted adjunct, not a clause ("On 24 April 2023,
    Jon went ..." is a clause: its last part opens with Jon)."""
    return bool(_ADJUNCT_HEAD_RE.match(re.split(r"[,;:–—]\s*", head)[-1].strip()))


_REPORTING_RE = re.compile(r"(?i)^\s*(?:says|said|thinks|thought|explains|explained|adds|added|admits|admitted)\b")
# "it's inspiring", "it was both stressful and great": an evaluation with no noun, no preposition
_EVALUATION_RE = re.compile(
    r"(?i)^it(?:['’]s|\s+is|\s+was)\s+(?!(?:a|an|the|my|his|her|their|our|its|this|that|to|for|in|on|at|"
    r"of|with|like|about|not|because)\b)(?:[a-z-]+\s+){0,3}[a-z-]+[.!]*$")
_DETERMINER_WORDS = frozenset(["a", "an", "the", "my", "his", "her", "their", "our", "its", "this", "that", "to",
                               "for", "in", "on", "at", "of", "with", "like", "about", "not", "because"])
# the head's own form, for naming "it"
_COPULA_HEAD_RE = re.compile(r"^(?P<x>[A-Z][\w-]*)(?:\s+is|\s+was|['’]s)\s")
_PROGRESSIVE_HEAD_RE = re.compile(
    r"\s(?:has\s+been|had\s+been|is|was)\s+(?P<act>[a-z]+ing\b.*?)"
    r"(?:\s+(?:lately|recently|now|these\s+days|every\s+day|a\s+lot))?$")
_GOT_HEAD_RE = re.compile(
    r"\s(?:got|bought|ordered|made|built|found|adopted|planted|painted|wrote|received)\s+(?:the|a|an)\s+"
    r"(?P<np>(?:[a-z-]+\s+){0,2}?[a-z-]*[a-rt-z])(?=$|\s+(?:a|the|last|yesterday|today|on|in|at|for|to|with|"
    r"before|after|ago|this|from)\b)")
_IT_VERB_RE = re.compile(r"^it\s+(?P<rest>(?:" + _VERBS + r")\b.*)$")
# ", her aunt sings in a choir": a person noun of "his"/"her" with a finite verb (any "-s" verb after
# such a noun is one: "her aunt sings", "his brother works"; "her uncle's band" is an owner's noun)
_POSS_SPLICE_RE = re.compile(
    r",\s+(?P<poss>his|her)\s+(?P<noun>[a-z-]+)(?P<verb>\s+(?:" + _VERBS + r"|[a-z]{2,}s)\b)(?!['’])")


@dataclass(frozen=True)
class Splice:
    """A fact cut at its comma splice: `head` (the fact up to the comma) and, when the tail could
    be made a statement of its own, `tail` with its `subject`."""

    head: str
    tail: str | None = None
    subject: str | None = None


def _names(head: str) -> list[str]:
    """The capitalised names of the head (not its first word when it opens a clause with "The")."""
    found = re.findall(r"\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)\b", head)
    return [n for n in dict.fromkeys(found) if n.lower() not in ("the", "a", "an", "i")]


def _pronoun_name(pronoun: str, head: str) -> str | None:
    """The one name of the head that "he"/"she" can be: gender fits (or is unknown) and a
    person's first name (the lists know it) or the head's first word."""
    gender = name_gender.pronoun_gender(pronoun)
    first = head.split(" ", 1)[0]
    cands = [n for n in _names(head) if (name_gender.listed(n.split()[0].lower()) or n == first)
             and not name_gender.conflicts(n, gender)]
    if len(cands) == 2 and gender is not None:  # a known fit beats an unknown one
        known = [n for n in cands if name_gender.gender_of(n) == gender]
        cands = known if len(known) == 1 else cands
    return cands[0] if len(cands) == 1 else None


def _verb_after(verb: str, rest: str) -> str:
    """A name's verb for a pronoun's contraction: "'s been" -> "has been", "'s" -> "is"."""
    if verb.strip() in ("'s", "’s"):
        return "has" if re.match(r"(?:been|got|gotten)\b", rest) else "is"
    return verb.strip()


def _it_named(head: str, subject: str) -> str | None:
    """What "it" of the tail is by the head's form, or None."""
    m = _COPULA_HEAD_RE.match(head)
    if m and m.group("x") != subject and not head.startswith(subject):
        return m.group("x")
    m = _PROGRESSIVE_HEAD_RE.search(head)
    if m and head.startswith(subject):
        act = m.group("act")
        return act[:1].upper() + act[1:]
    m = _GOT_HEAD_RE.search(head)
    if m and head.startswith(subject + " "):
        return f"{subject}'s {m.group('np')}"
    return None


def _it_tail(head: str, tail: str, subject: str) -> Splice | None:
    """An "it" tail: cut when it only evaluates, named from the head when its form allows, else
    None (the fact stays whole: "Ana had a baby, it's a girl" would lose the girl)."""
    if _EVALUATION_RE.match(tail) and not _DETERMINER_WORDS & set(tail.lower().split()[2:]):
        return Splice(head)
    m = _IT_VERB_RE.match(tail)
    named = _it_named(head, subject) if m else None
    if m is None or named is None:
        return None
    text = f"{named} {m.group('rest')}"
    return Splice(head, text, subject) if subject in text else None


def _possessive_tail(m: re.Match[str], head: str, rest: str) -> Splice | None:
    """", her aunt sings in a choir": the owner named as "he"/"she" would be ("Priya's aunt sings
    in a choir"); None when the noun is no person or nobody of the head fits (left whole)."""
    noun = m.group("noun")
    if noun not in PERSON_NOUNS or len(rest.split()) < 2:
        return None
    name = _pronoun_name("he" if m.group("poss") == "his" else "she", head)
    if name is None:
        return None
    verb = _verb_after(m.group("verb"), rest)
    return Splice(head, f"{name}'s {noun} {verb} {rest}", name)


def split(text: str, subject: str) -> Splice | None:
    """The fact `text` (about `subject`) cut at its first comma splice, or None when it has none."""
    found = sorted([*_SPLICE_RE.finditer(text), *_POSS_SPLICE_RE.finditer(text)], key=lambda x: x.start())
    for m in found:
        head, rest = text[:m.start()], text[m.end():].strip()
        if len(head.split()) < 3 or _SUBORDINATE_RE.search(head) or _last_clause_adjunct(head) or not rest:
            continue
        if m.re is _POSS_SPLICE_RE:
            if head.count('"') % 2 == 0 and (cut := _possessive_tail(m, head, rest)) is not None:
                return cut
            continue
        if _REPORTING_RE.match(text[m.end("subj"):]) or head.count('"') % 2:
            continue
        subj = m.group("subj")
        if subj == "it":
            return _it_tail(head, text[m.start("subj"):].strip(), subject)
        if len(rest.split()) < 2 and subj in ("he", "she"):
            return Splice(head)
        name = _pronoun_name(subj, head) if subj in ("he", "she") else subj
        if name is None:
            return Splice(head)
        verb = _verb_after(m.group("verb"), rest) if subj in ("he", "she") else m.group("verb").strip()
        return Splice(head, f"{name} {verb} {rest}".strip(), name)
    return None


__all__ = ["Splice", "split"]

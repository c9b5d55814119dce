"""A third person's reported promise or advice: "My boss said she'd give me a raise" (session 16, branch said16).

Chat tells what someone offered the speaker as reported speech: "My boss said she'd give me a
raise in June", "Priscilla said she would write me a recommendation", "Dana told me she'll drive
us to the airport". The rules read it as "X said X would give S a raise" (the pronoun resolved to
the reporter, the reporter written twice), and `fact_quality`'s `unanchored` check dropped the
whole fact for its modal ("would", "'ll"), so the news was lost. Annotators write what happened:
"S's boss offered to give S a raise in June".

`rewrite_sentence` puts such a sentence in that form before the rules run: "<reporter> said
(that) <she|he> would / 'd / will / 'll / is going to <verb> ..." -> "<reporter> offered to <verb>
...", so the reporter is written once and no modal is left. Only when:
- the reporter opens the sentence (after an optional discourse opener): a name, "my/our + up to
  two words", "the + role noun" (write/role_subjects.py), or a bare kin word ("Mom"); "told me /
  us" may follow the verb ("told Ann she would" has a second person the pronoun may stand for:
  left alone);
- the pronoun is "she" or "he" and fits the reporter: a name whose known gender is the other one
  (write/name_gender.py) or a kin noun of the other gender ("my dad said she'd") is left alone;
- the verb after the modal is a base-form verb by the parse (tag VB: "she'd already left" is "she
  had") and no state or attitude ("be", "have", "like", "think", "need": "Dana said she would be
  late" is no offer), nor a threat or change done to the speaker ("he'd fire me", "she'll raise the
  rent") - `_NOT_OFFERS`;
- the sentence is a statement (no "?") and the modal is not negated ("she wouldn't", "he'd never").
Advice to the speaker in the same form, "<reporter> said / told me (that) I should / need to / had
to / must <verb> ...", was dropped the same way ("Priya said Ann should apply ..."); it is read as
"<reporter> advised me to <verb> ..." (the form "My boss told me to ..." already kept), under the same
reporter, parse and statement conditions, with no state verb ("said I should be proud") - `_NOT_ADVICE`.
Reports with nothing to offer ("She said hi", "He said it was fine", "Mom says hello") do not
match the form and stay as the other checks leave them (dropped). English only.
"""

from __future__ import annotations

import re
from typing import Any

STAGE = "said_promises"

# verbs after "would" that state no offer: being, having, attitudes, perception, and aspect verbs
_NOT_OFFERS = frozenset({
    "be", "have", "feel", "think", "know", "need", "like", "love", "hate", "want", "wish", "hope", "miss",
    "see", "seem", "look", "sound", "mind", "prefer", "rather", "try", "probably", "maybe", "never", "not",
    "always", "still", "just", "also", "really", "definitely", "stop", "quit", "die", "lose", "fail", "forget",
    "regret", "keep", "start", "end", "stay", "leave", "win", "pass", "understand", "say", "tell", "let",
    # a threat or a change done to the speaker is no offer ("my landlord said he'd raise the rent")
    "fire", "evict", "sue", "report", "ban", "kick", "punish", "ground", "cancel", "dump", "divorce", "charge",
    "fine", "hurt", "hit", "raise", "increase", "cut", "move", "sell", "close", "retire", "kill",
})
# verbs after "I should" that give no advice with content: a state or a feeling ("said I should be proud")
_NOT_ADVICE = frozenset({"be", "have", "feel", "know", "think", "see", "say", "tell", "let", "probably", "maybe",
                         "really", "just", "also", "definitely", "still", "always"})
_OPENERS = r"(?:(?:So|Well|And|But|Anyway|Honestly|Also|Plus|Oh|Today|Yesterday|Luckily|Thankfully)\b,?\s+)?"
_KIN = r"(?:Mom|Mum|Dad|Grandma|Grandpa|Nana|Papa|Granny)"
# the reporter: a name (one or two capitalised words), "my/our/the + up to three words", a kin word
_REPORTER = (r"(?P<rep>(?:[Mm]y|[Oo]ur|[Tt]he)\s+[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2}?|" + _KIN + r"|"
             r"(?!(?:I|It|This|That|He|She|They|We|You|There|Someone|Everyone|Nobody)\b)[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)")
_SAID_RE = re.compile(
    r"^(?P<lead>\s*" + _OPENERS + r")" + _REPORTER
    + r"\s+(?:said|says|told\s+(?:me|us))\s+(?:that\s+)?(?P<pro>she|he)(?:\s+(?:would|will|is\s+going\s+to|was\s+going\s+to)"
    r"|['’](?:d|ll))\s+(?P<verb>[a-z]+)\b(?P<rest>.*)$", re.DOTALL)
# "<reporter> said I should <verb> ...": advice to the speaker, read as "<reporter> advised me to <verb>"
_ADVICE_RE = re.compile(
    r"^(?P<lead>\s*" + _OPENERS + r")" + _REPORTER
    + r"\s+(?:said|says|told\s+me)\s+(?:that\s+)?I\s+(?:should|ought\s+to|need\s+to|needed\s+to|had\s+to|must)"
    r"\s+(?P<verb>[a-z]+)\b(?P<rest>.*)$", re.DOTALL)
_MALE_KIN = frozenset({"dad", "father", "brother", "son", "uncle", "grandpa", "grandfather", "husband", "boyfriend",
                       "papa", "nephew", "stepdad", "stepfather", "fiance", "fiancé"})
_FEMALE_KIN = frozenset({"mom", "mum", "mother", "sister", "daughter", "aunt", "grandma", "grandmother", "wife",
                         "girlfriend", "nana", "granny", "niece", "stepmom", "stepmother", "fiancee", "fiancée"})


def gate(text: str) -> bool:
    """Cheap test whether `text` may hold "said/told me (that) she/he would|'d|will|'ll"."""
    return re.search(r"\b(?:said|says|told\s+(?:me|us))\s+(?:that\s+)?(?:(?:she|he)(?:\s+(?:would|will|is|was)\b|['’](?:d|ll)\b)"
                     r"|I\s+(?:should|ought|need|needed|had|must)\b)", text) is not None


def _fits(reporter: str, pronoun: str) -> bool:
    """The pronoun may stand for the reporter: no known gender of the other kind."""
    from arandu_pipelines.write.name_gender import conflicts

    want = "f" if pronoun == "she" else "m"
    words = reporter.lower().split()
    head = words[-1]
    if head in _MALE_KIN or head in _FEMALE_KIN:
        return (head in _FEMALE_KIN) == (want == "f")
    if words[0] in ("my", "our", "the"):
        return True
    return not conflicts(reporter, want)


def _base_verb(body: str, at: int, parses: Any) -> bool:
    """The word at character `at` of `body` is a base-form verb by the chunk's parse."""
    doc = parses.doc(body, "parse", STAGE) if parses is not None else None
    if doc is None:
        return False
    tok = next((t for t in doc if t.idx == at), None)
    return tok is not None and tok.tag_ == "VB"


def rewrite_sentence(s: str, parses: Any) -> str:
    """Sentence `s` with "<reporter> said she'd <verb> ..." read as "<reporter> offered to <verb>
    ..." (module docstring); else `s` itself."""
    if "?" in s:
        return s
    if (a := _ADVICE_RE.match(s)) is not None:
        lead = len(s) - len(s.lstrip())
        if a.group("verb") in _NOT_ADVICE or not _base_verb(s.strip(), a.start("verb") - lead, parses):
            return s
        return f"{a.group('lead')}{a.group('rep')} advised me to {a.group('verb')}{a.group('rest')}"
    m = _SAID_RE.match(s)
    if m is None or m.group("verb") in _NOT_OFFERS or not _fits(m.group("rep"), m.group("pro")):
        return s
    lead = len(s) - len(s.lstrip())
    if not _base_verb(s.strip(), m.start("verb") - lead, parses):
        return s
    return f"{m.group('lead')}{m.group('rep')} offered to {m.group('verb')}{m.group('rest')}"


__all__ = ["STAGE", "gate", "rewrite_sentence"]

"""Concrete plans kept despite `unanchored`: "S will / is going to / has to VERB <something named>".

`fact_quality`'s `unanchored` check drops a free-text fact with a modal ("will", "'ll", "gonna",
"has to") and no date or named entity, because most such facts are resolve or chat ("Jon will
keep going", "Caroline will keep ya posted", "Ben will try", "We'll see"). It also dropped the
plans annotators write down: "Lena will put together a group of eight singers", "Hannah will be
supervising six other providers", "Howard still has to do the body work and paint, but the hard
part's done". What separates them is the object: a plan names what will be done (two content
words after the verb, besides pronouns, quantifiers and the subject's own name), and its verb is
an action, not one of resolve or talk (`_EMPTY_VERBS`: keep, make, stay, try, let, see, tell, ...).

| part          | rule                                                                           |
|---------------|--------------------------------------------------------------------------------|
| subject       | the fact opens with its subject ("Ben ...", "Ben and others ...")             |
| modal         | will / 'll / is going to / is gonna / has to / needs to / will have to, with   |
|               | adverbs between ("still", "probably", "definitely", "also", ...)               |
| verb          | not in `_EMPTY_VERBS`; "be" only before an -ing verb ("will be coaching");    |
|               | "go" only before with/to/for/on ("go with the Thai caterer", not "go do")     |
| object        | >= 2 content words before any subordinate clause (so/because/if/when/that...); |
|               | not an unresolved pronoun ("will save it as a reward", "will put them up")     |
| chat promise  | an object ending in "later" ("will send the slides to Ana later") is dropped  |
| tail          | a ", but ..." clause after the plan is cut ("..., but the hard part's done")  |

Modals of ability or wish ("can", "could", "would", "should") stay dropped: they are not plans.
English only; Portuguese facts are not affected.
"""

from __future__ import annotations

import re

from arandu_pipelines.write.types import ExtractedFact

_ADVERBS = r"(?:(?:still|probably|definitely|also|just|finally|actually|soon|then|really|now|first)\s+)*"
# the modal after the subject; "will be VERB-ing" takes the -ing verb as the plan's verb
_PLAN_RE = re.compile(
    r"(?i)^\s+(?:and\s+(?:others|[A-Z][\w'’]+)\s+)?" + _ADVERBS
    + r"(?:will|['’]ll|is\s+going\s+to|are\s+going\s+to|is\s+gonna|are\s+gonna|has\s+to|have\s+to|needs?\s+to"
    r"|will\s+have\s+to)\s+" + _ADVERBS
    + r"(?:(?P<be>be)\s+)?(?P<verb>[a-z]+)\b(?P<obj>[^.!?;:]*)$")
# verbs of resolve, coping, talk or feeling: "will keep going", "will make it work", "will let Ana
# know", "will see", "will try", "will tell him", "will miss having ...", "will do S's best"
_EMPTY_VERBS = frozenset(
    ["keep", "make", "stay", "try", "let", "see", "tell", "know", "miss", "love", "like", "give", "hang", "stick",
     "rock", "figure", "focus", "think", "believe", "find", "get", "come", "be", "have", "need", "wait", "hear",
     "show", "say", "ask", "check", "handle", "manage", "push", "chase", "reach", "enjoy", "feel", "remember",
     "forget", "continue", "start", "put", "do", "let's", "go"])
# verbs of the list kept with a content object: "put together a group of eight singers", "do the
# body work", "go with the Thai caterer", "start a pottery class"
_OBJECT_VERBS = {"put": re.compile(r"(?i)^\s+(?:together|up|in|on)\b"),
                 "do": re.compile(r"(?i)^\s+(?!(?:my|his|her|their|our|[\w’']+['’]s)\s+best\b)(?:the|a|an|some)\s"),
                 "go": re.compile(r"(?i)^\s+(?:with|to|for|on)\s"),
                 "start": re.compile(r"(?i)^\s+(?:a|an|the)\s"),
                 "get": re.compile(r"(?i)^\s+(?:a|an)\s")}
# a subordinate clause does not name what is planned ("... so Gina can reach more people")
_SUBCLAUSE_RE = re.compile(r"(?i)\s+(?:so|because|since|if|when|'cause|cause|how|what|why|where|who|which|that|before"
                           r"|after|until|no\s+matter)\s+.*$")
_PRONOUN_OBJECT_RE = re.compile(r"(?i)^\s+(?:\w+\s+)?(?:it|them|this|that|these|those|one)\b(?!\s+of\b)")
_LATER_RE = re.compile(r"(?i)\b(?:later|sometime)\s*$")
_BUT_TAIL_RE = re.compile(r"(?i),\s+(?:but|though|although)\s+.*$")
_STOP = frozenset(
    ["a", "an", "the", "and", "or", "of", "to", "in", "on", "at", "by", "for", "with", "from", "as", "into", "about",
     "it", "this", "that", "these", "those", "them", "him", "her", "his", "their", "its", "my", "our", "me", "us",
     "others", "other", "there", "here", "too", "also", "again", "some", "more", "most", "lot", "lots", "much",
     "many", "one", "all", "any", "just", "really", "so", "very", "well", "up", "out", "back", "off", "away",
     "together", "way", "things", "thing", "stuff", "best", "dream", "dreams", "happen", "work", "each", "sure",
     "better", "good", "great", "everything", "something", "anything", "nothing", "night", "day", "now", "later", "soon"])


def _content(text: str, subject: str, addressee: str | None) -> list[str]:
    names = {w.casefold() for w in f"{subject} {addressee or ''}".split()}
    return [w for w in re.findall(r"[\w'’-]+", text.casefold())
            if w not in _STOP and w.removesuffix("'s").removesuffix("’s") not in names]


def keep(f: ExtractedFact, addressee: str | None = None) -> ExtractedFact | None:
    """`f` (cut before a ", but ..." tail) when it states a concrete plan of its subject, else
    None (see the module's table). The listener's name is not content: "S will send the
    presentation to <listener> later" is a promise of the chat."""
    if not f.subject or not f.fact_text.startswith(f.subject):
        return None
    head = _BUT_TAIL_RE.sub("", f.fact_text)
    m = _PLAN_RE.match(head[len(f.subject):])
    if m is None:
        return None
    verb = m.group("verb").casefold()
    if m.group("be") and not verb.endswith("ing"):
        return None  # "will be there", "will be so jealous": no action
    obj = m.group("obj")
    if verb in _EMPTY_VERBS and not ((rule := _OBJECT_VERBS.get(verb)) is not None and rule.match(obj)):
        return None
    if _LATER_RE.search(obj):
        return None  # "will send the slides to Ana later", "will call later": a promise of the chat
    if _PRONOUN_OBJECT_RE.match(obj):
        return None  # "will save it as a reward": what is planned is not named (no antecedent found)
    if len(_content(_SUBCLAUSE_RE.sub("", obj), f.subject, addressee)) < 2:
        return None
    f.fact_text = head.rstrip(" ,")
    return f

"""Facts that are not sentences (session 17, wellformed17): where each form comes from, repaired
at its source or, when nothing can be repaired, dropped (the message stays searchable).

A careful person writes a fact as a statement; about one kept fact in twelve of two held-out
sets was not one. The forms, and what this module gives for each:

Source repairs, asked by the rule extractor (`extract_rules`: `_generic_subject` before it reads a
sentence as the speaker's with its "I'm" / "I" dropped, `_gate_status` before the status rule):
- `gerund_is_subject`: an "-ing" word that is the subject of its own verb is no dropped "I'm":
  "Nothing beats family" ("nothing" is a pronoun, never a gerund: the copula insertion gave
  "Dale is nothing beats family ..."), "Fostering lets me help cats" (a present verb in "-s"
  with an object pronoun after it is a verb, never a plural noun: "Megan is fostering lets
  Megan help cats ..." -> "Fostering lets Megan help cats ...");
- `attributive`: a status word after "a/an" with a noun after it describes that noun: "Ray is a
  retired Coast Guard officer" gave the status fact "Ray is a retired" (the rule's `status`);
- `simile`: a message-opening "like a/an ..." ("Honestly, like a dream, even with ...") is a
  comparison answering "how is it?", no dropped "I like" ("Priya likes a dream" -> no fact).

- `shown_sender` (asked by `people_forms.rewrite` for every sentence `shown_gate` passes): "Here's
  a picture my cousin sent me of the church" -> "My cousin sent me a picture of the church" (the
  rules cut "Here's a picture" as a pointer and wrote "Walter's cousin sent Walter of the church");
- `other_subject` (asked by `fact_quality._split_actions`): "We drove him to the office, and he
  just waved and walked in" is not split at "and walked" ("Dale walked in ...").

Source repairs elsewhere, each marked "session 17" where it is: news_frames' `own_news` frame
("Now, my news: I got the part!" -> "I got the part!"; "I've got big news too: Tyler graduates
..." -> "Tyler graduates ..."), reply_forms' passing-on imperatives ("And write Tyler a line from
me too", "Send it to me!"), extract_rules' "'d better" as "had better" (not "S would better go")
and "he's/she's" + an irregular participle with an object as "has" ("Earl has already taken Dale
under his wing"), temporal's relative date after a possessive ("Kayla's last year at home" is no
date: its removal left "miss Kayla's at home"), lexicon's lead vocative "bro".

Fact repairs and drops, the `fact_quality` checks named as the rows of `ROWS` (each a regex over
the free-text fact, no parse), run after `opener` and before `long`:
- `news_lead`: the news announced before a colon is cut, the news itself kept: "Megan's news:
  Megan got the part" -> "Megan got the part", "Dale has got big news too: Tyler graduates ..."
  -> "Tyler graduates ...", only when what follows the colon opens with a capitalised word
  (a name or "The ...") and has a verb of its own;
- `aside`: a trailing aside to the listener is cut: "Dale is fine to drive, don't worry",
  "Ellen has her gelato mission, of course", a trailing term of address ("Jamal is ready, chef"),
  "Walter got emotional when she said it, honestly";
- `imperative_tail`: an imperative to the listener coordinated after the fact is cut: "Priya's
  arms still ache, but just look how it turned out" -> "Priya's arms still ache";
- `news_teaser`: a teaser whose news is the next sentence is dropped: "Walter has news of their
  own" (from "Now, I have news of my own.");
- `exclamation_np`: an exclaimed superlative with no verb of its own ("The longest I've ever
  been away from the ovens!" -> "The longest Walter has ever been away from the ovens") is
  dropped: it says how something was, of a noun phrase the sentence never names;
- `ordinal_np`: an exclaimed "first/last X" with no verb ("My first foster fail!" -> "Megan's first
  foster fail") is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from arandu_pipelines.write import lexicon as L

# ---- source repairs (read by extract_rules) ------------------------------------------------------

# pronouns spelled with "-ing": never a gerund of a dropped "I'm" ("Nothing beats ...")
_ING_PRONOUNS = frozenset(["nothing", "something", "anything", "everything"])
# "<-ing word> <verb>s <object pronoun>": a plural noun is never followed by an object pronoun
# ("Fostering lets me", "Running helps us"), so the "-s" word is the gerund's own verb
_GERUND_VERB_RE = re.compile(r"(?i)^[a-z]+ing\s+(?:really\s+|just\s+|always\s+|also\s+)?[a-z]{2,}s"
                             r"\s+(?:me|us|him|her|them|you)\b")
# "like a dream", "like an old friend": "like" + an indefinite article is a comparison
_SIMILE_RE = re.compile(r"(?i)^like\s+(?:a|an)\s+\w")


def gerund_is_subject(first: str, text: str) -> bool:
    """The sentence's first word ends in "-ing" but is the subject of its own verb, not a
    dropped "I'm": an "-ing" pronoun ("Nothing beats ...") or a gerund followed by a present
    verb and its object pronoun ("Fostering lets me help ..."). `text` opens at `first`."""
    return first.lower() in _ING_PRONOUNS or bool(_GERUND_VERB_RE.match(text))


# the words a predicate noun may be followed by; any other word after "a/an <status>" is the noun
# the status word describes ("a retired Coast Guard officer", "a vegan bakery")
_AFTER_PREDICATE = frozenset(["and", "or", "but", "now", "too", "since", "for", "from", "in", "at", "on", "with", "so",
                              "again", "anymore", "though", "as", "by", "until", "because", "myself", "himself",
                              "herself", "themselves", "ourselves", "these", "this", "that", "who", "which", "like",
                              "already", "still", "then", "after", "before", "if", "when", "while", "yet", "all",
                              "mostly", "nowadays", "lately", "ever", "forever", "pretty", "over"])
_NEXT_WORD_RE = re.compile(r"\s+([A-Za-z][\w'’-]*)")


def attributive(body: str, article: bool, end: int) -> bool:
    """The status word ending at `end` of `body`, after "a/an" (`article`), describes the noun
    after it ("Ray is a retired Coast Guard officer"): no status of the subject's (the rule wrote
    "Ray is a retired"); "I'm a vegan now", "she's a widow." stay statuses."""
    if not article:
        return False
    m = _NEXT_WORD_RE.match(body, end)
    return m is not None and m.group(1).lower() not in _AFTER_PREDICATE


# the last clause of a fact's head: after ", and" / ", but" / ";" and its first word
_LAST_CLAUSE_RE = re.compile(r"(?:,\s*(?:and|but|so|then)?|;)\s+(?:(?:then|now|just|still)\s+)?([\w'’]+)")
_PERSONAL = frozenset(["he", "she", "they", "it", "we", "i", "you", "he's", "she's", "they're"])


def other_subject(head: str, subject: str) -> bool:
    """The last clause of `head` has a subject of its own that is not `subject` ("Dale and others
    drove him to the office, and he just waved"): a verb coordinated after it is that subject's
    ("... and walked in"), so `fact_quality._split_actions` must not write it as `subject`'s
    (it gave "Dale walked in like it was any other day")."""
    last = None
    for last in _LAST_CLAUSE_RE.finditer(head):
        pass
    if last is None:
        return False
    word = last.group(1)
    if word.lower() in _PERSONAL:
        return True
    return word[:1].isupper() and word not in subject.split() and not head.startswith(word)


def simile(text: str) -> bool:
    """A sentence-initial "like a/an X" (`text` opens at "like") is a comparison, not "I like".
    The caller asks it of the message's first sentence only (the answer to "How's X?"): a later
    "Like a X." gives an example of what the speaker just said, left to the rules as before."""
    return bool(_SIMILE_RE.match(text))


# "Here's a picture my cousin sent me of the church": the photo pointer's relative clause is the
# news, and its "of ..." belongs to the photo (the rules cut "Here's a picture" as a pointer and
# wrote "S's cousin sent S of the church")
_SHOWN_SENDER_RE = re.compile(
    r"(?i)^(?P<lead>\s*(?:(?:and|oh|so|also|look|ok|okay)\s*,?\s+)?)here(?:['’]s|\s+is)\s+(?P<det>a|the|one|another)\s+"
    r"(?P<noun>(?:old\s+|new\s+|quick\s+)?(?:pic|picture|photo|snap|shot|selfie|video))\s+(?:that\s+)?"
    r"(?P<who>(?:my|our|his|her|their|[A-Z][\w'’-]*)(?:\s+[\w'’-]+){0,2}?)\s+"
    r"(?P<verb>sent|took|gave|shared|texted|showed|snapped|posted|forwarded)(?P<obj>\s+(?:me|us))?\s+"
    r"(?P<rest>(?:of|from|at|in|on)\s+[^.!?]*[^.!?\s])(?P<end>[.!?]*\s*)$")


def shown_gate(text: str) -> bool:
    """Cheap test whether `shown_sender` may change a sentence of `text`."""
    return bool(re.search(r"(?i)\bhere(?:['’]s|\s+is)\s+(?:a|the|one|another)\s+(?:\w+\s+)?(?:pic|picture|photo|snap"
                          r"|shot|selfie|video)\s+(?!of\b)", text))


def shown_sender(sentence: str) -> str | None:
    """"Here's a picture my cousin sent me of the church" -> "My cousin sent me a picture of the
    church": who sent or took the photo is the news; None when the sentence is not this form."""
    m = _SHOWN_SENDER_RE.match(sentence)
    if m is None:
        return None
    who = m.group("who")
    who = who[:1].upper() + who[1:]
    det = "a" if m.group("det").lower() in ("a", "one", "another", "the") else m.group("det")
    return (f"{m.group('lead')}{who} {m.group('verb')}{m.group('obj') or ''} {det} {m.group('noun')} "
            f"{m.group('rest')}{m.group('end') or '.'}")


# ---- fact repairs and drops (fact_quality checks) ------------------------------------------------

# "Megan's news: ", "Now Frank has more news: ", "Dale has got big news too: ", "My news: "
_NEWS_LEAD_RE = re.compile(
    r"^(?:(?:now|so|and|ok|okay|well),?\s+)?(?:[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)?(?:['’]s|\s+(?:has|had)(?:\s+got)?)\s+)"
    r"(?:(?:some|big|more|great|good|exciting|huge|real|little|bit\s+of)\s+)*news(?:\s+too|\s+of\s+\w+\s+own)?\s*:\s+"
    r"(?=[A-Z])", re.IGNORECASE)
# a clause of its own after the colon: a finite verb form among its first words
_CLAUSE_VERB_RE = re.compile(
    rf"(?i)\b(?:is|are|was|were|has|have|had|will|can|got|gets|did|does|'s|’s|[a-z]{{2,}}ed|[a-z]{{3,}}s"
    rf"|{'|'.join(sorted(L.IRREGULAR_PAST_EN))})\b")
# a trailing aside to the listener: ", honestly", ", don't worry", ", to be honest"
_ASIDE_RE = re.compile(
    r"(?i),\s*(?:honestly|don['’]t\s+worry|no\s+worries|to\s+be\s+honest|believe\s+me|trust\s+me|i\s+swear"
    r"|if\s+\w+\s+(?:is|am|are)\s+honest|of\s+course)\s*[.!]*$")
# a closing discourse adverb (session 18, tails18): ", thankfully", ", luckily", ", anyway", and a
# closing contrastive "though" with or without its comma ("S calls his dad every Sunday though")
_CLOSING_ADVERB_RE = re.compile(
    r"(?i)(?:,\s*(?:thankfully|luckily|fortunately|anyway|anyways|though)|(?<!\beven)(?<!\bas)\s+though)\s*[.!]*$")
# a trailing term of address ("I'm ready, chef", "..., kiddo"): the listener called, no content
_VOCATIVE_TAIL_RE = re.compile(
    r"(?i),\s*(?:kiddo|kid|bro|dude|man|buddy|pal|mate|chef|boss|champ|girl|my\s+friend|friend|hon|hun|honey|sweetie"
    r"|darling|dear|guys|y['’]all|sis)\s*[.!]*$")
# an imperative to the listener coordinated after the fact: ", but just look how it turned out"
_IMPERATIVE_TAIL_RE = re.compile(
    r"(?i),?\s+(?:but|and|so)\s+(?:just\s+)?(?:look|see|imagine|guess|check)\s+(?:at\s+|out\s+)?"
    r"(?:how|what|this|that|it|these|those)\b[^,;]*$")
# a news teaser with nothing of the news: "Walter has news of their own", "Ann has big news too"
_NEWS_TEASER_RE = re.compile(
    r"(?i)^\S+(?:\s+[A-Z][\w'’-]*)?\s+(?:has|had|got|has\s+got)\s+(?:(?:some|more|big|great|good|exciting|huge|real|fun)\s+)*"
    r"news(?:\s+(?:too|as\s+well|of\s+(?:\S+\s+)?own|to\s+share))?\s*[.!]*$")
# "The longest S has ever ...", "The best S has ever ...", "The most fun S has had ...": a superlative
# opening the fact, its clause a relative one with no head noun after the superlative
_SUPERLATIVE_RE = re.compile(
    r"(?i)^the\s+(?:(?:most|least)\s+\w+|best|worst|\w+est)\s+(?P<rest>.+)$")
_RELATIVE_HAS_EVER_RE = re.compile(r"(?i)^(?:[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)?|[\w'’-]+)\s+(?:has|have|had|is|was)"
                                   r"\s+(?:ever|had|been|seen|done|felt)\b")
_NOT_SUPERLATIVE = frozenset(["rest", "west", "interest", "chest", "nest", "guest", "quest", "test", "forest",
                              "contest", "protest", "request", "harvest", "honest", "modest", "earnest", "pest",
                              "vest", "crest", "arrest"])


def news_lead(text: str, subject: str = "") -> str | None:
    """The fact without its "S's news: " lead, or None when it has none (or what follows the colon
    is no clause of its own, e.g. "Ana's news: the twins", or does not name the fact's `subject`
    in its first clause: the fact would lose whom it is filed on; news_frames' "own news" frame
    gives that news its own subject before the rules read it)."""
    m = _NEWS_LEAD_RE.match(text)
    if m is None:
        return None
    tail = text[m.end():]
    if len(tail.split()) < 3 or not _CLAUSE_VERB_RE.search(" ".join(tail.split()[1:6])):
        return None
    if subject and subject not in tail.split(",", 1)[0]:
        return None
    return tail


def aside(text: str, subject: str = "") -> str | None:
    """The fact without its trailing aside to the listener or term of address ("Dale is fine to
    drive, don't worry", "S is ready, chef"), or None when it has none."""
    m = _ASIDE_RE.search(text) or _VOCATIVE_TAIL_RE.search(text)
    if m is None or len(text[:m.start()].split()) < 3:
        return None
    return text[:m.start()]


def closing_adverb(text: str) -> str:
    """The fact without a closing discourse adverb (", thankfully", "... every Sunday though"):
    the speaker's stance on the fact, no part of it. Applied to the kept facts after the cap
    (`fact_quality`), so it never changes which facts a message keeps."""
    m = _CLOSING_ADVERB_RE.search(text)
    return text if m is None or len(text[:m.start()].split()) < 3 else text[:m.start()]


def imperative_tail(text: str, subject: str = "") -> str | None:
    """The fact without a trailing imperative to the listener (", but just look how it turned
    out"), or None when it has none."""
    m = _IMPERATIVE_TAIL_RE.search(text)
    if m is None or len(text[:m.start()].split()) < 3:
        return None
    return text[:m.start()]


def news_teaser(text: str, subject: str = "") -> bool:
    """"Ann has news of their own": the news is in the next sentence, this one says nothing."""
    return bool(_NEWS_TEASER_RE.match(text))


# "Megan's first foster fail" (from "My first foster fail!"): an owner, an ordinal and a short noun
# phrase with nothing after it
_ORDINAL_NP_RE = re.compile(
    r"(?i)^(?P<owner>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)?)['’]s\s+(?:very\s+)?(?:first|second|third|last|final)"
    r"(?:\s+(?:ever|real|proper|official))?(?P<np>(?:\s+[\w-]+){1,3})\s*[.!]*$")


def ordinal_np(text: str, subject: str = "") -> bool:
    """"Megan's first foster fail": an exclaimed noun phrase with no verb (the verb-like words of
    its head noun phrase aside, `_CLAUSE_VERB_RE` finds none); it says nothing about anyone."""
    m = _ORDINAL_NP_RE.match(text)
    return m is not None and not _CLAUSE_VERB_RE.search(m.group("np").replace("-", " "))


def exclamation_np(text: str, subject: str = "") -> bool:
    """"The longest S has ever been away from X": a superlative with no head noun whose only verb
    is that of its relative clause; no statement about anyone."""
    m = _SUPERLATIVE_RE.match(text)
    if m is None:
        return False
    sup = text.split()[1].lower()
    if sup in _NOT_SUPERLATIVE:
        return False
    rest = m.group("rest")
    if re.match(r"(?i)(?:most|least)\b", sup):
        rest = rest.split(" ", 1)[1] if " " in rest else ""
    rel = _RELATIVE_HAS_EVER_RE.match(rest)
    # "The best Ann has ever felt was after the race": the superlative is a subject, its verb follows
    return rel is not None and not re.search(r"(?i)\b(?:is|was|were|are)\b", rest[rel.end():])


@dataclass(frozen=True)
class Row:
    """One form, a `fact_quality` check `<name>`: `repair` gives the repaired text (None: not
    this form); `drop` says the fact is this form and nothing of it can be kept."""

    name: str
    repair: Callable[[str, str], str | None] | None = None  # (fact text, subject)
    drop: Callable[[str, str], bool] | None = None


ROWS: tuple[Row, ...] = (
    Row("news_lead", repair=news_lead),
    Row("aside", repair=aside),
    Row("imperative_tail", repair=imperative_tail),
    Row("news_teaser", drop=news_teaser),
    Row("exclamation_np", drop=exclamation_np),
    Row("ordinal_np", drop=ordinal_np),
)


def apply(row: Row, text: str, subject: str) -> str | None:
    """The fact text after `row`: repaired, unchanged, or None (dropped)."""
    if row.drop is not None and row.drop(text, subject):
        return None
    fixed = row.repair(text, subject) if row.repair is not None else None
    return text if fixed is None else fixed


__all__ = ["ROWS", "Row", "apply", "aside", "attributive", "closing_adverb", "exclamation_np", "gerund_is_subject", "imperative_tail", "news_lead", "news_teaser", "ordinal_np", "other_subject", "shown_gate", "shown_sender",
           "simile"]

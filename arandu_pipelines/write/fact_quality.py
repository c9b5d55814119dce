"""Precision first: what of an offline extraction a careful person would keep as a fact.

The rules in `extract_rules` propose facts sentence by sentence; many sentences of a chat are
talk, not knowledge (greetings, thanks, compliments, opinions about the conversation, questions,
a shared photo's caption). `refine` is the last step of offline extraction and removes or repairs
what does not read as an atomic statement about a person or thing:

| check (`CHECKS`, in order)  | what happens                                                        |
|-----------------------------|---------------------------------------------------------------------|
| (split)                     | "S did X and did Y" (two past actions) becomes two facts            |
| (tails)                     | ", which is a terrible pun", ", so life has been a whirlwind" cut;  |
|                             | ", so/but <Name> <verb> ..." a fact of its own                      |
|                             | (write/clause_tails.py, session 18); a closing ", thankfully" or    |
|                             | "though" is cut after the cap (write/wellformed.closing_adverb)     |
| chat_form                   | chat register is written out (write/chat_forms.py: "ur" -> "your",  |
|                             | "tmrw" -> "tomorrow", "lol"/emoji/"tho" removed, "sooo" -> "so",    |
|                             | shouted words lower-cased); every fact, rule or free text           |
| caption                     | a fact restating a photo caption ("[shared a photo: ...]") is dropped |
|                             | (the caption stays in the message text, so it is still searchable) |
| question                    | a fact with "?" is dropped                                          |
| catch_up                    | talk about the talk ("since we last spoke", "haven't talked in a    |
|                             | while", "you won't believe it - ...") is cut; nothing else: dropped |
| second_person               | "you/your" left in the text becomes the addressee (the other speaker |
|                             | of the session) or, when unknown, the fact is dropped               |
| glued_date                  | a date the extractor rendered into the text ("On 5 May 2023 ...",   |
|                             | "(2023-05-05)") is removed when `event_date` holds it; a month or a |
|                             | year stays, a time phrase subject is turned around (coarse_dates.py)|
| show_tail                   | a trailing pointer to a shared photo ("- here's ...") is cut        |
| opener                      | discourse openers before the subject are cut ("Yeah, Maria ...",    |
|                             | "It was tough, but Maria is ..." -> "Maria is ...")                 |
| news_lead, aside,           | (write/wellformed.py, session 17) facts that are not sentences:   |
| imperative_tail,            | "S's news: X" -> X, a trailing aside / term of address / "but just  |
| news_teaser, exclamation_np,| look how ..." cut; "S has news of their own", "The longest S has   |
| ordinal_np                  | ever ...", "S's first foster fail" dropped                         |
| shape                       | (write/fact_shape.py, session 12) "Their/She/He ..." subjects are   |
|                             | dropped, "S has been one 'cause S lost ..." -> "S lost ...", a     |
|                             | cut-off end ("... so S is planning a few") cut at the clause       |
|                             | before it, else dropped                                            |
| request                     | a request to the listener ("remind me on friday" -> "Remind Maria   |
|                             | on friday", "tell me more") is not a fact about the speaker: dropped |
| wish                        | "Happy early birthday!" -> "S is happy early birthday": a wish    |
|                             | formula, dropped (write/reply_forms.py, session 14)                 |
| echo                        | a subjectless gerund repeating the listener's last turn ("Passing  |
|                             | thirty people, ...!") is their news: dropped (write/reply_forms.py) |
| talk                        | greetings/thanks/apologies/wishes ("Maria hopes John's ideas get    |
|                             | heard", "Sorry Maria didn't ...") are dropped                       |
| vague                       | a feeling whose object names nothing ("excited for this new         |
|                             | chapter", "proud of it") is dropped                                 |
| unanchored                  | an attitude negation ("won't", "wasn't", "never") or a modal        |
|                             | ("will", "could"), with no date and no other named entity: dropped  |
|                             | (except the kinds of write/attitudes.py: resolve, outlook, a coming |
|                             | event with something named)                                         |
| long                        | more than `MAX_WORDS` words: cut at the first clause boundary after |
|                             | the subject's verb, dropped if still too long; a later clause about |
|                             | the subject is split off first (write/later_clauses.py, session 16) |
| duplicate                   | within one message, a free-text fact whose content words are mostly |
|                             | another's of the same subject is dropped (rule facts win)           |
| thin                        | fewer than two content words besides the subject, and no named      |
|                             | entity besides the two speakers ("Jon has been to Paris" stays)     |
| small_talk_<row>            | conversational filler by its form (write/small_talk.py, session 13): |
|                             | wanting to hear the listener's news, regards, "S has been good,     |
|                             | busy", a reaction to the listener's words, "Better than S expected" |
| cap                         | at most `MAX_FREE_FACTS` free-text facts per subject per message    |
|                             | (opening with the subject, typed, naming an entity, longest first)  |
| elaboration                 | a later free-text fact of the message that opens with no subject of |
|                             | its own ("It showed S ...", "Makes S feel ...", "Seeing X was the   |
|                             | best") comments on the earlier fact: dropped (write/elaboration.py) |
| (name subject, last)        | a kept free-text causative or fragment names its subject first:    |
|                             | "It made S feel X" -> "S felt X", "Makes S feel X" -> "S feels X", |
|                             | "Pretty proud of X" -> "S is pretty proud of X" (fact_shape.py)    |

"Free-text" facts are the extractor's generic ones (a restated sentence, passed as `generic`);
facts that a rule matched (lives in, works at, my sister X, ...) only get the repairs (second
person, dates, openers) and the question/caption checks. All checks apply to both languages.

Before dropping, `addressee`, `subject_first`, `generic_we`, `talk` and `unanchored` try the
repairs of write/drop_repair.py (cut a leading addressee clause or an empty head before ", but",
keep "It taught X ...", "X finds it inspiring to ..."), found by bench/fact_drops.py, which
records every drop through `AUDIT`.

Every check is a plain function over one fact (or the list), listed in `CHECKS`; linear-time
regexes only (no nested quantifiers), so a long message costs what its length costs.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import replace

from arandu_pipelines.write import (
    cap_choice,
    chat_forms,
    clause_ends,
    clause_tails,
    coarse_dates,
    comma_splices,
    drop_repair,
    elaboration,
    fact_shape,
    generic_repairs,
    held_back,
    later_clauses,
    listener_things,
    plain_forms,
    plans,
    precision,
    readability,
    reply_forms,
    second_person,
    small_talk,
    we_events,
    wellformed,
)
from arandu_pipelines.write import lexicon as L
from arandu_pipelines.write.temporal import find_relative_dates, render
from arandu_pipelines.write.types import (
    ExtractedFact,
    ExtractionContext,
    ExtractionResult,
)

MAX_WORDS = 22
MAX_FREE_FACTS = 2  # free-text facts (restated sentences) per subject per message

_CAPTION_RE = re.compile(r"\[(?:shared a photo|image|photo|foto)\b|\bimage:", re.IGNORECASE)
_YOU_RE = re.compile(r"\b(?:you|your|yours|yourself|you're|you've|you'd|you'll|você|voce|vc|seu|sua)\b", re.IGNORECASE)
_ISO_DATE_RE = re.compile(r"\s*\(\d{4}-\d{2}-\d{2}\)")
_MONTHS = ("january|february|march|april|may|june|july|august|september|october|november|december"
           "|janeiro|fevereiro|março|marco|abril|maio|junho|julho|agosto|setembro|outubro|novembro|dezembro")
# "on 5 May 2023", "in May 2023", "the week of 5 May 2023", "em 5 de maio de 2023" (temporal.render)
_RENDERED_DATE_RE = re.compile(
    rf"(?i)(?:\bjust\s+)?\b(?:on|in|em|no|na|during|around)\s+(?:the\s+)?(?:(?:weekend|week|fim\s+de\s+semana|semana)"
    rf"\s+(?:of|de)\s+)?(?:(?:early|mid|late|the\s+morning\s+of|the\s+evening\s+of|the\s+night\s+of|the\s+afternoon\s+of)\s+)?"
    rf"(?:(?:\d{{1,2}}\s+(?:de\s+)?)?(?:{_MONTHS})\s+(?:de\s+)?)?\d{{4}}\b,?"
)
_TALK_RE = re.compile(
    r"(?i)(?<!\bin\s)\b(?:hopes?(?!\s+to\s)|wish(?:es)?|thanks?|thank(?:s|ed)?|sorry|apologi[sz]es?|congratulat\w*|glad\s+to\s+hear"
    r"|appreciates?|can't\s+wait\s+to\s+(?:see|hear)|bets?|agrees?|means\s+a\s+lot|good\s+luck|take\s+care(?!\s+of\b)"
    r"|(?:is|was)\s+right\b|no\s+problem|(?:has|have|got)\s+to\s+(?:go|run)\b|"
    r"espera\s+que|obrigad[oa]|desculp\w*|parabéns|valeu)\b"
)
_GREETING_START_RE = re.compile(
    r"(?i)^(?:hey|hi|hello|bye|goodbye|oi|olá|tchau|wow|lol|haha|great|good|nice|awesome|cool|lovely|glad"
    r"|so\s+glad|lucky|sounds)\b|^[^\w\"“]")
_CLAUSE_CUT_RE = re.compile(r"(?i),?\s+(?:but|because|['’]?cause|so|since|and\s+it(?:['’]s)?|and\s+that|which|while"
                            r"|though|although|mas|porque|então)\s+|[;:–—]\s*|\s+-{1,2}\s+|,\s+")
_PURPOSE_CUT_RE = re.compile(r"(?i)\s+(?:in\s+order\s+to|to|so|for|by|with|after|before)\s+")
_WORD_RE = re.compile(r"[\w'’-]+")
_SUBORDINATE_RE = re.compile(r"(?i)^(?:whenever|when|if|because|while|although|though|since|as|after|before|once"
                             r"|until|unless|quando|se|porque|enquanto|embora)\b")
_STOP = frozenset(
    ["a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "at", "by", "for", "with", "from", "as", "is", "are", "was", "were", "be", "been", "am", "it", "its", "this", "that", "has", "have", "had", "do", "does", "did", "so", "very", "really", "just", "also", "too", "not", "no", "her", "his", "their", "them", "they", "he", "she", "we", "our", "e", "o", "os", "as", "um", "uma", "de", "da", "do", "das", "dos", "em", "no", "na", "nos", "nas", "para", "pra", "com", "que", "é", "foi"]
)


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD_RE.findall(text)]


def _content(text: str) -> set[str]:
    return {w for w in _words(text) if w not in _STOP and len(w) > 1}


def _possessive(name: str) -> str:
    return name + ("'" if name.endswith("s") else "'s")


# ---- checks over one fact: return the repaired fact, or None to drop it --------------------------
# ---- checks over one fact: return the repaired fact, or None to drop it --------------------------
_GENERIC: ContextVar[frozenset[int]] = ContextVar("generic_facts", default=frozenset())
# a comma splice's split-off tail -> its head (write/comma_splices.py): one sentence, one cap slot
_SPLICE_HEADS: ContextVar[dict[int, ExtractedFact] | None] = ContextVar("splice_heads", default=None)


def _free(f: ExtractedFact) -> bool:
    """Restated sentences (the extractor's generic facts, not a rule's match on a pattern such
    as "lives in", "works at", "my sister X") get the strict checks and the cap."""
    return id(f) in _GENERIC.get()


_NEEDS_NAMES_RE = re.compile(r"[A-Z]{2}|([A-Za-z])\1\1")


def _chat_form(f: ExtractedFact, ctx: ExtractionContext) -> ExtractedFact | None:
    """Chat spellings, laughter, emoji, stretched letters and shouting written as a careful
    person would (write/chat_forms.py); names known to the session keep their case."""
    names = (chat_forms.known_names([*ctx.known_aliases.values(), *f.mentions, ctx.speaker_name],
                                    [t for _, t in ctx.previous_turns])
             if _NEEDS_NAMES_RE.search(f.fact_text) else {})
    text = chat_forms.tidy(f.fact_text, f.subject, names)
    if not text:
        return None
    f.fact_text = text
    return f


def _caption(f: ExtractedFact, ctx: ExtractionContext) -> ExtractedFact | None:
    src = f.source_text or ""
    if _CAPTION_RE.match(src.lstrip()):
        return None
    m = _CAPTION_RE.search(f.fact_text)
    if m is None:
        return f
    # a caption glued to the sentence with no stop before it ("... a photo of the church [shared a
    # photo: ...]", session 14): the sentence before it stays, the caption goes (it stays searchable
    # in the message text); a fact that is mostly caption is dropped
    head = f.fact_text[:m.start()].rstrip(" ,;:-–—")
    if m.start() == 0 or "[" not in f.fact_text[m.start():m.end()] or len(head.split()) < 4 or f.subject not in head:
        return None
    f.fact_text = head
    return f


def _question(f: ExtractedFact, ctx: ExtractionContext) -> ExtractedFact | None:
    return None if "?" in f.fact_text else f


def _addressee(f: ExtractedFact, ctx: ExtractionContext) -> ExtractedFact | None:
    """A free-text fact about the addressee is a compliment or an echo of what they said
    ("Jon has potential", "Gina knows Jon loves music"): the addressee's own turn says it. One
    that names a third entity stays ("Maria met John's brother Carlos at the gym"), and so does the
    speaker's own deed with the listener's thing ("Maria made John's lasagna recipe",
    write/listener_things.py, session 16)."""
    who = (ctx.addressee or "").strip()
    if not who or not _free(f):
        return f
    others = [m for m in f.mentions if m not in (who, ctx.speaker_name)]
    if f.subject == ctx.speaker_name and (cut := drop_repair.lead_clause(f.fact_text, f.subject, who)):
        f.fact_text = cut  # "Jon is taking Gina's advice, Jon is sprucing up ..." (write/drop_repair.py)
        return f
    if f.subject == who and (cut := drop_repair.agreed_lead(f.fact_text, who, ctx.speaker_name)):
        f.fact_text, f.subject = cut, ctx.speaker_name  # "Gina is right, Jon's oven ..." (drop_repair.py)
        return f
    if not others and (f.subject == who or re.search(rf"\b{re.escape(who)}\b", f.fact_text)
                       or _YOU_RE.search(f.fact_text)):
        if f.subject == ctx.speaker_name and listener_things.speaker_action(f.fact_text, f.subject, who):
            return f  # "Frank made Ana's lasagna recipe": the speaker's deed (write/listener_things.py)
        return None  # about the two of them only: talk ("Maria is glad John's son is okay")
    return f


def _second_person(f: ExtractedFact, ctx: ExtractionContext) -> ExtractedFact | None:
    if not _YOU_RE.search(second_person.unquoted(f.fact_text)):
        return f  # none, or only in a title or quotation ("Me Before You"), which stays as written
    who = (ctx.addressee or "").strip()
    if not who:
        return None
    forms = {"your": _possessive(who), "yours": _possessive(who), "seu": _possessive(who),
             "sua": _possessive(who), "you're": f"{who} is", "you've": f"{who} has",
             "you'd": f"{who} would", "you'll": f"{who} will"}

    def named(part: str) -> str:
        part = second_person.name_subject_you(part, who)  # "you were" -> "Ana was" (session 14)
        return _YOU_RE.sub(lambda m: forms.get(m.group(0).lower().replace("’", "'"), who), part)

    f.fact_text = second_person.outside_quotes(f.fact_text, named)
    if who not in f.mentions and who != f.subject:
        f.mentions.append(who)
    return f


def _glued_date(f: ExtractedFact, ctx: ExtractionContext) -> ExtractedFact | None:
    """The date lives in event_date (valid_from), not in the text; a day of the calendar said in
    the sentence ("on the ninth of September") may stay as well (`_calendar_keeps`)."""
    text = _ISO_DATE_RE.sub("", f.fact_text)
    if f.event_date is not None:
        turned = coarse_dates.time_subject(text)  # "On 17 June 2023 is Maria's dad's birthday"
        if turned is not None:
            if not turned or f.subject not in turned:
                return None  # "On 4 June 2023 was the recital": no subject to name
            text = turned
        keep = _calendar_keeps(f, ctx, text)
        coarse = _coarse_keeps(f, ctx, text)
        kept = (keep or set()) | coarse
        cut = _RENDERED_DATE_RE.sub(lambda m: m.group(0) if m.start() in kept else _unglue(m), text)
        if keep is not None and not keep and _would_be_thin(f, ctx, cut):
            cut = text  # "Maria starts on 1 August 2023": cut, "Maria starts" says nothing
        text = coarse_dates.month_year(cut) if coarse else cut  # "April in 2024" -> "April 2024"
    text = re.sub(r"\s{2,}", " ", text).strip(" ,")
    # "for tomorrow's grand opening" -> "for on 21 July 2023's ..." -> "for the grand opening"
    text = re.sub(r"(?<=\s)['’]s\s+", "the ", text)
    if text != f.fact_text:
        f.fact_text = text[:1].upper() + text[1:]
    return f


def _coarse_keeps(f: ExtractedFact, ctx: ExtractionContext, text: str) -> set[int]:
    """Starts of the rendered dates in `text` that render a relative month or year of the sentence
    ("next year" -> "in 2024"): they stay in the text (write/coarse_dates.py, session 18)."""
    if not f.source_text or not _RENDERED_DATE_RE.search(text):
        return set()
    cores = coarse_dates.coarse_cores(find_relative_dates(f.source_text, ctx.occurred_at, ctx.timezone or "UTC",
                                                          calendar=True))
    if not cores:
        return set()
    return {r.start() for r in _RENDERED_DATE_RE.finditer(text) if coarse_dates.is_coarse(r.group(0), cores)}


_DATE_POSSESSIVE_RE = re.compile(r"\b\d{4}['’]s\b")
_COPULAS = frozenset({"is", "are", "was", "were", "be", "been", "é", "foi", "era", "será"})


def _calendar_keeps(f: ExtractedFact, ctx: ExtractionContext, text: str) -> set[int] | None:
    """Starts of the rendered dates in `text` that stay although event_date is set; None when the
    sentence names no day of the calendar (relative dates alone: every date moves to event_date,
    "Maria did it along the trail", the policy before calendar days).

    Only calendar days ("the 14th of October", `temporal.TemporalMention.calendar`) stay: one that
    is upcoming ("organising a breakfast on 9 September 2023", "flying home on 20 December 2023":
    a reader of the plan needs its day), one after a copula ("the exam is on 25 May 2023": the
    date is the predicate), or two or more in the fact ("leave on 14 October 2023 and come home on
    28 October 2023": event_date holds the first). A single past one moves to event_date."""
    if not f.source_text or _DATE_POSSESSIVE_RE.search(text) or not _RENDERED_DATE_RE.search(text):
        return None  # "for on 20 June 2023's grand opening": cut, and the possessive with it
    days = [m for m in find_relative_dates(f.source_text, ctx.occurred_at, ctx.timezone or "UTC", calendar=True)
            if m.calendar]
    if not days:
        return None
    cores = {render(m, bare=True): m for m in days}
    found = [(r, next((m for core, m in cores.items() if core in r.group(0)), None))
             for r in _RENDERED_DATE_RE.finditer(text)]
    several = sum(1 for _, m in found if m is not None) >= 2
    keep: set[int] = set()
    for r, m in found:
        if m is None:
            continue
        before = text[:r.start()].rstrip()
        prev = before.rsplit(" ", 1)[-1].lower() if before else ""
        if several or prev in _COPULAS or (m.anchor is not None and m.start.date() > m.anchor):
            keep.add(r.start())
    return keep


def _would_be_thin(f: ExtractedFact, ctx: ExtractionContext, cut: str) -> bool:
    """Whether the fact, its calendar date cut, is left without content ("Maria went back", "Maria
    had Maria's exam"): the checks `thin` / `content_free` would drop it, and the date is what it says."""
    if not _free(f):
        return False  # a rule's fact ("Maria moved to Paris") is checked by no content count
    text = re.sub(r"\s{2,}", " ", cut).strip(" ,")
    names = {w.lower() for w in _WORD_RE.findall(f.subject)}
    rest = {w for w in _content(text) if w.removesuffix("'s") not in names} - _EMPTY_WORDS
    return len(rest) < 2 or precision.content_free(text, f.subject)  # the `thin` and `content_free` checks


def _unglue(m: re.Match[str]) -> str:
    """A rendered date is cut unless it is what ends its clause right after a verb: "A buddy of
    Maria's adopted in 2022" would read "A buddy of Maria's adopted", a clause cut off."""
    before = m.string[:m.start()].rstrip()
    after = m.string[m.end():]
    prev = before.rsplit(" ", 1)[-1].lower() if before else ""
    ends = not after.strip() or after.lstrip()[:1] in ";,.!"
    if ends and prev and (prev in L.IRREGULAR_PAST_EN or (prev.endswith("ed") and len(prev) > 4)):
        return m.group(0)
    if prev in _COPULAS:  # "Maria's inspection is on 12 May 2023": the date is the predicate
        return m.group(0)
    return " "


_SHOW_TAIL_RE = re.compile(r"(?i)\s*(?:[-–—]+|,)\s+(?:here['’]s|here\s+is|check\s+(?:it|this)\s+out|take\s+a\s+look"
                           r"|look\s+at\s+this)\b.*$")


def _show_tail(f: ExtractedFact, ctx: ExtractionContext) -> ExtractedFact | None:
    """"Maria has been busy painting - here's something she just finished": the pointer to a
    shared photo is talk; the fact ends before it."""
    text = _SHOW_TAIL_RE.sub("", f.fact_text)
    if text != f.fact_text and len(text.split()) >= 3:
        f.fact_text = text
    return f


# "Sometimes it's hard when things don't go Jon's way, but Jon is sure ...": an impersonal head
# that names the subject only as an owner ("Jon's way") before ", but S <verb>" (session 17)
_IMPERSONAL_HEAD_RE = re.compile(r"(?i)^(?:(?:sometimes|often|honestly|yeah|well)\s*,?\s+)?"
                                 r"(?:it['’]s|it\s+is|it\s+was|it\s+gets|it\s+can\s+be)\s")


def _past_impersonal_head(text: str, subj: str, i: int) -> int:
    """Where the subject's own clause starts when the fact opens with an impersonal head that
    names the subject only as an owner before ", but S ..." / "; S ..."; else `i` unchanged."""
    if not _IMPERSONAL_HEAD_RE.match(text):
        return i
    m = re.compile(r"(?:,\s*but|,\s*so|;)\s+(?=" + re.escape(subj) + r"\s+[a-z])").search(text, i)
    if m is None:
        return i
    head = text[:m.start()]
    owner_only = all(head[k + len(subj):k + len(subj) + 2] in ("'s", "’s") for k in _find_all(head, subj))
    return m.end() if owner_only else i


def _find_all(text: str, word: str) -> list[int]:
    """Every start of `word` in `text`."""
    return [m.start() for m in re.finditer(re.escape(word), text)]


def _opener(f: ExtractedFact, ctx: ExtractionContext) -> ExtractedFact | None:
    """Cut what stands before the subject at a clause boundary ("Yeah, Maria ..." ->
    "Maria ...", "It was tough, but Maria is ok" -> "Maria is ok")."""
    text, subj = f.fact_text, f.subject
    if not subj or text.startswith(subj):
        return f
    i = text.find(subj)
    if i <= 0:
        return f
    i = _past_impersonal_head(text, subj, i)
    if re.search(r"(?:[,;:]\s*|\b(?:but|so|mas)\s+|,\s*and\s+)$", text[:i]):
        f.fact_text = text[i:]
        # the opener may carry the fact itself (write/generic_repairs.py)
        if _free(f) and (restored := generic_repairs.dropped_subject(text[:i], subj)) is not None:
            f.fact_text = restored + text[i:]
    return f


_EXPLETIVE_RE = re.compile(
    r"(?i)^(?:it|it's|its|that's|there|there's|here|here's|they|they're|what|which|isso|isto|aquilo|é|foi)\b"
    # "this/that/these/those" alone is a pronoun; before a noun ("These figurines Maria bought
    # remind her of family love") it opens a noun phrase, which may be a fact's subject
    r"|^(?:this|that|these|those)\b(?!\s+(?!(?:is|was|are|were|has|have|had|made|makes|make|reminds|remind"
    r"|reminded|means|meant|sounds|looks|seems|really|just|so|one|ones|will|would|can|could|must|should|kind|sort"
    r"|helps|helped|gives|gave|brings|brought|taught|teaches|showed|shows|pic|photo|picture|time|moment|way"
    r"|stuff|thing|things|too|also|all|of|in|for|to|with|and|but|'s|’s)\b)(?-i:[a-z]))"
)


def _shape(f: ExtractedFact, ctx: ExtractionContext) -> ExtractedFact | None:
    """An unresolved pronoun subject ("Their encouragement ...", "She gave it ...") is dropped,
    "S has been one 'cause S lost ..." keeps its reason clause, a cut-off end ("... so S is
    planning a few") is cut at the clause before it or the fact dropped (write/fact_shape.py).
    Every fact: a rule's fact starts with its subject, so only the truncated-end step can apply
    to it. Runs after `subject_first`, so its repairs ("S finds it special to ..., they made
    this") are shaped too. The subject-restoring rewrites run at the end of `refine`."""
    text = fact_shape.shape(f.fact_text, f.subject)
    if text is None:
        return None
    if text != f.fact_text:
        f.fact_text = text[:1].upper() + text[1:]
    return f


def _relative(f: ExtractedFact, ctx: ExtractionContext) -> ExtractedFact | None:
    """"Kira, twelve, who's improved so much" -> "Kira has improved so much": a restated sentence
    left as a name, its apposition and a relative clause (write/kin_antecedents.relative_fragment)."""
    from arandu_pipelines.write.kin_antecedents import relative_fragment

    if _free(f) and (said := relative_fragment(f.fact_text, f.subject)) is not None:
        f.fact_text = said
    return f


def _subject_first(f: ExtractedFact, ctx: ExtractionContext) -> ExtractedFact | None:
    """A free-text fact names its subject before its first comma and does not open with an
    empty pronoun ("It's great that Caroline ...", "That's why ..." are talk)."""
    if not _free(f):
        return f
    head = f.fact_text.split(",", 1)[0]
    if _EXPLETIVE_RE.match(f.fact_text) or f.subject not in head:
        # repaired, not dropped: "It taught Caroline ..." / "It's been hard, but dancing kept Jon going"
        if drop_repair.causative(f.fact_text, f.subject):
            return f
        if (they := generic_repairs.they_asked(f.fact_text, f.subject, ctx.speaker_name, ctx.previous_turns)):
            f.fact_text = they  # "They've been there for S" after "How have your friends been ...?"
            return f
        if (cut := drop_repair.shown_own(f.fact_text, f.subject) or drop_repair.shown_when(f.fact_text, f.subject)
                or drop_repair.but_tail(f.fact_text, f.subject)
                or drop_repair.finds(f.fact_text, f.subject, ctx.speaker_name)):
            f.fact_text = cut
            return f
        return None
    return f


# A request opens with an imperative whose object is the speaker ("remind me", "tell me", "send
# me"): after first-person resolution the fact reads "<Verb> <Speaker> ...".
_REQUEST_VERBS = frozenset(["remind", "tell", "send", "text", "call", "ping", "show", "give",
                            "let", "help", "ask", "pick", "grab", "bring", "lend", "teach", "wake",
                            "email", "message", "dm", "update", "join", "meet", "save", "get"])


_WORKS_FOR_RE = re.compile(r"(?i)^(?:\S+\s+){1,3}(?:works|is\s+(?:good|fine|ok|okay))\s+for\s+")


def _request(f: ExtractedFact, ctx: ExtractionContext) -> ExtractedFact | None:
    """"Remind Maria on friday" (from "remind me on friday") asks something; it is no fact."""
    if not _free(f):
        return f
    first, _, rest = reply_forms.strip_lead(f.fact_text).partition(" ")  # "Now tell Maria ..." too
    verb = first.lower() if first.lower() in _REQUEST_VERBS else chat_forms.transposed(first, _REQUEST_VERBS)
    if verb and f.subject and rest.startswith(f.subject):  # "Remnid Maria on friday" too (a typo)
        return None
    if f.subject and not f.fact_text.startswith(f.subject) and reply_forms.imperative_to(f.fact_text, f.subject):
        return None  # "Then come visit Maria in Porto" (session 14)
    if f.subject and _WORKS_FOR_RE.match(f.fact_text) and f.fact_text.endswith(f.subject):
        return None  # "Friday works for Maria": making plans, not a fact that lasts
    return f


def _wish(f: ExtractedFact, ctx: ExtractionContext) -> ExtractedFact | None:
    """"Happy early birthday!" repaired to "S is happy early birthday" is a wish (reply_forms)."""
    return None if _free(f) and reply_forms.is_wish(f.fact_text, f.source_text) else f


def _echo(f: ExtractedFact, ctx: ExtractionContext) -> ExtractedFact | None:
    """A dropped-subject gerund fragment repeating the listener's last turn ("Passing thirty
    people, ...!" after "I passed thirty people") takes up their news: not news about the speaker
    (the repair made it "S is passing thirty people", naming the listener or not). A fact whose
    subject is the listener says something about them: left alone."""
    if not _free(f) or f.subject == (ctx.addressee or "").strip():
        return f
    if f.subject != (ctx.speaker_name or "").strip() and reply_forms.repeats_listener(
            f.fact_text, f.subject, ctx.speaker_name or "", ctx.previous_turns):
        return None  # "Second in Tyler's class": the listener's news taken up, nothing new
    if not (f.rule_kind or "").startswith("generic.dropped_en"):
        return f
    return None if reply_forms.echoes_listener(f.source_text, ctx.speaker_name or "", ctx.previous_turns) else f


# leaving first, then a clause of the speaker's own (session 15): "S has to go, S has a dog to walk"
_LEAVE_FIRST_RE = re.compile(r"(?i)^(?P<s>.+?)\s+(?:has|have|has\s+got|got)\s+to\s+(?:go|run)(?:\s+now)?\s*[,;]\s+(?P<rest>.+)$")


def _talk(f: ExtractedFact, ctx: ExtractionContext) -> ExtractedFact | None:
    """Greetings, thanks, apologies, wishes are not knowledge. "S has to go, S has a dog to walk":
    the leaving is cut and the clause after it, with its own subject, is judged on its own (the
    small_talk rows then drop a mere reason to leave)."""
    if not _free(f):
        return f
    m = _LEAVE_FIRST_RE.match(f.fact_text)
    if m and m.group("s") == f.subject and m.group("rest").startswith(f"{f.subject} "):
        f.fact_text = m.group("rest")
    if _GREETING_START_RE.match(f.fact_text) or (_TALK_RE.search(f.fact_text)
                                                 and not drop_repair.causative(f.fact_text, f.subject)):
        return None  # "It's made Caroline appreciate ..." is what happened to her, not thanks
    return f


_REACTION_RE = re.compile(
    r"(?i)^[^,]{0,40}?\b(?:is|was|am|are|'s|feels?|felt)\s+(?:(?:so|really|very|super|totally|just|truly)\s+)*"
    r"(?:glad|stoked|lucky|thrilled|thankful|grateful|sorry|relieved|impressed|amazed|blown\s+away|touched)\b"
    r"(?!\s+to\s+(?!hear|see|know|read|learn|have)[a-z]+\s+\w)"
    r"|\b(?:must(?!-)|sounds?\s+like|seems?|looks?\s+like|probably|deve\s+ser|parece)\b"
)


_HAVE_REACTION_RE = re.compile(
    r"(?i)^(?P<s>[^,]{1,40}?)\s+(?:is|was|feels?|felt)\s+(?:(?:so|really|very|super|truly)\s+)*"
    r"(?:lucky|grateful|thankful|blessed|glad)\s+to\s+have\s+(?P<o>\w.*)$")


def _have(f: ExtractedFact, ctx: ExtractionContext) -> ExtractedFact | None:
    """"Maria is so lucky to have her husband and kids" says what Maria has: the reaction
    wrapper is cut ("Maria has her husband and kids") before `_reaction` drops reactions."""
    m = _HAVE_REACTION_RE.match(f.fact_text)
    if _free(f) and m and m.group("s") == f.subject:
        f.fact_text = f"{f.subject} has {m.group('o')}"
    return f


def _reaction(f: ExtractedFact, ctx: ExtractionContext) -> ExtractedFact | None:
    """Reactions and guesses ("Maria is so glad ...", "It must have been special") are talk; a
    concrete plan hedged with "probably" ("S will probably go with the Thai caterer") is a
    decision, kept (write/plans.py)."""
    if not _free(f) or not _REACTION_RE.search(f.fact_text):
        return f
    hedged = _PROBABLY_RE.sub(r"\1 ", f.fact_text)
    if hedged != f.fact_text and not _REACTION_RE.search(hedged) and plans.keep(replace(f), ctx.addressee) is not None:
        return f
    return None


# "probably" right after a plan's modal ("will probably", "are probably going to")
_PROBABLY_RE = re.compile(r"(?i)\b(will|['’]ll|are|am|is)\s+probably\s+")


_MOOD_PHRASE_RE = re.compile(r"(?i)\b(?:" + "|".join(re.escape(x) for x in L.MOOD_PHRASES_EN) + r")\b")


def _mood(f: ExtractedFact, ctx: ExtractionContext) -> ExtractedFact | None:
    """A mood with no cause or object ("Gina is excited and kinda nervous", "Jon is hanging in
    there", "Melanie feels the same way") is how someone felt at one moment, not knowledge:
    after the subject, only copulas/feel verbs, intensifiers and mood words are left."""
    if not _free(f) or not f.fact_text.startswith(f.subject):
        return f
    rest = _MOOD_PHRASE_RE.sub(" great ", f.fact_text[len(f.subject):])
    words = _words(rest)
    if words and all(w in L.MOOD_FILLERS or w in L.MOOD_WORDS_EN for w in words) and any(
            w in L.MOOD_WORDS_EN for w in words):
        return None
    return f


_FEELING_RE = re.compile(
    r"(?i)^\s+(?:is|was|am|are|feels?|felt|has\s+been|had|have|got)\s+(?:(?:so|really|super|pretty|very|truly|totally"
    r"|just|all|such)\s+)*(?:" + "|".join(re.escape(x) for x in L.FEELING_HEADS_EN) + r")\b(?P<rest>.*)$")


def _vague(f: ExtractedFact, ctx: ExtractionContext) -> ExtractedFact | None:
    """A feeling whose object names nothing ("Melanie is excited for this new chapter", "Jon is
    looking forward to more cool memories", "Melanie is pretty proud of it", "Gina is excited
    to see where it takes her") is a reaction of the moment: no content word is left once the
    subject, the feeling and `lexicon.VAGUE_OBJECT_WORDS_EN` are taken away."""
    if not _free(f) or not f.fact_text.startswith(f.subject):
        return f
    m = _FEELING_RE.match(f.fact_text[len(f.subject):])
    if not m:
        return f
    names = {w.lower() for w in _WORD_RE.findall(f.subject)}
    left = {w for w in _content(m.group("rest")) if w.removesuffix("'s") not in names} - L.VAGUE_OBJECT_WORDS_EN
    return f if left else None


_SHOWN_RE = re.compile(
    r"(?i)^\s*(?:(?:really|just|totally|absolutely)\s+)?(?:loves?|likes?|adores?)\s+(?:(?:that|this|those|these)"
    r"(?:\s+[\w'’-]+){1,2}\W*$"
    # "loves how it's ...", "loves that it ...", "love it, ...": "it" is what was just shown
    r"|(?:(?:that|how)\s+)?(?:it|it's|it’s)\b"
    # "loves the red and blue", "loves all the yellow leaves", "loves the colors and the vibe": a photo's look
    r"|(?:all\s+)?the\s+(?:[\w'’-]+\s+){0,3}?(?:colou?rs?|vibes?|red|blue|green|yellow|pink|purple|orange|leaves"
    r"|details?|shading|texture|brushstrokes?|pic|photo|picture)\b)")


def _shown(f: ExtractedFact, ctx: ExtractionContext) -> ExtractedFact | None:
    """"Maria loves that painting", "Maria loves the red and blue", "Maria loves how it's both
    ..." are reactions to what the other speaker just showed, named only by a demonstrative, a
    pronoun or its look (colours, leaves, vibe): nothing to know later."""
    if _free(f) and f.fact_text.startswith(f.subject) and _SHOWN_RE.match(
            f.fact_text[len(f.subject):].removeprefix(" and others")):
        return None
    return f


def _generic_we(f: ExtractedFact, ctx: ExtractionContext) -> ExtractedFact | None:
    """Generic "we/us" ("Music brings us together", "Pets bring so much joy to us"), rewritten
    as "<speaker> and others" in a fact that does not open with its subject, is about people
    in general, not about the speaker; so is a present "we all are/have ..." ("We all have
    different paths"; a past "we all made our own pots" is an event and stays)."""
    if (_free(f) and not f.fact_text.startswith(f.subject) and f"{f.subject} and others" in f.fact_text
            and not drop_repair.causative(f.fact_text, f.subject)  # "It made Caroline think ... others"
            and not we_events.keeps(f.fact_text, f.subject)  # "The school asked S and others to sing"
            and not we_events.fronted_subject(f.fact_text, f.subject)):  # "On S's anniversary, S and others danced"
        return None
    if _free(f) and re.match(rf"{re.escape(f.subject)} and others (?:all (?:are|have|need|deserve)|are all)\b", f.fact_text):
        return None  # "We all have different paths", "We're all imperfect": people in general
    return f


_EMPTY_WORDS = frozenset(
    ["it", "that", "this", "them", "those", "these", "one", "thing", "things", "stuff", "others", "lot", "much", "way", "something", "everything", "anything", "isso", "isto", "coisa"]
)


def _named(f: ExtractedFact, ctx: ExtractionContext | None) -> bool:
    """The fact names an entity besides its subject and the two speakers ("Jon has been to
    Paris"): a place, a person, a product is content however short the sentence."""
    skip = {f.subject, *((ctx.speaker_name, ctx.addressee) if ctx else ())}
    return any(m and m not in skip and m in f.fact_text for m in f.mentions)


def _thin(f: ExtractedFact, ctx: ExtractionContext) -> ExtractedFact | None:
    """At least two content words besides the subject ("Caroline loved it" says nothing), or a
    named entity ("Jon has been to Paris")."""
    if not _free(f) or _named(f, ctx):
        return f
    names = {w.lower() for w in _WORD_RE.findall(f.subject)}
    rest = {w for w in _content(f.fact_text) if w.removesuffix("'s") not in names} - _EMPTY_WORDS
    return f if len(rest) >= 2 else None


_CATCH_UP_RE = re.compile(
    r"(?i)^[^.;:!?]{0,40}?\bsince\s+(?:[\w'’]+\s+){0,4}?(?:talked|spoke|chatted|caught\s+up|last\s+saw|saw\s+each\s+other)"
    r"\b(?:\s+(?:last|lately|recently))?\s*(?:[,;:–—]|\s-)?\s*"
    # about the talk itself: "X haven't talked in a few days", "X won't believe it - ...",
    # "A lot's been going on in X's life", "There's something X wants to tell Y"
    r"|^[^.;:!?]{0,40}?\b(?:(?:have|has)n['’]t\s+(?:talked|spoken|chatted|caught\s+up)\b[^,;:–—-]*"
    r"|won['’]t\s+believe\s+(?:it|this|what\b[^,;:–—-]*)|long\s+time\s+no\s+(?:see|talk)"
    r"|(?:a\s+lot|(?:so\s+)?much)(?:['’]s|\s+has)\s+(?:been\s+going\s+on|happened)\b[^,;:–—-]*"
    r"|there['’]s\s+something\s+[\w'’]+\s+wants?\s+to\s+tell\b[^,;:–—-]*)"
    r"\s*(?:[,;:–—]|\s-)?\s*")


def _catch_up(f: ExtractedFact, ctx: ExtractionContext) -> ExtractedFact | None:
    """A clause about the conversation itself ("Since we last spoke, Maria took her kids to a
    park", "A lot's happened since we talked") is talk: it is cut, and a fact that is nothing
    else is dropped."""
    m = _CATCH_UP_RE.match(f.fact_text)
    if not m or not _free(f):
        return f
    rest = f.fact_text[m.end():].strip(" ,-–—")
    if ctx.speaker_name and f.subject != ctx.speaker_name and rest.startswith(ctx.speaker_name + " "):
        f.subject = ctx.speaker_name  # "you won't believe it - I got ...": the rest is the speaker's
    if not rest.startswith(f.subject) or len(rest.split()) < 3:
        return None
    f.fact_text = rest
    return f


def _long(f: ExtractedFact, ctx: ExtractionContext) -> ExtractedFact | None:
    """More than MAX_WORDS words: keep the first clause (>= 4 words) if short enough."""
    if _free(f) and _SUBORDINATE_RE.match(f.fact_text) and len(f.fact_text.split()) > 12:
        return None  # "Whenever Caroline hears this jam, ...": the first clause is not the fact
    if len(f.fact_text.split()) <= MAX_WORDS:
        return f
    start = len(f.subject) + 1 if f.fact_text.startswith(f.subject) else 0
    if _SUBORDINATE_RE.match(f.fact_text):
        return None
    # clause boundaries, and a second clause that restarts with the subject ("... and S is ...");
    # a head that stops on a copula, article or degree word is no clause (write/clause_ends.py)
    cuts = [(m.start(), m.group(0)) for m in _CLAUSE_CUT_RE.finditer(f.fact_text, start)]
    restart = clause_ends.subject_restart(f.fact_text, f.subject, start)
    if restart is not None:
        cuts = sorted(cuts + [(restart, " and ")])
    for at, cut in cuts:
        head = f.fact_text[:at].strip(" ,")
        if clause_ends.degree_so(f.fact_text, at, cut) or clause_ends.dangling(head) \
                or (not start and clause_ends.fronted_head(head, f.subject)):
            continue
        if len(head.split()) >= 4:
            if len(head.split()) <= MAX_WORDS:
                f.fact_text = head
                return f
            break
    # no clause boundary: cut before the last purpose/means phrase ("to get more attention for
    # her store") that leaves a head of at least 8 words
    heads = [f.fact_text[: m.start()] for m in _PURPOSE_CUT_RE.finditer(f.fact_text, start)]
    heads = [h for h in heads if 8 <= len(h.split()) <= MAX_WORDS and not clause_ends.dangling(h)]
    if heads:
        f.fact_text = heads[-1].strip(" ,")
        return f
    return None


# attitude negations ("won't quit", "can't wait", "wasn't easy"); habits ("doesn't drink coffee") stay
_NEGATION_RE = re.compile(r"(?i)\b(?:won't|can't|couldn't|wouldn't|wasn't|isn't|weren't|never)\b")
# what could/should/would be; plans ("is going to", "plans to", "wants to") are facts and stay
# "had better" is a modal too (write/agreement.py writes "I'd better" so; it was "would better")
_MODAL_RE = re.compile(r"(?i)\b(?:can|could|would|should|will|'ll|'d|gonna|gotta|(?:has|have|need|needs)\s+to|had\s+b(?:etter|est)|pode|poderia|deveria)\b")
# a resolve with no content ("Jon is determined to make it work", "Gina is up for the challenge")
_RESOLVE_RE = re.compile(
    r"(?i)\b(?:is|am|are|was|feels?|felt|stays?|staying)\s+(?:(?:so|really|very|super|totally|still|always)\s+)*"
    r"(?:determined|ready|keen|pumped|motivated|nervous|focused|positive|up\s+for\s+(?:the|a|any)\s+challenge)"
    # nothing after it, or only "to <verb> it/this/that ..." or "and ...": no content of its own
    r"(?:\s+to\s+[\w'’]+\s+(?:it|this|that)\b.*|\s+and\b.*|\W*)$")
# a purpose, reason or embedded clause ("... so Gina can reach more people", "... what people
# would think", "... how we should accept change") does not make a fact modal
_SUBCLAUSE_RE = re.compile(r"(?i)\s+(?:so|because|since|if|when|'cause|cause|how|what|why|where|who|which|that)\s+.*$")
# a memory ("will never forget the day ...", "will always remember ...") is a fact, not a modal
_MEMORY_RE = re.compile(r"(?i)\b(?:will|'ll|’ll)\s+(?:never\s+forget|always\s+remember)\b")


# "can picture / can't imagine ...": what one imagines, an attitude with content, not an ability
_IMAGINE_RE = re.compile(r"(?i)\s+(?:can|can['’]t|cannot|could|couldn['’]t)\s+(?:really\s+|even\s+)?(?:picture|imagine)\b"
                         # with an object of two words or more ("life without it"); "can't imagine how
                         # hard that was" is empathy, "can't imagine" alone says nothing
                         r"(?=\s+(?!(?:how|what|why|where|who|that|if|it|this)\b)[\w'’]+\s+\S)")


# a skill: "S can make ramen and scrambled eggs" says what S is able to do, a fact about S, not what
# could be (session 18); the verbs of a skill one learns
_SKILL_VERBS = ("make|cook|bake|speak|play|sing|draw|paint|swim|drive|knit|sew|code|program|dance|ride|fix|build"
                "|juggle|ski|skate|surf|climb")
_SKILL_RE = re.compile(r"^(?P<subj>.+?) can (?:(?:only|totally|also|actually|even|now)\s+)?(?:" + _SKILL_VERBS
                       + r")\s+(?!(?:it|that|this|them|you|one|some|something|anything|sure)\b)[a-z]")


def _skill(main: str, subject: str) -> bool:
    """Whether the modal of `main` is a skill of the fact's own subject ("S can make ramen and
    scrambled eggs"), the one modal a careful person writes down; no other modal in the fact."""
    m = _SKILL_RE.match(main)
    if m is None or m.group("subj") != subject:
        return False
    return len(_MODAL_RE.findall(main)) == 1


def _unanchored(f: ExtractedFact, ctx: ExtractionContext) -> ExtractedFact | None:
    """Precision: a free-text fact of attitude ("Jon won't quit", "it wasn't easy") or of what
    could or will be ("Jon will keep going") is kept only when anchored to something checkable:
    a resolved date or another named entity. On the dev conversations such facts matched an
    annotator's fact 24-27 % of the time against ~50 % for the rest."""
    if not _free(f) or f.event_date is not None or f.mentions:
        return f
    from arandu_pipelines.write.attitudes import keep

    if (kept := keep(f)) is not None:
        return kept  # resolve and outlook with something named (write/attitudes.py KINDS)
    if (plan := plans.keep(f, ctx.addressee)) is not None:
        return plan  # a concrete plan: "S will put together a group of eight singers" (write/plans.py)
    t = _MEMORY_RE.sub(" remembers", f.fact_text)
    t = _IMAGINE_RE.sub(" imagines", t)
    main = _SUBCLAUSE_RE.sub("", t)
    if _NEGATION_RE.search(main) or (_MODAL_RE.search(main) and not _skill(main, f.subject)):
        return None
    if (r := _RESOLVE_RE.search(main)) is not None:
        # "S's inspection is on October 3rd, and S is nervous": the mood is a conjoined clause
        # after a statement of its own, which stays (write/thing_antecedents.py, session 14)
        head = _RESOLVED_TAIL_RE.match(main[: r.start()])
        if head is None or t != f.fact_text:
            return None
        f.fact_text = head.group("head")
    return f


# the clause before ", and <subject> " when a content-free resolve follows it
_RESOLVED_TAIL_RE = re.compile(r"(?s)^(?P<head>\S.{10,}?\S),?\s+(?:and|but)\s+(?:[\w'’]+\s+){1,2}$")


def _fragment(f: ExtractedFact, ctx: ExtractionContext) -> ExtractedFact | None:
    """A fragment that states nothing about anyone ("Almost as silly as when S ...", "Time flies-
    feels like ...") is dropped (write/plain_forms.py, session 13)."""
    return None if plain_forms.fragment(f.fact_text) else f


def _exclamation(f: ExtractedFact, ctx: ExtractionContext) -> ExtractedFact | None:
    """An exclamation after a dash ("... - let's make it happen") is cut (write/precision.py)."""
    if _free(f):
        f.fact_text = precision.cut_exclamation(f.fact_text)
    return f


def _precision_check(flt: precision.Filter) -> Callable[[ExtractedFact, ExtractionContext], ExtractedFact | None]:
    """A `precision.FILTERS` row as a check over free-text facts, named as its drop reason."""
    def check(f: ExtractedFact, ctx: ExtractionContext) -> ExtractedFact | None:
        if _free(f) and flt.name in precision.ENABLED and flt.drops(f.fact_text, f.subject):
            return None
        return f
    check.__name__ = flt.name
    return check


def _wellformed_check(row: wellformed.Row) -> Callable[[ExtractedFact, ExtractionContext], ExtractedFact | None]:
    """A `wellformed.ROWS` row as a check over free-text facts, named as its form (session 17)."""
    def check(f: ExtractedFact, ctx: ExtractionContext) -> ExtractedFact | None:
        if not _free(f):
            return f
        text = wellformed.apply(row, f.fact_text, f.subject)
        if text is None:
            return None
        f.fact_text = text
        return f
    check.__name__ = row.name
    return check


def _small_talk_check(row: small_talk.Row) -> Callable[[ExtractedFact, ExtractionContext], ExtractedFact | None]:
    """A `small_talk.ROWS` row as a check over free-text facts, named `small_talk_<row>`."""
    def check(f: ExtractedFact, ctx: ExtractionContext) -> ExtractedFact | None:
        dated = f.event_date is not None
        if _free(f) and row.name in small_talk.ENABLED and small_talk.drops(row, f.fact_text, f.subject, ctx.addressee, dated):
            plain = small_talk.lasting_reason(f.fact_text, f.subject) if row.closing else None
            if plain is None:
                return None
            f.fact_text = plain  # "S has two kids to take care of" (the reason to leave) -> "S has two kids"
        return f
    check.__name__ = f"small_talk_{row.name}"
    return check


CHECKS: tuple[Callable[[ExtractedFact, ExtractionContext], ExtractedFact | None], ...] = (
    _chat_form, _caption, _question, _catch_up, _addressee, _second_person, _glued_date, _show_tail, _opener,
    *(_wellformed_check(row) for row in wellformed.ROWS), _long, _relative, _subject_first,
    _shape, _fragment,
    _request, _wish, _echo, _talk, _have, _reaction, _mood, _vague, _shown, _generic_we, _thin, _unanchored, _exclamation,
    *(_precision_check(flt) for flt in precision.FILTERS),
    *(_small_talk_check(row) for row in small_talk.ROWS),
)


# ---- checks over the message's facts -------------------------------------------------------------
def _dedupe(facts: list[ExtractedFact]) -> list[ExtractedFact]:
    """Near-duplicates within one message collapse: a free-text fact whose content words are
    >= 70 % inside what the facts kept before it say about the same subject (rule facts first)
    is dropped ("Clara left Vertix and joined Orion Tech" beside "Clara left Vertix" and
    "Clara joined Orion Tech")."""
    order = sorted(range(len(facts)), key=lambda i: (_free(facts[i]), i))
    bags = [_content(f.fact_text) for f in facts]
    said: dict[str, set[str]] = {}
    kept: list[int] = []
    for i in order:
        known = said.setdefault(facts[i].subject, set())
        if _free(facts[i]) and bags[i] and len(bags[i] & known) / len(bags[i]) >= 0.7:
            continue
        kept.append(i)
        known |= bags[i]
    return [facts[i] for i in sorted(kept)]


# a stated belief ("S believes X is necessary") is as typed as an event or a plan (session 13)
_TYPED_GENERIC_KINDS = frozenset(["generic.belief"])


def _rank(f: ExtractedFact, ctx: ExtractionContext | None = None) -> tuple[int, int, int, int, int]:
    """Which free-text fact of a subject to keep: one that opens with its subject (a time word or
    a pair may lead: write/cap_choice.py), whose deed is no placeholder ("did the thing"), typed
    (event/plan/preference), naming an entity besides the speakers or a number / date (`_named`:
    "Jon has been to Paris" over "Jon has been looking at different places ..."), with the most
    content words."""
    first = cap_choice.opens_with(f.fact_text, f.subject) or drop_repair.causative(f.fact_text, f.subject) is not None
    typed = f.attribute_key is not None or f.rule_kind in _TYPED_GENERIC_KINDS
    return (int(first), int(not cap_choice.vague_deed(f.fact_text)), int(typed),
            int(_named(f, ctx) or cap_choice.dated(f.fact_text, _content)), min(len(_content(f.fact_text)), 10))


def _cap(facts: list[ExtractedFact], ctx: ExtractionContext | None = None) -> list[ExtractedFact]:
    """At most MAX_FREE_FACTS free-text facts per subject per message, the best by `_rank`."""
    heads = _SPLICE_HEADS.get() or {}
    by_subject: dict[str, list[int]] = {}
    for i, f in enumerate(facts):
        if _free(f) and not (id(f) in heads and any(g is heads[id(f)] for g in facts)):
            by_subject.setdefault(f.subject, []).append(i)
    keep = {i for ids in by_subject.values()
            for i in sorted(ids, key=lambda i: _rank(facts[i], ctx), reverse=True)[:MAX_FREE_FACTS]}
    # a splice's tail shares its head's slot: kept with the head, gone with it
    keep |= {i for i, f in enumerate(facts) if id(f) in heads and any(facts[k] is heads[id(f)] for k in keep)}
    return [f for i, f in enumerate(facts) if not _free(f) or i in keep]


def refine(result: ExtractionResult, ctx: ExtractionContext,
           generic: list[ExtractedFact] | None = None) -> None:
    """Apply `CHECKS` to every fact, then collapse near-duplicates and cap free-text facts.
    `generic`: the facts that restate a sentence rather than match a rule (strict checks)."""
    token = _GENERIC.set(frozenset(id(f) for f in (generic or [])))
    heads = _SPLICE_HEADS.set({})
    try:
        _refine(result, ctx)
    finally:
        _GENERIC.reset(token)
        _SPLICE_HEADS.reset(heads)


_AND_PAST_RE = re.compile(r",? and (?=(?:[a-z]+ed|" + "|".join(sorted(L.IRREGULAR_PAST_EN)) + r") )")


# a modal and no past verb in the head: "can make ramen and scrambled eggs" is one fact ("scrambled"
# is an adjective of a noun the modal's verb takes), not two past actions
_HEAD_MODAL_RE = re.compile(r"^\s+(?:\w+\s+)?(?:can|could|will|would|should|might|must)\s")
_PAST_WORD_RE = re.compile(r"\b(?:[a-z]+ed|" + "|".join(sorted(L.IRREGULAR_PAST_EN)) + r")\b")
_LINKED_RE = re.compile(r"(?i)^\s+(?:\w+\s+)?(?:felt|feels?|was|were|is|are|seemed|looked|became|got|has\s+been)\s+\w+$")
# "staying resilient and focused is key": the "-ed" word is an adjective in the subject of a
# copula, not a second action (a past verb is never followed by "is")
_COPULA_NEXT_RE = re.compile(r"(?i)^\S+\s+(?:is|are|was|were|isn['’]t|aren['’]t)\b")


# "hopes to build a family and put a roof over kids": a past form equal to the base form
# (`_SAME_FORM`) after "and" is the base verb governed by the head's "hope/want/plan ... to", no
# action of its own (a split gave "S put a roof over kids", a hope stored as a deed); "wants to
# learn the violin and joined a class" still splits: "joined" can only be a past
_SAME_FORM = frozenset(["put", "cut", "set", "let", "hit", "read", "quit", "cost", "hurt", "shut", "spread", "bet",
                        "cast", "burst", "fit", "split", "upset", "broadcast"])
_GOVERNED_RE = re.compile(r"(?i)\b(?:hop|want|plan|need|tr|decid|intend|lik|lov|wish|mean|aim|going|try|trying)"
                          r"(?:e|es|ed|s|ing|ies|ied)?\s+to\s+\w+")


def _action_subject(f: ExtractedFact) -> str | None:
    """What a split-off second action repeats as its subject: the subject itself, the pair it
    opens ("Tyler and Rose", "Jake and his wife"; write/conjoined_subjects.py), or the subject's
    relative / pet it opens with ("Ann's nephew"; write/kin_antecedents.possessed_subject)."""
    from arandu_pipelines.write.conjoined_subjects import pair_subject
    from arandu_pipelines.write.kin_antecedents import possessed_subject
    from arandu_pipelines.write.person_antecedents import ANIMATE_NOUNS

    pair = pair_subject(f.fact_text, f.subject)
    if pair is not None:
        return pair
    rest = f.fact_text[len(f.subject):]
    if rest[:1] in ("'", "’"):
        return possessed_subject(f.fact_text, f.subject, ANIMATE_NOUNS)
    return f.subject


def _split_actions(facts: list[ExtractedFact]) -> list[ExtractedFact]:
    """"Assistant created the note X and scheduled a reminder" is two facts: a free-text fact
    whose subject did two past actions joined by "and" is split at the second verb, unless that
    verb is a base form a "wants/hopes/plans to" of the first part governs (`_GOVERNED_RE`), or
    the first part has a modal and no past verb ("S can make ramen and scrambled eggs": an
    adjective, session 18)."""
    out: list[ExtractedFact] = []
    for f in facts:
        # the subject must be the name itself: "Lena's dad fell and bruised his hip" is the dad's,
        # and a split made it "Lena bruised his hip" (session 14, possessive14)
        m = _AND_PAST_RE.search(f.fact_text) if _free(f) and f.fact_text.startswith(f.subject) \
            and not f.fact_text[len(f.subject):].startswith(("'s", "’s")) else None
        head, tail = (f.fact_text[: m.start()], f.fact_text[m.end():]) if m else ("", "")
        if (not m or len(_content(head)) < 3 or len(_content(tail)) < 2 or _LINKED_RE.match(head[len(f.subject):])
                or _COPULA_NEXT_RE.match(tail) or wellformed.other_subject(head, f.subject)
                or (tail.split(" ", 1)[0].lower() in _SAME_FORM and _GOVERNED_RE.search(head))
                or (_HEAD_MODAL_RE.match(head[len(f.subject):]) and not _PAST_WORD_RE.search(head[len(f.subject):]))):
            out.append(f)  # "felt liberated and empowered": two adjectives of one verb, not two actions
            continue
        lead = _action_subject(f)
        if lead is None:  # "Ann's daughter ... and joined": no owner's noun to repeat, one fact
            out.append(f)
            continue
        second = replace(f, fact_text=f"{lead} {tail}", mentions=[x for x in f.mentions if x in tail])
        f.fact_text, f.mentions = head, [x for x in f.mentions if x in head]
        out += [f, second]
        _GENERIC.set(_GENERIC.get() | {id(second)})
    return out


def _split_clauses(facts: list[ExtractedFact]) -> list[ExtractedFact]:
    """A free-text fact too long to keep whole whose subject goes on with a second clause of its
    own (", and [on Wednesday nights] S takes ...") is two facts: `_long` would cut at the first
    clause boundary and lose the second clause (write/later_clauses.py). A rendered date counts
    no words here: `_glued_date` takes it out before `_long` measures the fact."""
    out: list[ExtractedFact] = []
    for f in facts:
        parts = later_clauses.split(f.fact_text, f.subject) \
            if _free(f) and len(_RENDERED_DATE_RE.sub("", f.fact_text).split()) > MAX_WORDS else None
        if parts is None:
            out.append(f)
            continue
        head, tail = parts
        second = replace(f, fact_text=tail, mentions=[x for x in f.mentions if x in tail])
        f.fact_text, f.mentions = head, [x for x in f.mentions if x in head]
        out += [f, second]
        _GENERIC.set(_GENERIC.get() | {id(second)})
    return out


def _split_splices(facts: list[ExtractedFact]) -> list[ExtractedFact]:
    """"S did X, she's Y" is two statements joined by a comma: the head stays, the tail becomes a
    fact of its own about whom it names, or is cut when it only comments on the head or names
    nobody the head can give it (write/comma_splices.py, session 17)."""
    out: list[ExtractedFact] = []
    for f in facts:
        parts = comma_splices.split(f.fact_text, f.subject) if _free(f) and "," in f.fact_text else None
        if parts is None or f.subject not in parts.head:
            out.append(f)
            continue
        news = [(parts.subject, parts.tail)] if parts.tail is not None and parts.subject is not None else []
        out += _head_and_news(f, parts.head, news)
    return out


def _head_and_news(f: ExtractedFact, head: str, news: list[tuple[str, str]]) -> list[ExtractedFact]:
    """`f` cut to `head`, and each (subject, text) split off it as a fact of its own that shares
    its head's cap slot (`_SPLICE_HEADS`): the comma splices' and the clause tails' split."""
    old_mentions = f.mentions
    f.fact_text, f.mentions = head, [x for x in old_mentions if x in head]
    out = [f]
    for who, text in news:
        second = replace(f, subject=who, fact_text=text,
                         mentions=[x for x in [*old_mentions, f.subject] if x in text and x != who])
        out.append(second)
        _GENERIC.set(_GENERIC.get() | {id(second)})
        heads = _SPLICE_HEADS.get()
        if heads is not None:
            heads[id(second)] = f
    return out


def _split_tails(facts: list[ExtractedFact]) -> list[ExtractedFact]:
    """", which is a terrible pun", ", so life has been a whirlwind" are the speaker's comment on
    the fact: cut; ", so/but <Name> <verb> ..." is a named subject's news of its own: a fact that
    shares its head's cap slot (write/clause_tails.py, session 18)."""
    out: list[ExtractedFact] = []
    for f in facts:
        cut = clause_tails.split(f.fact_text, f.subject) if _free(f) and "," in f.fact_text else None
        if cut is None:
            out.append(f)
            continue
        out += _head_and_news(f, cut.head, list(cut.news))
    return out


# bench/fact_drops.py: when set, every dropped fact is appended as (reason, text before the check)
AUDIT: ContextVar[list[tuple[str, str]] | None] = ContextVar("arandu_refine_audit", default=None)


def _refine(result: ExtractionResult, ctx: ExtractionContext) -> None:
    audit = AUDIT.get()
    result.facts = _split_clauses(_split_actions(_split_splices(_split_tails(result.facts))))
    kept: list[ExtractedFact] = []
    dropped: dict[str, int] = {}
    for f in result.facts:
        cur: ExtractedFact | None = f
        for check in CHECKS:
            before = f.fact_text
            cur = check(f, ctx)
            if cur is None:
                dropped[check.__name__.lstrip("_")] = dropped.get(check.__name__.lstrip("_"), 0) + 1
                if audit is not None:
                    audit.append((check.__name__.lstrip("_"), before))
                held_back.hold(check.__name__.lstrip("_"), replace(f, fact_text=chat_forms.late(
                    readability.pronouns(plain_forms.polish(before, ctx.speaker_name, ctx.addressee), f.subject,
                                        source=f.source_text))))  # a fact-less message's last resort
                break
            f = cur  # the next check sees this one's output
        if cur is not None and cur.fact_text.strip():
            kept.append(cur)
    n = len(kept)
    before_dedupe = kept
    kept = _dedupe(kept)
    if len(kept) < n:
        dropped["duplicate"] = n - len(kept)
    n = len(kept)
    before_cap = kept
    kept = _cap(kept, ctx)
    if len(kept) < n:
        dropped["cap"] = n - len(kept)
    if audit is not None:
        audit += [("duplicate", f.fact_text) for f in before_dedupe if not any(f is k for k in before_cap)]
        audit += [("cap", f.fact_text) for f in before_cap if not any(f is k for k in kept)]
    kept, elaborations = elaboration.drop(kept, _free)
    if elaborations:
        dropped["elaboration"] = len(elaborations)
        if audit is not None:
            audit += [("elaboration", f.fact_text) for _, f in elaborations]
    named: list[ExtractedFact] = []
    for f in kept:  # "It made S feel X" -> "S felt X", "Pretty proud of X" -> "S is pretty proud of X"
        text = fact_shape.name_subject(f.fact_text, f.subject) if _free(f) else f.fact_text
        if text is None:
            dropped["shape"] = dropped.get("shape", 0) + 1
            if audit is not None:
                audit.append(("shape", f.fact_text))
            continue
        if text != f.fact_text:
            f.fact_text = text[:1].upper() + text[1:]
        named.append(f)
    kept = named
    for f in kept:  # "Melanie took Melanie's kids" -> "Melanie took their kids" (write/readability.py);
        # "Melanie's son's ok" -> "... son is ok", "made this painting" -> "made a painting" (write/plain_forms.py)
        text = plain_forms.polish(f.fact_text, ctx.speaker_name, ctx.addressee)
        text = wellformed.closing_adverb(text) if _free(f) else text  # ", thankfully" (session 18)
        f.fact_text = chat_forms.late(readability.pronouns(text, f.subject, source=f.source_text))
    result.facts = kept
    if dropped:
        result.trace.setdefault("refine_dropped", dropped)

"""Days of a month said without a year: "the fourteenth of October", "May 25th", "on the 3rd".

People name a day of the calendar far more often than they write a full date: "We leave on the
fourteenth of October and come home on the twenty-eighth", "It's on Sept. 9", "I'm driving out on
the twenty-sixth", "by the end of the month". A fact that kept those words would not say when
anything happens (which October? the twenty-sixth of what?), and the event would lose its date.
`temporal.find_relative_dates(..., calendar=True)` asks this module for such phrases and renders
them like the relative ones ("on 14 October 2023").

The year (and, for a bare "the 26th", the month) is not in the words: it comes from the message
date and the clause's tense. A plan or a present ("we leave", "it's on", "I'm driving") points
forward, to the first such day on or after the message date (strictly after, for a bare day); a
past verb ("we went", "it was") points back, to the last one on or before it. Grammar decides, by
the tense marker nearest the date in its sentence; with none the date is taken as upcoming
(schedules are said in the present).

Why regexes and not `dateparser`: dateparser parses a phrase well once it is found, but finding is
the hard part here. Its `search_dates` takes "second" ("the second one"), "may" and bare numbers
for dates, knows no "the twenty-sixth" without a month, and costs milliseconds per sentence on a
path that runs on every sentence. The phrases here are a closed grammar (ordinal or number +
month, in either order, or a bare ordinal after a preposition); the calendar arithmetic is
`datetime.date`, which also rejects impossible days ("the thirty-first of April" is left alone).

Left alone on purpose: "the first time", "first of all", "the second one", "on the second floor"
(a bare ordinal must follow a preposition and must not be followed by a noun), birthdays and
anniversaries and "born on ..." (a yearly date or one whose year is unknown, not an event of this
year), "every 5th of the month", lowercase "may"/"march" (verbs), and holiday names (a
capitalised ordinal word, "the Fourth of July", or a day of a month before a noun, "the 4th of July
weekend").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

from arandu_pipelines.write.lexicon import IRREGULAR_PAST_EN, MONTHS_PT


@dataclass(frozen=True)
class CalendarDate:
    """One day-of-month phrase found in a text, with the day (or part of a month) it denotes."""

    span: tuple[int, int]
    phrase: str
    start: date
    end: date  # exclusive
    granularity: str  # day | month | year
    lang: str  # en | pt
    qualifier: str = ""  # "" | start | middle | end ("by the end of the month")


# ---------------------------------------------------------------------------------------------
# Words
# ---------------------------------------------------------------------------------------------

_UNITS_ORD = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
              "seventh": 7, "eighth": 8, "ninth": 9}
_UNITS_CARD = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
               "eight": 8, "nine": 9}
_TEENS_ORD = {"tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
              "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19,
              "twentieth": 20, "thirtieth": 30}
_TEENS_CARD = {"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
               "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30}


def _compose(units: dict[str, int], whole: dict[str, int]) -> dict[str, int]:
    """"twenty-sixth" / "twenty sixth" / "twentysixth" and "thirty-first" (no day past 31)."""
    out = dict(whole)
    for tens_word, tens in (("twenty", 20), ("thirty", 30)):
        for w, n in units.items():
            if tens + n > 31:
                continue
            for sep in ("-", " ", ""):
                out[f"{tens_word}{sep}{w}"] = tens + n
    return out


ORDINAL_DAYS: dict[str, int] = _compose(_UNITS_ORD, {**_UNITS_ORD, **_TEENS_ORD})
CARDINAL_DAYS: dict[str, int] = _compose(_UNITS_CARD, {**_UNITS_CARD, **_TEENS_CARD})

_MONTHS_EN: dict[str, int] = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
    "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9,
    "sept": 9, "sep": 9, "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
}
_MONTHS_PT: dict[str, int] = {m: i + 1 for i, m in enumerate(MONTHS_PT)} | {"marco": 3}
# months that are also common lowercase words ("I may", "we march", "mar" in Portuguese):
# matched only when written with a capital
_CASE_SENSITIVE = frozenset({"may", "march", "mar"})
_PT_ORD = {"primeiro": 1, "1º": 1, "1°": 1}


def _alt(words: Iterable[str]) -> str:
    """Regex alternation, longest first."""
    return "|".join(re.escape(w) for w in sorted(words, key=lambda w: (-len(w), w)))


_ORD_W = _alt(ORDINAL_DAYS)
_CARD_W = _alt(CARDINAL_DAYS)
_ABBREVIATED = ("jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec")
# an abbreviation may take a dot ("Sept. 9"); a full name may not, so it never eats a full stop
_MON_EN = (rf"(?:{_alt(m for m in _MONTHS_EN if m not in _ABBREVIATED)}"
           rf"|(?:{_alt(_ABBREVIATED)})\.?)")
_MON_PT = _alt(_MONTHS_PT)
_DIGIT_ORD = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)"
_DIGIT = r"(?:[12]\d|3[01]|0?[1-9])"
_YEAR = r"(?:19|20)\d\d"
_F = re.IGNORECASE

# words that may follow a day without making it the modifier of a noun ("on the 5th at noon" vs
# "on the second floor"); anything else after a bare or month-first day rejects it
_FOLLOW_OK = frozenset({
    "and", "or", "but", "so", "at", "to", "till", "until", "through", "when", "because", "then", "too", "as",
    "for", "in", "with", "from", "if", "this", "next", "last", "i", "we", "he", "she", "they", "you", "it",
    "my", "our", "his", "her", "their", "me", "us", "him", "them", "is", "was", "are", "were", "will",
    "would", "which", "that", "where", "after", "before", "around", "again", "instead", "already", "though",
    "now", "also", "only", "just", "either", "both", "about", "of", "on", "by", "since", "while", "once",
    "do", "did", "can", "could", "should", "its", "your", "there", "she's", "he's", "it's", "we're",
    "i'm", "they're", "we'll", "i'll",
})

_DAY_MONTH_EN = re.compile(
    rf"\b(?:the\s+)?(?P<day>{_DIGIT_ORD}|{_DIGIT}|{_ORD_W})(?:\s+of)?\s+(?P<mon>{_MON_EN})(?![\w'’])"
    rf"(?:,?\s+(?P<year>{_YEAR})\b)?",
    _F,
)
_MONTH_DAY_EN = re.compile(
    rf"\b(?P<mon>{_MON_EN})\s+(?:the\s+)?(?P<day>{_DIGIT_ORD}|{_DIGIT}|{_ORD_W}|{_CARD_W})(?![\w'’:%/.-]\w)(?![\w'’])"
    rf"(?:,?\s+(?P<year>{_YEAR})\b)?",
    _F,
)
_PREPS_EN = r"on|by|until|till|from|before|after|since|through|for|around"
_PREP_BEFORE = re.compile(rf"\b(?:{_PREPS_EN}|of)\s+$", _F)
_BARE_EN = re.compile(
    rf"\b(?P<prep>{_PREPS_EN}|and|or|to)\s+(?P<d>(?:the\s+)?(?P<day>{_DIGIT_ORD})|the\s+(?P<word>{_ORD_W}))(?![\w'’])"
    rf"(?P<rel>\s+of\s+(?:the|this|next|last)\s+month\b)?",
    _F,
)
_PART_EN = re.compile(
    r"\b(?:the\s+)?(?P<q>end|beginning|start|middle)\s+of\s+"
    rf"(?:(?:the|this)\s+(?P<unit>month|year)|(?P<rel>next|last)\s+(?P<unit2>month|year)|(?P<mon>{_MON_EN})(?![\w'’]))",
    _F,
)
_PT_DAY = rf"(?P<day>{_DIGIT}|primeiro|1º|1°)"
_DAY_MONTH_PT = re.compile(
    rf"\b(?:(?:n?o\s+)?dia\s+)?{_PT_DAY}\s+de\s+(?P<mon>{_MON_PT})(?![\w'’])(?:\s+de\s+(?P<year>{_YEAR})\b)?",
    _F,
)
_BARE_PT = re.compile(rf"\b(?:n?o\s+)?dia\s+(?P<day>{_DIGIT}|primeiro)(?![\w'’:%/-]|[.,]\d)(?!\s+de\s)", _F)

_TRIGGER = re.compile(
    rf"\d|\b(?:{_alt(ORDINAL_DAYS)}|end|beginning|start|middle|primeiro)\b|\b(?:{_alt(_MONTHS_EN)})\b", _F
)
# a yearly date or one whose year is not this one: "my birthday is on the 3rd of May", "born on
# 5 May", "every 5th of the month", "aniversário"
_SKIP_SENTENCE = re.compile(
    r"\b(?:birthdays?|anniversar(?:y|ies)|born|every|each|annual|yearly|anivers[aá]rios?|nasc\w*|todo\s+dia|todos\s+os)\b",
    _F,
)

# ---------------------------------------------------------------------------------------------
# Tense: the marker nearest the date in its sentence
# ---------------------------------------------------------------------------------------------

_FUTURE_EN = (r"will|['’]ll|shall|going\s+to|gonna|wanna|plan(?:s|ning|ned)?\s+(?:to|on)|hop(?:e|es|ing)\s+to"
              r"|wants?\s+to|can['’]?t\s+wait|looking\s+forward|next|upcoming|coming\s+up|soon|scheduled|due"
              r"|(?:am|is|are|['’]m|['’]s|['’]re)\s+(?:\w+\s+)?\w+ing(?:\s+[a-z]+ed)?|until|till|by")
# an irregular past after "to", a modal or "don't" is a base form ("don't read it until after
# the 18th" is upcoming): "read", "put", "set" are spelled the same in both
_BASE_FORM_BEFORE = (r"(?<!n['’]t\s)(?<!\bnot\s)(?<!\bto\s)(?<!\bdo\s)(?<!\bwill\s)(?<!['’]ll\s)"
                     r"(?<!\bcan\s)(?<!\bmust\s)(?<!\bshould\s)(?<!\bwould\s)(?<!\bcould\s)")
_PAST_EN = (rf"was|were|did|had|ago|last|since|used\s+to|{_BASE_FORM_BEFORE}(?:{_alt(IRREGULAR_PAST_EN)})"
            r"|(?<!\bis\s)(?<!\bare\s)(?<!\bbe\s)(?<!\bam\s)(?<!\bbeen\s)(?<!['’]s\s)(?<!['’]re\s)(?<!['’]m\s)"
            r"(?<!\bhave\s)(?<!\bhas\s)(?<!['’]ve\s)(?<!\bget\s)(?<!\bgets\s)(?<!\bgetting\s)[a-z]{3,}ed")
_FUTURE_PT = r"vou|vai|vamos|vão|vao|pretend\w+|planej\w+|quero|quer|espero|próxim[oa]|proxim[oa]|até|ate|\w+r[aá]|\w+rei|\w+remos"
_PAST_PT = (r"(?!(?:sou|vou|estou|europeu|museu|chapéu|ou|meu|seu|teu|eu)\b)"
            r"(?:fui|foi|fomos|foram|era|estava|tive|teve|fiz|fez|desde|passad[oa]|[a-zçãé]{2,}(?:ei|ou|eu|iu))")
_TENSE_EN = re.compile(rf"(?<![\w'’])(?:(?P<f>{_FUTURE_EN})|(?P<p>{_PAST_EN}))(?![\w'’])", _F)
_TENSE_PT = re.compile(rf"(?<![\w'’])(?:(?P<f>{_FUTURE_PT})|(?P<p>{_PAST_PT}))(?![\w'’])", _F)
_SENT_BREAK = re.compile(r"[.!?;]\s|\n")
_WEAK_FUTURE = re.compile(r"until|till|by|até|ate", _F)
_CLAUSE_BREAK = re.compile(
    r"\b(?:and|but|so|then|while|because|e|mas)\s+(?=(?:i|we|he|she|they|you|eu|n[oó]s|ele|ela|eles|elas)\b|(?-i:[A-Z]))", _F)


def _is_future(text: str, lo: int, hi: int, lang: str) -> bool:
    """Whether the clause around text[lo:hi] points forward: the tense marker nearest the date,
    looking back first then ahead, within its sentence; no marker reads as upcoming."""
    breaks = [m.end() for m in _SENT_BREAK.finditer(text, 0, lo)]
    s0 = breaks[-1] if breaks else 0
    nxt = _SENT_BREAK.search(text, hi)
    s1 = nxt.start() if nxt else len(text)
    tense = _TENSE_PT if lang == "pt" else _TENSE_EN
    # the look back stops at a new clause with its own subject (a pronoun or a name, as in the
    # rewritten fact "Maria got back and Maria leaves"): "I got back yesterday and I leave on the
    # 14th of October" (the 14th is upcoming: "got" belongs to the clause before)
    clauses = [m.end() for m in _CLAUSE_BREAK.finditer(text, s0, lo)]
    before = list(tense.finditer(text, clauses[-1] if clauses else s0, lo))
    # "until"/"by" point forward only when no verb of the clause says otherwise: "I stayed until
    # the 3rd" is past, "I'm here until the 3rd" upcoming
    verbs = [m for m in before if not _WEAK_FUTURE.fullmatch(m.group(0))]
    if verbs:
        return verbs[-1].group("f") is not None
    if before:
        return True
    after = tense.search(text, hi, s1)
    if after:
        return after.group("f") is not None
    return True


# ---------------------------------------------------------------------------------------------
# Calendar arithmetic
# ---------------------------------------------------------------------------------------------


def _safe(y: int, m: int, d: int) -> date | None:
    try:
        return date(y, m, d)
    except ValueError:
        return None


def _month_day(d0: date, month: int, day: int, future: bool) -> date | None:
    """The day/month nearest d0 in the direction of the tense (on or after / on or before).
    None when the day never exists in that month ("the thirty-first of April")."""
    if _safe(2024, month, day) is None:  # 2024: a leap year, so 29 February exists
        return None
    step = 1 if future else -1
    for k in range(9):
        cand = _safe(d0.year + step * k, month, day)
        if cand is not None and (cand >= d0 if future else cand <= d0):
            return cand
    return None


def _bare_day(d0: date, day: int, future: bool) -> date | None:
    """The next such day strictly after d0 (future) or the last one strictly before it (past),
    skipping months that have no such day (a past "the 31st" on 8 May is 31 March)."""
    y, m = d0.year, d0.month
    for _ in range(14):
        cand = _safe(y, m, day)
        if cand is not None and (cand > d0 if future else cand < d0):
            return cand
        m += 1 if future else -1
        if m == 13:
            y, m = y + 1, 1
        elif m == 0:
            y, m = y - 1, 12
    return None


def _add_months(d: date, n: int) -> date:
    idx = d.year * 12 + d.month - 1 + n
    return date(idx // 12, idx % 12 + 1, 1)


def _part(first: date, unit: str, q: str) -> tuple[date, date]:
    """[start, end) of the start/middle/end third of a month or year."""
    if unit == "month":
        nxt = _add_months(first, 1)
        cuts = {"start": (first, first.replace(day=11)), "middle": (first.replace(day=11), first.replace(day=21)),
                "end": (first.replace(day=21), nxt)}
        return cuts[q]
    y = first.year
    cuts = {"start": (date(y, 1, 1), date(y, 5, 1)), "middle": (date(y, 5, 1), date(y, 9, 1)),
            "end": (date(y, 9, 1), date(y + 1, 1, 1))}
    return cuts[q]


# ---------------------------------------------------------------------------------------------
# Finding
# ---------------------------------------------------------------------------------------------


def _day_number(raw: str) -> int | None:
    low = re.sub(r"\s+", " ", raw.lower())
    if low in ORDINAL_DAYS:
        return ORDINAL_DAYS[low]
    if low in CARDINAL_DAYS:
        return CARDINAL_DAYS[low]
    if low in _PT_ORD:
        return _PT_ORD[low]
    digits = re.match(r"\d+", low)
    return int(digits.group(0)) if digits else None


def _month_ok(raw: str) -> int | None:
    """Month number; a month that is also a lowercase word must be capitalised."""
    word = raw.rstrip(".")
    low = word.lower()
    if low in _CASE_SENSITIVE and not word[:1].isupper():
        return None
    return _MONTHS_EN.get(low)


_ABBREV_DAY_RE = re.compile(rf"(?<![\w'’])(?:{_alt(_ABBREVIATED)})\.\s+{_DIGIT}(?:st|nd|rd|th)?(?!\w)", _F)


def abbreviated_month_dot(text: str, dot: int) -> bool:
    """Whether the "." at `dot` closes a month abbreviation followed by a day ("on Sept. 9"): no
    sentence ends there (the sentence splitter asks)."""
    start = dot - 4 if dot >= 4 and text[dot - 4:dot].lower() == "sept" else dot - 3
    m = _ABBREV_DAY_RE.match(text, start) if start >= 0 else None
    return m is not None and not _follows_noun(text, m.end())  # "I talked to Jan. 5 people came"


def _holiday_name(day: str) -> bool:
    """A capitalised ordinal WORD is a name ("the Fourth of July", "the Fifth of November", "on the
    Fourth"), a holiday whose year the words do not give; a day is written "the fourth of July" or
    "the 4th". The capital counts at a sentence start too: the holiday is said "Fourth of July was
    fun", a plain day rarely opens a sentence without "the"/"on"."""
    return day[:1].isupper() and day.lower() in ORDINAL_DAYS


def _follows_noun(text: str, end: int, lower: bool = False) -> bool:
    """A content word right after the day makes it a modifier ("the second floor", "on 3rd Street");
    `lower`: only a lowercase one (after a month, "on the 5th of May Maria flies" is a date)."""
    m = re.match(r"[ \t]+([A-Za-z'’]+)", text[end:end + 40])
    if m is None or (lower and not m.group(1).islower()):
        return False
    return m.group(1).lower() not in _FOLLOW_OK


def _day_month_en(text: str, d0: date, found: list[CalendarDate]) -> None:
    """"the fourteenth of October", "14th October", "on 5 May" (digits need a preposition or year)."""
    for m in _DAY_MONTH_EN.finditer(text):
        month = _month_ok(m.group("mon"))
        day = _day_number(m.group("day"))
        if month is None or day is None:
            continue
        if m.group("day").lower() in ORDINAL_DAYS and " of " not in m.group(0).lower():
            continue  # "the first May we spent together": an ordinal word is a day only with "of"
        if _holiday_name(m.group("day")) or (m.group("year") is None and _follows_noun(text, m.end(), lower=True)):
            continue  # "the Fourth of July weekend", "the 4th of July party": a holiday's name, not this year's day
        if m.group("day").isdigit() and m.group("year") is None and not _PREP_BEFORE.search(
            text, max(0, m.start() - 12), m.start()
        ):
            continue  # "5 May" needs a preposition or a year: "I scored 5 May ..." is too weak
        _add(found, text, m, "en", d0, month, day, m.group("year"))


def _month_day_en(text: str, d0: date, found: list[CalendarDate]) -> None:
    """"August 8th", "Sept. 9", "October fourteen" (a number word only after a preposition)."""
    for m in _MONTH_DAY_EN.finditer(text):
        month = _month_ok(m.group("mon"))
        day = _day_number(m.group("day"))
        if month is None or day is None or (m.group("year") is None and _follows_noun(text, m.end())):
            continue
        if m.group("day").lower() in CARDINAL_DAYS and not _PREP_BEFORE.search(text, max(0, m.start() - 12), m.start()):
            continue  # "in May two friends came": a number word after a month is a day only after "on"
        _add(found, text, m, "en", d0, month, day, m.group("year"))


def _bare_en(text: str, d0: date, found: list[CalendarDate]) -> None:
    """"on the 3rd", "by the twenty-sixth", "on the 5th of next month"."""
    for m in _BARE_EN.finditer(text):
        day = _day_number(m.group("day") or m.group("word"))
        if m.group("word") and _holiday_name(m.group("word")):
            continue  # "fireworks on the Fourth": the holiday's name
        if day is None or (m.group("rel") is None and _follows_noun(text, m.end())):
            continue
        if m.group("rel") is None and re.match(r"\s+of\b", text[m.end():]):
            continue  # "the first of many", "the second of two" (a month after "of" matched above)
        lo = m.start("d")
        if m.group("prep").lower() in ("and", "or", "to") and not _date_just_before(found, m.start()):
            continue  # "the 8th and 9th", "from the 8th to the 12th" only: "I want to the fifth ..." is no date
        rel = (m.group("rel") or "").lower()
        if rel:
            first = _add_months(d0.replace(day=1), 1 if "next" in rel else -1 if "last" in rel else 0)
            when = _safe(first.year, first.month, day)
        else:
            when = _bare_when(found, text, lo, m.end(), d0, day, "en")
        if when is not None:
            found.append(CalendarDate((lo, m.end()), text[lo:m.end()], when, when + timedelta(days=1), "day", "en"))


def _parts_en(text: str, d0: date, found: list[CalendarDate]) -> None:
    """"by the end of the month", "at the start of next year", "the end of October"."""
    for m in _PART_EN.finditer(text):
        q = m.group("q").lower()
        q = "start" if q == "beginning" else q
        if m.group("mon"):
            month = _month_ok(m.group("mon"))
            when = None if month is None else _month_day(
                d0.replace(day=1), month, 1, _is_future(text, m.start(), m.end(), "en"))
            if when is not None:
                lo_d, hi_d = _part(when, "month", q)
                found.append(CalendarDate(m.span(), m.group(0), lo_d, hi_d, "month", "en", q))
            continue
        unit = (m.group("unit") or m.group("unit2")).lower()
        off = {"next": 1, "last": -1}.get((m.group("rel") or "").lower(), 0)
        first = _add_months(d0.replace(day=1), off) if unit == "month" else date(d0.year + off, 1, 1)
        lo_d, hi_d = _part(first, unit, q)
        found.append(CalendarDate(m.span(), m.group(0), lo_d, hi_d, unit, "en", q))


def _portuguese(text: str, d0: date, found: list[CalendarDate]) -> None:
    """"14 de outubro", "no dia 14 de outubro", "no dia 14"."""
    for m in _DAY_MONTH_PT.finditer(text):
        day = _day_number(m.group("day"))
        month = _MONTHS_PT.get(m.group("mon").lower())
        if day is not None and month is not None:
            _add(found, text, m, "pt", d0, month, day, m.group("year"))
    for m in _BARE_PT.finditer(text):
        day = _day_number(m.group("day"))
        when = None if day is None else _bare_when(found, text, m.start(), m.end(), d0, day, "pt")
        if when is not None:
            found.append(CalendarDate(m.span(), m.group(0), when, when + timedelta(days=1), "day", "pt"))


def _bare_when(found: list[CalendarDate], text: str, lo: int, hi: int, d0: date, day: int, lang: str) -> date | None:
    """A bare day continues the calendar of a month-named date before it ("on the 14th of October
    and home on the 28th": 28 October), or takes the month of the date it is listed with ("the 8th
    and 9th of June"); alone, the tense picks the next or the last such day."""
    later = _listed_with(found, text, hi)
    if later is not None:
        same = _safe(later.year, later.month, day)
        if same is not None and same <= later:
            return same
        prev = _add_months(later.replace(day=1), -1)
        return _safe(prev.year, prev.month, day)
    anchor = _anchor_before(found, lo)
    if anchor is not None:
        return _bare_day(anchor - timedelta(days=1), day, True)
    return _bare_day(d0, day, _is_future(text, lo, hi, lang))


# month-named forms first: a bare day reads the calendar of the month-named date before it
_FINDERS = (_day_month_en, _month_day_en, _parts_en, _portuguese, _bare_en)


def find_calendar_dates(text: str, d0: date) -> list[CalendarDate]:
    """Every day-of-month phrase in `text`, resolved against the message date `d0`, in text order.

    Overlaps keep the earliest then longest phrase ("the 14th of October" over "the 14th")."""
    if not text or not _TRIGGER.search(text):
        return []
    found: list[CalendarDate] = []
    for finder in _FINDERS:
        finder(text, d0, found)
    found.sort(key=lambda c: (c.span[0], -(c.span[1] - c.span[0])))
    out: list[CalendarDate] = []
    last_end = -1
    for c in found:
        if c.span[0] < last_end:
            continue
        if _SKIP_SENTENCE.search(_sentence_of(text, c.span[0], c.span[1])):
            continue
        out.append(c)
        last_end = c.span[1]
    return out


_LIST_JOINER = re.compile(r"\s*(?:and|or|to|through|till|until|-|–)\s*(?:the\s+)?", _F)


def _listed_with(found: list[CalendarDate], text: str, hi: int) -> date | None:
    """The day of a month-named date joined to text[:hi] by "and"/"or"/"to"/"-" ("the 8th and 9th
    of June", "the 8th to the 12th of June")."""
    joiner = _LIST_JOINER.match(text, hi)
    if joiner is None:
        return None
    for c in found:
        if c.granularity == "day" and joiner.end() <= c.span[0] <= joiner.end() + 4 and c.span[0] >= hi:
            return c.start
    return None


def _date_just_before(found: list[CalendarDate], lo: int) -> bool:
    """Whether a found date ends right before `lo` (a range or list of days: "the 8th and 9th")."""
    return any(0 <= lo - c.span[1] <= 2 for c in found)


def _anchor_before(found: list[CalendarDate], lo: int) -> date | None:
    """The day of the nearest month-named date before `lo` in the same text: a bare day after it
    continues its calendar ("leave on the 14th of October and come back on the 28th")."""
    best: CalendarDate | None = None
    for c in found:
        if c.granularity == "day" and c.span[1] <= lo and (best is None or c.span[1] > best.span[1]):
            best = c
    return best.start if best is not None else None


def _sentence_of(text: str, lo: int, hi: int) -> str:
    breaks = [m.end() for m in _SENT_BREAK.finditer(text, 0, lo)]
    nxt = _SENT_BREAK.search(text, hi)
    return text[(breaks[-1] if breaks else 0):(nxt.start() if nxt else len(text))]


def _add(found: list[CalendarDate], text: str, m: re.Match[str], lang: str, d0: date, month: int, day: int,
         year: str | None) -> None:
    """Resolve one month + day phrase (with its own year, or the tense's) and keep it if valid."""
    if year is not None:
        when = _safe(int(year), month, day)
    else:
        when = _month_day(d0, month, day, _is_future(text, m.start(), m.end(), lang))
    if when is not None:
        found.append(CalendarDate(m.span(), m.group(0), when, when + timedelta(days=1), "day", lang))

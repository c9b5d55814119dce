"""Relative-date resolution for chat messages (English and Portuguese).

"yesterday", said in a message on 8 May 2023, means 7 May 2023; a stored fact that kept the word
"yesterday" would be wrong forever after. So relative phrases are resolved against the message's
time (`occurred_at`, read in the user's time zone) and rewritten into absolute dates in the
message's own language: "on 7 May 2023" / "em 7 de maio de 2023".

Public API:
- `find_relative_dates(text, occurred_at, tz="UTC", calendar=False) -> list[TemporalMention]`
  (`calendar=True`: also days of a month said without a year, from `calendar_dates`)
- `absolutize(text, occurred_at, tz="UTC") -> tuple[str, datetime | None]`
- `absolutize_with_spans(text, occurred_at, tz="UTC") -> tuple[str, list[tuple[int, int, TemporalMention]]]`
- `render(mention, bare=False) -> str`
- `resolve_timezone(name) -> tzinfo`

Conventions: weeks start on Monday; "last <weekday>" is the most recent such day strictly before
the message date; "this <weekday>" is that day in the message's calendar week; English "next
<weekday>" is that day in the following calendar week, Portuguese "<dia> que vem"/"próximo <dia>"
the first such day after the message date; "last weekend" is the weekend of the previous calendar
week; "N weeks ago" resolves to the week containing the date N*7 days back. Vague quantities ("a
few days ago", "alguns dias atrás", "the other day") are marked approximate and rendered relative
to the message date ("a few days before 8 May 2023").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta, tzinfo
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from arandu_pipelines.write.calendar_dates import find_calendar_dates
from arandu_pipelines.write.lexicon import MONTHS_EN, MONTHS_PT, WEEKDAYS_EN


@dataclass(frozen=True)
class TemporalMention:
    """One relative-date phrase found in a text and the absolute range it denotes."""

    span: tuple[int, int]  # character offsets of `phrase` in the searched text
    phrase: str
    start: datetime  # inclusive, local midnight in the resolution time zone
    end: datetime  # exclusive
    granularity: str  # day | week | month | year
    lang: str  # en | pt: the language the phrase is written in (and rendered in)
    approximate: bool = False
    qualifier: str = ""  # weekend | morning | afternoon | evening | night | vague quantity text
    anchor: date | None = None  # message date, for approximate renderings
    # a day of a month said without a year ("the 14th of October", from `calendar_dates`), not a
    # relative phrase: fact_quality may keep it in the fact text (a relative one moves to event_date)
    calendar: bool = False


# ---------------------------------------------------------------------------------------------
# Numbers and names
# ---------------------------------------------------------------------------------------------

_NUM_EN: dict[str, int] = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15,
    "twenty": 20, "thirty": 30,
}
_NUM_PT: dict[str, int] = {
    "um": 1, "uma": 1, "dois": 2, "duas": 2, "três": 3, "tres": 3, "quatro": 4, "cinco": 5,
    "seis": 6, "sete": 7, "oito": 8, "nove": 9, "dez": 10, "onze": 11, "doze": 12,
    "quinze": 15, "vinte": 20, "trinta": 30,
}
_VAGUE_EN: dict[str, int] = {"a few": 3, "a couple of": 2, "a couple": 2, "several": 4, "few": 3}
# a hedge before an exact quantity ("about five years ago") makes it approximate: the phrase is
# resolved to the day n units back and written relative to the message date, hedge kept
# ("about five years before 28 August 2023"), like the vague quantities
_HEDGES_EN: tuple[str, ...] = ("about", "around", "roughly", "almost", "nearly", "approximately", "like", "over")
_VAGUE_PT: dict[str, int] = {"alguns": 3, "algumas": 3, "uns": 3, "umas": 3, "poucos": 3, "poucas": 3}

_WEEKDAYS_EN: dict[str, int] = {
    "monday": 0, "mon": 0, "tuesday": 1, "tue": 1, "tues": 1, "wednesday": 2, "wed": 2,
    "thursday": 3, "thu": 3, "thur": 3, "thurs": 3, "friday": 4, "fri": 4, "saturday": 5,
    "sat": 5, "sunday": 6, "sun": 6,
}
_WEEKDAYS_PT: dict[str, int] = {
    "segunda": 0, "terça": 1, "terca": 1, "quarta": 2, "quinta": 3, "sexta": 4,
    "sábado": 5, "sabado": 5, "domingo": 6,
}
_UNIT_EN: dict[str, str] = {"day": "day", "week": "week", "month": "month", "year": "year"}
_UNIT_PT: dict[str, str] = {
    "dia": "day", "dias": "day", "semana": "week", "semanas": "week", "mês": "month",
    "mes": "month", "meses": "month", "ano": "year", "anos": "year",
}
_PARTS_EN: dict[str, str] = {"morning": "morning", "afternoon": "afternoon", "evening": "evening", "night": "night"}
_PARTS_PT: dict[str, str] = {
    "manhã": "morning", "manha": "morning", "cedo": "morning", "tarde": "afternoon", "noite": "night",
}


def _alt(words: list[str] | tuple[str, ...]) -> str:
    """Regex alternation, longest first so "tues" wins over "tue"."""
    return "|".join(re.escape(w) for w in sorted(words, key=lambda w: (-len(w), w)))


_NUM_EN_RE = rf"(?:\d{{1,3}}|{_alt(list(_NUM_EN))}|{_alt(list(_VAGUE_EN))})"
_NUM_PT_RE = rf"(?:\d{{1,3}}|{_alt(list(_NUM_PT))}|{_alt(list(_VAGUE_PT))})"
_WD_EN_RE = _alt(list(_WEEKDAYS_EN))
_WD_PT_RE = _alt(list(_WEEKDAYS_PT))

# ---------------------------------------------------------------------------------------------
# Date arithmetic
# ---------------------------------------------------------------------------------------------


@lru_cache(maxsize=64)
def resolve_timezone(name: str) -> tzinfo:
    """ZoneInfo for `name`; unknown names fall back to UTC rather than failing an import."""
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def _local_date(occurred_at: datetime, tz: tzinfo) -> date:
    """The calendar date of the message for the user (naive datetimes are taken as local)."""
    if occurred_at.tzinfo is None:
        return occurred_at.date()
    return occurred_at.astimezone(tz).date()


def _midnight(d: date, tz: tzinfo) -> datetime:
    return datetime(d.year, d.month, d.day, tzinfo=tz)


def _week_start(d: date) -> date:
    return d - timedelta(days=d.weekday())


def _add_months(d: date, months: int) -> date:
    """First day of the month `months` away from d's month."""
    idx = d.year * 12 + (d.month - 1) + months
    return date(idx // 12, idx % 12 + 1, 1)


def _range(start: date, granularity: str) -> tuple[date, date]:
    """[start, end) of the day/week/month/year beginning at `start`."""
    if granularity == "day":
        return start, start + timedelta(days=1)
    if granularity == "week":
        return start, start + timedelta(days=7)
    if granularity == "month":
        return start, _add_months(start, 1)
    return start, date(start.year + 1, 1, 1)


def _period(d0: date, unit: str, offset: int) -> tuple[date, str]:
    """Start of the day/week/month/year `offset` units from the one containing d0."""
    if unit == "day":
        return d0 + timedelta(days=offset), "day"
    if unit == "week":
        return _week_start(d0) + timedelta(days=7 * offset), "week"
    if unit == "month":
        return _add_months(d0, offset), "month"
    return date(d0.year + offset, 1, 1), "year"


def _ago(d0: date, unit: str, n: int) -> tuple[date, str]:
    """Start of the unit containing the date n units before d0 ("two weeks ago")."""
    if unit == "day":
        return d0 - timedelta(days=n), "day"
    if unit == "week":
        return _week_start(d0 - timedelta(days=7 * n)), "week"
    if unit == "month":
        return _add_months(d0, -n), "month"
    return date(d0.year - n, 1, 1), "year"


# ---------------------------------------------------------------------------------------------
# Pattern handlers: each gets the match and the message date, returns
# (start date, granularity, approximate, qualifier) or None when the phrase does not resolve.
# ---------------------------------------------------------------------------------------------

_Resolved = tuple[date, str, bool, str]
_Handler = Callable[["re.Match[str]", date], "_Resolved | None"]


def _h_day(offset: int) -> _Handler:
    def handler(m: re.Match[str], d0: date) -> _Resolved:
        return d0 + timedelta(days=offset), "day", False, ""

    return handler


def _h_part(offset: int, group: str, parts: dict[str, str]) -> _Handler:
    def handler(m: re.Match[str], d0: date) -> _Resolved:
        part = parts.get(m.group(group).lower(), "night") if group else "night"
        return d0 + timedelta(days=offset), "day", False, part

    return handler


def _h_unit_rel(offsets: dict[str, int], units: dict[str, str]) -> _Handler:
    """"last/this/next week|month|year" and the Portuguese equivalents."""

    def handler(m: re.Match[str], d0: date) -> _Resolved | None:
        rel = re.sub(r"\s+", " ", m.group("rel").lower())
        unit = units[m.group("unit").lower()]
        start, gran = _period(d0, unit, offsets[rel])
        return start, gran, False, ""

    return handler


def _h_weekend(offsets: dict[str, int]) -> _Handler:
    def handler(m: re.Match[str], d0: date) -> _Resolved:
        rel = re.sub(r"\s+", " ", m.group("rel").lower())
        saturday = _week_start(d0) + timedelta(days=5 + 7 * offsets[rel])
        return saturday, "day", False, "weekend"

    return handler


def _h_weekday(offsets: dict[str, str], days: dict[str, int]) -> _Handler:
    """last/this/next <weekday>; the mode decides which calendar week is meant."""

    def handler(m: re.Match[str], d0: date) -> _Resolved:
        mode = offsets[re.sub(r"\s+", " ", m.group("rel").lower())]
        wd = days[m.group("wd").lower().rstrip(".")]
        if mode == "last":
            back = (d0.weekday() - wd) % 7 or 7
            return d0 - timedelta(days=back), "day", False, ""
        if mode == "this":
            return _week_start(d0) + timedelta(days=wd), "day", False, ""
        if mode == "upcoming":
            ahead = (wd - d0.weekday()) % 7 or 7
            return d0 + timedelta(days=ahead), "day", False, ""
        return _week_start(d0) + timedelta(days=7 + wd), "day", False, ""

    return handler


def _h_ago(nums: dict[str, int], vague: dict[str, int], units: dict[str, str], sign: int) -> _Handler:
    """"N units ago" (sign=-1) / "in N units" (sign=+1); vague quantities are approximate."""

    def handler(m: re.Match[str], d0: date) -> _Resolved | None:
        raw = re.sub(r"\s+", " ", m.group("n").lower())
        unit = units[m.group("unit").lower()]
        if raw in vague:
            n, approx = vague[raw], True
        elif raw.isdigit():
            n, approx = int(raw), False
        else:
            n, approx = nums[raw], False
        if n <= 0 or n > 200:
            return None
        hedge = (m.groupdict().get("hedge") or "").lower()
        if hedge:  # "about five years ago": approximate, the hedge and the quantity are kept
            return d0 + timedelta(days=sign * n * _UNIT_DAYS[unit]), "day", True, f"{hedge} {raw}"
        if sign > 0:
            start, gran = _ago(d0, unit, -n)
        else:
            start, gran = _ago(d0, unit, n)
        if approx:
            return d0 + timedelta(days=sign * n * _UNIT_DAYS[unit]), "day", True, raw
        return start, gran, False, ""

    return handler


_UNIT_DAYS: dict[str, int] = {"day": 1, "week": 7, "month": 30, "year": 365}


def _h_other_day(m: re.Match[str], d0: date) -> _Resolved:
    return d0 - timedelta(days=3), "day", True, "few"


# ---------------------------------------------------------------------------------------------
# Pattern tables (compiled once)
# ---------------------------------------------------------------------------------------------

_EN_WEEKDAY_MODES = {"last": "last", "past": "last", "this": "this", "next": "next", "coming": "upcoming", "this coming": "upcoming"}
_PT_WEEKDAY_MODES = {
    "passada": "last", "passado": "last", "que vem": "upcoming", "próxima": "upcoming",
    "proxima": "upcoming", "próximo": "upcoming", "proximo": "upcoming", "esta": "this",
    "essa": "this", "este": "this", "esse": "this", "nesta": "this", "nessa": "this",
    "neste": "this", "nesse": "this",
}
_PT_REL_OFFSETS = {
    "passada": -1, "passado": -1, "que vem": 1, "próxima": 1, "proxima": 1, "próximo": 1,
    "proximo": 1, "esta": 0, "essa": 0, "este": 0, "esse": 0, "nesta": 0, "nessa": 0,
    "neste": 0, "nesse": 0, "retrasada": -2, "retrasado": -2,
}
_F = re.IGNORECASE

_PATTERNS_EN: tuple[tuple[re.Pattern[str], _Handler], ...] = (
    (re.compile(r"\b(?:the\s+)?day\s+before\s+yesterday\b", _F), _h_day(-2)),
    (re.compile(r"\b(?:the\s+)?day\s+after\s+tomorrow\b", _F), _h_day(2)),
    (re.compile(r"\byesterday\s+(?P<p>morning|afternoon|evening|night)\b", _F), _h_part(-1, "p", _PARTS_EN)),
    (re.compile(r"\btomorrow\s+(?P<p>morning|afternoon|evening|night)\b", _F), _h_part(1, "p", _PARTS_EN)),
    (re.compile(r"\blast\s+night\b", _F), _h_part(-1, "", _PARTS_EN)),
    (re.compile(r"\bthis\s+(?P<p>morning|afternoon|evening)\b", _F), _h_part(0, "p", _PARTS_EN)),
    (re.compile(r"\btonight\b", _F), _h_part(0, "", _PARTS_EN)),
    (re.compile(r"\byesterday\b", _F), _h_day(-1)),
    (re.compile(r"\btoday\b", _F), _h_day(0)),
    (re.compile(r"\btomorrow\b", _F), _h_day(1)),
    (re.compile(r"\b(?P<rel>last|this|next)\s+weekend\b", _F), _h_weekend({"last": -1, "this": 0, "next": 1})),
    (
        re.compile(r"\b(?P<rel>last|this|next|past)\s+(?P<unit>week|month|year)\b", _F),
        _h_unit_rel({"last": -1, "past": -1, "this": 0, "next": 1}, _UNIT_EN),
    ),
    (
        re.compile(rf"\b(?P<rel>this\s+coming|last|this|next|past|coming)\s+(?P<wd>{_WD_EN_RE})\b\.?", _F),
        _h_weekday(_EN_WEEKDAY_MODES, _WEEKDAYS_EN),
    ),
    (
        re.compile(rf"\b(?:(?P<hedge>{_alt(list(_HEDGES_EN))})\s+)?(?P<n>{_NUM_EN_RE})\s+(?P<unit>day|week|month|year)s?"
                   rf"\s+ago\b", _F),
        _h_ago(_NUM_EN, _VAGUE_EN, _UNIT_EN, -1),
    ),
    (
        re.compile(rf"\bin\s+(?P<n>{_NUM_EN_RE})\s+(?P<unit>day|week|month|year)s?(?!\s+(?:ago|old))\b", _F),
        _h_ago(_NUM_EN, _VAGUE_EN, _UNIT_EN, 1),
    ),
    (re.compile(r"\bthe\s+other\s+day\b", _F), _h_other_day),
)

_PT_UNITS = r"dias?|semanas?|m[eê]s|meses|anos?"
_PT_PARTS = r"manhã|manha|tarde|noite"
_PATTERNS_PT: tuple[tuple[re.Pattern[str], _Handler], ...] = (
    (re.compile(r"\banteontem\b", _F), _h_day(-2)),
    (re.compile(r"\bdepois\s+de\s+amanhã\b", _F), _h_day(2)),
    (re.compile(rf"\bontem\s+(?:(?:à|a|de)\s+)?(?P<p>{_PT_PARTS})\b", _F), _h_part(-1, "p", _PARTS_PT)),
    (re.compile(rf"\bamanhã\s+(?:(?:à|a|de)\s+)?(?P<p>{_PT_PARTS})\b", _F), _h_part(1, "p", _PARTS_PT)),
    (re.compile(rf"\bhoje\s+(?:(?:à|a|de)\s+)?(?P<p>{_PT_PARTS}|cedo)\b", _F), _h_part(0, "p", _PARTS_PT)),
    (re.compile(rf"\b(?:n?est[ae]|n?ess[ae])\s+(?P<p>{_PT_PARTS})\b", _F), _h_part(0, "p", _PARTS_PT)),
    (re.compile(r"\bontem\b", _F), _h_day(-1)),
    (re.compile(r"\bhoje\b", _F), _h_day(0)),
    (re.compile(r"\bamanhã\b", _F), _h_day(1)),
    (
        re.compile(r"\b(?:n?o\s+)?fi(?:m|nal)\s+de\s+semana\s+(?P<rel>passado|que\s+vem)\b", _F),
        _h_weekend({"passado": -1, "que vem": 1}),
    ),
    (
        re.compile(r"\b(?:n?o\s+)?(?P<rel>próximo|proximo|n?este|n?esse)\s+fi(?:m|nal)\s+de\s+semana\b", _F),
        _h_weekend({"próximo": 1, "proximo": 1, "este": 0, "esse": 0, "neste": 0, "nesse": 0}),
    ),
    (
        re.compile(
            r"\b(?:(?:n|d)?[ao]\s+)?(?P<unit>semana|m[eê]s|ano)\s+(?P<rel>passad[oa]|retrasad[oa]|que\s+vem)\b", _F
        ),
        _h_unit_rel(_PT_REL_OFFSETS, _UNIT_PT),
    ),
    (
        re.compile(r"\b(?:(?:n|d)?[ao]\s+)?(?P<rel>próxim[oa]|proxim[oa]|n?est[ae]|n?ess[ae])\s+(?P<unit>semana|m[eê]s|ano)\b", _F),
        _h_unit_rel(_PT_REL_OFFSETS, _UNIT_PT),
    ),
    (
        re.compile(rf"\b(?:(?:n|d)?[ao]\s+)?(?P<wd>{_WD_PT_RE})(?:-feira)?\s+(?P<rel>passad[oa]|que\s+vem)\b", _F),
        _h_weekday(_PT_WEEKDAY_MODES, _WEEKDAYS_PT),
    ),
    (
        re.compile(
            rf"\b(?:(?:n|d)?[ao]\s+)?(?P<rel>próxim[oa]|proxim[oa]|n?est[ae]|n?ess[ae])\s+(?P<wd>{_WD_PT_RE})(?:-feira)?\b",
            _F,
        ),
        _h_weekday(_PT_WEEKDAY_MODES, _WEEKDAYS_PT),
    ),
    (
        re.compile(rf"\b(?:há|ha|faz)\s+(?P<n>{_NUM_PT_RE})\s+(?P<unit>{_PT_UNITS})(?:\s+atrás)?\b", _F),
        _h_ago(_NUM_PT, _VAGUE_PT, _UNIT_PT, -1),
    ),
    (
        re.compile(rf"\b(?P<n>{_NUM_PT_RE})\s+(?P<unit>{_PT_UNITS})\s+atrás(?!\w)", _F),
        _h_ago(_NUM_PT, _VAGUE_PT, _UNIT_PT, -1),
    ),
    (
        re.compile(rf"\bdaqui\s+a\s+(?P<n>{_NUM_PT_RE})\s+(?P<unit>{_PT_UNITS})\b", _F),
        _h_ago(_NUM_PT, _VAGUE_PT, _UNIT_PT, 1),
    ),
)

# Per-pattern gates: substrings (of the lowercased text) at least one of which a match contains;
# a pattern whose gates are all absent is not run. Same order as the pattern tables.
_WD_EN_GATES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_WD_PT_GATES = ("segunda", "terça", "terca", "quarta", "quinta", "sexta", "sábado", "sabado", "domingo")
_GATES_EN: tuple[tuple[str, ...], ...] = (
    ("yesterday",), ("tomorrow",), ("yesterday",), ("tomorrow",), ("night",), ("this",), ("tonight",),
    ("yesterday",), ("today",), ("tomorrow",), ("weekend",), ("week", "month", "year"), _WD_EN_GATES,
    ("ago",), ("in",), ("other",),
)
_GATES_PT: tuple[tuple[str, ...], ...] = (
    ("anteontem",), ("amanhã",), ("ontem",), ("amanhã",), ("hoje",), ("manhã", "manha", "tarde", "noite"),
    ("ontem",), ("hoje",), ("amanhã",), ("semana",), ("semana",), ("semana", "mês", "mes", "ano"),
    ("semana", "mês", "mes", "ano"), _WD_PT_GATES, _WD_PT_GATES, ("há", "ha", "faz"), ("atrás",), ("daqui",),
)
assert len(_GATES_EN) == len(_PATTERNS_EN) and len(_GATES_PT) == len(_PATTERNS_PT)
_ALL_GATES: tuple[str, ...] = tuple(dict.fromkeys(g for gs in _GATES_EN + _GATES_PT for g in gs))

# Cheap gate: a phrase can only match where one of these does (one search instead of ~35).
_WD_ANY = f"(?:{_WD_EN_RE}|{_WD_PT_RE})"
_TRIGGER = re.compile(
    r"\b(?:yesterday|today|tomorrow|tonight|ago|other\s+day"
    rf"|(?:last|this|next|past|coming)\s+(?:night|morning|afternoon|evening|weekend|week|month|year|coming|{_WD_EN_RE})"
    rf"|in\s+{_NUM_EN_RE}\s"
    r"|anteontem|ontem|hoje|amanhã|atrás|daqui|que\s+vem|passad[oa]|retrasad[oa]|próxim[oa]|proxim[oa]"
    r"|(?:há|ha|faz)\s|(?:n?est[ae]|n?ess[ae])\s+(?:manhã|manha|tarde|noite|semana|m[eê]s|ano|fi(?:m|nal)|"
    rf"{_WD_PT_RE}))",
    _F,
)

# ---------------------------------------------------------------------------------------------
# Finding
# ---------------------------------------------------------------------------------------------


# "(it) feels like (just) yesterday", "seems like only yesterday": figurative, not a date (a
# resolved and then cut date left "feels like Melanie put this dress on", a different claim)
_FIGURATIVE_BEFORE = re.compile(r"\b(?:feels?|felt|seems?|seemed)\s+like\s+(?:it\s+was\s+)?(?:just\s+|only\s+)?$", _F)
# "Kayla's last year at home", "my first week at the bakery": after a possessive, "last year" is a
# noun phrase's head, no date (session 17, wellformed17: the date's removal left "miss Kayla's at
# home"); a name's "'s" only ("the party's next Saturday" is "is"), never a pronoun's contraction, nor "her"
# (an object in "I saw her last week")
_POSSESSED_BEFORE = re.compile(
    r"(?:\b(?!(?:It|That|He|She|There|What|Here|Who|Where|How|Everything|Nothing|Something|Today|Tomorrow|Tonight)['’])"
    r"[A-Z][a-z]+['’]s|\b(?i:my|your|his|our|their))\s+$")

# "in N units" after a negation or a "first"/superlative of the same clause measures a span ("the
# first holiday in three years", "I haven't seen her in two years"), no date N units ahead (was
# event_date 2026; session 18, dates18)
_DURATION_BEFORE = re.compile(
    r"(?:n['’]t|\b(?:not|never|first|only|longest|best|worst|most))\b[^.,;!?]*$", _F)


def find_relative_dates(
    text: str, occurred_at: datetime, tz: str = "UTC", calendar: bool = False
) -> list[TemporalMention]:
    """All relative-date phrases in `text`, resolved against `occurred_at`, in text order.

    Overlapping candidates are settled by earliest start then longest span, so "last Saturday
    night" is one phrase and the output never depends on pattern order beyond that rule.
    `calendar=True` adds days of a month said without a year ("the fourteenth of October", "on
    the 3rd", "by the end of the month": `calendar_dates`), merged by the same rule; the write
    path asks for them, the query parser (read/temporal.py) has its own absolute dates.
    """
    relative = _find_relative(text, occurred_at, tz)
    if not calendar or not text:
        return relative
    zone = resolve_timezone(tz)
    d0 = _local_date(occurred_at, zone)
    days = [
        TemporalMention(span=c.span, phrase=c.phrase, start=_midnight(c.start, zone), end=_midnight(c.end, zone),
                        granularity=c.granularity, lang=c.lang, qualifier=c.qualifier, anchor=d0,
                        calendar=True)
        for c in find_calendar_dates(text, d0)
    ]
    if not days:
        return relative
    merged: list[TemporalMention] = []
    last_end = -1
    for mention in sorted(relative + days, key=lambda t: (t.span[0], t.span[0] - t.span[1])):
        if mention.span[0] >= last_end:
            merged.append(mention)
            last_end = mention.span[1]
    return _appositive_days(text, merged)


# "next Friday, June 2nd", "last Tuesday (May 16)", "on Friday, the 2nd": a weekday and the date
# that names the same day, side by side
_APPOSITION_GAP = re.compile(r"\s*(?:,|\()\s*$")
_WEEKDAY_BEFORE = re.compile(rf"(?i)\b(?:{'|'.join(WEEKDAYS_EN)})\s*(?:,|\()\s*$")


def _appositive_days(text: str, mentions: list[TemporalMention]) -> list[TemporalMention]:
    """A weekday followed by the date it is ("next Friday, June 2nd") is ONE day: the explicit date
    wins (it is what the speaker checked; "next Friday" counted from the message may be another
    week), and the pair is rendered once instead of "on 2 June 2023, on 2 June 2023"."""
    out: list[TemporalMention] = []
    for m in mentions:
        if not m.calendar or m.granularity != "day":
            out.append(m)
            continue
        head = text[:m.span[0]]
        lo: int | None = None
        prev = out[-1] if out else None
        if (prev is not None and not prev.calendar and prev.granularity == "day" and not prev.qualifier
                and _APPOSITION_GAP.fullmatch(head[prev.span[1]:]) and re.search(r"(?i)day\s*$", prev.phrase)):
            lo = prev.span[0]
            out.pop()
        else:
            w = _WEEKDAY_BEFORE.search(head, max(0, len(head) - 16))
            if w is not None:
                lo = w.start()
        if lo is None:
            out.append(m)
            continue
        hi = m.span[1]
        if text[lo:m.span[0]].rstrip().endswith("(") and text[hi:hi + 1] == ")":
            hi += 1
        out.append(replace(m, span=(lo, hi), phrase=text[lo:hi]))
    return out


def _find_relative(text: str, occurred_at: datetime, tz: str) -> list[TemporalMention]:
    """The relative phrases alone (see `find_relative_dates`)."""
    if not text or not _TRIGGER.search(text):
        return []
    zone = resolve_timezone(tz)
    d0 = _local_date(occurred_at, zone)
    candidates: list[tuple[int, int, str, re.Match[str], _Handler]] = []
    low = text.lower()
    present = {g for g in _ALL_GATES if g in low}
    for lang, table, gates in (("en", _PATTERNS_EN, _GATES_EN), ("pt", _PATTERNS_PT, _GATES_PT)):
        for (pattern, handler), gate in zip(table, gates):
            if present.isdisjoint(gate):
                continue
            for m in pattern.finditer(text):
                candidates.append((m.start(), -(m.end() - m.start()), lang, m, handler))
    candidates.sort(key=lambda c: (c[0], c[1], c[2]))
    mentions: list[TemporalMention] = []
    last_end = -1
    for start, _neg_len, lang, m, handler in candidates:
        if start < last_end:
            continue
        if _FIGURATIVE_BEFORE.search(text, max(0, start - 40), start):
            continue  # "feels like just yesterday I ...": a way of saying, no date
        if _POSSESSED_BEFORE.search(text, max(0, start - 40), start):
            continue  # "Kayla's last year at home": someone's year, no date
        if m.group(0)[:3].lower() == "in " and _DURATION_BEFORE.search(text, max(0, start - 60), start):
            continue  # "my first holiday in three years", "haven't seen him in two years": a span, no date
        resolved = handler(m, d0)
        if resolved is None:
            continue
        mentions.append(_mention(m, lang, resolved, d0, zone))
        last_end = m.end()
    return mentions


def _mention(m: re.Match[str], lang: str, resolved: _Resolved, d0: date, zone: tzinfo) -> TemporalMention:
    start, gran, approx, qualifier = resolved
    lo, hi = _range(start, gran)
    if qualifier == "weekend":
        hi = lo + timedelta(days=2)
    return TemporalMention(
        span=(m.start(), m.end()),
        phrase=m.group(0),
        start=_midnight(lo, zone),
        end=_midnight(hi, zone),
        granularity=gran,
        lang=lang,
        approximate=approx,
        qualifier=qualifier,
        anchor=d0,
    )


# ---------------------------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------------------------


def _fmt_day(d: date, lang: str) -> str:
    if lang == "pt":
        return f"{d.day} de {MONTHS_PT[d.month - 1]} de {d.year}"
    return f"{d.day} {MONTHS_EN[d.month - 1]} {d.year}"


_PART_EN = {"morning": "the morning of", "afternoon": "the afternoon of", "evening": "the evening of", "night": "the night of"}
_PART_PT = {"morning": "a manhã de", "afternoon": "a tarde de", "evening": "a noite de", "night": "a noite de"}
_UNIT_WORD_EN = {"day": "days", "week": "weeks", "month": "months", "year": "years"}
_UNIT_WORD_PT = {"day": "dias", "week": "semanas", "month": "meses", "year": "anos"}


def render(mention: TemporalMention, bare: bool = False) -> str:
    """The absolute phrase that replaces `mention`; `bare` omits the leading preposition.

    `bare` is used when the text already has a preposition before the phrase ("since
    yesterday" -> "since 7 May 2023").
    """
    if mention.lang == "pt":
        return _render_pt(mention, bare)
    return _render_en(mention, bare)


_PARTS_OF = {"start": "the start of", "middle": "the middle of", "end": "the end of"}
_PARTS_OF_PT = {"start": "o início de", "middle": "o meio de", "end": "o fim de"}


def _render_en(m: TemporalMention, bare: bool) -> str:
    d = m.start.date()
    if m.approximate:
        return _render_vague(m, "en")
    if m.qualifier in _PARTS_OF:  # "by the end of the month" -> "by the end of May 2023"
        period = f"{MONTHS_EN[d.month - 1]} {d.year}" if m.granularity == "month" else str(d.year)
        core = f"{_PARTS_OF[m.qualifier]} {period}"
        return core if bare else f"{'in' if m.qualifier == 'middle' else 'at'} {core}"
    if m.qualifier == "weekend":
        core = f"the weekend of {_fmt_day(d, 'en')}"
        return core if bare else f"on {core}"
    if m.qualifier:
        core = f"{_PART_EN[m.qualifier]} {_fmt_day(d, 'en')}"
        return core if bare else f"on {core}"
    if m.granularity == "day":
        core = _fmt_day(d, "en")
        return core if bare else f"on {core}"
    if m.granularity == "week":
        core = f"the week of {_fmt_day(d, 'en')}"
    elif m.granularity == "month":
        core = f"{MONTHS_EN[d.month - 1]} {d.year}"
    else:
        core = str(d.year)
    return core if bare else f"in {core}"


def _render_pt(m: TemporalMention, bare: bool) -> str:
    d = m.start.date()
    if m.approximate:
        return _render_vague(m, "pt")
    if m.qualifier in _PARTS_OF_PT:
        period = f"{MONTHS_PT[d.month - 1]} de {d.year}" if m.granularity == "month" else str(d.year)
        core = f"{_PARTS_OF_PT[m.qualifier]} {period}"
        return core if bare else f"n{core}"
    if m.qualifier == "weekend":
        core = f"fim de semana de {_fmt_day(d, 'pt')}"
        return f"o {core}" if bare else f"no {core}"
    if m.qualifier:
        core = f"{_PART_PT[m.qualifier]} {_fmt_day(d, 'pt')}"
        return core if bare else f"n{core}"
    if m.granularity == "day":
        core = _fmt_day(d, "pt")
        return core if bare else f"em {core}"
    if m.granularity == "week":
        core = f"semana de {_fmt_day(d, 'pt')}"
        return f"a {core}" if bare else f"na {core}"
    if m.granularity == "month":
        core = f"{MONTHS_PT[d.month - 1]} de {d.year}"
    else:
        core = str(d.year)
    return core if bare else f"em {core}"


def _render_vague(m: TemporalMention, lang: str) -> str:
    """"a few days before 8 May 2023" / "alguns dias antes de 8 de maio de 2023"."""
    anchor = m.anchor or m.start.date()
    future = m.start.date() > anchor
    unit = _unit_of_vague(m, anchor)
    if lang == "pt":
        qty = m.qualifier if m.qualifier in _VAGUE_PT else "alguns"
        if unit == "week":
            qty = {"alguns": "algumas", "uns": "umas", "poucos": "poucas"}.get(qty, qty)
        rel = "depois de" if future else "antes de"
        return f"{qty} {_UNIT_WORD_PT[unit]} {rel} {_fmt_day(anchor, 'pt')}"
    rel = "after" if future else "before"
    hedged = m.qualifier.split(" ", 1)
    if len(hedged) == 2 and hedged[0] in _HEDGES_EN:  # "about five years ago"
        one = hedged[1] in ("a", "an", "one", "1")
        return f"{m.qualifier} {unit if one else _UNIT_WORD_EN[unit]} {rel} {_fmt_day(anchor, 'en')}"
    qty = m.qualifier if m.qualifier in _VAGUE_EN and m.qualifier != "few" else "a few"
    return f"{qty} {_UNIT_WORD_EN[unit]} {rel} {_fmt_day(anchor, 'en')}"


def _unit_of_vague(m: TemporalMention, anchor: date) -> str:
    """Recover the unit of a vague phrase from its text (the date alone is ambiguous)."""
    low = m.phrase.lower()
    for word, unit in (("year", "year"), ("ano", "year"), ("month", "month"), ("mes", "month"),
                       ("mês", "month"), ("week", "week"), ("semana", "week")):
        if word in low:
            return unit
    return "day"


# ---------------------------------------------------------------------------------------------
# Rewriting
# ---------------------------------------------------------------------------------------------

_PREP_BEFORE = re.compile(
    r"(?:\b(?:on|since|until|till|by|from|before|after|of|during|around|through|desde|até|ate|"
    r"antes\s+de|depois\s+de|a\s+partir\s+de|de|em)\s+)$",
    _F,
)
_PART_PREP_BEFORE = re.compile(r"\b(?:at|in|by|until|till|before|after|towards?|from|around|near|since|of)\s+$", _F)
# "for"/"to" as words: "a club in Sacramento last month" ends in "...to " and must keep its "in"
_FOR_TO_BEFORE = re.compile(r"\b(?:for|to)\s+$", _F)
_PT_OWN_PREP = re.compile(r"^(?:n|d)?[ao]\s", _F)
_SENT_END_IN_GAP = re.compile(r"[.!?]\s|\n")


def _at_sentence_start(text: str, lo: int) -> bool:
    r"""Whether `text[:lo]` ends a sentence: nothing but non-word characters since the start, or
    since a newline or a [.!?] followed by whitespace (what `(?:^|[.!?]\s+|\n)\W*$` matched).
    Looks only at the non-word run before `lo`, so it costs that run, not the whole prefix (the
    regex searched the prefix from every position: quadratic in a message of many dates or of
    newlines)."""
    i = lo
    while i > 0 and not (text[i - 1].isalnum() or text[i - 1] == "_"):
        i -= 1
    return i == 0 or _SENT_END_IN_GAP.search(text, i, lo) is not None


def absolutize_with_spans(
    text: str, occurred_at: datetime, tz: str = "UTC", calendar: bool = False
) -> tuple[str, list[tuple[int, int, TemporalMention]]]:
    """Rewrite every relative phrase (and, with `calendar`, every day of a month said without a
    year); also return where each replacement sits in the new text."""
    mentions = find_relative_dates(text, occurred_at, tz, calendar)
    if not mentions:
        return text, []
    parts: list[str] = []
    spans: list[tuple[int, int, TemporalMention]] = []
    cursor = 0
    out_len = 0
    for m in mentions:
        lo, hi = m.span
        before = text[cursor:lo]
        parts.append(before)
        out_len += len(before)
        replacement = _replacement(text, m)
        parts.append(replacement)
        spans.append((out_len, out_len + len(replacement), m))
        out_len += len(replacement)
        cursor = hi
    parts.append(text[cursor:])
    return "".join(parts), spans


def _replacement(text: str, m: TemporalMention) -> str:
    """Rendered phrase, with or without preposition, capitalised at a sentence start."""
    lo = m.span[0]
    head = text[max(0, lo - 24):lo]
    prep_before = bool(_PREP_BEFORE.search(head))
    own_prep = m.lang == "pt" and bool(_PT_OWN_PREP.match(m.phrase))
    if own_prep and prep_before and m.phrase[:2].lower() in ("o ", "a "):
        own_prep = False  # "até o dia 14": the article goes with the preposition before it
    bare = prep_before and not own_prep
    if m.qualifier in _PARTS_OF and _PART_PREP_BEFORE.search(head):
        bare = True  # "at the end of the month" -> "at the end of May 2023"
    elif not bare and _FOR_TO_BEFORE.search(head) and not re.match(r"['’]s\b", text[m.span[1]:]):
        bare = True  # "a table for the 5th" -> "for 5 June 2023" ("for tomorrow's ..." is left to fact_quality)
    out = render(m, bare=bare)
    if _at_sentence_start(text, lo):
        out = out[:1].upper() + out[1:]
    return out


def absolutize(
    text: str, occurred_at: datetime, tz: str = "UTC", calendar: bool = False
) -> tuple[str, datetime | None]:
    """Rewrite relative dates into absolute ones; return the text and the first resolved start.

    >>> from datetime import timezone
    >>> absolutize("I went yesterday", datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc))[0]
    'I went on 7 May 2023'
    """
    new_text, spans = absolutize_with_spans(text, occurred_at, tz, calendar)
    first = spans[0][2].start if spans else None
    return new_text, first

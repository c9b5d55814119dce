"""Time expressions in a query -> time windows over `occurred_at` / `valid_from`.

Three kinds, English and Portuguese:

- absolute: "on 8 May 2023", "May 8, 2023", "2023-05-08", "in May 2023", "maio de 2023",
  "in 2022", "em 2022";
- relative to the reference time (`as_of` when time-travelling, else now): "last May", "in May"
  (the most recent May not after the reference), "maio passado", plus everything the write
  side's resolver knows ("yesterday", "last week", "two weeks ago", "mês passado", ...);
- anchored on an event: "two weeks before the trip", "3 days after the wedding". The anchor's
  date is not in the query, so the window is resolved by a dependent plan step that finds the
  anchor event first (see registry.TemporalAnchorIndex).

Windows are used as a soft boost plus an extra candidate source, never as a hard filter: a
misread date must cost ranking, not recall.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

_MONTH_NAMES = (
    ("january", "jan", "janeiro"), ("february", "feb", "fevereiro", "fev"), ("march", "mar", "março", "marco"),
    ("april", "apr", "abril", "abr"), ("may", "maio", "mai"), ("june", "jun", "junho"),
    ("july", "jul", "julho"), ("august", "aug", "agosto", "ago"), ("september", "sep", "sept", "setembro", "set"),
    ("october", "oct", "outubro", "out"), ("november", "nov", "novembro"), ("december", "dec", "dezembro", "dez"),
)
_MONTHS: dict[str, int] = {name: i + 1 for i, names in enumerate(_MONTH_NAMES) for name in names}
_MONTH_RE = "|".join(sorted((re.escape(m) for m in _MONTHS), key=len, reverse=True))
_NUM_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "um": 1, "uma": 1, "dois": 2, "duas": 2, "tres": 3,
    "três": 3, "quatro": 4, "cinco": 5, "seis": 6, "sete": 7, "oito": 8, "nove": 9, "dez": 10,
    "a couple of": 2, "a few": 3,
}
_UNITS = {
    "day": 1, "days": 1, "week": 7, "weeks": 7, "month": 30, "months": 30, "year": 365,
    "years": 365, "dia": 1, "dias": 1, "semana": 7, "semanas": 7, "mes": 30, "mês": 30,
    "meses": 30, "ano": 365, "anos": 365,
}


@dataclass(frozen=True)
class TimeWindow:
    """[start, end) in UTC, and the phrase it came from."""

    start: datetime
    end: datetime
    phrase: str
    kind: str  # absolute | relative | anchored

    def contains(self, t: datetime | None, slack: timedelta = timedelta(days=1)) -> bool:
        return t is not None and self.start - slack <= t < self.end + slack

    def to_dict(self) -> dict[str, str]:
        return {"start": self.start.isoformat(), "end": self.end.isoformat(),
                "phrase": self.phrase, "kind": self.kind}


@dataclass(frozen=True)
class TimeAnchor:
    """ "<n> <unit> before|after <event phrase>": resolved once the anchor event is found."""

    phrase: str
    anchor_text: str
    offset_days: int  # negative = before
    span_days: int  # width of the resulting window

    def window(self, anchor_time: datetime) -> TimeWindow:
        center = anchor_time + timedelta(days=self.offset_days)
        half = timedelta(days=max(1, self.span_days // 2 + 1))
        return TimeWindow(center - half, center + half, self.phrase, "anchored")


def _utc(d: date) -> datetime:
    return datetime(d.year, d.month, d.day, tzinfo=UTC)


def _month_window(year: int, month: int) -> tuple[datetime, datetime]:
    start = date(year, month, 1)
    end = date(year + (month == 12), month % 12 + 1, 1)
    return _utc(start), _utc(end)


def _safe_date(y: int, m: int, d: int) -> date | None:
    try:
        return date(y, m, d)
    except ValueError:
        return None


_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_DMY = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th|º)?\s+(?:de\s+)?({_MONTH_RE})\.?,?\s+(?:de\s+)?(\d{{4}})\b", re.IGNORECASE)
_MDY = re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.IGNORECASE)
_MY = re.compile(rf"\b({_MONTH_RE})\.?,?\s+(?:de\s+|of\s+)?(\d{{4}})\b", re.IGNORECASE)
_YEAR = re.compile(r"\b(?:in|during|of|since|em|no ano de|durante|de)\s+((?:19|20)\d\d)\b", re.IGNORECASE)
_LAST_MONTH = re.compile(rf"\b(?:last|in|this past|past)\s+({_MONTH_RE})\b|\b(?:em\s+)?({_MONTH_RE})\s+passado\b", re.IGNORECASE)
_ANCHOR = re.compile(
    r"\b(\d+|a couple of|a few|an?|one|two|three|four|five|six|seven|eight|nine|ten|um|uma|dois|"
    r"duas|tr[eê]s|quatro|cinco|seis|sete|oito|nove|dez)\s+(days?|weeks?|months?|years?|dias?|"
    r"semanas?|m[eê]s|meses|anos?)\s+(before|after|antes d[aoe]s?|depois d[aoe]s?)\s+"
    r"((?:the|my|our|his|her|their|a|o|os|as|meu|minha|nosso|nossa)\s+)?([\w'\- ]{2,40}?)"
    r"(?=[?.!,;]|$|\s+(?:and|e|when|quando)\b)",
    re.IGNORECASE,
)


def parse_time(query: str, reference: datetime, tz: str = "UTC") -> tuple[list[TimeWindow], list[TimeAnchor]]:
    """Windows and anchors mentioned in `query`; `reference` resolves relative phrases."""
    windows: list[TimeWindow] = []
    taken: list[tuple[int, int]] = []

    def free(span: tuple[int, int]) -> bool:
        return all(span[1] <= a or span[0] >= b for a, b in taken)

    def add(span: tuple[int, int], start: datetime, end: datetime, phrase: str, kind: str) -> None:
        if free(span):
            taken.append(span)
            windows.append(TimeWindow(start, end, phrase, kind))

    for m in _ISO.finditer(query):
        d = _safe_date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        if d:
            add(m.span(), _utc(d), _utc(d + timedelta(days=1)), m.group(0), "absolute")
    for m in _DMY.finditer(query):
        d = _safe_date(int(m.group(3)), _MONTHS[m.group(2).lower()], int(m.group(1)))
        if d:
            add(m.span(), _utc(d), _utc(d + timedelta(days=1)), m.group(0), "absolute")
    for m in _MDY.finditer(query):
        d = _safe_date(int(m.group(3)), _MONTHS[m.group(1).lower()], int(m.group(2)))
        if d:
            add(m.span(), _utc(d), _utc(d + timedelta(days=1)), m.group(0), "absolute")
    for m in _MY.finditer(query):
        s, e = _month_window(int(m.group(2)), _MONTHS[m.group(1).lower()])
        add(m.span(), s, e, m.group(0), "absolute")
    for m in _YEAR.finditer(query):
        y = int(m.group(1))
        add(m.span(), _utc(date(y, 1, 1)), _utc(date(y + 1, 1, 1)), m.group(0), "absolute")
    ref = reference.astimezone(UTC)
    for m in _LAST_MONTH.finditer(query):
        name = (m.group(1) or m.group(2)).lower()
        if name == "may" and not m.group(0).lower().startswith(("last", "past", "this")):
            continue  # "in may" is too often the verb ("I may ...")
        month = _MONTHS[name]
        year = ref.year if month < ref.month else ref.year - 1
        s, e = _month_window(year, month)
        add(m.span(), s, e, m.group(0), "relative")
    try:
        from arandu_pipelines.write.temporal import find_relative_dates

        for rm in find_relative_dates(query, reference, tz):
            add(rm.span, rm.start.astimezone(UTC), rm.end.astimezone(UTC),
                rm.phrase, "relative")
    except Exception:  # noqa: BLE001, S110 - optional resolver here: absolute dates still work
        pass
    anchors: list[TimeAnchor] = []
    for m in _ANCHOR.finditer(query):
        if not free(m.span()):
            continue
        n = _NUM_WORDS.get(m.group(1).lower()) or (int(m.group(1)) if m.group(1).isdigit() else 1)
        unit = _UNITS.get(m.group(2).lower(), 1)
        sign = -1 if m.group(3).lower().startswith(("before", "antes")) else 1
        anchors.append(TimeAnchor(m.group(0).strip(), m.group(5).strip(), sign * n * unit, max(unit, 1)))
        taken.append(m.span())
    windows.sort(key=lambda w: (w.start, w.end, w.phrase))
    return windows, anchors


def has_temporal_intent(query: str) -> bool:
    """'When ...?' questions want dates shown next to facts."""
    return bool(re.match(r"\s*(when|what (?:date|time|year|month|day)|how long|quando|que dia|em que (?:ano|dia|m[eê]s))\b",
                         query, re.IGNORECASE))

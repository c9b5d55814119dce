"""Coarse dates stay in the fact text; a time phrase that was the sentence's subject is put back.

`fact_quality._glued_date` moves a rendered date out of the fact text into `event_date` (the
row's valid_from): "I went hiking yesterday" -> "Maria went hiking", dated 7 May 2023. For a day
that is the policy (a reader sees the date next to the fact). For a MONTH or a YEAR it lost what
an annotator writes down: "I'm thinking of running a marathon next year" -> "Maria is thinking of
running a marathon" says nothing of when, the annotator wrote "... in 2024"; "my choir is
preparing for the contest next month" -> "... in April". So a rendered date that is the rendering
of a relative month or year of the sentence ("next/last/this month|year", "N years ago": "in
2024", "in April 2023", "em 2024") stays in the text (`coarse_keeps`). Left to the old policy:
days, weeks and weekends ("last week" is cut, as before), approximate phrases (rendered "a few
years before 8 May 2023", never cut anyway), days of the calendar (`_calendar_keeps`), and
"in N years" (a duration as often as a date: "my first holiday in three years").

A time phrase as the subject of a copula ("Next Saturday is Dad's birthday", "Tomorrow is my
last day at work", "Last Sunday was the recital") is rendered "On 17 June 2023 is Maria's dad's
birthday" and the cut left "Is Maria's dad's birthday". `time_subject` turns it around: "Maria's
dad's birthday is on 17 June 2023" (the date after the copula is the predicate and stays). A bare
weekday is no date ("Saturday is my favourite day": no mention, nothing fires).
"""

from __future__ import annotations

import re

from arandu_pipelines.write.temporal import TemporalMention, render

_COARSE = frozenset({"month", "year"})
# "in three years": the future reading ("I'll finish in three years") or a duration ("my first
# holiday in three years"); Portuguese "daqui a": same form
_DURATION_FORM = re.compile(r"(?i)^(?:in|daqui)\b")
_MONTH_NAMES = ("January|February|March|April|May|June|July|August|September|October|November|December")
# "The editor says April next year" -> "... April in 2024": the month takes the year ("April 2024")
_MONTH_THEN_YEAR = re.compile(rf"(?<!\bin\s)(?<!\bIn\s)\b({_MONTH_NAMES})\s+in\s+(\d{{4}})\b")


def coarse_cores(mentions: list[TemporalMention]) -> set[str]:
    """The renderings ("in 2024", "in April 2023", "em 2024", lowercased) of the relative months
    and years among `mentions` (the sentence's dates) that stay in the fact text."""
    out: set[str] = set()
    for m in mentions:
        if m.granularity not in _COARSE or m.calendar or m.approximate or m.qualifier:
            continue
        if _DURATION_FORM.match(m.phrase):
            continue
        out.add(render(m, bare=False).lower())
    return out


def is_coarse(rendered: str, cores: set[str]) -> bool:
    """Whether a rendered date of the fact text (`fact_quality._RENDERED_DATE_RE` match: "in
    2024", "In April 2023,") is one of `cores`."""
    return rendered.strip().rstrip(",").lower() in cores


def month_year(text: str) -> str:
    """"says April in 2024" -> "says April 2024" (the speaker's "April next year")."""
    return _MONTH_THEN_YEAR.sub(r"\1 \2", text)


# "On 17 June 2023 is Maria's dad's birthday, so ...", "In July 2023's Maria's tenth anniversary"
_TIME_SUBJECT = re.compile(
    r"^(?P<prep>On|In)\s+(?P<date>(?:the\s+)?[^,;]*?\d{4})(?:,?\s+(?P<cop>is|was|will\s+be)|(?P<cop2>['’]s))\s+"
    r"(?P<np>[^,;]+?)(?P<rest>(?:,|;|\s+(?:and|but|so|because)\s|\.|!|$).*)$",
    re.DOTALL,
)
# what opens a noun phrase that can be the subject ("the recital", "Maria's last day")
_DETERMINERS = frozenset({"the", "this", "that", "these", "those", "his", "her", "their", "our", "its"})
# "Tomorrow's my last shift" / "Tomorrow's going to be a long night": "'s" is "is"; before any other
# word it is a possessive ("this week's big episode")
_AFTER_CONTRACTION = _DETERMINERS | {"a", "an", "going", "gonna"}


def time_subject(text: str) -> str | None:
    """The fact text with a subject time phrase turned into the predicate, None when the text
    does not have the form, "" when it has it but names no event ("Tomorrow is a big day": the
    cut would leave "Is a big day", so the fact goes). "On 9 June 2023 is Maria's last day at the
    bakery" -> "Maria's last day at the bakery is on 9 June 2023"."""
    m = _TIME_SUBJECT.match(text)
    if m is None:
        return None
    np = m.group("np").strip()
    first = np.split()[0] if np else ""
    cop = re.sub(r"\s+", " ", m.group("cop") or "is")
    date = m.group("date")
    if m.group("cop2") and not (first.lower() in _AFTER_CONTRACTION or re.search(r"['’]s$", first)):
        return None  # "This week's big episode was ...": a possessive, no copula
    if first.lower() in ("a", "an"):
        return ""  # "Tomorrow is a big day": no event named
    if len(np.split()) < 2 or not (first.lower() in _DETERMINERS or re.search(r"['’]s$", first)):
        # "Last year was tough for my family": no noun phrase after the copula, the date is the
        # subject ("2022 was tough for Maria's family"; was "Was tough ..."); a present or future
        # one is scheduling talk ("Next week is fine for me", "Tomorrow's gonna be a long day"): dropped
        return f"{date[:1].upper()}{date[1:]} {cop} {np}{m.group('rest')}" if cop == "was" else ""
    return f"{np[:1].upper()}{np[1:]} {cop} {m.group('prep').lower()} {date}{m.group('rest')}"

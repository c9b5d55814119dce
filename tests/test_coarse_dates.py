"""Coarse dates kept in the fact text; a time phrase as the sentence's subject (write/coarse_dates.py).

Invented sentences, said on Thursday 8 June 2023. A relative month or year ("next year", "last
month", "three years ago") stays in the text as an annotator writes it ("in 2024", "in May 2023");
days and weeks keep the old policy (cut, in event_date); "Tomorrow is my last day" becomes "Maria's
last day ... is on 9 June 2023" (was "Is Maria's last day ..."); "in N years" after a negation or a
"first" is a span, no date (event_date was 2026).
"""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from arandu_pipelines.write import coarse_dates
from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.temporal import find_relative_dates
from arandu_pipelines.write.types import ExtractionContext

THU = datetime(2023, 6, 8, 14, 0, tzinfo=UTC)


def _facts(text: str) -> list[tuple[str, date | None]]:
    ctx = ExtractionContext(speaker_name="Maria", occurred_at=THU, addressee="Tom")
    return [(f.fact_text, f.event_date.date() if f.event_date else None) for f in extract_offline(text, ctx).facts]


@pytest.mark.parametrize(
    ("text", "fact", "day"),
    [
        ("Honestly I'm thinking of running a full marathon next year.",
         "Maria is thinking of running a full marathon in 2024", date(2024, 1, 1)),
        ("My choir is preparing for the regional contest next month.",
         "Maria's choir is preparing for the regional contest in July 2023", date(2023, 7, 1)),
        ("I sold my old bike last year.", "Maria sold her old bike in 2022", date(2022, 1, 1)),
        ("We moved into the new flat this month.", "Maria and others moved into the new flat in June 2023",
         date(2023, 6, 1)),
        ("Last month I started a pottery class.", "In May 2023 Maria started a pottery class", date(2023, 5, 1)),
        # the month said with the relative year takes the year, no "April in 2024"
        ("The publisher says March next year, just in time for spring.",
         "The publisher says March 2024, just in time for spring", date(2024, 1, 1)),
        # a month before the subject's repeat is no other person: "her paintings" stays
        ("Next month I'm having an art show with my paintings.",
         "In July 2023 Maria is having an art show with her paintings", date(2023, 7, 1)),
    ],
)
def test_coarse_date_stays_in_text(text: str, fact: str, day: date) -> None:
    assert (fact, day) in _facts(text)


@pytest.mark.parametrize(
    ("text", "fact", "day"),
    [
        ("Next Saturday is Dad's eighty-second birthday, so I'm planning a small party.",
         "Maria's dad's eighty-second birthday is on 17 June 2023, so Maria is planning a small party",
         date(2023, 6, 17)),
        ("Tomorrow is my last day at the bakery.", "Maria's last day at the bakery is on 9 June 2023",
         date(2023, 6, 9)),
        ("Tomorrow's my last shift at the cafe.", "Maria's last shift at the cafe is on 9 June 2023",
         date(2023, 6, 9)),
        ("Last Sunday was my daughter's piano recital and she nailed it.",
         "Maria's daughter's piano recital was on 4 June 2023 and Maria's daughter nailed it", date(2023, 6, 4)),
        ("Next month is our tenth wedding anniversary.", "Maria's tenth wedding anniversary is in July 2023",
         date(2023, 7, 1)),
        ("Last year was tough for my family.", "2022 was tough for Maria's family", date(2022, 1, 1)),
    ],
)
def test_time_phrase_as_subject(text: str, fact: str, day: date) -> None:
    assert (fact, day) in _facts(text)


@pytest.mark.parametrize(
    "text",
    ["Tomorrow is a big day for us.",  # no event named: no "Is a big day for ..."
     "Last Sunday was the recital."],  # no subject to name
)
def test_time_subject_without_an_event_gives_no_broken_fact(text: str) -> None:
    assert not [f for f, _ in _facts(text) if f.split()[0] in ("Is", "Was", "In", "On")]


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("I'm taking my first real holiday in three years.", "Maria is taking her first real holiday in three years"),
        ("I haven't seen my cousin in two years.", "Maria hasn't seen her cousin in two years"),
    ],
)
def test_in_n_years_after_first_or_negation_is_a_span(text: str, fact: str) -> None:
    assert (fact, None) in _facts(text)
    assert not find_relative_dates(text, THU)


# --- must not change -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "fact", "day"),
    [
        ("Saturday is my favourite day.", "Saturday is Maria's favourite day", None),  # a bare weekday: no date
        ("I've lived here since May.", "Maria has lived here since May", None),
        ("I went to a climbing gym last week.", "Maria went to a climbing gym", date(2023, 5, 29)),  # weeks: cut
        ("I went hiking yesterday with my brother.", "Maria went hiking with her brother", date(2023, 6, 7)),
        ("I'll finish my degree in two years.", "Maria will finish her degree", date(2025, 1, 1)),  # "in N": cut
        ("Last week was wild, I got noticed by a talent scout.", "Maria got noticed by a talent scout",
         date(2023, 5, 29)),
    ],
)
def test_unchanged(text: str, fact: str, day: date | None) -> None:
    assert (fact, day) in _facts(text)


def test_possessive_time_phrase_is_no_subject() -> None:
    assert coarse_dates.time_subject("In the week of 5 June 2023's big episode was with a firefighter") is None
    assert not [f for f, _ in _facts("This week's big episode was with a retired firefighter.")
                if f.startswith("The week of")]


def test_coarse_cores_leave_days_weeks_and_spans() -> None:
    text = "Yesterday and last week and next year and in three years and a few months ago and last month"
    assert coarse_dates.coarse_cores(find_relative_dates(text, THU, calendar=True)) == {"in 2024", "in may 2023"}

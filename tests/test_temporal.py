"""Relative-date resolution (write/temporal.py): EN + PT phrases against a fixed message time."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from arandu_pipelines.write.temporal import absolutize, find_relative_dates, render

# Monday 8 May 2023, 13:56 UTC (LoCoMo conv-26 session 1)
MON = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def one(text: str, when: datetime = MON, tz: str = "UTC"):
    found = find_relative_dates(text, when, tz)
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize(
    ("text", "start", "granularity"),
    [
        ("I went yesterday", date(2023, 5, 7), "day"),
        ("today was long", date(2023, 5, 8), "day"),
        ("see you tomorrow", date(2023, 5, 9), "day"),
        ("the day before yesterday", date(2023, 5, 6), "day"),
        ("last Saturday we hiked", date(2023, 5, 6), "day"),
        ("last Monday", date(2023, 5, 1), "day"),  # strictly before the message day
        ("next Friday", date(2023, 5, 19), "day"),  # the following calendar week
        ("two weeks ago", date(2023, 4, 24), "week"),
        ("3 days ago", date(2023, 5, 5), "day"),
        ("last week", date(2023, 5, 1), "week"),
        ("next month", date(2023, 6, 1), "month"),
        ("last year", date(2022, 1, 1), "year"),
        ("in two weeks", date(2023, 5, 22), "week"),
    ],
)
def test_english_phrases(text, start, granularity):
    m = one(text)
    assert m.start.date() == start
    assert m.granularity == granularity
    assert m.lang == "en"


@pytest.mark.parametrize(
    ("text", "start", "granularity"),
    [
        ("fui ontem ao cinema", date(2023, 5, 7), "day"),
        ("anteontem", date(2023, 5, 6), "day"),
        ("na semana passada", date(2023, 5, 1), "week"),
        ("mês que vem", date(2023, 6, 1), "month"),
        ("no ano passado", date(2022, 1, 1), "year"),
        ("há duas semanas", date(2023, 4, 24), "week"),
        ("sábado passado", date(2023, 5, 6), "day"),
        ("três dias atrás", date(2023, 5, 5), "day"),
    ],
)
def test_portuguese_phrases(text, start, granularity):
    m = one(text)
    assert m.start.date() == start
    assert m.granularity == granularity
    assert m.lang == "pt"


def test_render_languages():
    assert render(one("yesterday")) == "on 7 May 2023"
    assert render(one("ontem")) == "em 7 de maio de 2023"
    assert render(one("next month")) == "in June 2023"
    assert render(one("semana passada")) == "na semana de 1 de maio de 2023"
    assert render(one("last Saturday"), bare=True) == "6 May 2023"


def test_absolutize_rewrites_text_and_returns_first_date():
    text, first = absolutize("I went to a LGBTQ support group yesterday", MON)
    assert text == "I went to a LGBTQ support group on 7 May 2023"
    assert first is not None and first.date() == date(2023, 5, 7)
    text, _ = absolutize("Yesterday I ran", MON)
    assert text.startswith("On 7 May 2023")
    text, _ = absolutize("since yesterday", MON)
    assert text == "since 7 May 2023"


def test_vague_quantities_are_approximate():
    m = one("a few days ago")
    assert m.approximate
    assert render(m) == "a few days before 8 May 2023"


def test_time_zone_changes_the_local_date():
    late = datetime(2023, 5, 8, 2, 0, tzinfo=UTC)  # still 7 May in São Paulo
    assert one("yesterday", late, "America/Sao_Paulo").start.date() == date(2023, 5, 6)
    assert one("yesterday", late, "UTC").start.date() == date(2023, 5, 7)
    assert one("yesterday", late, "Not/AZone").start.date() == date(2023, 5, 7)  # unknown -> UTC


def test_no_false_positives_and_order():
    assert find_relative_dates("I love this song", MON) == []
    assert find_relative_dates("", MON) == []
    found = find_relative_dates("Yesterday I ran, and next week I swim", MON)
    assert [f.phrase.lower() for f in found] == ["yesterday", "next week"]
    assert found[0].span[0] < found[1].span[0]

"""Session 10 (cov30, issue 19): facts that existed but were dropped or lost to the cap.

- `_thin` kept out "Jon has been to Paris" (one content word besides the subject): a named
  entity besides the subject and the two speakers is content however short the sentence.
- `_cap` (two free-text facts per subject per message) ranked by content-word count only, so a
  short fact naming a place lost to long narration; it now prefers the one naming an entity.
- `_subject_first` dropped "Here's a pic from when Gina was dancing - it was a tough road": the
  photo pointer is cut and the clause about the subject kept (write/drop_repair.shown_when).

Sentences are invented; unit level through `extract_offline`, no database."""

from __future__ import annotations

from datetime import UTC, datetime

from arandu_pipelines.write import drop_repair
from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext

WHEN = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def texts(text: str, speaker: str = "Priya", addressee: str | None = "Daniel") -> list[str]:
    return [f.fact_text for f in extract_offline(text, ExtractionContext(speaker, WHEN, addressee=addressee)).facts]


def test_a_short_fact_naming_a_place_is_not_thin():
    assert "Priya has been to Lisbon" in texts("Oh, I've been to Lisbon yesterday! It was sooo cool.")


def test_a_short_fact_naming_nothing_is_still_thin():
    assert texts("Oh, I've been there yesterday! It was sooo cool.") == []


def test_the_cap_prefers_the_fact_that_names_an_entity():
    said = ("I'm on the hunt for the ideal spot for my bakery and it's been quite a journey! I've been looking at "
            "different places and picturing how the space would look. Oh, I've been to Lisbon yesterday!")
    got = texts(said)
    assert "Priya has been to Lisbon" in got, got
    assert len(got) == 2, got


def test_a_photo_from_when_keeps_what_happened():
    got = texts("Way to go! Here's a pic from when I was running the Lisbon marathon - it was a tough road, "
                "but it was worth it! [shared a photo: a photo of runners]")
    assert any(t.startswith("Priya was running the Lisbon marathon") for t in got), got


def test_shown_when_needs_the_subject_and_something_said():
    assert drop_repair.shown_when("That pic's from when Priya's band played in Porto", "Priya") == "Priya's band played in Porto"
    assert drop_repair.shown_when("Here's a pic from when Priya and others met up", "Priya") is None
    assert drop_repair.shown_when("Here's a pic from when the band played in Porto", "Priya") is None
    assert drop_repair.shown_when("Here's Priya's band in Porto", "Priya") is None

"""News said inside a frame ("I heard X", "Turns out X", "Good news, X", "Did you hear X?") and a
pledge said as an idiom ("Put me down for $100", "Count me in") (write/news_frames.py).
Invented dialogues only (Ann speaks to Bob), through the real extractor."""

from __future__ import annotations

from datetime import UTC, datetime

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.news_frames import gate
from arandu_pipelines.write.types import ExtractedFact, ExtractionContext

_INVITE = [("Bob", "We're hosting a beach cleanup next Sunday, want to come help?")]


def extract(text: str, prev: list[tuple[str | None, str]] | None = None) -> list[ExtractedFact]:
    ctx = ExtractionContext(speaker_name="Ann", occurred_at=datetime(2024, 3, 4, 12, tzinfo=UTC),
                            addressee="Bob", previous_turns=prev or [])
    return extract_offline(text, ctx).facts


def facts(text: str, prev: list[tuple[str | None, str]] | None = None) -> list[str]:
    return [f.fact_text for f in extract(text, prev)]


# ---- news inside a frame -----------------------------------------------------------------------

def test_hearsay_gives_the_news_itself():
    out = facts("I heard Marco and Jill got engaged.")
    assert any(f.startswith("Marco and Jill got engaged") for f in out), out
    assert not any(f.startswith("Ann heard") for f in out), out


def test_turns_out_drops_the_frame():
    out = facts("Turns out Petra got the scholarship to Vienna.")
    assert any(f.startswith("Petra got the scholarship to Vienna") for f in out), out
    assert not any("Turns out" in f for f in out), out


def test_asked_news_is_a_statement():
    out = facts("Did you hear Omar quit the orchestra?")
    assert any(f.startswith("Omar quit the orchestra") for f in out), out


def test_news_label_before_a_comma():
    out = facts("And good news, Tessa read the manuscript and agreed to edit it!")
    assert any(f.startswith("Tessa read the manuscript") for f in out), out


def test_evidence_is_the_sentence_as_written():
    got = [f for f in extract("Did you hear Omar quit the orchestra?") if "quit" in f.fact_text]
    assert got and got[0].source_text == "Did you hear Omar quit the orchestra?", got


def test_frames_without_a_clause_stay_alone():
    assert facts("Did you hear about it?") == []
    assert facts("Did you hear what happened?") == []
    assert not any(f.startswith(("Back", "From")) for f in facts("I heard back from the clinic today.")), \
        facts("I heard back from the clinic today.")
    assert not any(f.startswith("Great") for f in facts("It turned out great."))
    assert not any(f.startswith("You ") for f in facts("Did you hear you won?"))
    assert not any(f.startswith("Tom sing") for f in facts("Did you hear Tom sing last night?"))


def test_news_of_no_one_keeps_the_frame():
    # a thing's news alone is dropped by the checks: the rules' hearsay fact stays as it was
    out = facts("I heard the old bakery on Pine Street closed down.")
    assert any(f.startswith("Ann heard the old bakery") for f in out), out


# ---- pledges and sign-ups ----------------------------------------------------------------------

def test_put_me_down_pledges():
    out = facts("Put me down for $50 too.")
    assert "Ann pledged $50" in out, out
    assert not any(f.startswith("Put ") for f in out), out


def test_sign_me_up_joins_the_named_event():
    out = facts("Sign me up for the charity relay!")
    assert any(f.startswith("Ann is joining the charity relay") for f in out), out


def test_count_me_in_takes_the_invited_event():
    out = facts("Count me in!", _INVITE)
    assert any(f.startswith("Ann is joining the beach cleanup") for f in out), out
    out = facts("I'm in!", _INVITE)
    assert any(f.startswith("Ann is joining the beach cleanup") for f in out), out


def test_count_me_in_for_a_time_takes_the_invited_event():
    out = facts("Count me in for Sunday!", _INVITE)
    assert any(f.startswith("Ann is joining the beach cleanup") for f in out), out


def test_pledge_guards():
    assert facts("I'm in!", [("Bob", "How was your weekend?")]) == []  # no invitation
    # a time and no invitation: nothing to join (the rules' own reading is left as it was)
    assert not any("joining" in f for f in facts("Count me in for Sunday!"))
    assert not any("joining" in f or "pledged" in f for f in facts("Count me out this time.", _INVITE))
    assert not any("joining" in f for f in facts("I'm in the garden right now.", _INVITE))
    assert not any("pledged" in f for f in facts("Work really puts me down sometimes."))
    assert not any("joining" in f for f in facts("Oh, I'm in for a long night with this report.", _INVITE))
    assert not gate("We went to the lake and swam.")

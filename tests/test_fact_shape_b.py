"""Facts a user still would not keep after session 12's shape checks (branch defect12b): speech-act
facts pass the same shape checks, a causative rewrite that leaves a bare state is dropped, an
object "them" is named from the message or the previous turn, and the "we" group reads as
natural English. Crafted turns, not the dev conversations' own sentences; no database."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.fact_shape import name_subject
from arandu_pipelines.write.types import ExtractionContext

WHEN = datetime(2023, 8, 28, 15, 19, tzinfo=UTC)


def texts(text: str, speaker: str = "Maria", addressee: str = "John",
          previous: list[tuple[str | None, str]] | None = None) -> list[str]:
    ctx = ExtractionContext(speaker, WHEN, addressee=addressee, previous_turns=list(previous or []))
    return [f.fact_text for f in extract_offline(text, ctx).facts]


# ---- 1. speech acts pass the fact-shape checks ---------------------------------------------------
def test_an_encouragement_with_a_cut_off_end_is_not_kept():
    facts = texts("Being a coach is tough, I know. Just keep at why you started this – because it matters!")
    assert not any(f.endswith("started this") for f in facts), facts
    facts = texts("I know the shop is hard. Just focus on why you started this – you love it!")
    assert not any("started this" in f for f in facts), facts


def test_an_encouragement_with_content_is_still_kept():
    facts = texts("Keep going after your dreams of opening a bakery in Porto!")
    assert any(f.startswith("Maria encourages John to keep going after") for f in facts), facts


# ---- 3. a rewrite that leaves a bare state is no fact --------------------------------------------
def test_a_causative_left_with_a_bare_feeling_is_dropped():
    assert name_subject("It made Maria feel connected and gave Maria a lot of hope", "Maria") is None
    assert name_subject("Makes Maria feel connected", "Maria") is None
    assert name_subject("It made Maria feel connected to Maria's roots", "Maria") == "Maria felt connected to Maria's roots"
    facts = texts("I read a memoir by a sailor last month. It made me feel connected and gave me hope.")
    assert not any(f in ("Maria felt connected", "Maria feels connected") for f in facts), facts


# ---- 2. an object "them" is named from the message or the previous turn --------------------------
def test_them_is_named_from_an_earlier_sentence_of_the_message():
    facts = texts("Watching my young cellists improve keeps me going. It's great to teach them new pieces every week.")
    assert any("teach her young cellists new pieces" in f for f in facts), facts
    facts = texts("The new volunteers were so brave. I felt proud supporting them through the first week.")
    assert any("supporting the new volunteers through" in f for f in facts), facts


def test_them_is_named_from_the_previous_turn_in_the_speakers_mouth():
    facts = texts("Thanks! I want 'em to feel at home whenever they come in for a coffee.",
                  previous=[("John", "Your café looks cozy - your clients will love it.")])
    assert any(f.startswith("Maria wants her clients to feel at home") for f in facts), facts


def test_them_for_things_or_with_no_named_people_is_left_alone():
    facts = texts("My kids picked some tulips. I put them in a vase on the kitchen table.")
    assert not any("kids in a vase" in f for f in facts), facts
    facts = texts("It's awesome to help them learn and reach their goals.")
    assert all("'s" not in f for f in facts if "help" in f), facts


# ---- 4. the named "we" group reads as natural English --------------------------------------------
def test_the_speakers_my_stays_the_speakers_once_the_group_is_named():
    facts = texts("We threw my son's graduation party in the garden yesterday.",
                  previous=[("Maria", "My kids are home for the summer!")])
    assert any(f.startswith("Maria and her kids threw Maria's son's graduation party") for f in facts), facts
    assert not any("their son" in f for f in facts), facts


def test_we_both_is_the_speaker_and_the_listener():
    talk = [("John", "It's great we can talk about work, it keeps us sane!")]
    facts = texts("We're both juggling new jobs, but it's good to have someone to lean on for us.", previous=talk)
    assert any(f.startswith("Maria and John are both juggling new jobs") for f in facts), facts
    assert not any("and others" in f for f in facts), facts
    # the listener asked about the speaker's group ("you all"): "we both" is not the two of them
    facts = texts("We both worked on the mural over the weekend.",
                  previous=[("John", "That mural is amazing! Did you all paint it together?")])
    assert not any("Maria and John" in f for f in facts), facts
    # a message that names its own group keeps the group's reading
    facts = texts("My sister and I started new jobs this spring. We're both juggling a lot of training.")
    assert not any("Maria and John" in f for f in facts), facts


def test_bench_markers_do_not_flag_me_time_or_nice_to_have():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    from facts import defects_of

    assert defects_of("Maria is carving out some me-time each day") == []
    assert defects_of("Maria finds it nice to have someone to lean on") == []
    assert "greeting_thanks" in defects_of("Nice to meet you, John")
    assert "first_person" in defects_of("Maria told me about the trip")


# ---- 1b. a bare duration answering "How long have you been X?" -----------------------------------
def test_a_bare_since_answer_takes_the_question_s_activity():
    facts = texts("Since I was 12 or so. It keeps me calm.",
                  previous=[("John", "That quilt is lovely! How long have you been quilting?")])
    assert "Maria has been quilting since she was 12 or so" in facts, facts
    # no question before: left as it was
    facts = texts("Since I was 12 or so. It keeps me calm.", previous=[("John", "That quilt is lovely!")])
    assert not any(f.startswith("Maria has been") for f in facts), facts


def test_a_bare_reminder_names_the_thing_of_the_sentence_before():
    facts = texts("Got the bracelet a few years ago, it stands for courage. A reminder to trust my instincts and speak up.")
    assert any(f.startswith("The bracelet is a reminder to trust Maria's instincts") for f in facts), facts
    assert not any(f.startswith("A reminder") for f in facts), facts

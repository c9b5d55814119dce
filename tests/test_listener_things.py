"""The speaker's action on the listener's thing is kept (session 16, branch addr16,
write/listener_things.py via fact_quality._addressee); compliments, perceptions, stances and
echoes about the two speakers alone stay dropped. Invented sentences."""

from datetime import datetime

import pytest

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.listener_things import speaker_action
from arandu_pipelines.write.types import ExtractionContext


def _texts(text: str) -> list[str]:
    ctx = ExtractionContext(speaker_name="Tomas", occurred_at=datetime(2023, 5, 8), addressee="Lucia",
                            previous_turns=[("Lucia", "My week was slow, mostly paperwork.")])
    return [f.fact_text for f in extract_offline(text, ctx).facts]


# kept: a past or present-perfect deed of the speaker with the listener's thing (dropped before)
@pytest.mark.parametrize(("text", "want"), [
    ("I baked your banana bread recipe on Sunday!", "Tomas baked Lucia's banana bread recipe"),
    ("I borrowed your tent for the weekend.", "Tomas borrowed Lucia's tent"),
    ("I finally finished your crossword book.", "Tomas finally finished Lucia's crossword book"),
    ("I planted the tulip bulbs you gave me.", "Tomas planted the tulip bulbs Lucia gave him"),
    ("We hiked the canyon trail you recommended.", "hiked the canyon trail Lucia recommended"),
    ("I've been using the budgeting app you told me about.", "Tomas has been using the budgeting app"),
    ("I fixed your old bike yesterday.", "Tomas fixed Lucia's old bike"),
    ("I've been to the noodle place you mentioned.", "Tomas has been to the noodle place Lucia mentioned"),
])
def test_speaker_deed_on_listener_thing_is_kept(text: str, want: str) -> None:
    assert any(want in t for t in _texts(text)), _texts(text)


# still dropped: compliments, perceptions, stances, echoes, talk about the talk
@pytest.mark.parametrize("text", [
    "I love your garden.",
    "I saw your post about the move.",
    "I'm glad your brother is okay.",
    "Your dad sounds amazing.",
    "I admire your patience.",
    "I heard your choir sang last night.",
    "I read your message this morning.",
    "I tried to call you yesterday.",
    "You made me laugh so hard.",
    "I miss your cooking.",
    "I noticed your new haircut.",
])
def test_compliments_and_echoes_stay_dropped(text: str) -> None:
    assert not any("Lucia" in t for t in _texts(text)), _texts(text)


@pytest.mark.parametrize(("text", "want"), [
    ("Tomas made Lucia's lasagna recipe", True),
    ("Tomas has made Lucia's lasagna recipe", True),
    ("Tomas was wearing Lucia's scarf", True),
    ("Tomas and others went to the lake Lucia recommended", True),
    ("Tomas just tried Lucia's camera", True),
    ("Tomas makes Lucia's lasagna recipe", False),   # present: a habit, not news of a deed
    ("Tomas loves Lucia's lasagna recipe", False),    # stance
    ("Tomas saw Lucia's painting", False),            # perception
    ("Tomas visited Lucia", False),                   # the listener, not their thing
    ("Tomas started to text Lucia", False),           # try/start to <verb>
    ("Tomas read Lucia's comments", False),           # the conversation's own things
    ("Tomas already started doing what Lucia said", False),  # the listener's words
    ("Tomas tried what Lucia suggested about the garden", False),
    ("Tomas tried the soup Lucia suggested", True),
    ("Lucia made Tomas's lasagna recipe", False),     # not the speaker
])
def test_speaker_action(text: str, want: bool) -> None:
    assert speaker_action(text, "Tomas", "Lucia") is want

"""Session 12 (stance12): the stance kinds said in other words: feeling synonyms and the past
("It was so gratifying to ..."), "to talk to <someone else>" is the speaker's own activity,
"young" is not a generic "you", what is admired is the object seen. (A `finds_doing` kind for a
feeling said of a gerund subject was built and taken out in the merge: on the dev pair it added
8 facts whose gold another fact of the turn already matched, docs/facts.md.)"""

from __future__ import annotations

from datetime import UTC, datetime

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext

WHEN = datetime(2023, 5, 8, 13, 0, tzinfo=UTC)


def facts(text: str) -> dict[str, str]:
    r = extract_offline(text, ExtractionContext("Priya", WHEN, addressee="Daniel"))
    return {f.fact_text: f.rule_kind or "" for f in r.facts}


def test_names_pronouns_and_reactions_are_not_activities():
    for text in ("Marco is so tough, he never gives up. I met Marco yesterday.", "Daniel is so special to me.",
                 "That's so peaceful and calming, Daniel!", "It's so calming, honestly.",
                 "Everything is so stressful right now."):
        assert not [t for t, k in facts(text).items() if k.startswith("stance.finds")], (text, facts(text))


def test_talking_to_someone_else_is_the_speakers_activity():
    got = facts("It was so gratifying to talk to the young people at the shelter.")
    assert "Priya found it gratifying to talk to the young people at the shelter" in got, got
    assert not [t for t, k in facts("It was so nice to talk to you.").items() if k.startswith("stance.")]
    assert not [t for t, k in facts("It's so freeing to share your art with strangers.").items()
                if k.startswith("stance.")]


def test_what_is_admired_is_the_object_seen_not_its_participle():
    got = facts("Congrats on the fair! It's awesome to see your hard work paying off.")
    assert "Priya admires Daniel's hard work" in got, got
    assert "Priya admires Daniel's dedication to helping others" in facts(
        "It's great to see your dedication to helping others.")


def test_appraisals_of_support_are_feelings_too():
    got = facts("It's been so helpful to have people around me who accept me.")
    assert "Priya finds it helpful to have people around her who accept her" in got, got
    assert "Priya found it encouraging to be surrounded by so much love" in facts(
        "It was so encouraging to be surrounded by so much love.")

"""Session 12 (stance12): the stance kinds said in other words. A feeling said of the activity
itself ("Starting my own shop is both scary and rewarding") is `stance.finds_doing`; "to talk to
<someone else>" is the speaker's own activity; "young" is not a generic "you"."""

from __future__ import annotations

from datetime import UTC, datetime

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext

WHEN = datetime(2023, 5, 8, 13, 0, tzinfo=UTC)


def facts(text: str) -> dict[str, str]:
    r = extract_offline(text, ExtractionContext("Priya", WHEN, addressee="Daniel"))
    return {f.fact_text: f.rule_kind or "" for f in r.facts}


def test_a_gerund_subject_with_coordinated_feelings():
    got = facts("I opened a bakery last month. Starting my own shop and taking risks is both scary and rewarding.")
    assert any(k == "stance.finds_doing" and t.startswith("Priya finds starting")
               and t.endswith("own shop and taking risks scary and rewarding") for t, k in got.items()), got


def test_a_dropped_g_gerund_and_a_clause_after_the_feeling():
    got = facts("Thanks for askin', Daniel! Startin' my biz has been tough but I'm gonna make it!")
    assert any(k == "stance.finds_doing" and t.startswith("Priya finds starting") and t.endswith("tough")
               for t, k in got.items()), got


def test_a_bare_activity_noun_and_the_past():
    assert facts("Pottery's so relaxing and creative.").get("Priya finds pottery relaxing and creative") \
        == "stance.finds_doing"
    assert facts("We climbed all day. The hike was exhausting, but worth it.").get(
        "Priya found the hike exhausting") == "stance.finds_doing"


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


def test_the_listeners_activity_is_not_the_speakers_feeling():
    for text in ("That charity race sounds great! Making a difference for kids is super rewarding.",
                 "Wow, that's awesome. Exploring nature with family is so special.",
                 "Loving what you do is so rewarding."):
        assert not [t for t, k in facts(text).items() if k == "stance.finds_doing"], (text, facts(text))


def test_what_is_admired_is_the_object_seen_not_its_participle():
    got = facts("Congrats on the fair! It's awesome to see your hard work paying off.")
    assert "Priya admires Daniel's hard work" in got, got
    assert "Priya admires Daniel's dedication to helping others" in facts(
        "It's great to see your dedication to helping others.")


def test_a_sentence_said_to_the_listener_is_about_them():
    assert not [t for t, k in facts("Finding a flat is tough, Daniel. Hang in there!").items()
                if k == "stance.finds_doing"]


def test_appraisals_of_support_are_feelings_too():
    got = facts("It's been so helpful to have people around me who accept me.")
    assert "Priya finds it helpful to have people around Priya who accept Priya" in got, got
    assert "Priya found it encouraging to be surrounded by so much love" in facts(
        "It was so encouraging to be surrounded by so much love.")

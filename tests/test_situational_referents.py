"""Pronouns that pointed at the wrong thing (session 18, refer18): a situational "it"/"that" given
a noun of the previous turn (write/antecedents.py), "their" for a business or organisation named
just before (write/org_antecedents.py), and a "his" inside a clause about someone else
(write/extract_rules.py `not_referent`). Invented sentences only (Nadia speaks, Tom is the other
speaker); a wrong name is worse than a pronoun left as written."""

from __future__ import annotations

from datetime import UTC, datetime

from arandu_pipelines.write.antecedents import replacements
from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext


def ctx(prev: list[tuple[str | None, str]] | None = None) -> ExtractionContext:
    return ExtractionContext(speaker_name="Nadia", occurred_at=datetime(2024, 3, 4, 12, tzinfo=UTC),
                             addressee="Tom", previous_turns=prev or [])


def facts(text: str, prev: list[tuple[str | None, str]] | None = None) -> list[str]:
    return [f.fact_text for f in extract_offline(text, ctx(prev)).facts]


def named(text: str, prev: list[tuple[str | None, str]]) -> list[str]:
    """What write/antecedents.py puts in the pronouns' place."""
    return [r.text for r in replacements(text, ctx(prev))]


# ---- a situational "it" / "that" takes no noun of the previous turn ------------------------------------
def test_superlative_measured_by_the_speaker_is_the_situation():
    prev = [("Nadia", "Dad played trumpet in a jazz band in college. He still knows every tune."),
            ("Tom", "That's wonderful, it must give him a lift.")]
    reply = "It is. It's the happiest I've seen him since the surgery."
    assert named(reply, prev) == [], named(reply, prev)
    assert not any("lift is" in f.lower() or "band is" in f.lower() for f in facts(reply, prev)), facts(reply, prev)


def test_perfect_copula_is_the_situation():
    # what the other speaker told (not asked): "my own studio has been a wild ride" was the start build's
    assert named("It's been a wild ride, but I'm proud.", [("Tom", "You finally opened your own studio!")]) == []
    assert named("It has been tough, but I'm staying focused.", [("Tom", "You redesigned the shop sign!")]) == []
    # negative: what they asked about is still named
    assert named("It's been tough, but I'm staying focused.", [("Tom", "How is the new design coming along?")]) \
        == ["the new design has"]


def test_that_for_the_effect_on_the_speaker():
    prev = [("Tom", "Walt's grandmother sailed from Genoa with nothing but a suitcase.")]
    assert named("That gives me chills.", prev) == []
    assert not any("Genoa" in f for f in facts("That gives me chills.", prev))
    assert named("That really means a lot.", [("Tom", "My brother cooked dinner for the whole shelter.")]) == []


def test_what_the_other_speaker_asked_about_is_still_named():
    # negative: a superlative about the thing asked about, a gerund for a situation
    out = facts("It's the best bakery I've been to.", [("Tom", "How was the new bakery?")])
    assert "The new bakery is the best bakery Nadia has been to" in out, out
    out = facts("It was the hardest thing I've ever sewn, and it took four months.", [("Tom", "Did you finish the quilt?")])
    assert any(f.startswith("The quilt was the hardest thing") for f in out), out
    out = facts("Yeah, it's been a rollercoaster.",
                [("Tom", "I'm so proud of you for starting and running your own bakery.")])
    assert "Starting and running Nadia's own bakery has been a rollercoaster" in out, out
    assert named("I made a lemon tart. It sold out by noon.", []) == []


def test_the_attribute_of_a_pronoun_is_no_thing():
    prev = [("Tom", "What a season! That's a huge accomplishment with a brand new quarterback.")]
    out = facts("Thanks! We beat Lincoln 35-10 to clinch it.", prev)
    assert not any("accomplishment" in f for f in out), out


def test_an_it_of_the_other_turn_before_the_candidate_competes():
    prev = [("Tom", "I'll send it this week, but don't read it until after the holidays! I know how tax season goes.")]
    out = facts("I'll save it as my post-tax-season reward.", prev)
    assert not any("save tax season" in f for f in out), out
    # negative: an "it" after the thing is that thing
    prev = [("Tom", "Did you bring the lemon tart? I heard it was good.")]
    assert named("It sold out by noon!", prev) == ["the lemon tart"], named("It sold out by noon!", prev)


def test_a_measure_is_no_judgement():
    out = facts("They're ten weeks old and two got adopted!", [("Tom", "How are the puppies? They must be big now!")])
    assert not any("finds the puppies" in f for f in out), out
    assert named("They're ten weeks old and two got adopted!",
                 [("Tom", "How are the puppies? They must be big now!")]) == ["the puppies are"]


# ---- "their" for the one organisation named before it ---------------------------------------------------
def test_their_for_an_organisation_of_the_message():
    out = facts("I started volunteering at the Elm Street library. I help out with their reading program on Mondays.")
    assert "Nadia helps out with the Elm Street library's reading program on Mondays" in out, out
    out = facts("I went to the new bakery on Main Street. I love their sourdough.")
    assert "Nadia loves the new bakery's sourdough" in out, out


def test_their_for_a_place_called_by_name():
    out = facts("We tried a Thai place called Golden Basil. I keep thinking about their curry.")
    assert "Nadia keeps thinking about Golden Basil's curry" in out, out
    out = facts("We did the first two. The second one, a Lebanese place called Cedar Table, was incredible. "
                "I'm already dreaming about their lamb.")
    assert "Nadia is already dreaming about Cedar Table's lamb" in out, out


def test_their_left_when_people_could_own_it():
    for text in ("My parents visited the bakery. I love their bread.",
                 "I met the Hendersons at the bakery. Their son is a chef.",
                 "I went to Pine Hill Clinic with my sister. Their waiting room was packed.",
                 "My kids love the zoo. Their favorite is the penguins.",
                 "I met a guy called Jonas Berg at the bakery. I love their rye."):
        out = facts(text)
        assert not any("'s bread" in f or "'s son" in f or "'s waiting" in f or "'s favorite" in f or "'s rye" in f
                       for f in out), (text, out)


# ---- a possessive inside a clause about someone else ----------------------------------------------------
def test_his_after_another_man_of_the_family_stays():
    out = facts("My cousin Rafael lives in Denver, so he can't visit much. He calls Grandpa every Friday and talks "
                "with him about his garden.")
    assert "Rafael calls Nadia's grandpa every Friday and talks with him about his garden" in out, out
    out = facts("My cousin Rafael lives in Denver. He calls my dad every Friday, which always makes his week.")
    assert not any("Rafael's week" in f for f in out), out


def test_his_of_the_subject_unchanged():
    out = facts("My cousin Rafael lives in Denver. He passed his driving test last week.")
    assert "Rafael passed his driving test" in out, out
    out = facts("My cousin Rafael lives in Denver. He visited my mom and fixed his bike.")
    assert "Rafael fixed his bike" in out, out


def test_one_before_it_is_the_local_antecedent():
    prev = [("Tom", "That's so cool! Your nonna would be so proud.")]
    out = facts("I framed one and hung it in the shop, right next to her photo.", prev)
    assert not any("nonna in the shop" in f for f in out), out
    # negative: a named thing before "it" is still what it is
    out = facts("I framed the article and hung it in the shop.", prev)
    assert "Nadia hung the article in the shop" in out, out

"""Offline extraction on chat turns (issue 19, the bench/facts.py loop): rule kinds that keep
what a person would write down about the speaker and drop talk about the talk. Sentences are
invented in the style of two friends catching up; unit level, no database."""

from __future__ import annotations

from datetime import UTC, datetime

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext

WHEN = datetime(2023, 9, 14, 18, 30, tzinfo=UTC)


def run(text: str, speaker: str = "Priya", addressee: str | None = "Daniel"):
    return extract_offline(text, ExtractionContext(speaker, WHEN, addressee=addressee))


def texts(r) -> list[str]:
    return [f.fact_text for f in r.facts]


# ---- nickname of the addressee -------------------------------------------------------------------
def test_a_short_form_of_the_addressee_name_is_the_addressee():
    """"Dan" said to Daniel is Daniel: "you" resolves to him, so a compliment about him is talk
    (not a fact about a new person "Dan"), and no entity "Dan" is created."""
    r = run("Aw, Dan, you've come such a long way with the band! I'm so proud of you for sticking with it.")
    assert texts(r) == [], texts(r)
    names = [e.name for e in r.entities]
    assert "Dan" not in names, names


def test_a_nickname_alias_keeps_facts_about_the_speaker():
    r = run("Thanks, Dan! I signed up for the half marathon in Lisbon last week.")
    assert any(t.startswith("Priya signed up for the half marathon") for t in texts(r)), texts(r)
    assert not any("Dan" in t for t in texts(r)), texts(r)


def test_a_name_that_is_not_a_short_form_is_not_merged():
    r = run("Danny, I met your cousin Marco at the climbing gym yesterday.")
    assert any("Marco" in t for t in texts(r)), texts(r)


# ---- talk about the talk -------------------------------------------------------------------------
def test_you_wont_believe_it_lead_is_cut_and_the_event_kept():
    r = run("Daniel, you won't believe it - I got a puppy from the shelter yesterday!")
    assert "Priya got a puppy from the shelter" in texts(r), texts(r)
    assert r.facts[0].subject == "Priya"
    assert r.facts[0].event_date.date() == datetime(2023, 9, 13).date()


def test_not_having_talked_is_not_a_fact():
    r = run("Hey Daniel! We haven't talked in a couple of weeks. Been busy repainting the kitchen.")
    assert not any("talked" in t for t in texts(r)), texts(r)
    assert any("repainting the kitchen" in t for t in texts(r)), texts(r)


def test_a_lot_going_on_is_not_a_fact():
    assert texts(run("Long time no see! So much has happened in my life lately!")) == []


# ---- feelings with nothing to remember -----------------------------------------------------------
def test_a_feeling_with_a_vague_object_is_dropped():
    for text in ("So excited for this next chapter!", "I'm pretty proud of it.",
                 "Looking forward to more good times!", "I'm excited to see where it takes me."):
        assert texts(run(text)) == [], (text, texts(run(text)))


def test_a_feeling_about_something_named_is_kept():
    r = run("I'm so excited about the pottery workshop next Saturday.")
    assert any("pottery workshop" in t for t in texts(r)), texts(r)


# ---- a rendered relative date does not leave a dangling possessive -------------------------------
def test_a_possessive_relative_date_leaves_no_dangling_s():
    r = run("Can't wait for tomorrow's recital at the conservatory!")
    assert r.facts, texts(r)
    assert all(" 's" not in t for t in texts(r)), texts(r)
    assert any("the recital at the conservatory" in t for t in texts(r)), texts(r)


# ---- modal or negation inside an embedded clause; memories; hopes to ---------------------------
def test_a_modal_inside_an_embedded_clause_does_not_drop_the_fact():
    r = run("I used to be terrified of what my coworkers would think of my singing.")
    assert any(t.startswith("Priya used to be terrified") for t in texts(r)), texts(r)
    r = run("I sketched the mural to show how we should welcome newcomers.")
    assert any(t.startswith("Priya sketched the mural") for t in texts(r)), texts(r)


def test_a_resolve_in_a_purpose_clause_does_not_drop_the_fact():
    r = run("I keep a bullet journal so I can track my training and stay motivated.")
    assert any("bullet journal" in t for t in texts(r)), texts(r)


def test_a_bare_resolve_or_modal_is_still_dropped():
    assert texts(run("I'm determined to make it work.")) == []
    assert texts(run("I will keep going.")) == []


def test_a_memory_is_a_fact():
    r = run("I'll never forget the night we watched the northern lights from the cabin.")
    assert any("never forget the night" in t for t in texts(r)), texts(r)


def test_hoping_to_do_something_is_a_plan_not_a_wish():
    r = run("I hope to open a small bakery in my hometown one day.")
    assert any(t.startswith("Priya hopes to open a small bakery") for t in texts(r)), texts(r)
    assert texts(run("I hope you feel better soon.")) == []


# ---- a statement before a tag question; dropped subjects ------------------------------------------
def test_a_statement_before_a_dash_question_is_kept():
    r = run("FYI, I finished the quilt for my niece - want to see a pic?")
    assert "Priya finished the quilt for her niece" in texts(r), texts(r)
    assert texts(run("Can you send me the recipe - the one with lentils?")) == []


def test_dropped_subject_with_still_need_and_been_to():
    assert "Priya is still working on the garden shed" in texts(run("Thanks! Still working on the garden shed."))
    assert "Priya needs help with the wedding playlist" in texts(
        run("Need help with the wedding playlist - any ideas?"))
    assert "Priya has been only to Vienna once" in texts(run("Been only to Vienna once."))


# ---- stance rule kinds (write/stance.py) ---------------------------------------------------------
def test_proud_of_the_addressee_for_something():
    r = run("Aw, Daniel! I'm so proud of you for finishing your first triathlon.")
    assert "Priya is proud of Daniel for finishing Daniel's first triathlon" in texts(r), texts(r)
    assert r.facts[0].subject == "Priya" and "Daniel" in r.facts[0].mentions


def test_admiration_names_what_is_admired():
    assert "Priya admires Daniel's patience with the new puppy" in texts(
        run("I'm in awe of your patience with the new puppy."))
    assert "Priya admires how calm Daniel is during the storms" in texts(
        run("It's so great to see how calm you are during the storms, Daniel."))


def test_inspiration_and_friendship():
    assert "Daniel's discipline inspires Priya to train every morning" in texts(
        run("Honestly, your discipline really inspires me to train every morning!"))
    assert "Priya values their friendship with Daniel" in texts(run("Thanks, Dan! I really value our friendship."))


def test_a_feeling_about_doing_something():
    r = run("It's so freeing to paint without a plan.")
    assert texts(r) == ["Priya finds it freeing to paint without a plan"], texts(r)


def test_reactions_and_bare_compliments_give_no_stance_fact():
    for text in ("Keep it up!", "You're awesome!", "Your support means a lot.", "It's great to see you again!",
                 "It's special to me.", "It's so hard to find good help when you run a shop.",
                 "It's great to see how far the project has come."):
        assert texts(run(text)) == [], (text, texts(run(text)))


def test_no_stance_fact_without_an_addressee_or_in_portuguese():
    assert texts(run("I'm so proud of you for finishing your first triathlon.", addressee=None)) == []
    assert not any("proud" in t for t in texts(run("Estou muito orgulhosa de você, Daniel!")))


def test_made_me_is_not_the_speaker_acting_on_themselves():
    assert texts(run("Really made me think about slowing down.")) == []


# ---- "It"/"They" standing for the previous sentence's subject ------------------------------------
def test_it_takes_the_previous_sentence_thing_as_subject():
    r = run("Swimming keeps me sane. It's the one hour of my day without a screen.")
    assert "Swimming is the one hour of Priya's day without a screen" in texts(r), texts(r)


def test_they_takes_a_plural_thing_and_it_does_not():
    r = run("Sunflowers make me smile. They were the centrepiece of my graduation party.")
    assert "Sunflowers were the centrepiece of Priya's graduation party" in texts(r), texts(r)
    r = run("Sunflowers make me smile. It was a long week at the hospital for my dad.")
    assert not any(t.startswith("Sunflowers was") for t in texts(r)), texts(r)


def test_a_person_is_not_an_antecedent_for_it():
    r = run("Daniel helped me move. It's been a crazy month for my family.")
    assert not any(t.startswith(("Daniel is", "Daniel has been")) for t in texts(r)), texts(r)


def test_a_must_have_is_not_a_guess():
    r = run("Running is a must-have in my week.")
    assert any("must-have" in t for t in texts(r)), texts(r)


def test_two_adjectives_of_one_verb_are_not_two_actions():
    r = run("I felt nervous and excited giving my first talk at the library.")
    assert not any(t.startswith("Priya excited") for t in texts(r)), texts(r)
    r = run("I painted the fence and fixed the old gate.")
    assert texts(r) == ["Priya painted the fence", "Priya fixed the old gate"], texts(r)


def test_a_reaction_to_a_photo_is_not_a_preference():
    for text in ("Love the red and blue!", "I love how it's so calm.", "We love it, it brings us together.",
                 "I love all the yellow leaves in the pic."):
        assert texts(run(text)) == [], (text, texts(run(text)))
    assert texts(run("I love restoring old bikes.")) == ["Priya loves restoring old bikes"]


# ---- shown work; pointers to a photo; people in general --------------------------------------------
def test_shown_work_is_what_the_speaker_made():
    r = run("Here's a photo of my clay teapot I made last month.")
    assert "Priya made a clay teapot" in texts(r), texts(r)
    assert texts(run("Here's something I just finished.")) == []


def test_a_pointer_to_a_photo_is_cut_from_the_fact():
    r = run("I've been busy knitting - here's something I just finished.")
    assert texts(r) == ["Priya has been busy knitting"], texts(r)


def test_we_all_present_is_people_in_general():
    assert texts(run("We all have our own struggles.")) == []
    assert texts(run("We're all a bit weird.")) == []
    assert "Priya and others all made pizzas from scratch" in texts(run("We all made pizzas from scratch."))


def test_respect_for_what_the_addressee_did():
    r = run("Wow, Daniel. Respect for standing up to your landlord and winning.")
    assert "Priya admires Daniel for standing up to Daniel's landlord and winning" in texts(r), texts(r)
    assert texts(run("Respect for that.")) == []


def test_a_judged_gerund_phrase_is_not_a_dropped_i_am():
    assert texts(run("Supporting each other and making good things happen - that's so inspiring!")) == []
    assert not any(t.startswith("Priya is creating") for t in texts(
        run("Creating community and supporting each other, especially for kids, is really important.")))
    assert "Priya is researching adoption agencies" in texts(run("Researching adoption agencies this week."))

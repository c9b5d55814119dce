"""Facts that are not sentences (session 17, wellformed17: write/wellformed.py, with its source
repairs in extract_rules, news_frames, people_forms and reply_forms). Invented dialogues only
(Ann speaks to Bob), through the real extractor; the well-formed neighbours must stay unchanged."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from arandu_pipelines.write import wellformed as WF
from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext


def facts(text: str, prev: list[tuple[str | None, str]] | None = None) -> list[str]:
    ctx = ExtractionContext(speaker_name="Ann", occurred_at=datetime(2024, 3, 4, 12, tzinfo=UTC),
                            addressee="Bob", previous_turns=prev or [])
    return [f.fact_text for f in extract_offline(text, ctx).facts]


# ---- "S is <clause with its own verb>": the copula insertion ---------------------------------------

def test_an_ing_pronoun_is_no_dropped_im():
    out = facts("Nothing beats a slow breakfast on the balcony with the neighbours.")
    assert not any(f.startswith("Ann is nothing") for f in out), out


def test_a_gerund_with_its_own_verb_is_the_subject():
    out = facts("Volunteering lets me spend my weekends with the rescue horses.")
    assert not any(f.startswith("Ann is volunteering lets") for f in out), out
    assert any(f.startswith("Volunteering lets Ann spend") for f in out), out


def test_a_dropped_im_before_a_gerund_still_reads_as_the_speaker():  # unchanged
    out = facts("Painting the fence green this weekend with my brother Theo.")
    assert any(f.startswith("Ann is painting the fence green") for f in out), out


# ---- "It's like X": a comparison, no "I like" --------------------------------------------------------

def test_a_message_opening_simile_is_no_preference():
    out = facts("Honestly, like a fairy tale, even with the leaky roof and the cold showers.",
                [("Bob", "How's the new cottage?")])
    assert not any("likes a fairy tale" in f for f in out), out


def test_a_dropped_i_like_stays_a_preference():  # unchanged
    out = facts("Like the new haircut on Maya, by the way. Love that shade of copper.")
    assert any(f.startswith(("Ann likes the new haircut", "Ann loves that shade")) for f in out), out


# ---- "Here's a picture X sent me of Y" ---------------------------------------------------------------

def test_the_photo_senders_clause_keeps_its_object():
    out = facts("We found the old farmhouse online. Here's a photo my aunt sent me of the barn.")
    assert not any(f.endswith("sent Ann of the barn") for f in out), out
    assert "Ann's aunt sent Ann a photo of the barn" in out, out


def test_a_plain_photo_pointer_gives_no_fact():  # unchanged
    assert facts("Here's a photo of the barn.") == []


@pytest.mark.parametrize(("said", "rewritten"), [
    ("Here's a picture my cousin took of the harbour!", "My cousin took a picture of the harbour!"),
    ("And here's a shot Leo sent us from the summit.", "And Leo sent us a shot from the summit."),
])
def test_shown_sender_rewrites(said: str, rewritten: str) -> None:
    assert WF.shown_sender(said) == rewritten


@pytest.mark.parametrize("said", ["Here's a picture of my cousin.", "Here is the photo.", "Here's my cousin's photo."])
def test_shown_sender_leaves_other_pointers(said: str) -> None:
    assert WF.shown_sender(said) is None


# ---- imperatives and asides --------------------------------------------------------------------------

def test_a_passed_on_note_is_an_imperative():
    out = facts("Safe flight! And write Nadia a postcard from me too.")
    assert not any(f.startswith("Write Nadia") for f in out), out


def test_a_trailing_aside_is_cut():
    out = facts("I'm okay to walk home, don't worry. The bruise is already fading.")
    assert "Ann is okay to walk home" in out, out
    out = facts("I cried at the ceremony when Dan read his vows, honestly.")
    assert any(f == "Ann cried at the ceremony when Dan read his vows" for f in out), out


def test_an_honest_word_inside_a_fact_stays():  # unchanged
    out = facts("I honestly think the bakery on Pine Street makes the best rye bread in town.")
    assert not any(f.endswith(",") for f in out), out
    assert WF.aside("Ann met an honest mechanic in Leeds") is None


# ---- a news lead ---------------------------------------------------------------------------------------

def test_my_news_colon_keeps_the_news():
    out = facts("Sounds fun. Now, my news: I passed the bar exam on my second try!")
    assert any(f.startswith("Ann passed the bar exam") for f in out), out
    assert not any("news" in f for f in out), out


def test_big_news_about_someone_else_names_them():
    out = facts("I've got big news too: Marisol starts nursing school in August!")
    assert any(f.startswith("Marisol starts nursing school") for f in out), out
    assert not any("big news" in f for f in out), out


def test_news_lead_on_a_fact():
    assert WF.news_lead("Ann's news: Ann got the lead role in the play") == "Ann got the lead role in the play"
    assert WF.news_lead("Ann has more news: Ann's brother Sam moved to Oslo") == "Ann's brother Sam moved to Oslo"
    assert WF.news_lead("Ann shared the news with her parents") is None  # no lead: unchanged
    assert WF.news_lead("Ann's news: the twins") is None  # no clause after the colon


# ---- a verbless superlative exclamation -------------------------------------------------------------------

def test_a_superlative_with_no_verb_of_its_own_is_dropped():
    out = facts("The farthest I've ever been from the sea! Anyway, how was the trip?")
    assert not any(f.startswith("The farthest") for f in out), out


def test_a_superlative_with_a_verb_stays():  # unchanged
    assert not WF.exclamation_np("The best bakery Ann has ever tried is on Pine Street")  # head noun: a clause
    assert not WF.exclamation_np("The contest Ann entered was in Leeds")
    assert WF.exclamation_np("The longest Ann has ever waited for a bus")


def test_an_imperative_tail_is_cut_and_a_teaser_dropped():
    out = facts("My legs still hurt, but just look how the garden turned out! Also, I have news of my own.")
    assert "Ann's legs still hurt" in out, out
    assert not any("news" in f for f in out), out
    out = facts("My husband Ellis has his garden project, of course.")
    assert "Ann's husband Ellis has his garden project" in out, out


def test_a_coordinated_verb_after_another_subject_is_not_the_speakers():
    out = facts("We walked her to the gate at dawn, and she just smiled and boarded like it was nothing.")
    assert not any(f.startswith("Ann boarded") for f in out), out
    out = facts("I baked the rye loaves and sold them at the Leeds market.")  # unchanged: one subject, two deeds
    assert "Ann sold them at the Leeds market" in out, out


# ---- a lost object or a broken verb form ------------------------------------------------------------------

def test_a_status_word_before_its_noun_is_no_status():
    out = facts("My neighbour Rolf is a retired Navy pilot.")
    assert "Rolf is a retired" not in out, out
    assert any(f.endswith("is a retired Navy pilot") for f in out), out
    assert "Ann is a vegan" in facts("I'm a vegan now.")  # unchanged: a predicate status


def test_had_better_is_no_would_better():
    out = facts("I'd better go help Jonas pack, he's boxing up the whole attic.")
    assert not any("would better" in f for f in out), out


def test_hes_before_a_participle_with_an_object_is_has():
    out = facts("An old potter named Greta has been throwing pots for decades. She looked at my bowl. "
                "She's already taken me under her wing.")
    assert not any("is already taken" in f for f in out), out
    out = facts("My brother Sam called. He's lost in the city again.")  # unchanged: no object, "is"
    assert any(f.startswith("Sam is lost") for f in out), out


def test_someones_last_year_is_no_date():
    out = facts("I don't want to miss my niece Rosa's last year at home before college.")
    assert not any(f.endswith("Rosa's at home before college") for f in out), out
    out = facts("I met my niece Rosa at the station last week.")  # unchanged: a date
    assert not any("last week" in f for f in out), out


def test_a_term_of_address_is_no_part_of_the_fact():
    out = facts("Bro I'm already starving after that hike to Skye Point.")
    assert not any(f.startswith("Bro ") for f in out), out
    assert WF.aside("Jamal is ready for the Lisbon trip, chef") == "Jamal is ready for the Lisbon trip"
    assert WF.aside("Ann is a chef") is None  # unchanged: no comma, no address


def test_send_it_to_me_is_a_request():
    out = facts("Ha, I'd read it ten times too! Send it to me!", [("Bob", "I finally posted the race video.")])
    assert not any(f.startswith("Send") for f in out), out
    out = facts("My brother Kai sent the video to me last week.")  # unchanged: a report, not a request
    assert any(f.startswith("Ann's brother Kai sent") for f in out), out


def test_an_ordinal_noun_phrase_with_no_verb_is_dropped():
    out = facts("I've decided to keep Pepper myself. My first foster fail!")
    assert not any(f.endswith("first foster fail") for f in out), out
    assert not WF.ordinal_np("Ann's first race was in Leeds")  # unchanged: a verb

"""He / she in a reply to a question about a name spaCy's NER did not read as a person (a pet's or
an unusual name typed ORG / GPE or nothing), and the question before the last one in the other
speaker's turn (write/person_antecedents.py `_asked_about`, `_question_name`, session 16). Through
the real extractor with the earlier turns as context. Invented dialogue only (Ana speaks, Ben
asks)."""

from __future__ import annotations

from datetime import UTC, datetime

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext


def facts(text: str, prev: list[tuple[str | None, str]], speaker: str = "Ana", addressee: str = "Ben") -> list[str]:
    ctx = ExtractionContext(speaker_name=speaker, occurred_at=datetime(2024, 3, 4, 12, tzinfo=UTC),
                            addressee=addressee, previous_turns=prev)
    return [f.fact_text for f in extract_offline(text, ctx).facts]


# ---- the name a question asks about ------------------------------------------------------------------
def test_a_pet_name_the_question_asks_about_is_the_subject_of_the_reply():
    out = facts("He is doing great, but we had a funny incident. He stole a whole pizza off the counter on Wednesday.",
                [("Ben", "How is Rufus doing?")])
    assert any(f.startswith("Rufus stole a whole pizza") for f in out), out
    assert not any(f.startswith("He ") for f in out), out  # "Rufus is doing great": a mood, dropped (s18)


def test_a_yes_no_question_about_a_name_gives_the_reply_its_subject():
    out = facts("Not for the long ones, he would be tired after a mile. But he graduated from his obedience class "
                "on Thursday!", [("Ben", "Did Biscuit come along?")])
    assert any(f.startswith("Biscuit graduated from his obedience class") for f in out), out
    out = facts("Yes! He barked at me like crazy when I crossed the line.", [("Ben", "Was Biscuit there cheering?")])
    assert any(f.startswith("Biscuit barked at Ana") for f in out), out


def test_a_first_name_the_ner_types_a_place_is_still_the_one_asked_about():
    out = facts("She did! She ran the last mile with me.", [("Ben", "Did Marta come along?")])
    assert any(f.startswith("Marta ran the last mile with Ana") for f in out), out


def test_the_question_before_the_last_one_names_whom_the_reply_is_about():
    out = facts("Great news, the murmur is mild. He went home last week with a young couple.",
                [("Ben", "How is Moose? Did the heart checkup go okay?")])
    assert any(f.startswith("Moose went home with a young couple") for f in out), out


# ---- guards: forms that must not change ---------------------------------------------------------------
def test_a_name_of_the_other_gender_is_not_taken():
    out = facts("No, he stayed home and painted the fence.", [("Ben", "Did Marta come along?")])
    assert not any("Marta" in f for f in out), out


def test_two_names_asked_about_leave_the_pronoun():
    out = facts("He stole a whole pizza off the counter on Wednesday.", [("Ben", "How are Rufus and Pickles doing?")])
    assert not any(f.startswith(("Rufus", "Pickles")) for f in out), out


def test_a_place_or_a_title_is_not_a_person():
    out = facts("He scored twice in the second half.", [("Ben", "Did you watch the game? How was Brookfield?")])
    assert not any("Brookfield" in f for f in out), out
    out = facts("Yes! She taught me to cook. She passed away two years ago.",
                [("Ben", 'Wow, that looks great! "Nina\'s Kitchen" - is that after your aunt?')])
    assert not any("Kitchen" in f for f in out), out
    assert any(f.startswith("Ana's aunt taught Ana to cook") for f in out), out


def test_the_last_question_about_someone_else_stays_the_antecedent():
    out = facts("She did, she got a new job at the bakery.", [("Ben", "Did Moose come along? Did your sister call?")])
    assert any(f.startswith("Ana's sister") and "bakery" in f for f in out), out
    assert not any("Moose" in f for f in out), out


def test_a_generic_he_in_a_saying_stays():
    out = facts("Fine. As my grandpa says, he who hesitates is lost.", [("Ben", "How is Rufus doing?")])
    assert not any("Rufus" in f for f in out), out


# ---- an animal only wished for is no referent ---------------------------------------------------------
def test_an_animal_only_wished_for_does_not_make_the_pronoun_ambiguous():
    prev = [("Ana", "Our granddaughter Mia would love him. She has been begging her parents for a dog."),
            ("Ben", "How old is she?")]
    out = facts("She just turned eight. She came over last Sunday and helped me in the garage.", prev)
    assert any(f.startswith("Mia just turned eight") for f in out), out
    out = facts("He just turned six.", [("Ana", "Our grandson Arlo wants a puppy so badly."), ("Ben", "How old is he?")])
    assert any(f.startswith("Arlo just turned six") for f in out), out


def test_an_animal_that_is_there_still_makes_the_pronoun_ambiguous():
    out = facts("She is about two. She sleeps in the garage.",
                [("Ana", "Our granddaughter Mia found a dog in the park."), ("Ben", "How old is she?")])
    assert not any(f.startswith("Mia") for f in out), out


# ---- a photo caption's people count only when the words name no one -------------------------------------
_PHOTO = ("Hey Ben, I promised you pictures! Here is Derek at his graduation on June 2nd. Carla and I could not stop "
          "grinning the whole day. [shared a photo: a photo of a young man in a white navy uniform standing between "
          "his parents]")


def test_the_person_a_caption_shows_is_the_one_the_words_named():
    out = facts("He held it for a long time without saying a word, then hugged me.",
                [("Ana", _PHOTO), ("Ben", "Ana, look at him! Did he like the watch?")])
    assert any(f.startswith("Derek held the watch for a long time") for f in out), out


def test_a_caption_alone_still_counts_its_people():
    out = facts("He held it for a long time without saying a word.",
                [("Ana", "Look what came in the mail! [shared a photo: a man holding a puppy next to a box]"),
                 ("Ben", "Did he like the watch?")])
    assert not any(f.startswith(("A man", "The man", "Ana's man")) for f in out), out

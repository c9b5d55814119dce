"""He / she / his / her pointing at the wrong person (session 17, branch ante17: write/pronoun_people.py,
write/person_antecedents.py, extract_rules' `last_person`): recency inside the sentence, a person
over a place or organisation, an untyped person NER recognised, a name the window spoke of that no
candidate read, a vehicle called "she". Invented sentences only (Nadia speaks, Tom listens)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from arandu_pipelines.write import person_antecedents, pronoun_people, session_names
from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.nlp import ner_labels
from arandu_pipelines.write.person_antecedents import PERSON_NOUNS
from arandu_pipelines.write.types import ExtractionContext


def ctx(text: str, prev: list[tuple[str | None, str]] | None = None, speaker: str = "Nadia",
        addressee: str = "Tom") -> ExtractionContext:
    """The context the pipeline gives: the message's NER labels and the session's record of names."""
    ner = ner_labels([text], None, frozenset({speaker.casefold(), addressee.casefold()}))[0]
    c = ExtractionContext(speaker_name=speaker, occurred_at=datetime(2024, 3, 4, 12, tzinfo=UTC),
                          addressee=addressee, previous_turns=prev or [], ner=ner)
    return replace(c, named_before=session_names.for_context(c))


def facts(text: str, prev: list[tuple[str | None, str]] | None = None, speaker: str = "Nadia",
          addressee: str = "Tom") -> list[str]:
    return [f.fact_text for f in extract_offline(text, ctx(text, prev, speaker, addressee)).facts]


# ---- recency inside the sentence: a first name NER took for a place ---------------------------------
def test_the_name_of_the_pronouns_own_sentence_beats_one_of_an_earlier_sentence():
    prev = [("Nadia", "My neighbor Hector taught me to weld last month."),
            ("Tom", "Hector sounds great! Would he teach a class at the library?")]
    out = facts("I'll ask him, he loves to teach. Right now I'm building a desk to give Logan when he starts college.",
                prev)
    assert any("give Logan when Logan starts college" in f for f in out), out
    assert not any("when Hector" in f for f in out), out
    assert "Hector loves to teach" in out, out  # the earlier sentence keeps its own antecedent


def test_missed_names_are_objects_never_places_nor_subjects():
    from arandu_pipelines.write.parses import NER, PARSE, ChunkParses

    parses = ChunkParses()
    for text, want in [("I'm building a desk to give Logan when he starts college.", ["Logan"]),
                       ("We moved to Logan when he was born.", []),  # a place preposition's object
                       ("We visited Logan Street when he was born.", [])]:  # part of a longer name
        doc = parses.doc(text, PARSE, "test")
        parses.doc(text, NER, "test")
        got = [n for n in pronoun_people.missed_names(doc[:], {"nadia", "tom"}, set())
               if not any(e.label_ == "PERSON" and e.text == n for e in doc.ents)]
        assert got == want, (text, got)


# ---- a place or an organisation is never "he" ------------------------------------------------------
def test_a_school_or_town_named_before_the_person_is_not_he():
    out = facts("This is my third year teaching at Oakridge and I've never had a student like Dario. "
                "He's a sophomore with a gift for math.")
    assert "Dario is a sophomore with a gift for math" in out, out
    assert not any(f.startswith("Oakridge") for f in out), out
    out = facts("We lost some good players, but this is my fifth season as coach at Millbrook and I've never "
                "had a pitcher like Omar. He's a senior with a wicked curveball.")
    assert "Omar is a senior with a wicked curveball" in out, out
    assert not any(f.startswith("Millbrook") for f in out), out


# ---- a person NER recognised whom no rule typed ------------------------------------------------------
def test_the_last_person_named_takes_the_subject_pronoun_though_no_rule_typed_her():
    out = facts("With Jonah away at college I want to enjoy Maribel's last year at home. "
                "She starts nursing school next fall.")
    assert "Maribel starts nursing school next fall" in out, out
    assert not any(f.startswith("Jonah starts") for f in out), out
    out = facts("One volunteer, Arturo, is 85 and served in the navy. He had so many stories.")
    assert "Arturo had so many stories" in out, out


def test_the_owner_of_a_relative_is_not_she():
    out = facts("Her name is Lila, after Ruth's mother. She has my eyes, poor thing.")
    assert "Lila has Nadia's eyes, poor thing" in out, out
    assert not any(f.startswith("Ruth") for f in out), out


def test_a_name_of_the_pronouns_gender_before_the_untyped_one_leaves_it_alone():
    out = facts("Nina is now driving her friend Cora to work every morning. She got her first speeding ticket last week.")
    assert not any(f.startswith("Cora got") for f in out), out


def test_an_object_pronoun_does_not_take_an_untyped_name():
    out = facts("What's the funniest thing Ollie has done? Here is a pic of him eating carrots!")
    assert not any("Ollie" in f and "carrots" in f for f in out), out


# ---- the previous turns spoke of someone no candidate read ------------------------------------------
_LUIS = [("Tom", "I'm tutoring a gentleman named Luis this spring."), ("Nadia", "That's lovely, what is he learning?"),
         ("Tom", "Reading, mostly. How are you holding up?")]


def test_a_pronoun_after_an_unread_name_of_the_window_is_not_an_older_name():
    prev = [*_LUIS, ("Nadia", "Rough week. But coming home to Pickle helps a ton. He just curls up next to me.")]
    text = "Dogs know. I'm glad you have him."
    c = ctx(text, prev, speaker="Tom", addressee="Nadia")
    assert not any(r.text == "Luis" for r in person_antecedents.replacements(text, c))
    assert not any("Luis" in f for f in facts(text, prev, "Tom", "Nadia"))


def test_a_window_whose_pronoun_comes_first_still_takes_the_older_name():
    prev = [*_LUIS, ("Nadia", "Rough week. He passed his test in Boston though.")]
    text = "I'm so glad for him."
    c = ctx(text, prev, speaker="Tom", addressee="Nadia")
    assert [r.text for r in person_antecedents.replacements(text, c)] == ["Luis"]


def test_window_unread_reads_the_order_of_name_and_pronoun():
    names = {"nadia", "tom"}
    assert pronoun_people.window_unread([("Nadia", "Coming home to Pickle helps. He curls up next to me.")], "m", names, [])
    assert not pronoun_people.window_unread([("Nadia", "He shipped out to Great Lakes, Illinois last Monday.")],
                                            "m", names, [])
    assert not pronoun_people.window_unread([("Nadia", "Coming home to Pickle helps. She curls up next to me.")],
                                            "m", names, [])
    assert not pronoun_people.window_unread([("Nadia", "I have no idea what a V3 is. How did he take it?")],
                                            "m", names, [])


# ---- a vehicle called "she" ---------------------------------------------------------------------------
def test_she_after_a_vehicle_is_not_a_woman_named_turns_ago():
    prev = [("Nadia", "My mentor Greta says the first year is the hardest."), ("Tom", "She sounds wise."),
            ("Nadia", "She is. Anyway, big news!"), ("Tom", "Tell me!")]
    text = "I bought an old fishing boat last week. She needs a lot of work."
    assert not any(r.text == "Greta" for r in person_antecedents.replacements(text, ctx(text, prev)))


def test_she_thing_before_reads_vehicles_for_she_only():
    assert pronoun_people.she_thing_before("I bought an old fishing boat last week. ", "f")
    assert not pronoun_people.she_thing_before("I bought an old fishing boat last week. ", "m")


# ---- unchanged ---------------------------------------------------------------------------------------
def test_his_for_an_unnamed_baby_stays_as_written():
    out = facts("It's a boy, and Ines asked me to be his godmother!",
                [("Nadia", "My friend Ines is expecting her first baby in June."), ("Tom", "How exciting! Boy or girl?")])
    assert any("his godmother" in f for f in out), out
    assert not any("Ines's godmother" in f for f in out), out


def test_a_typed_person_of_the_pronouns_gender_still_takes_it():
    out = facts("My brother Tom lives in Seattle, so he can't help much.", speaker="Nadia", addressee="Ana")
    assert not any(f.startswith("Seattle") for f in out), out


def test_subject_pronouns_and_owners_of_relatives():
    assert pronoun_people.subject_pronoun("He's") and not pronoun_people.subject_pronoun("him")
    assert pronoun_people.owner_of_person("after Ruth's mother", 6, "Ruth", PERSON_NOUNS)
    assert not pronoun_people.owner_of_person("miss Kayla's last year", 5, "Kayla", PERSON_NOUNS)

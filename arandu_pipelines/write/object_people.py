"""Who an object "him" / "her" is when no name says it: "my dog", "my brother", or a name the other
speaker's last turn gave.

write/object_it.py names an object it/him/her from the message's one candidate; for "him/her" a
candidate was only a name. A speaker often says the person or pet with a kin or animal noun ("My
dog ate a sock. I took him to the vet" -> "Nadia took Nadia's dog to the vet"), or answers a
question about someone the other speaker named ("Did Tyler get off to boot camp okay?" -> "He
shipped out Monday. We drove him to the recruiting office"). This module holds what tells those
apart: the noun tables (a gendered kin noun must agree with the pronoun: "my sister" is no "him"),
and whether the message before the pronoun says any person at all (then the other turn is not
asked: "I met a guy at the gym. I drove him home" stays). Only singular "my/your" nouns: "our
dog", "his brother" belong to someone another module decides.
"""

from __future__ import annotations

from typing import Any

from arandu_pipelines.write.org_antecedents import _PERSON_NOUNS

_PETS = frozenset({"dog", "cat", "puppy", "pup", "kitten", "horse", "pony", "rabbit", "bunny", "hamster",
                   "parrot", "bird", "goldfish", "turtle", "tortoise", "lizard", "snake", "ferret", "guinea",
                   "pig", "gerbil", "budgie", "cockatiel", "owl"})
_KIN = {
    "m": frozenset({"brother", "son", "dad", "father", "husband", "boyfriend", "uncle", "nephew", "grandpa",
                    "grandfather", "grandson", "stepson", "stepdad", "stepfather", "fiance"}),
    "f": frozenset({"sister", "daughter", "mom", "mother", "mum", "wife", "girlfriend", "aunt", "niece",
                    "grandma", "grandmother", "granddaughter", "stepdaughter", "stepmom", "stepmother", "fiancee"}),
}
_GENDER = {"him": "m", "her": "f"}
_OTHER_GENDER_PRONOUNS = {"him": frozenset({"she", "her", "hers", "herself"}),
                          "her": frozenset({"he", "him", "his", "himself"})}


def kin_or_pet(chunk: Any, pron: str) -> list[Any] | None:
    """The words of "my dog" / "your brother" when "him"/"her" can be it (a pet, or a kin noun of the
    pronoun's gender); None otherwise."""
    root = chunk.root
    words = [t for t in chunk if not t.is_punct and not t.is_space]
    if not words or root.tag_ != "NN" or words[0].lower_ not in ("my", "your") or words[0].dep_ != "poss":
        return None
    low = root.lower_
    if low in _PETS or low in _KIN.get(_GENDER.get(pron, ""), frozenset()):
        return words
    return None


def no_person_before(before: list[Any], pron: str) -> bool:
    """Nothing before the pronoun in the message says a person or pet (a name, a person or animal
    noun, a pronoun of the other gender): only then is the other speaker's turn asked who it is."""
    for t in before:
        if t.ent_type_ == "PERSON" or t.lower_ in _OTHER_GENDER_PRONOUNS.get(pron, frozenset()):
            return False
        if t.pos_ in ("NOUN", "PROPN") and (t.lower_ in _PERSON_NOUNS or t.lower_ in _PETS
                                            or any(t.lower_ in kin for kin in _KIN.values())):
            return False
    return True

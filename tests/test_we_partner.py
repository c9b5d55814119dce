"""The other one of "we" when the conversation gives exactly one (write/we_partner.py,
write/we_events.py, session 14): the partner the speaker named ("my wife Ellen" -> "Tomas and
Ellen are flying ..."), a group the speaker belongs to ("I sing in a choir" -> "The school asked
Ana and their choir ..."), and an event whose object is "us" kept instead of dropped as a generic
"we". Guards: a family "we" (kids named), a proposal to the listener, an ex, the listener's
partner, a generic "us". Conversations are invented; extraction through `extract_offline` (the
real spaCy pipeline), and through the database for a partner named in an earlier write()."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace

from arandu_pipelines.write import we_group
from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractedFact, ExtractionContext

WHEN = datetime(2023, 9, 14, 18, 30, tzinfo=UTC)


def texts(text: str, speaker: str = "Tomas", previous: list[tuple[str | None, str]] | None = None,
          partner: str | None = None, people: tuple[str, ...] = ()) -> list[str]:
    ctx = ExtractionContext(speaker, WHEN, addressee="Daniel", previous_turns=previous or [],
                            known_types=dict.fromkeys(people, "person"))  # persons the memory knows
    ctx.partner = partner  # what write/we_partner.PartnerTracker remembered (None: nothing)
    return [f.fact_text for f in extract_offline(text, ctx).facts]


# ---- the partner -----------------------------------------------------------------------------------
def test_partner_named_in_the_same_message() -> None:
    got = texts("My fiancée Lucia wants a garden wedding. We booked the venue yesterday!")
    assert "Tomas and Lucia booked the venue" in got, got


def test_partner_named_in_the_speakers_previous_turn() -> None:
    previous = [("Tomas", "My wife Ellen has been dreaming of Portugal for years."), ("Daniel", "Oh nice, when?")]
    got = texts("We're flying to Lisbon on the 12th.", previous=previous)
    assert any(t.startswith("Tomas and Ellen are flying to Lisbon") for t in got), got


def test_partner_remembered_from_earlier_in_the_conversation() -> None:
    got = texts("We booked the venue yesterday!", partner="Lucia")
    assert got == ["Tomas and Lucia booked the venue"], got


def test_unnamed_partner_is_spelled_with_the_speakers_name() -> None:
    previous = [("Tomas", "My husband keeps talking about the mountains."), ("Daniel", "Go for it!")]
    got = texts("We rented a cabin near the lake for the whole of August.", previous=previous)
    assert any(t.startswith("Tomas and his husband rented a cabin") for t in got), got


def test_partner_tracker_remembers_across_sessions_until_children_are_named() -> None:
    from arandu_pipelines.write import we_partner

    ev = [SimpleNamespace(agent_id="a", speaker=s, text=t) for s, t in [
        ("Tomas", "My girlfriend Mia just got a new job."),
        ("Daniel", "My wife Rosa says congrats."),
        ("Tomas", "Thanks!"),
        ("Daniel", "How are things?"),
        ("Tomas", "Great, my kids are back at school."),
        ("Tomas", "We went hiking."),
    ]]
    got = we_partner.PartnerTracker().assign(ev)
    assert got == [None, None, "Mia", "Rosa", "Mia", ""], got


def test_partner_in_reads_the_forms_of_naming() -> None:
    from arandu_pipelines.write import we_partner

    assert we_partner.partner_in("Ellen, my wife, says hi", "Tomas") == "Ellen"
    assert we_partner.partner_in("my hubby and the dog", "Tomas") == "Tomas's husband"
    assert we_partner.partner_in("My wife Ellen and my wife's sister", "Tomas") == "Ellen"
    assert we_partner.partner_in("I met my partner Sam on Saturday", "Tomas") == "Sam"


# ---- partner guards ---------------------------------------------------------------------------------
def test_family_we_is_not_the_couple() -> None:
    assert texts("We took the kids to the zoo.", partner="Lucia") == ["Tomas and others took the kids to the zoo"]
    previous = [("Tomas", "My son started swimming lessons."), ("Daniel", "Fun!")]
    got = texts("We booked the venue yesterday!", previous=previous, partner="Lucia")
    assert got == ["Tomas and others booked the venue"], got


def test_crowd_in_the_listeners_turn_before_keeps_others() -> None:
    previous = [("Daniel", "Are your friends coming along?")]
    got = texts("We booked the venue yesterday!", previous=previous, partner="Lucia")
    assert got == ["Tomas and others booked the venue"], got


def test_listeners_partner_is_not_the_speakers() -> None:
    previous = [("Daniel", "My wife Rosa loves Lisbon.")]
    got = texts("We're flying to Lisbon on the 12th.", previous=previous)
    assert any(t.startswith("Tomas and others are flying to Lisbon") for t in got), got


def test_ex_and_partner_in_crime_are_not_partners() -> None:
    from arandu_pipelines.write import we_partner

    assert we_partner.partner_in("My ex-wife Jane called me.", "Tomas") is None
    assert we_partner.partner_in("My late husband loved this song.", "Tomas") is None
    assert we_partner.partner_in("My partner in crime Joe is here.", "Tomas") is None


def test_proposal_to_the_listener_is_the_two_speakers() -> None:
    fact = ExtractedFact(subject="Tomas", fact_text="Tomas and others should visit the new museum together")
    assert we_group.apply([fact], "We should visit the new museum together", "Tomas", [], partner="Lucia") == 0
    assert fact.fact_text == "Tomas and others should visit the new museum together"


def test_partner_already_in_the_fact_is_not_repeated() -> None:
    got = texts("We went to dinner with my wife last night.", partner="Lucia")
    assert not any("Tomas and Lucia" in t for t in got), got


def test_a_named_group_wins_over_the_partner() -> None:
    got = texts("My friends and I booked the venue yesterday. We danced all night.", partner="Lucia")
    assert not any("Lucia" in t for t in got), got


# ---- groups the speaker belongs to; an event whose object is "us" ---------------------------------
def test_group_the_speaker_belongs_to_names_an_object_us() -> None:
    got = texts("I sing in a choir. The school asked us to sing in July.", speaker="Ana")
    assert "The school asked Ana and her choir to sing in July" in got, got


def test_group_from_the_previous_turn_keeps_the_event_fact() -> None:
    previous = [("Ana", "I sing in a choir downtown, it's my favourite thing."), ("Daniel", "That's cool!")]
    got = texts("The community center already asked us to do a summer concert.", speaker="Ana", previous=previous)
    assert any(t.startswith("The community center already asked Ana and her choir to do a summer concert")
               for t in got), got


def test_event_with_object_us_is_kept_without_a_group() -> None:
    got = texts("The hotel upgraded us to a suite.", speaker="Ana")
    assert got == ["The hotel upgraded Ana and others to a suite"], got


def test_generic_us_is_still_dropped() -> None:
    assert texts("Music brings us together.") == []
    assert texts("The pandemic taught us a lot about patience.") == []
    assert texts("Art showed us who we really are, in the end.") == []


def test_gave_an_effect_is_not_an_event() -> None:
    from arandu_pipelines.write import we_events

    assert not we_events.keeps("The concert gave Ana and others so much hope", "Ana")
    assert we_events.keeps("The guide gave Ana and others a tour of the old town", "Ana")
    assert not we_events.keeps("People told Ana and others they were crazy", "Ana")
    assert not we_events.keeps("Everyone asked Ana and others to stay", "Ana")


# ---- through the database: a partner named in an earlier write() ------------------------------------
async def test_a_later_write_takes_the_partner_from_the_stored_relationship(fresh_db_url, embeddings):
    """Each write() runs a new pipeline (nothing tracked): the partner comes from the stored
    `partner_of` relationship of the speaker, made from the earlier message."""
    from arandu_pipelines.client import MemoryClient

    at = datetime(2023, 5, 8, 12, tzinfo=UTC)
    client = MemoryClient(fresh_db_url, embeddings=embeddings)
    await client.initialize()
    try:
        await client.write("u1", "My fiancée Lucia wants a garden wedding.", speaker_name="Marco",
                           session_id="s1", occurred_at=at)
        for i, line in enumerate(["Daniel: how is work?", "Marco: busy as always.", "Daniel: same here."]):
            who, said = line.split(": ")
            await client.write("u1", said, speaker_name=who, session_id="s1", occurred_at=at.replace(minute=i + 1))
        r = await client.write("u1", "We booked the venue yesterday!", speaker_name="Marco",
                               session_id="s2", occurred_at=at.replace(day=20))
    finally:
        await client.close()
    got = [f.fact_text for f in r.facts_added]
    assert any(t.startswith("Marco and Lucia booked the venue") for t in got), got


# ---- "It made us ..." agrees with a plural subject (write/fact_shape.name_subject) -------------------
def test_causative_with_us_names_a_plural_subject() -> None:
    assert texts("It made us think about life.") == ["Tomas and others thought about life"]
    got = texts("It makes us feel so alive when we hike in the hills.")
    assert any(t.startswith("Tomas and others feel so alive") for t in got), got


def test_causative_with_me_and_a_later_we_is_left_as_before() -> None:
    from arandu_pipelines.write.fact_shape import name_subject

    assert texts("It made me think about life.") == ["Tomas thought about life"]
    assert name_subject("It made Priya think how much work Priya and others still have to do", "Priya") == (
        "Priya thought about how much work Priya and others still have to do")


def test_coordinated_partner_noun_takes_the_name_the_conversation_gave() -> None:
    got = texts("My fiancée and I finally chose a date. We booked the venue yesterday!", partner="Lucia")
    assert "Tomas and Lucia booked the venue" in got, got
    got = texts("My fiancée and I finally chose a date. We booked the venue yesterday!")
    assert "Tomas and Tomas's fiancée booked the venue" in got, got


# ---- a named person coordinated with the speaker ("Jake and I", "my brother Sam and I") ---------------
def test_name_coordinated_with_the_speaker_in_the_same_message() -> None:
    # Jake is a person the memory knows (the small spaCy model tags this "Jake" NORP, see
    # test_bare_name_needs_a_person_and_a_coordinated_subject)
    got = texts("Me and Jake went fishing on Sunday. We caught three trout!", people=("Jake",))
    assert "Tomas and Jake caught three trout" in got, got


def test_relative_with_a_name_in_the_speakers_previous_turn() -> None:
    previous = [("Tomas", "Yesterday my brother Sam and I drove to Denver."), ("Daniel", "Fun!")]
    got = texts("We stayed at a motel near the airport.", previous=previous)
    assert any(t.startswith("Tomas and Sam stayed at a motel") for t in got), got


def test_you_and_i_and_a_list_of_names_are_no_single_companion() -> None:
    assert we_group.group_in("You and I should talk more often", "Tomas") is None
    assert we_group.group_in("Sam, Joe and I went out", "Tomas") is None
    got = texts("We went fishing with Jake last Sunday.", previous=[("Tomas", "Jake and I are old friends."),
                                                                    ("Daniel", "Nice.")])
    assert not any("Tomas and Jake went fishing with Jake" in t for t in got), got


# ---- session 14 (we14b): a bare "X and I" is a coordinated subject and X a person ----------------------
def test_a_language_after_a_preposition_is_no_companion() -> None:
    text = ("Last Wednesday we learned how to order food, so I practiced on the owner. "
            "He answered me in Italian and I understood almost half!")
    got = texts(text, speaker="Walter")
    assert not any("Italian learned" in t for t in got), got
    assert any(t.startswith("Walter and others learned how to order food") for t in got), got
    previous = [("Walter", "He answered me in Italian and I understood almost half!"), ("Daniel", "Bravo!")]
    got = texts("We learned how to order food last Wednesday.", speaker="Walter", previous=previous)
    assert got == ["Walter and others learned how to order food"], got


def test_a_name_after_a_preposition_or_an_object_is_no_companion() -> None:
    assert we_group.group_in("I went with Sam and I loved it.", "Tomas") is None
    assert we_group.group_in("I told Mira and I think she agreed.", "Tomas") is None
    assert we_group.group_in("I told Mira and I think she agreed.", "Tomas", frozenset({"mira"})) is None


def test_bare_name_needs_a_person_and_a_coordinated_subject() -> None:
    # NER says PERSON: kept
    got = texts("Yesterday Lucia and I booked the venue. We danced all night.")
    assert "Tomas and Lucia danced all night" in got, got
    # NER says nothing: only a person the conversation knows
    got = texts("Priya and I finally finished the shed. We painted it blue.", people=("Priya",))
    assert "Tomas and Priya painted the shed blue" in got, got  # the object "it" is named (write/object_it.py)
    got = texts("Priya and I finally finished the shed. We painted it blue.")
    assert "Tomas and others painted the shed blue" in got, got


def test_without_a_parser_only_a_known_person_without_a_preposition() -> None:
    assert we_group.group_in("Lucia and I booked the venue.", "Tomas", frozenset({"lucia"}), parses=None) == "Lucia"
    assert we_group.group_in("Lucia and I booked the venue.", "Tomas", frozenset(), parses=None) is None
    assert we_group.group_in("I went with Lucia and I loved it.", "Tomas", frozenset({"lucia"}), parses=None) is None
    assert we_group.group_in("Me in Italian and I agree.", "Tomas", frozenset({"italian"}), parses=None) is None


# ---- session 14 (we14b): a name belongs to the collective ("our team is called ...") -------------------
TEAM = [("Jamal", "I joined a hackathon team at work."), ("Daniel", "Cool, what's the name?")]


def test_the_collective_is_called_not_the_speaker_and_the_collective() -> None:
    got = texts("We're called the Null Pointers.", speaker="Jamal", previous=TEAM)
    assert got == ["Jamal's team is called the Null Pointers"], got
    got = texts("Our family is huge. We were known as the loud ones on our street.", speaker="Jamal")
    assert any(t.startswith("Jamal's family was known as the loud ones") for t in got), got


def test_other_predicates_and_non_collectives_keep_the_speaker_and_the_group() -> None:
    got = texts("We won the hackathon last night!", speaker="Jamal", previous=TEAM)
    assert any(t.startswith("Jamal and their team won the hackathon") for t in got), got
    got = texts("Our team is called the Null Pointers.", speaker="Jamal")
    assert got == ["Jamal's team is called the Null Pointers"], got
    got = texts("My kids love nicknames. We're called the Three Musketeers at school.", speaker="Jamal")
    assert "Jamal and their kids are called the Three Musketeers at school" in got, got  # not a collective


# ---- session 14 (we14b): a companion from another turn does not carry into a work/school "we" ----------
def test_remembered_partner_is_not_the_we_of_work_or_school() -> None:
    got = texts("My boss was thrilled. We hit our quarterly target.", partner="Ellen")
    assert not any("Ellen" in t for t in got), got
    previous = [("Tomas", "Work has been crazy lately."), ("Daniel", "Oh no, why?")]
    got = texts("We shipped the new release on Friday.", previous=previous, partner="Ellen")
    assert got == ["Tomas and others shipped the new release on Friday"], got
    got = texts("We won the match 3-1!", partner="Ellen")
    assert got == ["Tomas and others won the match 3-1"], got


def test_a_group_from_an_earlier_turn_does_not_carry_into_a_work_we() -> None:
    kids = [("Tomas", "My kids are driving me nuts."), ("Daniel", "Haha")]
    got = texts("We shipped the new release at work today.", previous=kids)
    assert not any("kids" in t for t in got), got
    # guards: a setting-free "we" still takes the kids; a team carries into a match
    got = texts("We went camping last weekend.", previous=kids)
    assert any(t.startswith("Tomas and his kids went camping") for t in got), got
    team = [("Tomas", "I coach a soccer team."), ("Daniel", "Fun!")]
    got = texts("We won the match 3-1!", previous=team)
    assert got == ["Tomas and his team won the match 3-1"], got
    got = texts("We went to Lisbon on the 12th.", partner="Ellen")
    assert any(t.startswith("Tomas and Ellen went to Lisbon") for t in got), got

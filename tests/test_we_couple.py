"""Who "we" and "our" are when the conversation already says it (session 18: write/we_couple.py,
write/we_partner.couple_in, write/we_group.asked_group). A partner shown by the couple's own news
("Sana and I got engaged", "our anniversary") is the other one of a "we" about a couple matter
(wedding, guests, catering, anniversary ...) even with a crowd or work word nearby or children
named; the listener's question about the speaker's choir or band names the "we" that answers it.
Guards: a "we" with another companion ("we went with a guide"), a work "we", a group the message
names itself, a partner named long ago and a "we" that is no couple matter with kids named.
Conversations are invented; extraction through `extract_offline` (the real spaCy pipeline)."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace

from arandu_pipelines.write import we_couple, we_partner
from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext

WHEN = datetime(2023, 9, 14, 18, 30, tzinfo=UTC)


def texts(text: str, speaker: str = "Tomas", previous: list[tuple[str | None, str]] | None = None,
          partner: str | None = None, couple: str | None = None) -> list[str]:
    ctx = ExtractionContext(speaker, WHEN, addressee="Daniel", previous_turns=previous or [])
    ctx.partner = partner  # write/we_partner.PartnerTracker: "" once children are named
    ctx.couple_partner = couple  # the same partner, kept also with children named
    return [f.fact_text for f in extract_offline(text, ctx).facts]


# ---- the partner shown by the couple's news ------------------------------------------------------
def test_engaged_names_the_partner() -> None:
    assert we_partner.partner_in("Great news: Sana and I got engaged in Porto over New Year!", "Tomas") == "Sana"
    assert we_partner.partner_in("I just proposed to Sana at the lake.", "Tomas") == "Sana"
    assert we_partner.partner_in("Sana and I are flying to Crete for our tenth anniversary.", "Tomas") == "Sana"


def test_our_anniversary_and_one_named_person() -> None:
    got = we_partner.partner_in("Ines gave up her desk for my model trains, so I owe her a trip. Our 25th "
                                "anniversary is in May.", "Tomas")
    assert got == "Ines", got


def test_no_partner_from_a_place_or_two_names() -> None:
    assert we_partner.partner_in("We went to Paris for our anniversary, she loved it.", "Tomas") is None
    assert we_partner.partner_in("Sana and Joe got engaged, our anniversary is next week and she knows.",
                                 "Tomas") is None
    assert we_partner.partner_in("Sana and I got coffee after work.", "Tomas") is None


def test_tracker_remembers_the_engaged_partner() -> None:
    ev = [SimpleNamespace(agent_id="a", speaker=s, text=t) for s, t in [
        ("Tomas", "Sana and I got engaged last week!"), ("Daniel", "Congrats!"), ("Tomas", "Thanks!")]]
    t = we_partner.PartnerTracker()
    assert t.assign(ev) == [None, None, "Sana"]
    assert t.couples == [None, None, "Sana"]


def test_tracker_keeps_the_couple_partner_when_children_are_named() -> None:
    ev = [SimpleNamespace(agent_id="a", speaker=s, text=t) for s, t in [
        ("Tomas", "My wife Ines says hi."), ("Tomas", "My son is visiting."), ("Tomas", "Nice.")]]
    t = we_partner.PartnerTracker()
    assert t.assign(ev) == [None, "Ines", ""]
    assert t.couples == [None, "Ines", "Ines"]


def test_usual_companion_with_our_anniversary_is_the_partner() -> None:
    ev = [SimpleNamespace(agent_id="a", speaker="Tomas", text=t) for t in [
        "Our tenth anniversary is in May.", "Ines and I went to the market.", "Ines and I painted the shed.",
        "We're going to the coast."]]
    assert we_partner.PartnerTracker().assign(ev) == [None, None, None, "Ines"]


def test_usual_companion_without_an_anniversary_is_no_partner() -> None:
    ev = [SimpleNamespace(agent_id="a", speaker="Tomas", text=t) for t in [
        "Jake and I went fishing.", "Jake and I fixed the boat.", "We're going to the lake.", "Our team won."]]
    assert we_partner.PartnerTracker().assign(ev) == [None, None, None, None]
    ev = [SimpleNamespace(agent_id="b", speaker="Tomas", text=t) for t in [
        "Our anniversary is soon.", "Jake and I went fishing.", "Ines and I cooked.", "Hi."]]
    assert we_partner.PartnerTracker().assign(ev) == [None, None, None, None]  # each said once


def test_possessive_of_a_remembered_partner_still_blocks_a_plain_we() -> None:
    got = texts("Loud and hungry. We survived on Ines's sandwiches all day.", partner="Ines")
    assert not any("Tomas and Ines" in t for t in got), got


# ---- a couple matter ------------------------------------------------------------------------------
def test_wedding_we_is_the_couple() -> None:
    got = texts("We finally picked a venue by the river. It has a huge garden.", partner="Sana")
    assert any(t.startswith("Tomas and Sana finally picked a venue") for t in got), got


def test_couple_matter_wins_over_a_work_word() -> None:
    previous = [("Daniel", "So what's next, the catering?")]
    got = texts("My boss gave me Friday off, which helps. We have two tastings booked for May.",
                previous=previous, partner="Sana")
    assert any(t.startswith("Tomas and Sana have two tastings booked") for t in got), got


def test_listener_asks_about_a_couple_matter() -> None:
    previous = [("Tomas", "Lots of news: my team shipped the release."), ("Daniel", "How is the wedding planning going?")]
    got = texts("We saw three halls last weekend.", previous=previous, partner="Sana")
    assert any(t.startswith("Tomas and Sana saw three halls") for t in got), got


def test_listener_names_the_partner() -> None:
    previous = [("Daniel", "Does Sana still want to see the volcano?")]
    got = texts("We booked a day trip to the crater for Tuesday.", previous=previous, couple="Sana", partner="")
    assert any(t.startswith("Tomas and Sana booked a day trip") for t in got), got


def test_couple_matter_with_children_named_before() -> None:
    got = texts("We danced at the party for our anniversary.", partner="", couple="Ines")
    assert any(t.startswith("Tomas and Ines danced") for t in got), got


def test_our_ordinal_anniversary_is_the_couples() -> None:
    got = texts("I owe her a trip for the anniversary. Our 25th is in May.", couple="Ines", partner="Ines")
    assert any("Tomas and Ines's 25th is in May" in t for t in got), got


def test_partner_possessive_in_the_fact_is_no_companion() -> None:
    got = texts("We had our engagement party at Sana's parents' house.", partner="Sana")
    assert any(t.startswith("Tomas and Sana had their engagement party at Sana's parents' house") for t in got), got


# ---- guards ---------------------------------------------------------------------------------------
def test_another_companion_keeps_others() -> None:
    got = texts("Don't worry, we went with a guide from the gym. We climbed at Eagle Crag.", partner="Sana")
    assert any(t.startswith("Tomas and others climbed at Eagle Crag") for t in got), got
    assert we_couple.other_companion("we went with a guide", "Sana")
    assert not we_couple.other_companion("we went with Sana to the lake", "Sana")


def test_work_we_stays_with_others() -> None:
    got = texts("Work was crazy. We shipped the new release with my coworkers at the office.", partner="Sana")
    assert not any("Sana" in t for t in got), got


def test_no_couple_matter_with_children_named_keeps_others() -> None:
    got = texts("We went to the beach on Sunday.", partner="", couple="Ines")
    assert not any("Ines" in t for t in got), got


def test_group_named_in_the_message_wins() -> None:
    got = texts("My band and I played at a wedding last night.", partner="Sana")
    assert not any("Sana" in t for t in got), got


def test_proposal_to_the_listener_is_no_couple() -> None:
    got = texts("We should talk about the wedding music soon!", partner="Sana")
    assert not any("Sana" in t for t in got), got


# ---- a group the listener asks about -------------------------------------------------------------
def test_listener_asks_about_the_speakers_choir() -> None:
    previous = [("Daniel", "Sounds fun. How is the choir doing these days?")]
    got = texts("It's growing! We're up to forty singers.", speaker="Ana", previous=previous)
    assert any(t.startswith("Ana and her choir are up to forty singers") for t in got), got


def test_listener_own_band_is_not_the_speakers() -> None:
    previous = [("Daniel", "My band played a gig last night, it was loud.")]
    got = texts("We're up to forty singers now.", speaker="Ana", previous=previous)
    assert not any("band" in t for t in got), got


# ---- the name the speaker gave their group (write/we_named_group.py) ------------------------------
def test_group_names_in_their_forms() -> None:
    from arandu_pipelines.write.we_named_group import names_in

    assert names_in("I named the orchestra North Wind, since we play by the sea.") == ["North Wind"]
    assert names_in("My band, the Loose Threads, has a gig tonight.") == ["the Loose Threads"]
    assert names_in("Our team is called the Night Owls.") == ["the Night Owls"]
    assert names_in("I love my team so much. We won!") == []


def test_our_after_the_groups_name_is_its() -> None:
    ctx = ExtractionContext("Ana", WHEN, addressee="Daniel", group_names=("North Wind",))
    got = [f.fact_text for f in extract_offline("North Wind gave our first concert at the old mill!", ctx).facts]
    assert any(t.startswith("North Wind gave its first concert") for t in got), got


def test_our_of_another_name_stays_the_speakers() -> None:
    ctx = ExtractionContext("Ana", WHEN, addressee="Daniel", group_names=("North Wind",))
    got = [f.fact_text for f in extract_offline("Marta fixed our kitchen sink on Monday.", ctx).facts]
    assert not any("its" in t.split() for t in got), got


def test_group_name_in_the_previous_turn_is_the_we() -> None:
    ctx = ExtractionContext("Ana", WHEN, addressee="Daniel", group_names=("North Wind",),
                            previous_turns=[("Ana", "North Wind gave our first concert on Sunday!"),
                                            ("Daniel", "Wow, how did it go?")])
    got = [f.fact_text for f in extract_offline("It was packed! We raised five hundred dollars for the shelter.",
                                                ctx).facts]
    assert any(t.startswith("Ana and North Wind raised five hundred dollars") for t in got), got


def test_group_name_tracker_across_sessions() -> None:
    from arandu_pipelines.write.we_named_group import GroupNameTracker

    ev = [SimpleNamespace(agent_id="a", speaker=s, text=t) for s, t in [
        ("Ana", "I called the choir North Wind."), ("Daniel", "My band, the Rust, is great."), ("Ana", "Thanks!")]]
    assert GroupNameTracker().assign(ev) == [("North Wind",), ("the Rust",), ("North Wind",)]


# ---- through the write pipeline (an import: the trackers run per chunk) ---------------------------
async def test_import_carries_the_couple_partner_and_the_group_name(memory):
    """The pipeline hands `couple_partner` and `group_names` to extraction: "Sana and I got
    engaged" names the partner of a later wedding "we", "I called the choir North Wind" the
    group whose "our" a later "North Wind gave our ..." is."""
    rows = [("Tomas", "Big news: Sana and I got engaged in Porto!"), ("Ana", "Congrats! Have you picked a date?"),
            ("Tomas", "Thanks! We settled on about eighty guests."), ("Ana", "I called the choir North Wind, by the way."),
            ("Tomas", "Love that name."), ("Ana", "North Wind gave our first concert at the old mill last night!")]
    report = await memory.import_messages([
        {"agent_id": "u1", "session_id": "s1", "speaker": who, "text": text, "message_id": f"m{i}",
         "occurred_at": f"2023-05-08T12:0{i}:00+00:00"} for i, (who, text) in enumerate(rows)], chunk_size=10)
    assert report.events_extracted == 6
    got = [f.fact_text for f in (await memory.get_all("u1", limit=50)).facts]
    assert any(t.startswith("Tomas and Sana settled on about eighty guests") for t in got), got
    assert any(t.startswith("North Wind gave its first concert") for t in got), got

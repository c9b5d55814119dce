"""The query's vocabulary bridge (read/bridge.py, migration 0008's memory_vocabulary).

A query word memory spells differently ("dacning" for "dancing", "destress" for "de-stress",
"ice cream" for "icecream") used to match nothing lexically: the keyword signal of the message
that holds the answer was 0. The conversation below is invented.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from arandu_pipelines.read.bridge import accept, query_words
from tests.conftest import rows

T0 = datetime(2025, 5, 2, 19, 0, tzinfo=UTC)
AGENT = "vocab-chat"
TURNS = [
    ("Ana", "been dancing salsa every thursday at the community hall"),
    ("Rui", "nice, I only go running on weekends"),
    ("Ana", "running is how I de-stress after work honestly"),
    ("Rui", "we had icecream by the river yesterday"),
    ("Ana", "my sister moved to Porto last month"),
    ("Rui", "the new office has a huge kitchen"),
    ("Ana", "I finished the mystery novel you lent me"),
    ("Rui", "the weather was awful all week"),
    ("Ana", "my fam threw me a surprise party, pics soon"),
    ("Rui", "took my nephew to the aquarim, he loved the sharks"),
]


def _messages() -> list[dict[str, object]]:
    return [{"agent_id": AGENT, "session_id": "s0", "speaker": who, "text": text, "message_id": f"m{i}",
             "occurred_at": (T0 + timedelta(minutes=i)).isoformat()} for i, (who, text) in enumerate(TURNS)]


def _keyword_of(result, message_id: str) -> float:
    for e in result.events:
        if e.message_id == message_id:
            return e.scores.get("keyword", 0.0)
    return 0.0


def test_accept_takes_typos_and_hyphen_forms_and_refuses_substitutions() -> None:
    rows_ = [("dacning", "dancing", "danc", 2, 3), ("destress", "de-stress", "de-stress", 1, 1),
             ("bike", "bake", "bake", 1, 5), ("educaton", "education", "educ", 1, 2)]
    b = accept(rows_)
    assert b.mapped == {"dacning": ["dancing"], "destress": ["de-stress"], "educaton": ["education"]}
    assert set(b.weights) == {"danc", "de-stress", "educ"}
    assert accept([]).weights == {}
    # two real words are not typos of each other; a typo in memory is found from a real word
    assert accept([("seen", "seven", "seven", 1, 3)]).mapped == {}
    assert accept([("aquarium", "aquarim", "aquarim", 1, 1)]).mapped == {"aquarium": ["aquarim"]}
    # ties: the word in more messages first, at most two, in a fixed order
    tie = [("salsas", "salsa", "salsa", 1, 1), ("salsas", "salsa-s", "salsa-", 1, 4), ("salsas", "salsasx", "x", 1, 9)]
    assert accept(tie).mapped == accept(list(reversed(tie))).mapped == {"salsas": ["salsasx", "salsa-s"]}


def test_query_words_keep_hyphen_forms_and_pairs_and_skip_real_words() -> None:
    words, pairs = query_words("Did Kate's bf go to the ice cream place to de-stress? She hadn't seen it")
    assert "de-stress" in words
    assert "ice cream" in pairs
    assert "hadn" not in words  # contractions go whole
    assert query_words("who goes dacning")[0] == ["goes", "dacning"]


async def test_the_vocabulary_follows_the_messages(memory, fresh_db_url) -> None:
    await memory.import_messages(_messages())
    got = dict(rows(fresh_db_url, "SELECT word, lexeme FROM memory_vocabulary WHERE agent_id = %s", (AGENT,)))
    assert got["dancing"] == "danc" and got["de-stress"] == "de-stress" and got["icecream"] == "icecream"
    assert "the" not in got  # stop words have no stem
    await memory.delete_messages(AGENT, message_ids=["m0"])
    got = dict(rows(fresh_db_url, "SELECT word, df FROM memory_vocabulary WHERE agent_id = %s", (AGENT,)))
    assert "salsa" not in got and "dancing" not in got  # erased with the message
    assert got["running"] == 2


async def test_a_typo_finds_the_message_lexically(memory) -> None:
    await memory.import_messages(_messages())
    r = await memory.retrieve(AGENT, "Who goes dacning on thursdays?", config_overrides={"topk_events": 10})
    assert r.sources and r.sources[0].message_id == "m0"
    assert _keyword_of(r, "m0") > 0.3  # before the bridge: only "thursday" matched
    r = await memory.retrieve(AGENT, "How does Ana destress?", config_overrides={"topk_events": 10})
    assert _keyword_of(r, "m2") > 0.3  # "destress" -> "de-stress"
    assert r.sources[0].message_id == "m2"


async def test_a_typo_in_memory_is_found_from_a_well_spelt_query(memory) -> None:
    await memory.import_messages(_messages())
    r = await memory.retrieve(AGENT, "Who visited the aquarium?", verbose=True,
                              config_overrides={"topk_events": 10})
    assert r.pipeline.get("plan").data["bridged"] == {"aquarium": ["aquarim"]}
    assert _keyword_of(r, "m9") > 0.1  # before: 0
    assert r.sources[0].message_id == "m9"


async def test_a_joined_form_is_bridged(memory) -> None:
    await memory.import_messages(_messages())
    r = await memory.retrieve(AGENT, "Where did they eat ice cream?", config_overrides={"topk_events": 10})
    assert _keyword_of(r, "m3") > 0.1  # "ice cream" -> "icecream"; before: 0
    assert r.sources[0].message_id == "m3"


async def test_an_informal_form_is_bridged(memory) -> None:
    await memory.import_messages(_messages())
    r = await memory.retrieve(AGENT, "What did Ana's family organise for her?", verbose=True,
                              config_overrides={"topk_events": 10})
    assert r.pipeline.get("plan").data["bridged"] == {"family": ["fam"]}
    assert _keyword_of(r, "m8") > 0.1  # "family" -> "fam"; before: 0
    assert r.sources[0].message_id == "m8"
    r = await memory.retrieve(AGENT, "Will Ana share photos of the surprise party?", verbose=True)
    bridged = r.pipeline.get("plan").data["bridged"]
    # the message's "pics"; the fact now spells it "pictures" (write/chat_forms.py), also in memory
    assert list(bridged) == ["photos"] and {"pic", "pics"} <= set(bridged["photos"])


def test_informal_forms_go_both_ways() -> None:
    from arandu_pipelines.read.bridge import informal_forms

    assert ("bday", "birthday") in informal_forms("pics from her bday?")
    assert ("birthday", "bday") in informal_forms("When is Kate's birthday?")
    assert informal_forms("Where does Leo work?") == []


async def test_a_rare_unrelated_word_is_not_mapped(memory) -> None:
    await memory.import_messages(_messages())
    plain = await memory.retrieve(AGENT, "Has anyone seen a quokka?", verbose=True)
    plan = plain.pipeline.get("plan").data
    assert plan["bridged"] == {}
    assert all(e.scores.get("keyword", 0.0) == 0.0 for e in plain.events)
    # a real word memory lacks is not a typo of a word it has ("seen" / "seven" in the dev data)
    r = await memory.retrieve(AGENT, "Has Rui seen the kitchen?", verbose=True)
    assert r.pipeline.get("plan").data["bridged"] == {}


async def test_bridged_retrieval_is_deterministic(memory) -> None:
    await memory.import_messages(_messages())
    q = "who goes dacning and how do they destress"
    a = await memory.retrieve(AGENT, q, verbose=True)
    b = await memory.retrieve(AGENT, q, verbose=True)
    assert [(e.event_id, e.score, e.scores) for e in a.events] == [(e.event_id, e.score, e.scores) for e in b.events]
    assert a.context == b.context
    plan = a.pipeline.get("plan").data
    assert plan["bridged"] == {"dacning": ["dancing"], "destress": ["de-stress"]}

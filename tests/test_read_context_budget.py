"""The context a reader of its first few hundred words needs (issue 18, read/format.py and
read/excerpt.py): the best-cited message first, a long turn quoted by the sentence the question
is about, facts that add to the snippets rather than repeat them, and the token budget kept.

Each test failed before the change: a long turn was cut after its opening (the matching sentence
at its end was lost), and a fact read from a quoted message was listed beside it.
"""

from __future__ import annotations

from datetime import UTC, datetime

from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.read.excerpt import (
    excerpt,
    query_weights,
    sentences,
    word_matcher,
)
from arandu_pipelines.read.format import (
    EVENT_OVERFLOW_TOKENS,
    LEAD_SNIPPET_CHARS,
    SNIPPET_CHARS,
    UNDATED_FACTS,
    compress_context,
    conversation_snippets,
    tokens,
)
from arandu_pipelines.read.types import ScoredEvent, ScoredFact, SourceRef
from tests.test_read_pipeline import write_all

DAY = datetime(2024, 3, 5, 18, 0, tzinfo=UTC)
FILLER = ("Hey, how are you doing? The weather was lovely this week and we spent the afternoon in the "
          "garden with the kids. Work has been busy but fine, lots of meetings and emails. ")
LONG_TURN = FILLER + FILLER + "By the way, my sister finally adopted a greyhound called Biscuit from the shelter."


def _event(i: int, text: str, score: float = 0.5) -> ScoredEvent:
    return ScoredEvent(f"e{i}", f"m{i}", {}, "s1", "Ana", text, DAY, score)


def _fact(i: int, text: str, source: str | None, event_date: datetime | None = None) -> ScoredFact:
    return ScoredFact(f"f{i}", "person:ana", "Ana", None, text, 0.9 - i / 100, valid_from=DAY,
                      event_date=event_date, source_event_id=source)


def _matcher(words: dict[str, float]):
    return word_matcher(query_weights(list(words), lambda lx: words[lx]))


# ---- trimming keeps the matching sentence ---------------------------------------------------------
def test_a_long_turn_is_quoted_by_its_matching_sentence() -> None:
    assert len(LONG_TURN) > SNIPPET_CHARS
    match = _matcher({"sister": 4.0, "adopt": 4.0, "ana": 0.1})
    body = excerpt(LONG_TURN, match, SNIPPET_CHARS)
    assert "my sister finally adopted a greyhound called Biscuit" in body
    assert len(body) <= SNIPPET_CHARS + 8
    assert body.startswith("Hey, how are you doing?")  # the rest of the budget: the opening
    assert "…" in body  # the gap is marked
    # without query words the turn keeps its opening, as before
    assert excerpt(LONG_TURN, None, SNIPPET_CHARS) == LONG_TURN[: SNIPPET_CHARS - 1].rstrip() + "…"
    # a turn that fits is quoted whole (photo marker shortened)
    assert excerpt("Look! [shared a photo: a photo of a dog on a sofa]", match, 300) == "Look! [photo: a dog on a sofa]"


def test_common_words_do_not_pick_a_sentence_and_when_questions_keep_the_time_cue() -> None:
    turn = (FILLER * 2 + "Guess what I did last week? I applied to three adoption agencies! "
            "It is a big step. " + FILLER)
    match = word_matcher(query_weights(["ana", "adopt", "agenc"], {"ana": 0.2, "adopt": 4.0, "agenc": 4.0}.get))
    when = word_matcher(query_weights(["adopt", "agenc"], {"adopt": 4.0, "agenc": 4.0}.get), time_cue=0.5)
    assert "applied to three adoption agencies" in excerpt(turn, match, 200)
    assert "Guess what I did last week?" in excerpt(turn, when, 200)
    assert _matcher({"ana": 0.2})("Ana says hi") == 0.0  # a speaker's name is in every turn
    assert sentences("One. Two? [shared a photo: x] Three") == ["One.", "Two?", "[shared a photo: x]", "Three"]


# ---- facts that earn their words ------------------------------------------------------------------
def test_facts_read_from_quoted_messages_give_way_to_the_snippets() -> None:
    events = [_event(1, "I moved to Porto last month, my new flat is near the river."),
              _event(2, "My brother Rui started a bakery.")]
    facts = [_fact(0, "Ana moved to Porto", "e1", event_date=datetime(2024, 2, 1, tzinfo=UTC)),
             _fact(1, "Ana's new flat is near the river", "e1"),
             _fact(2, "Rui started a bakery", "e2")] + \
            [_fact(3 + i, f"Ana likes thing number {i}", f"other{i}") for i in range(6)]
    ctx, stats = compress_context(facts, events, [], MemoryConfig(), dated=False)
    head = ctx.split("Relevant conversations:")[0]
    assert "- Ana moved to Porto (2024-02-01)" in head  # the event date the message does not say
    assert "flat is near the river" not in head and "bakery" not in head  # the snippets say them
    # the best fact stays even when its message is quoted: the section is never empty
    only, _ = compress_context(facts[1:3], events, [], MemoryConfig(), dated=False)
    assert only.startswith("Known facts:\n- Ana's new flat is near the river\n\nRelevant")
    assert [f"thing number {i}" in head for i in range(6)] == [True] * UNDATED_FACTS + [False] * (6 - UNDATED_FACTS)
    assert stats["events"] == 2
    # without snippets the facts are the whole answer: the tiers as before
    alone, _ = compress_context(facts, [], [], MemoryConfig(), dated=False)
    assert "flat is near the river" in alone and "bakery" in alone and "thing number 5" in alone


def test_a_fact_comes_back_when_its_message_does_not_fit_the_budget() -> None:
    events = [_event(i, f"message {i} " + "words " * 60) for i in range(30)]
    facts = [_fact(0, "Ana's best fact", "e1"), _fact(1, "Ana's fact from the last message", "e29"),
             _fact(2, "Ana's fact from the first", "e0")]
    ctx, stats = compress_context(facts, events, [], MemoryConfig(context_max_tokens=300), dated=False)
    assert stats["events"] < 30
    assert "fact from the last message" in ctx  # e29 was not quoted: its fact stays
    assert "fact from the first" not in ctx  # e0 was
    assert "Ana's best fact" in ctx  # the best fact always leads, quoted or not


# ---- the budget holds -----------------------------------------------------------------------------
def test_the_token_budget_holds_with_excerpts() -> None:
    match = _matcher({"sister": 4.0})
    events = [_event(i, LONG_TURN) for i in range(40)]
    facts = [_fact(i, f"Ana fact number {i} " + "x" * 60, f"nowhere{i}") for i in range(30)]
    for budget in (150, 600, 2000):
        ctx, stats = compress_context(facts, events, [], MemoryConfig(context_max_tokens=budget), dated=False, match=match)
        assert stats["total_tokens"] == tokens(ctx)
        assert tokens(ctx) <= budget + EVENT_OVERFLOW_TOKENS + tokens(max(ctx.splitlines(), key=len))
        snippet_lines = ctx.split("Relevant conversations:\n", 1)[1].splitlines()
        assert snippet_lines and all("greyhound called Biscuit" in ln for ln in snippet_lines)
        assert len(snippet_lines[0]) <= LEAD_SNIPPET_CHARS + 40
        assert all(len(ln) <= SNIPPET_CHARS + 40 for ln in snippet_lines[1:])


# ---- end to end: the top source first, its matching sentence kept ----------------------------------
async def test_retrieve_quotes_the_top_source_first_by_its_matching_sentence(memory) -> None:
    chat = [
        ("Morning! Did you sleep well?", "Bia"),
        (LONG_TURN, "Ana"),
        ("That's lovely, what a name for a dog.", "Bia"),
        ("We went hiking on Saturday, the trail was muddy but fun.", "Ana"),
        ("My cousin wants a cat, not a dog.", "Bia"),
    ]
    await write_all(memory, "ana", chat)
    res = await memory.retrieve("ana", "What kind of dog did Ana's sister adopt?")
    snippets = res.context.split("Relevant conversations:\n", 1)[1].splitlines()
    events = {e.event_id: e for e in res.events}
    cited = [s for s in res.sources if s.event_id in events]
    assert cited and "greyhound" in cited[0].text  # the ranking found it ...
    assert "my sister finally adopted a greyhound called Biscuit" in snippets[0], res.context  # ... and it leads
    ordered = conversation_snippets(res.events, res.sources)
    assert ordered[0].event_id == cited[0].event_id


# ---- the lead snippet quoted longer (ctx10) --------------------------------------------------------
# The best-ranked turn: the sentence that matches the question ("kids", "Grand Canyon") comes
# after a long opening, and the answer ("happy and thankful") is in the sentence after it.
LEAD_TURN = ("Yeah, you're right. Family's super important to me, especially after the accident last "
             "month; I've thought a lot about how much I need them and how lucky we were. "
             "The kids loved the Grand Canyon and could not stop talking about the colours of the rocks, the "
             "size of it all, and the little chipmunks begging for snacks at every viewpoint we stopped at. "
             "Seeing them so excited after such a scary start made me really happy and thankful for every "
             "day we get together.")


def test_the_best_ranked_long_turn_keeps_the_sentences_after_its_match() -> None:
    match = _matcher({"kid": 3.0, "grand": 5.0, "canyon": 5.0})
    assert len(LEAD_TURN) > LEAD_SNIPPET_CHARS > SNIPPET_CHARS  # cut either way: the excerpt decides
    others = [_event(i, f"Other news number {i}: " + FILLER) for i in range(2, 30)]
    facts = [_fact(0, "Ana went to the Grand Canyon with the kids", "e1")]
    ctx, _ = compress_context(facts, [_event(1, LEAD_TURN), *others], [], MemoryConfig(), dated=False,
                              match=match)
    first_400 = " ".join(ctx.split()[:400])
    assert "happy and thankful" in first_400, ctx  # at 300 characters the answer was cut off
    # only the first snippet is quoted longer: the same turn further down is cut as before
    ctx2, _ = compress_context(facts, [others[0], _event(1, LEAD_TURN), *others[1:]], [], MemoryConfig(),
                               dated=False, match=match)
    assert "Grand Canyon" in ctx2 and "happy and thankful" not in ctx2


def test_snippets_follow_the_citation_ranking() -> None:
    events = [_event(1, "low one", 0.9), _event(2, "top one", 0.2), _event(3, "middle one", 0.5)]
    sources = [SourceRef("e2", "m2", {}, "s1", "Ana", DAY, "top one", 0.95, ["event"]),
               SourceRef("e3", "m3", {}, "s1", "Ana", DAY, "middle one", 0.6, ["event"]),
               SourceRef("e1", "m1", {}, "s1", "Ana", DAY, "low one", 0.3, ["event"])]
    ctx, _ = compress_context([], conversation_snippets(events, sources), [], MemoryConfig(), dated=False)
    assert [ln.split(": ", 1)[1] for ln in ctx.splitlines()[1:]] == ["top one", "middle one", "low one"]


# ---- sentence split keeps every word (ctx18b) -------------------------------------------------------
def test_sentences_keep_quoted_titles_and_inner_periods() -> None:
    """A period before a closing quote ('called "Finding Freedom."') or inside a word ("2.0",
    "e.g.") used to make the splitter skip the whole sentence: a long turn's excerpt then lost the
    very title the question asked for."""
    text = ('Thanks! We just did a contemporary piece called "Finding Freedom." It was really '
            'emotional. Version 2.0 is out, e.g. on the site [shared a photo: a porch] ok')
    parts = sentences(text)
    assert 'We just did a contemporary piece called "Finding Freedom."' in parts
    assert "".join(parts).replace(" ", "") == text.replace(" ", "")  # no character dropped
    assert any("Version 2.0 is out" in p for p in parts)
    long_turn = FILLER + FILLER + text
    match = _matcher({"piec": 4.0, "contemporari": 4.0})
    assert '"Finding Freedom."' in excerpt(long_turn, match, SNIPPET_CHARS)


def test_bench_tells_where_a_missed_answer_is() -> None:
    """bench/locomo.py's per-question `answer_at`: the first 400 words, further down the context,
    only in what retrieve() returned, or nowhere: it separates the formatter's misses from the
    ranking's."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "bench" / "locomo.py"
    spec = importlib.util.spec_from_file_location("bench_locomo_where", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    ctx = "Relevant conversations:\n- (2023-05-07) Caroline: I researched adoption agencies"
    far = "filler " * 400 + ctx
    assert mod.answer_location("adoption agencies", ctx, []) == "first-400"
    assert mod.answer_location("adoption agencies", far, []) == "past-400"
    assert mod.answer_location("Sweden", ctx, ["I moved from Sweden 4 years ago"]) == "returned"
    assert mod.answer_location("Sweden", ctx, ["I moved from Norway"]) == "not-returned"
    assert mod.answer_location("9 May 2023", ctx, [mod._dated("we met", DAY.replace(2023, 5, 9))]) == "returned"

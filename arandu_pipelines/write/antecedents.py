"""Cross-turn antecedents: what "it" / "this" / "they" means when it points into the previous turn.

In a chat a turn often answers the other speaker's question about a thing without naming it:
"How did the pottery class go?" -> "It was great, I made a bowl". A single-message extractor
then keeps "It was great ..." (dropped: no subject) or "Caroline might try it sometime" (says
nothing). This module resolves such pronouns to the head noun phrase of the session's previous
turn(s), conservatively:

- the pronoun ("it", "this"/"that" standing alone, "they"/"them" for a plural thing) is a subject
  or object in the current message (spaCy dependency parse), not an expletive ("It's great to
  ...", "It was special to watch ...") nor an idiom ("make it", "keep it up", "killing it");
- nothing in the current message before it could be its antecedent (a noun phrase that is not a
  person's name): then the in-message reading wins and the sentence is left as it is;
- the previous turn's last sentence with a candidate has exactly one noun phrase (or gerund
  phrase: "painting animals") as a subject, object or prepositional object, or exactly one in
  the pronoun's own role (subject for subject, object for object); a question of the other
  speaker is preferred over their statements; a candidate that is itself "it" chains one turn
  further back ("What does it mean to you?" -> the turn before);
- number agrees (singular for it/this/that, plural for they/them); the phrase is moved into the
  current speaker's mouth ("your class" -> "my class", "my class" -> "Melanie's class").

"It's peaceful and special" (a judgement with no person in it) becomes "I find painting animals
peaceful and special" so that it is a fact about the speaker; anything else is a plain
substitution. The previous turns come from `ExtractionContext.previous_turns` (the write
pipeline fills it from the chunk, else from the session's stored messages, see
`PreviousTurnTracker`) or, when the caller gave them, from `recent_messages` (the spec's
"previous message for pronoun resolution"; their speaker is unknown, so phrases with "my"/"your"
are not taken from them). English only; with no spaCy pipeline nothing changes.

Cost bound: only pronouns within a reply's first `REACH` characters with no determiner before them
are considered (`worth_resolving`, regex only); the message up to that sentence and the previous
turn's last question (or a short statement turn) are parsed, in the chunk's one batch of
write/parses.py (the write pipeline asks for `parse_texts` up front; the docs are shared with
the other stages). Measured figures: docs/architecture.md, "Cross-turn
antecedents and attitude facts".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from arandu_pipelines.write.session_state import SessionLRU
from arandu_pipelines.write.types import ExtractionContext

TURNS = 2  # previous turns kept per session (the previous one, and one more for a chained "it")
MAX_PARSE_CHARS = 2000  # longer messages are not parsed (cost bound; long turns rarely need it)
# Only a pronoun that starts within the first REACH characters of a reply is looked at, and only
# the message up to the end of its sentence is parsed: further in, something the reply itself
# named is nearly always in the way.
REACH = 200
MAX_STATEMENT_CHARS = 400  # a previous turn with no question: parsed only when this short
# a determiner before the pronoun: the reply names something itself (its "it" is left alone), so
# such a pronoun is not worth a parse
_DET_BEFORE_RE = re.compile(r"(?i)(?<![\w'’])(?:a|an|the|my|your|our|his|her|their|these|those|some)\s+[a-z]")
_SENT_END_RE = re.compile(r"[.!?…]+(?=\s|$)")
_QUESTION_RE = re.compile(r"[^.!?…]*\?")

PRONOUN_RE = re.compile(r"(?i)(?<![\w'’])(?:it|this|that|they|them)(?![\w])")
# what write/person_antecedents.py resolves (here so that fill_from_history can ask without a cycle)
PERSON_PRONOUN_RE = re.compile(r"(?i)(?<![\w'’])(?:he|she|his|her|him)(?![\w])")
_SINGULAR = frozenset({"it", "this", "that"})
_PLURAL = frozenset({"they", "them"})
_ROLES_SUBJ = frozenset({"nsubj", "nsubjpass"})
_ROLES_OBJ = frozenset({"dobj", "pobj"})
_ROLES = _ROLES_SUBJ | _ROLES_OBJ | {"attr"}
# heads that name nothing one could look up later
_VAGUE = frozenset({
    "thing", "things", "stuff", "lot", "lots", "time", "times", "way", "ways", "one", "ones", "day", "days",
    "bit", "kind", "sort", "something", "everything", "anything", "nothing", "someone", "everyone", "anyone",
    "idea", "plan", "plans", "news", "part", "point", "question", "pic", "picture", "photo", "photos", "pics",
    "today", "tonight", "yesterday", "tomorrow", "week", "weekend", "month", "year", "moment", "moments",
    "years", "months", "weeks", "hours", "minutes", "luck", "chance", "fun", "blast", "sense", "deal", "look",
    "shot", "end", "start", "rest",
    "mind", "life", "world", "feeling", "feelings", "vibe", "vibes", "wow", "thanks", "congrats",
})
# "make it (happen/work)", "keep it up", "killing it", "got it", "give it a try": no antecedent
_IDIOM_VERBS = frozenset({"make", "made", "makes", "making", "keep", "keeps", "kept", "keeping", "kill", "killing",
                          "killed", "get", "got", "gets", "getting", "give", "gives", "gave", "giving", "take",
                          "takes", "took", "nail", "nailed", "rock", "rocked", "dance", "mean", "means", "meant",
                          "believe", "see", "saw", "seen", "hear", "heard", "know", "knew", "say", "said", "do",
                          "does", "did", "done", "hang"})
_COPULA = frozenset({"is", "'s", "’s", "was", "are", "'re", "were"})
_CONTRACTIONS = {"'s": "is", "’s": "is", "'re": "are", "’re": "are", "'ve": "have", "’ve": "have",
                 "'ll": "will", "’ll": "will", "'d": "would", "’d": "would"}
# a bare reaction ("It's awesome!") judges what was just shown or said: no "finds" fact from it
_REACTION_ADJ = frozenset({"great", "awesome", "amazing", "cool", "nice", "lovely", "wonderful", "fantastic",
                           "incredible", "beautiful", "gorgeous", "good", "sweet", "cute", "fun", "perfect",
                           "stunning", "brilliant", "epic", "rad", "super", "huge", "crazy", "wild", "funny",
                           "adorable", "impressive", "fab", "fabulous", "neat", "terrific", "superb"})
# verbs of appearance: "It sounds great", "It looks amazing" react to the previous turn
_SEEM_VERBS = frozenset({"sound", "sounds", "sounded", "look", "looks", "looked", "seem", "seems", "seemed"})
# quantifiers: "so much love", "some art", "all of them" name no one thing
_QUANT = frozenset({"much", "many", "some", "all", "any", "every", "more", "most", "such", "lots", "few"})
_FIRST_SECOND = frozenset({"i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "you", "your", "yours"})


@dataclass(frozen=True)
class Replacement:
    """Replace `text[start:end]` of the message with `text` (message offsets)."""

    start: int
    end: int
    original: str
    text: str


# ---- previous turns ---------------------------------------------------------------------------------
class PreviousTurnTracker:
    """Per (agent, session): the last `TURNS` turns as (speaker, text), across a pipeline's chunks."""

    def __init__(self) -> None:
        self._state: SessionLRU[list[tuple[str | None, str]]] = SessionLRU(list)

    def assign(self, events: list[Any]) -> list[list[tuple[str | None, str]]]:
        """Previous turns per event (oldest first), `events` in time order."""
        out: list[list[tuple[str | None, str]]] = []
        for e in events:
            key = (e.agent_id, e.session_id)
            turns = self._state.get(key)
            out.append(list(turns))
            # the tail is all that is ever parsed (the last question, or a short turn): memory bound
            self._state.set(key, (turns + [(e.speaker, (e.text or "")[-MAX_PARSE_CHARS:])])[-TURNS:])
        self._state.trim()
        return out


_LOOKUP = (
    "SELECT q.i, h.speaker, h.text, h.occurred_at FROM unnest(CAST(:i AS int[]), CAST(:s AS text[]), "
    "CAST(:t AS timestamptz[]), CAST(:e AS text[])) AS q(i, s, t, e) CROSS JOIN LATERAL (SELECT m.speaker, "
    f"right(m.text, {MAX_PARSE_CHARS}) AS text, m.occurred_at FROM memory_events m WHERE m.agent_id = :a AND m.session_id = q.s "
    "AND m.occurred_at <= q.t AND m.id::text IS DISTINCT FROM q.e ORDER BY m.occurred_at DESC LIMIT "
    f"{TURNS}) h ORDER BY q.i, h.occurred_at"
)


async def fill_from_history(conn: Any, agent_id: str, events: list[Any],
                            found: list[list[tuple[str | None, str]]]) -> None:
    """For events with no previous turn in sight (a single write(), a new process, a chunk's first
    message of a session) when they or the session's next turns of the chunk need one (a pronoun
    to resolve, or a "we" whose group the speaker's previous turn may name, write/we_group.py):
    the session's latest earlier messages, one query for the chunk on the (agent_id, session_id,
    occurred_at) index. The next turns of the chunk that see fewer than `TURNS` turns get the
    rest from the same lookup, so a chunk boundary (the importer's pipeline is new per chunk)
    does not cut the window short."""
    from arandu_pipelines.write.we_group import has_we

    def needs(e: Any) -> bool:  # "it" (here), "he"/"she" (write/person_antecedents.py), "we"
        text = e.text or ""
        return worth_resolving(text) or PERSON_PRONOUN_RE.search(text) is not None or has_we(text)

    followers: dict[int, list[int]] = {}  # a session's first event -> the next ones short of TURNS
    for i, turns in enumerate(found):
        if turns or not events[i].session_id or events[i].recent_messages:
            continue
        nxt = [j for j in range(i + 1, len(events)) if events[j].session_id == events[i].session_id]
        followers[i] = [j for j in nxt[:TURNS - 1] if len(found[j]) < TURNS]
    idx = [i for i, after in followers.items() if needs(events[i]) or any(needs(events[j]) for j in after)]
    if not idx:
        return
    from sqlalchemy import text

    res = await conn.execute(text(_LOOKUP), {
        "a": agent_id, "i": idx, "s": [events[i].session_id for i in idx],
        "t": [events[i].occurred_at for i in idx], "e": [str(events[i].event_id or "") for i in idx]})
    for i, speaker, body, _ in res.all():
        if body:
            found[i].append((speaker, body))
    for i in idx:
        for j in followers[i]:
            short = TURNS - len(found[j])
            if short > 0 and found[i]:
                found[j][:0] = found[i][-short:]


def context_turns(ctx: ExtractionContext) -> list[tuple[str | None, str]]:
    """The previous turns extraction may use: the pipeline's, else the caller's recent_messages."""
    if ctx.previous_turns:
        return list(ctx.previous_turns)[-TURNS:]
    return [(None, m) for m in (ctx.recent_messages or [])[-TURNS:] if isinstance(m, str) and m.strip()]


# ---- parsing ----------------------------------------------------------------------------------------
# The docs come from the chunk's write/parses.ChunkParses (`ExtractionContext.parses`): the one
# shared pipeline, each text parsed once per chunk whichever stage asked first.
STAGE = "antecedents"


def _parses(ctx: ExtractionContext, spacy_model: str | None) -> Any:
    from arandu_pipelines.write.parses import for_context

    return for_context(ctx, spacy_model)


# ---- resolution -------------------------------------------------------------------------------------
def _early_pronouns(text: str) -> list[re.Match[str]]:
    """Pronouns near the start of `text` with no determiner before them: the ones worth a parse."""
    return [m for m in PRONOUN_RE.finditer(text, 0, REACH) if not _DET_BEFORE_RE.search(text, 0, m.start())]


def _message_part(text: str, early: list[re.Match[str]]) -> str:
    """What of a message is parsed: up to the end of the sentence of its last early pronoun."""
    end = _SENT_END_RE.search(text, early[-1].end())
    return text[: end.end() if end else len(text)][:MAX_PARSE_CHARS]


def _turn_part(who: str | None, text: str, speaker: str) -> str | None:
    """What of a previous turn is parsed: the other speaker's last question (what was asked),
    else the whole turn when short; None: too long to hold one clear candidate."""
    asked = [q.group(0).strip() for q in _QUESTION_RE.finditer(text)][-1:] if who != speaker else []
    if asked:
        return asked[0][-MAX_PARSE_CHARS:]
    return text if len(text) <= MAX_STATEMENT_CHARS else None


def parse_texts(items: list[tuple[str, str, list[tuple[str | None, str]]]]) -> list[str]:
    """The message parts `replacements` will parse for these messages, given as (text, speaker,
    previous turns): regex prefilters only, so the write pipeline can batch them with the other
    stages' texts (write/parses.py)."""
    texts: list[str] = []
    for text, _, turns in items:
        early = _early_pronouns(text) if turns else []
        if early:
            texts.append(_message_part(text, early))
    return list(dict.fromkeys(texts))


def turn_texts(items: list[tuple[str, str, list[tuple[str | None, str]]]], parses: Any,
               known_persons: frozenset[str] = frozenset()) -> list[str]:
    """The previous-turn parts `replacements` will read, once the message parts are parsed: only
    for a message with a pronoun that looks past it (`_needs_antecedent`); on the dev pair that
    is about half of the turn parts a regex alone would pick. The person names are the ones known
    before extraction (the context's later names may differ: a text missed here is parsed when
    first read, so this changes the cost, never the result)."""
    from arandu_pipelines.write.parses import PARSE

    texts: list[str] = []
    for text, speaker, turns in items:
        early = _early_pronouns(text) if turns else []
        if not early:
            continue
        doc = parses.doc(_message_part(text, early), PARSE, STAGE)
        names = set(known_persons) | {n.casefold() for n in (speaker, speaker.split()[0] if speaker else "") if n}
        names |= {w.casefold() for w, _ in turns if w}
        if doc is None or not _needs_antecedent(doc, names):
            continue
        part = _turn_part(turns[-1][0], turns[-1][1], speaker)
        if part is not None:
            texts.append(part)
    return list(dict.fromkeys(texts))


def preparse(items: list[tuple[str, str, list[tuple[str | None, str]]]], parses: Any,
             known_persons: frozenset[str] = frozenset()) -> None:
    """Parse in batches (`nlp.pipe`) what `replacements` will need for these messages, into the
    chunk's `parses` (a write/parses.ChunkParses): the message parts, then the previous-turn
    parts they need (`turn_texts`). Call it in a worker thread; optional (without it each text
    is parsed when first needed)."""
    from arandu_pipelines.write.parses import PARSE

    parses.docs(parse_texts(items), PARSE, STAGE)
    parses.docs(turn_texts(items, parses, known_persons), PARSE, STAGE)


def worth_resolving(text: str) -> bool:
    """Whether `text` has a pronoun this module could resolve (cheap: regex only)."""
    return bool(text) and bool(_early_pronouns(text))


def _needs_antecedent(doc: Any, names: set[str]) -> bool:
    """Whether `replacements` would look into the previous turn for a pronoun of `doc`: the
    same tests as its loop, in the same order, without the lookup."""
    earlier: set[bool] = set()
    for tok in doc:
        plural = tok.lower_ in _PLURAL
        role = _pronoun_role(tok)
        if role == "subj" and _bare_reaction(tok):
            role = None
        if role is None:
            if tok.lower_ in ("it", "they", "them"):
                earlier.add(plural)
            continue
        if not (role == "subj" and any(t.pos_ in ("VERB", "AUX") for t in doc[tok.sent.start: tok.i])) \
                and not _has_local_antecedent(doc, tok, names, plural) and plural not in earlier:
            return True
        earlier.add(plural)
    return False


def replacements(text: str, ctx: ExtractionContext, spacy_model: str | None = None) -> list[Replacement]:
    """Pronouns of `text` that stand for a thing named in the previous turn(s), with what to put
    in their place (see the module docstring). Empty when nothing is clear."""
    turns = context_turns(ctx)
    early = _early_pronouns(text) if turns else []
    if not early:
        return []
    from arandu_pipelines.write.parses import PARSE

    parses = _parses(ctx, spacy_model)
    doc = parses.doc(_message_part(text, early), PARSE, STAGE)
    if doc is None:
        return []
    speaker = (ctx.speaker_name or "").strip()
    names = _person_names(ctx)
    out: list[Replacement] = []
    earlier: dict[bool, _Found | None] = {}  # number -> what this message's first such pronoun stood for
    for tok in doc:
        plural = tok.lower_ in _PLURAL
        role = _pronoun_role(tok)
        if role == "subj" and _bare_reaction(tok):
            role = None  # "It's beautiful!": a reaction to what was shown; a later "it" is that too
        if role is None:
            if tok.lower_ in ("it", "they", "them"):
                earlier.setdefault(plural, None)  # "make it" before: a later "it" is not ours to guess
            continue
        if role == "subj" and any(t.pos_ in ("VERB", "AUX") for t in doc[tok.sent.start: tok.i]):
            np = None  # "I've been networking and it's gotten me ...": the clause before is what "it" is
        elif _has_local_antecedent(doc, tok, names, plural):
            np = None
        elif plural in earlier:  # a second "it": the same thing as the first, if that one was resolved
            np = earlier[plural]
        else:
            np = _antecedent(parses, turns, speaker, names, role, plural)
        if np is not None and role == "subj" and (_effect(tok) or not np.event and not np.asked and _situational(tok)):
            np = None  # "It's the happiest I've seen him", "That means a lot": the situation, not a thing
        earlier[plural] = np
        if np is None:
            continue
        rep = _replacement(doc, tok, np.phrase, judge=np.asked)
        if rep is not None:
            out.append(rep)
    return out


def apply(body: str, offset: int, reps: list[Replacement]) -> str:
    """`body` (which starts at message offset `offset`) with the replacements that fall inside it."""
    for r in sorted(reps, key=lambda r: r.start, reverse=True):
        a, b = r.start - offset, r.end - offset
        if 0 <= a < b <= len(body) and body[a:b] == r.original:
            text = r.text
            if a == 0 or body[:a].strip() == "":
                text = text[:1].upper() + text[1:]
            body = body[:a] + text + body[b:]
    return body


def _person_names(ctx: ExtractionContext) -> set[str]:
    out = {n.casefold() for n in (ctx.speaker_name, ctx.addressee) if n}
    out |= {n.split()[0].casefold() for n in (ctx.speaker_name, ctx.addressee) if n}
    out |= {n.casefold() for n, t in (ctx.known_types or {}).items() if t == "person"}
    out |= {s.casefold() for s, _ in ctx.previous_turns if s}
    return out


def _pronoun_role(tok: Any) -> str | None:
    """'subj' / 'obj' for a referential it/this/that/they/them; None for anything else."""
    low = tok.lower_
    if low not in _SINGULAR and low not in _PLURAL:
        return None
    if low in ("this", "that") and (tok.tag_ != "DT" or tok.dep_ not in _ROLES_SUBJ):
        return None  # "I painted this": a demonstrative object points at a shown photo
    if low == "that" and tok.dep_ in _ROLES_SUBJ and tok.head.lower_ in _COPULA:
        return None  # "That's great": a reaction to the whole previous turn, not to a thing in it
    if tok.dep_ in _ROLES_SUBJ:
        head = tok.head
        if head.lower_ in _SEEM_VERBS:
            return None
        if low in ("they", "them") and tok.i > 0 and tok.nbor(-1).lower_ in ("and", ","):
            return None
        if any(c.dep_ in ("xcomp", "ccomp", "csubj") and c.i > tok.i and _extraposed(c) for c in head.children):
            return None  # "It's great to see ...", "It was special to watch ...": expletive
        if any(c.dep_ in ("xcomp", "ccomp", "acl", "relcl") and c.i > tok.i and _extraposed(c)
               for a in head.children if a.dep_ in ("acomp", "attr", "dobj") for c in a.children):
            return None
        return "subj"
    if tok.dep_ in ("dobj", "pobj"):
        verb = tok.head if tok.dep_ == "dobj" else tok.head.head
        if verb.lower_ in _IDIOM_VERBS or (tok.dep_ == "pobj" and verb.pos_ == "AUX"):
            return None  # "make it", "we're in it together"
        if tok.i + 1 < len(tok.doc) and tok.nbor(1).dep_ in ("prt", "ccomp", "xcomp", "oprd"):
            return None  # "keep it up", "make it happen", "dance it out"
        return "obj"
    return None


# "That gives me chills", "That means a lot", "That makes a lot of sense", "That would mean the
# world": the effect the other speaker's news had on the speaker
_EFFECT_OBJECTS = frozenset({"lot", "sense", "world", "chills", "goosebumps", "everything"})
# "It really is.", "It sure was.": an echo that agrees, with no predicate of its own
_ECHO_ADVERBS = frozenset({"really", "so", "definitely", "totally", "sure", "certainly", "truly", "indeed",
                           "absolutely", "too", "just", "still"})


def _situational(tok: Any) -> bool:
    """A subject it/this/that whose predicate speaks of the situation, not of a thing: an echo
    ("It is.", "It really was."), a perfect copula ("It's been a journey", "It has been tough",
    "That must have been hard"), a superlative the speaker measures by their own experience
    ("It's the happiest I've seen him", "the best thing we've done"), "worth it" ("It was so worth
    it"); a demonstrative's effect on the speaker is `_effect`. What such a pronoun stands for is the news of the previous turn as a whole: a noun of
    that turn put in its place makes a false fact ("A barbershop quartet is the happiest ..."). Only
    for what the other speaker told: what they asked about is still named ("How was the bakery?"
    "It's the best bakery I've been to"), and so is a doing ("Yeah, it's been a rollercoaster")."""
    head = tok.head
    if tok.dep_ not in _ROLES_SUBJ or head.i == tok.i:
        return False
    kids = [c for c in head.children if c.i != tok.i and c.dep_ not in ("punct", "aux", "auxpass", "neg")]
    comps = [c for c in kids if c.dep_ in ("attr", "acomp")]
    if head.lower_ in _COPULA or head.lower_ in ("be", "been", "am", "'m", "’m"):  # (no lemmatizer in the pipeline)
        if all(c.dep_ == "advmod" and c.lower_ in _ECHO_ADVERBS for c in kids):
            return True  # "It is.", "It really is."
        if comps and head.lower_ == "been":
            return True
        if any(c.lower_ == "worth" and any(g.lower_ == "it" for g in c.children) for c in comps):
            return True
        return any(_measured_superlative(c) for c in comps)
    return False


def _effect(tok: Any) -> bool:
    """A demonstrative subject whose verb tells the effect on the speaker: "That gives me chills",
    "That means a lot", "That makes a lot of sense": a reaction to the whole turn, asked or not."""
    if tok.lower_ not in ("that", "this") or tok.dep_ not in _ROLES_SUBJ:
        return False
    objs = [c for c in tok.head.children if c.dep_ in ("dobj", "dative")]
    return any(o.lower_ in ("me", "us") or o.lower_ in _EFFECT_OBJECTS for o in objs)


def _measured_superlative(comp: Any) -> bool:
    """"the happiest I've seen him", "the best thing we've done", "the most fun I've had": a
    superlative with a relative clause whose subject is the speaker (the superlative of "the
    oldest church in town" describes a thing and is left alone)."""
    sup = comp.tag_ in ("JJS", "RBS") or any(c.tag_ in ("JJS", "RBS") and c.dep_ in ("amod", "advmod")
                                            for c in comp.children)
    return sup and any(c.dep_ == "relcl" and any(s.dep_ in _ROLES_SUBJ and s.lower_ in ("i", "we")
                                                 for s in c.children) for c in comp.children)


def _extraposed(tok: Any) -> bool:
    """A clause after the copula that is the real subject: to-infinitive, -ing, that/how/what."""
    first = tok.doc[tok.left_edge.i]
    return (tok.tag_ in ("VB", "VBG") or first.lower_ in ("to", "that", "how", "what", "when", "if", "seeing")
            or any(c.dep_ in ("aux", "mark") and c.lower_ in ("to", "that", "how", "if") for c in tok.children))


def _has_local_antecedent(doc: Any, tok: Any, names: set[str], plural: bool) -> bool:
    """Something before the pronoun in this message that could be what it stands for (a thing
    of the pronoun's number: "The kids loved it" leaves "it" to the previous turn)."""
    # "they" may be people or things of any noun before it ("my family - they ..."); "it" a thing
    if not plural and any(t.lower_ == "one" and t.dep_ in _ROLES and t.head.pos_ in ("VERB", "AUX")
                          for t in doc[: tok.i]):
        return True  # "I framed one and hung it": "one" (of what was shown or said) is what "it" is
    return any(plural or (c.span.root.lower_ not in _PEOPLE and _number_ok(c.span, plural))
               for c in _candidates(doc[: tok.i], names, all_roles=True, keep_vague=True)
               if c.span.root.lower_ not in _VAGUE or not c.span.root.is_ancestor(tok))  # "part of it": its own head


def _people() -> frozenset[str]:
    from arandu_pipelines.write import lexicon as L

    base = set(L.REL_TERMS_EN) | {"kids", "children", "friends", "family", "fam", "parents", "people", "folks",
                                  "guys", "students", "dancers", "members", "customers", "artists", "others",
                                  "everyone", "group", "crew", "team", "gang", "community", "baby", "son",
                                  "daughter", "kid", "child", "friend", "man", "woman", "men", "women", "person"}
    return frozenset(base | {w + "s" for w in base})


_PEOPLE = _people()


@dataclass
class _Cand:
    span: Any
    role: str  # subj | obj


def _candidates(span: Any, names: set[str], all_roles: bool = False, keep_vague: bool = False) -> list[_Cand]:
    """Noun and gerund phrases of `span` that could be a thing a pronoun stands for; with
    `keep_vague`, also "this photo", "the plan" (never put in a pronoun's place, but enough to keep
    "He took this photo and then sent it" from looking into the previous turn)."""
    out: list[_Cand] = []
    taken: set[int] = set()
    for tok in span:
        if tok.tag_ != "VBG" or tok.dep_ not in (_ROLES | {"pcomp", "xcomp", "csubj"}):
            continue
        if tok.dep_ == "xcomp" and tok.head.lower_ not in ("like", "love", "enjoy", "likes", "loves", "enjoys",
                                                           "liked", "loved", "enjoyed", "try", "tried", "started"):
            continue
        sub = [t for t in tok.subtree if t.i >= tok.i and not t.is_punct]
        sub = [t for t in sub if t.i < span.end] if hasattr(span, "end") else sub
        if not sub:
            continue
        phrase = tok.doc[sub[0].i: sub[-1].i + 1]
        taken |= {t.i for t in phrase}
        out.append(_Cand(phrase, "subj" if tok.dep_ in _ROLES_SUBJ | {"csubj"} else "obj"))
    for chunk in span.noun_chunks if hasattr(span, "noun_chunks") else []:
        root = chunk.root
        if root.i in taken or root.pos_ == "PRON" or root.lower_ in _VAGUE and not keep_vague \
                or root.tag_ in ("CD", "WP", "WDT"):
            continue
        if not all_roles and (root.lower_ in _PEOPLE or any(t.lower_ in _QUANT for t in chunk)):
            continue  # "it"/"they" for a thing: not "the kids", not "so much love"
        if root.pos_ == "PROPN" and (chunk.text.casefold() in names or root.lower_ in names
                                     or root.dep_ in ("npadvmod", "appos", "intj", "ROOT")):
            continue  # a person (speaker, addressee, known) or a vocative is not a thing
        if root.pos_ == "PROPN" and root.ent_type_ in ("", "PERSON") and _first_name(root.text):
            continue  # "was it just you and Dev?": a first name is a person, never what "it" stands for
        if root.dep_ == "ROOT" or root.dep_ == "npadvmod":
            continue  # "Thanks, Mel!", "Good luck!": no role in a clause
        if root.text[:1].isupper() and root.lower_ in _DATE_WORDS:
            continue  # "send it to publishers in March": a date is never what "it" stands for
        slot = root
        while slot.dep_ == "conj" and slot.head.i != slot.i:
            slot = slot.head  # "the painting or the vase": each conjunct has the first one's role
        if not all_roles:
            if slot.dep_ not in _ROLES:
                continue
            if slot.dep_ == "attr" and any(c.dep_ in _ROLES_SUBJ and c.pos_ == "PRON" for c in slot.head.children):
                continue  # "That's a huge accomplishment": what a pronoun is called, not a thing of its own
            if slot.dep_ == "pobj" and slot.head.head.dep_ not in ("ROOT", "dobj", "xcomp", "pcomp"):
                continue
        out.append(_Cand(chunk, "subj" if slot.dep_ in _ROLES_SUBJ else "obj"))
    return out


def _date_words() -> frozenset[str]:
    from arandu_pipelines.write import lexicon as L

    return L.WEEKDAYS_MONTHS


_DATE_WORDS = _date_words()


def _first_name(word: str) -> bool:
    """A first name of write/name_gender.py's lists (imported late: name_subjects imports this)."""
    from arandu_pipelines.write.name_subjects import is_first_name

    return is_first_name(word)


@dataclass(frozen=True)
class _Found:
    phrase: str  # the antecedent as the current speaker would say it
    asked: bool  # it is what the other speaker asked about (not something they stated)
    event: bool = False  # a gerund phrase ("painting animals"): a doing, which a situation may be


def _antecedent(parses: Any, turns: list[tuple[str | None, str]], speaker: str, names: set[str],
                role: str, plural: bool) -> _Found | None:
    """The one phrase of the previous turn (chaining one turn back through "it") it stands for.

    When the other speaker asked a question, the reply's "it" is what the (last) question was
    about, and nothing else of that turn is considered; otherwise the whole turn must hold one
    candidate (or one in the pronoun's role)."""
    for depth in range(min(len(turns), TURNS)):
        who, text = turns[-1 - depth]
        part = _turn_part(who, text, speaker)
        if part is None:
            return None
        from arandu_pipelines.write.parses import PARSE

        sents = list(parses.doc(part, PARSE, STAGE).sents)
        cands = [c for sent in sents for c in _candidates(sent, names) if _number_ok(c.span, plural)]
        if not cands:
            if depth == 0 and any(t.lower_ in ("it", "this", "that") and t.dep_ in _ROLES and t.tag_ != "WDT"
                                  for sent in sents for t in sent):
                continue  # "What does it mean to you?": what "it" is, is one turn further back
            return None
        # two candidates: the one in the pronoun's own role, in the turn just before only
        pick = cands if len(cands) == 1 or depth else [c for c in cands if c.role == role]
        if len(pick) != 1:
            return None
        cand = pick[0].span
        if any(t.lower_ in (_PLURAL if plural else ("it",)) and _pronoun_role(t)
               and (t.i < cand.start or cand.root.is_ancestor(t)) for sent in sents for t in sent):
            return None  # "I'll email it this week ... I know how tax season goes", "the story it tells":
            # the turn's own "it" is something else, and may be what the reply's "it" is
        phrase = _voice(pick[0].span, who, speaker)
        return _Found(phrase, who != speaker and part.rstrip().endswith("?"), _doing(pick[0].span.root)) \
            if phrase else None
    return None


def _doing(root: Any) -> bool:
    """A gerund phrase ("painting animals") or a bare -ing noun ("Running can boost your mood"):
    a doing, which "It's been great" may stand for ("the painting" with a determiner is a thing)."""
    return root.tag_ == "VBG" or (root.lower_.endswith("ing") and root.pos_ == "NOUN"
                                  and not any(c.dep_ in ("det", "poss") for c in root.children))


def _number_ok(span: Any, plural: bool) -> bool:
    return (span.root.tag_ in ("NNS", "NNPS")) == plural


def _voice(span: Any, who: str | None, speaker: str) -> str | None:
    """The phrase as the current speaker would say it; None when its possessive is unclear."""
    words: list[str] = []
    for t in span:
        low = t.lower_
        if low in ("your", "yours"):
            if who is None:
                return None
            words.append("my" if who != speaker else t.text)
        elif low == "my":
            if who is None:
                return None
            words.append(f"{who}'s" if who != speaker else "my")
        elif low in ("this", "that", "these", "those") and t.i == span.start and t.dep_ == "det":
            words.append("the")
        elif low in ("our", "his", "her", "their", "its", "you", "yourself", "i", "me", "we", "us"):
            return None
        else:
            words.append(t.text)
        words[-1] += t.whitespace_
    phrase = "".join(words).strip()
    if not phrase:
        return None
    first = span[0]
    if first.pos_ != "PROPN" and first.text[:1].isupper() and not first.text.isupper():
        phrase = phrase[:1].lower() + phrase[1:]
    return phrase


def _replacement(doc: Any, tok: Any, np: str, judge: bool = True) -> Replacement | None:
    """What replaces the pronoun (and its contracted verb). `judge`: "It's peaceful" may become
    "I find <np> peaceful" -- only for what the other speaker asked about; agreeing with what they
    stated ("Taking care of ourselves is important, even if it's not easy" -> "Yeah, it's tough")
    is a reaction to their words, not the speaker's own view."""
    end = tok.idx + len(tok.text)
    after = tok.nbor(1) if tok.i + 1 < len(doc) else None
    if tok.dep_ in _ROLES_SUBJ and after is not None and after.text.lower() in _CONTRACTIONS:
        verb = _CONTRACTIONS[after.text.lower()]
        nxt = after.nbor(1) if after.i + 1 < len(doc) else None
        if verb == "is" and nxt is not None and nxt.tag_ == "VBN":
            verb = "has"
        judged = _judgement(doc, tok, after) if judge else None
        if judged is not None:
            return Replacement(tok.idx, after.idx + len(after.text), doc.text[tok.idx: after.idx + len(after.text)],
                               f"I {judged} {np}")
        return Replacement(tok.idx, after.idx + len(after.text), doc.text[tok.idx: after.idx + len(after.text)],
                           f"{np} {verb}")
    if tok.dep_ in _ROLES_SUBJ and after is not None and after.lower_ in ("is", "was"):
        judged = _judgement(doc, tok, after) if judge else None
        if judged is not None:
            return Replacement(tok.idx, after.idx + len(after.text), doc.text[tok.idx: after.idx + len(after.text)],
                               f"I {judged} {np}")
    return Replacement(tok.idx, end, tok.text, np)


def _bare_reaction(tok: Any) -> bool:
    """"It's beautiful!", "It was awesome": a copula with only reaction adjectives after it."""
    cop = tok.head
    if cop.lower_ not in _COPULA:
        return False
    adjs = [c for c in cop.children if c.dep_ == "acomp"]
    adjs += [c for a in adjs for c in a.children if c.dep_ == "conj"]
    rest = [c for c in cop.children if c.dep_ not in ("nsubj", "acomp", "punct", "advmod", "cc", "conj", "npadvmod")]
    return bool(adjs) and not rest and all(a.lower_ in _REACTION_ADJ for a in adjs)


def _judgement(doc: Any, tok: Any, cop: Any) -> str | None:
    """"It's peaceful and special" (a judgement of a thing, no person in the sentence): 'find' /
    'found' for "I find <thing> peaceful and special"; None otherwise."""
    if cop.lower_ not in _COPULA or tok.head.i != cop.i:
        return None
    if not any(c.dep_ == "acomp" and c.pos_ == "ADJ" for c in cop.children):
        return None
    other = {t.i for c in cop.children if c.dep_ in ("conj", "ccomp", "advcl", "parataxis", "cc")
             for t in c.subtree}  # "It was fascinating, I spent hours ...": only the pronoun's clause
    clause = [t for t in cop.subtree if t.i not in other]
    if any(t.lower_ in _FIRST_SECOND for t in clause) or any(t.dep_ in ("attr",) for t in cop.children):
        return None
    adjs = [c for c in cop.children if c.dep_ == "acomp"]
    adjs += [c for a in adjs for c in a.children if c.dep_ == "conj"]
    if all(a.lower_ in _REACTION_ADJ for a in adjs):
        return None
    if any(c.dep_ == "npadvmod" and any(t.like_num for t in c.subtree) for a in adjs for c in a.children):
        return None  # "They're ten weeks old": a measure, no judgement
    return "found" if cop.lower_ in ("was", "were") else "find"


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of `text`, by end punctuation: the prefilters' cheap split."""
    out: list[tuple[int, int]] = []
    pos = 0
    for m in _SENT_END_RE.finditer(text):
        out.append((pos, m.end()))
        pos = m.end()
    if text[pos:].strip():
        out.append((pos, len(text)))
    return out

"""Data that crosses the boundary between extraction and the rest of the write pipeline.

Extraction (rules or LLM) only *proposes* entities, facts and relations by surface name; the
resolver turns names into canonical keys and the reconciler decides what is stored. Keeping the
proposal free of database identity is what lets the offline and LLM extractors be swapped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass
class ExtractedEntity:
    """A named thing mentioned in the message, by the name the message uses."""

    name: str
    entity_type: str = "other"  # person, organization, place, pet, product, event, concept, other
    aliases: list[str] = field(default_factory=list)
    is_speaker: bool = False


@dataclass
class ExtractedFact:
    """A self-contained statement about one subject, in the message's language.

    `subject` is the name of the primary entity (it must appear in `fact_text`, which always names
    its subject). `attribute_key` groups facts that can supersede each other (e.g. `location`,
    `employer`); `retracts` marks an explicit retraction ("no longer works at Acme") whose target
    is the active fact of the same subject+attribute (and, if given, `retract_value`).
    """

    subject: str
    fact_text: str
    attribute_key: str | None = None
    value: str | None = None
    importance_category: str = "specific_event"
    confidence: float = 0.95
    retracts: bool = False
    retract_value: str | None = None
    event_date: datetime | None = None  # absolute date the fact refers to, if one was resolved
    source_context: str | None = None  # e.g. "inferred_from_relation" for mirror facts
    mentions: list[str] = field(default_factory=list)  # other entity names the fact mentions
    # The sentence of the message this fact restates (exact substring). The rules extractor sets
    # it so the pipeline can embed each sentence once and reuse it for the fact and the event.
    source_text: str | None = None
    # Which rule kind produced the fact ("verb.move", "generic.speaker.event", "stance.admire",
    # "speech_act.encourage", "extra.married_to", "mirror", "llm" ...): stored on the fact row
    # (memory_facts.rule_kind, migration 0012) so that bench/fact_kinds.py can score precision per kind.
    rule_kind: str | None = None


@dataclass
class ExtractedRelation:
    """A directed edge between two named entities (rel_type is normalized later)."""

    source: str
    rel_type: str
    target: str
    confidence: float = 0.95
    retracts: bool = False  # "moved from X", "left X": the edge to X ends


@dataclass
class ExtractionResult:
    entities: list[ExtractedEntity] = field(default_factory=list)
    facts: list[ExtractedFact] = field(default_factory=list)
    relations: list[ExtractedRelation] = field(default_factory=list)
    profiles: dict[str, str] = field(default_factory=dict)  # entity name -> profile text (LLM only)
    # The message split into sentences, in order, all of them (questions and small talk too).
    sentences: list[str] = field(default_factory=list)
    tokens_in: int = 0
    tokens_out: int = 0
    mode: str = "rules"  # rules | informed | blind | failed
    error: str | None = None
    # What the extractor did, for the pipeline trace (LLM path: calls per task, informed_error,
    # relation_retry_triggered, strategy/chunks, knowledge used, validation refusals, ...).
    trace: dict[str, Any] = field(default_factory=dict)


@dataclass
class ExtractionContext:
    """What an extractor knows besides the message text."""

    speaker_name: str
    occurred_at: datetime  # timezone-aware; relative dates resolve against it
    timezone: str = "UTC"
    known_aliases: dict[str, str] = field(default_factory=dict)  # lowercased alias -> display name
    known_types: dict[str, str] = field(default_factory=dict)  # display name -> entity type
    recent_messages: list[str] = field(default_factory=list)
    # Informed extraction: what memory already knows about the entities the message names
    # (profiles, else top-K facts), formatted within the context budget by a KnowledgeLoader.
    knowledge: str = ""
    known_entities: list[str] = field(default_factory=list)  # canonical keys recognised in text
    agent_id: str = ""
    # Who "you" is: the other speaker of the conversation (the pipeline fills it from the
    # session's neighbouring turns; None when unknown, and then second-person facts are dropped).
    addressee: str | None = None
    # spaCy NER labels of the message (entity text casefolded -> label), computed for the chunk
    # in a worker thread by write/nlp.ner_labels; None: not parsed (rules alone type entities).
    ner: dict[str, str] | None = None
    # The session's previous turns as (speaker, text), oldest first (write/antecedents.py: what
    # "it"/"this" of this message stands for); the pipeline fills it, empty when unknown.
    previous_turns: list[tuple[str | None, str]] = field(default_factory=list)
    # The partner the speaker named earlier in the conversation ("Ellen" after "my wife Ellen",
    # else "Marco's wife"), the last-resort other one of "we" (write/we_partner.py); None: unknown.
    partner: str | None = None
    # The same partner also when the speaker has named children of their own (`partner` is then ""):
    # the other one of a "we" about a couple matter only (write/we_couple.py, session 18).
    couple_partner: str | None = None
    # The names the speaker gave their own groups earlier ("I called the choir Harbor Voices":
    # write/we_named_group.py, the pipeline's GroupNameTracker): whose "our" follows that name.
    group_names: tuple[str, ...] = ()
    # The people and pets the session named in its last turns (write/session_names.Named, filled by
    # the pipeline's NamedTracker): he/she beyond the 2-turn window; None: derived from previous_turns.
    named_before: list[Any] | None = None
    # The phrases the speaker said as their own earlier in the conversation ("my clothing store",
    # "I'm organising a pancake breakfast": write/own_things.py, the pipeline's OwnThingsTracker):
    # whose "The store" of a later message is; None: derived from previous_turns.
    own_things: list[Any] | None = None
    # The spaCy pipeline name (MemoryConfig.spacy_model) for the stages that parse a sentence
    # (write/speech_acts.py, write/antecedents.py); None: nlp.DEFAULT_MODEL, "none": no parse.
    spacy_model: str | None = None
    # The chunk's spaCy docs (write/parses.ChunkParses), shared by the stages that parse so that
    # each text is parsed once; None: a stage makes one for this context when it first parses.
    parses: Any = field(default=None, repr=False, compare=False)

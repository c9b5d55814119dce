"""What the speaker believes, where the restating rules give no fact: a belief in a later clause
("..., but I'm sure investing my time will pay off") and a general statement ("Pets bring joy").

The restating rules keep a sentence's first clause; a second clause opened by a coordinator or a
dash ("It's been tough going since I lost my job, but I'm sure investing my time in my business
will pay off eventually"; "... - I'm still thinking that counseling is the way to go") is cut
away with the clause's tail, and with it what the speaker believes or is weighing. This module
reads that clause anywhere in a sentence and keeps it as "S believes <clause>" (first person ->
the speaker, second -> the addressee, by extract_rules' rewriter).

| sentence part                                            | fact                            |
|----------------------------------------------------------|---------------------------------|
| I'm (still / so / pretty) sure / certain / convinced /   | S believes <clause>             |
|   confident (that) <clause>; I'm (still) thinking that   |                                 |
|   <clause>                                               |                                 |
| <Plural or coordinated bare NP> (can/will) make / bring  | S believes <statement>          |
|   / help / keep / give ... ("Family moments make life    |   (one per message)             |
|   awesome", "Guidance and support can help dancers")     |                                 |

A general statement has no person as subject, so the restating rules give it no fact; the
speaker is the one who holds it. Kept only with a bare plural or coordinated subject (no
determiner, no gerund: "Having a plan can help" is an activity), an effect verb agreeing in the
plural or after a modal, no first or second person anywhere ("Music brings us together" is
`fact_quality`'s generic "we"; "Dancing brings me joy" is the speaker's own fact), and at least
4 content words ("Flowers bring joy" is too thin).

A belief clause is kept only when the clause is about something named: at least 3 content words besides the
names, not a bare pronoun subject ("I'm sure it'll be worth it", "I'm sure we'll make it",
"I'm sure the rest will follow" say nothing one would file), and not a guess about the listener
("I'm sure you feel great"). At most one fact of each form per message; English only. A clause
the restating rules also kept inside a longer fact is left to `fact_quality`'s collapse (the
longer fact is usually cut to its first clause by the precision checks).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from arandu_pipelines.write import lexicon as L
from arandu_pipelines.write.language import detect_language
from arandu_pipelines.write.types import (
    ExtractedFact,
    ExtractionContext,
    ExtractionResult,
)

# (clause, speaker, addressee) -> the clause in the third person: extract_rules' rewriter
Rewriter = Callable[[str, str, str], str]

_BELIEF_RE = re.compile(
    r"(?:^|[,;:]\s+(?:but|and|so)?\s*|\s[-–—]+\s+|\bbut\s+)"
    r"(?:i['’]?m|i\s+am)\s+(?:(?:still|so|pretty|really|totally|absolutely|just)\s+)*"
    r"(?:(?:sure|certain|convinced|confident|positive)(?:\s+that)?|thinking\s+that)\s+"
    r"(?P<x>[^.!?;]+)",
    re.IGNORECASE)
# subjects that name nothing to keep, and guesses about the listener
_EMPTY_SUBJECT_RE = re.compile(
    r"^(?:it|it['’]ll|it['’]s|that|this|that['’]ll|this['’]ll|we|we['’]ll|we['’]re|they|they['’]ll|the\s+rest"
    r"|everything|things|you|you['’]ll|you['’]re|your|u)\b", re.IGNORECASE)
_STOP = frozenset(["a", "an", "the", "and", "or", "of", "to", "in", "on", "at", "by", "for", "with", "from",
                   "as", "is", "are", "was", "were", "be", "been", "will", "would", "can", "it", "its", "this",
                   "that", "them", "they", "so", "very", "really", "just", "also", "too", "all", "up", "out",
                   "if", "i", "me", "my", "we", "us", "our", "you", "your", "he", "she", "his", "her", "way"])


# "Family moments make life awesome", "Guidance and support can help dancers shine": a general
# statement whose subject is a bare plural or coordinated noun phrase (no determiner, no
# pronoun) and whose verb is an effect verb in the base form (plural agreement or a modal)
_GENERIC_RE = re.compile(
    r"^(?:(?:and|but|plus|so|yeah|definitely|totally|honestly|true)\b[\s,!.]*)*"
    r"(?P<np>[A-Z][a-z]+(?:\s+[a-z]+){0,2}?)\s+"
    r"(?P<vp>(?:(?:really|always|truly|definitely|sure|do)\s+)*(?:(?:can|could|will)\s+(?:really\s+)?)?"
    r"(?:make|bring|help|keep|give)\s+[^?]+)$")
_PERSONAL_RE = re.compile(r"(?i)\b(?:i|me|my|mine|myself|we|us|our|ours|ourselves|you|your|yours|yourself)\b|['’]s\b")
_NP_DET = frozenset(["this", "that", "these", "those", "there", "it", "they", "he", "she", "what", "which", "who",
                     "everyone", "everything", "nothing", "something", "someone", "people", "let", "thanks", "glad",
                     "hope", "keep", "make", "help", "bring", "give", "gotta", "gonna", "just", "please", "the", "a", "an",
                     "their", "his", "her", "its"])


def _generic(sentence: str, speaker: str, addressee: str) -> str | None:
    """"Pets bring so much joy too, though." -> "pets bring so much joy" (None: not one)."""
    m = _GENERIC_RE.match(sentence.strip().rstrip("!.… "))
    if not m or _PERSONAL_RE.search(sentence):
        return None
    np = m["np"]
    words = np.split()
    if words[-1] in ("and", "or") or words[0].lower().endswith("ing"):
        return None  # "Stay motivated and keep going": an imperative; a gerund subject is an activity
    if words[0].lower() in _NP_DET or any(w.lower() == speaker.split()[0].lower() for w in words) or (
            addressee and words[0].lower() == addressee.split()[0].lower()):
        return None
    plural = words[-1].endswith("s") and not words[-1].endswith(("ss", "us")) or " and " in f" {np} "
    modal = re.match(r"(?:(?:really|always|truly|definitely|sure|do)\s+)*(?:can|could|will)\b", m["vp"])
    if not (plural or modal):
        return None  # "Dancing make ...": no agreement, not a general statement
    vp = re.sub(r"(?:,?\s+(?:too|though|as\s+well))+\s*$", "", m["vp"].split(" - ")[0]).strip().rstrip(",")
    if _content(f"{np} {vp}", speaker, addressee) < 4:  # "Flowers bring joy": too thin to file
        return None
    first = np if np.split()[0].isupper() else np[:1].lower() + np[1:]
    return f"{first} {vp}"


def _content(text: str, *names: str) -> int:
    return L.count_content(text, _STOP, names, min_len=3)


def apply(result: ExtractionResult, text: str, ctx: ExtractionContext, *, sentences: list[str],
          rewrite: Rewriter) -> list[ExtractedFact]:
    """Add at most one "S believes <clause>" fact for `text` to `result`; returns what was added."""
    speaker = (ctx.speaker_name or "").strip()
    addressee = (ctx.addressee or "").strip()
    if not speaker or detect_language(text) != "en":
        return []
    added: list[ExtractedFact] = []
    for sentence in sentences:
        said = _generic(sentence, speaker, addressee) if "?" not in sentence else None
        if said:
            fact = ExtractedFact(speaker, f"{speaker} believes {said}", None, None, "specific_event", 0.8,
                                 source_text=sentence, rule_kind="beliefs.general")
            result.facts.append(fact)
            added.append(fact)
            break
    for sentence in sentences:
        if "?" in sentence or sentence.startswith("["):
            continue
        m = _BELIEF_RE.search(sentence)
        if not m:
            continue
        clause = re.split(r"\s+[-–—]+\s+|,\s+(?:but|and\s+it|which)\s+", m["x"], maxsplit=1)[0].strip()
        clause = clause.rstrip(",… ").strip()
        if _EMPTY_SUBJECT_RE.match(clause) or _content(clause, speaker, addressee) < 3:
            continue
        said = rewrite(clause, speaker, addressee or speaker)
        fact = ExtractedFact(speaker, f"{speaker} believes {said}", None, None, "specific_event", 0.8,
                             mentions=[addressee] if addressee and addressee in said else [],
                             source_text=sentence, rule_kind="beliefs.clause")
        result.facts.append(fact)
        return [*added, fact]
    return added

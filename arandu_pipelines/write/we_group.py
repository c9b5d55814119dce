"""Who the speaker's "we" is, when the conversation says it (issue 19, session 12).

The person rewrite (`extract_rules.rewrite_en`) turns the speaker's "we/us" into "<S> and
others": true, but a careful note-taker writes who "we" is when the conversation names it. "My
kids are so excited about summer break! We're thinking about going camping" is about Melanie
and her kids, so the fact becomes "Melanie and Melanie's kids are thinking about going camping"
(which write/own_possessive.py, last, writes "Melanie and their kids ...").

The group comes from, in this order (the first source that names one wins):

1. the message itself, then
2. the speaker's own previous turn(s) in the session window (`ExtractionContext.previous_turns`,
   newest first): what "we" referred to a moment ago.

Within a source, four tiers, strongest first: a coordination with the speaker ("my husband and
I", "me and my kids", "the kids and I"; any group or single relative noun), a collective owned by
"our" ("our family", "our team"), a collective the speaker belongs to or leads ("I sing in a
choir", "I coach a youth team": session 14, `MEMBER_GROUPS`), and a plural group noun with
"my"/"the" ("my kids", "the gang", "my friends and family").

When no source names a group, the speaker's one partner is the last resort (session 14,
write/we_partner.py, `_with_partner`): "Marco and Lucia booked the venue", not when kids,
family or friends are named nearby. An object "us" of an event with a definite agent ("The
school asked us to sing", write/we_events.py) is named like a subject. Two different groups in the deciding tier are ambiguous: the
fact keeps "and others". Image captions ("[shared a photo: ... two children ...]") are not the
speaker's words and are ignored.

A bare name coordinated with the speaker ("Lucia and I booked ...") counts only as a coordinated
subject in the spaCy parse and when the name is a person, never a language ("He answered me in
Italian and I understood", `_bare_name_ok`). A group of an earlier turn does not carry into a
message set at work, school or a match unless it is a collective (`_carries`). A naming verb of
the speaker's collective is the collective's: "Jamal's team is called ..." (`_collective_named`).
(Session 14, we14b.)

"<S> and others" stays when:
- nothing names the group (a generic "we": "Art's awesome for showing us who we really are");
- it is not a clause subject: an object "us" ("reminding us", "give us strength", "root for us")
  is nearly always people in general, the spec's "we ... only where it is a fact about them";
- the fact already names the group ("we went camping with the kids": "Melanie and Melanie's
  kids went camping with the kids" would say it twice; "a day out with the gang - Caroline and
  the gang went biking" too: there "others" already reads as the gang);
- it is followed by a generic apposition ("us trans people", "we humans");
- it is the speaker and the listener: "since we last talked", "we met", "we both ..." (a
  group of two, which a named plural group is not).

"We both" / "since we last talked" in a message that names no group, right after the listener's
own "we/us", is the two of them: "Gina and Jon are both on different paths" (`_pair`). Once a
group is named, a "their" that write/readability.py wrote for the speaker's "my" (the subject was
plural) goes back to the speaker: "... celebrated Melanie's daughter's birthday" (`_own_their`).

No gendered pronoun is written: the group is spelled with the speaker's name ("Melanie's
kids") or as the conversation said it ("the kids"). English only: Portuguese "nós" keeps
"<S> e outros".
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Literal

from arandu_pipelines.write import parses as _parses
from arandu_pipelines.write import we_couple, we_events, we_named_group, we_partner
from arandu_pipelines.write.chat_forms import PROPER, SPELLINGS
from arandu_pipelines.write.rules_extra import _KNOWN_DEMONYMS
from arandu_pipelines.write.types import ExtractedFact

# Plural or collective nouns that name a group the speaker belongs to (a chat form such as "fam" is
# spelled for the fact by `chat_forms.SPELLINGS`, as every other fact word is).
GROUP_NOUNS = frozenset([
    "kids", "children", "family", "fam", "friends", "team", "class", "parents", "folks", "siblings",
    "brothers", "sisters", "band", "crew", "gang", "teammates", "classmates", "roommates", "cousins",
    "grandkids", "grandchildren", "family members", "choir", "chorus", "orchestra", "troupe", "squad", "ensemble",
])
# Collectives that "our" names as the group itself ("our family" is we; "our kids" is not).
COLLECTIVES = frozenset(["family", "fam", "team", "class", "band", "crew", "gang", "choir", "chorus", "orchestra",
                         "troupe", "squad", "ensemble"])
# Collectives the speaker says they belong to or lead ("I sing in a choir", "I joined a band",
# "I coach a youth team"): that group is the speaker's (session 14)
MEMBER_GROUPS = frozenset(["team", "band", "crew", "choir", "chorus", "orchestra", "troupe", "squad", "ensemble"])
# One person: a group with the speaker only when coordinated with I/me ("my husband and I").
SINGLE_NOUNS = frozenset([
    "husband", "hubby", "wife", "partner", "boyfriend", "girlfriend", "fiance", "fiancé", "fiancee", "fiancée",
    "spouse", "mom", "dad", "mother", "father", "brother", "sister", "son", "daughter", "roommate",
    "best friend", "bestie",
])
_PET_NAMES = {"hubby": "husband"}  # a pet name of a single noun, spelled out in the fact


def _spelled(noun: str) -> str:
    """How the fact writes a group or single noun of the message."""
    return _PET_NAMES.get(noun) or SPELLINGS.get(noun) or noun


def _alt(words: Iterable[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


_G = _alt(GROUP_NOUNS)
_ANY = _alt([*GROUP_NOUNS, *SINGLE_NOUNS])
_NP = rf"(?P<n>(?:{_ANY})(?:\s+and\s+(?:my\s+)?(?:{_ANY}))?)"
# A person's name in a coordination with the speaker (case-sensitive inside the (?i) patterns)
_NAME = r"(?-i:[A-Z][a-zà-ÿ'’-]+)"
# Capitalised words that are no name ("You and I", "Yesterday and I")
_NOT_NAMES = frozenset(["You", "Me", "Myself", "We", "He", "She", "They", "It", "Both", "Then", "Now", "Today",
                        "Yesterday", "Tomorrow", "Later", "Finally", "And", "But", "So", "Also", "Just", "God"])
_TIERS: tuple[re.Pattern[str], ...] = (
    # "my husband and I", "the kids and me", "me and my family", "I and my friends"; with a name:
    # "my brother Sam and I" (session 14: the name is the group), "Lucia and I", "me and Jake"
    re.compile(rf"(?i)\b(?P<d>my|the)\s+{_NP}(?:,?\s+(?P<nm>{_NAME}),?)?\s+(?:and|&)\s+(?:I|me)\b"
               rf"|\b(?:I|me)\s+(?:and|&)\s+(?P<d2>my|the)\s+(?P<n2>(?:{_ANY})(?:\s+and\s+(?:my\s+)?(?:{_ANY}))?)"
               rf"(?:,?\s+(?P<nm2>{_NAME}))?\b"
               rf"|(?<![\w'’])(?<!and\s)(?<!,\s)(?P<nm3>{_NAME})\s+(?:and|&)\s+(?:I|me)\b|\b(?:I|me)\s+(?:and|&)\s+(?P<nm4>{_NAME})\b"),
    # "our family camping trip", "our team"
    re.compile(rf"(?i)\bour\s+(?P<n>{_alt(COLLECTIVES)})\b"),
    # "I sing in a choir", "I'm in a band", "I joined a local choir", "I coach a youth team"
    re.compile(rf"(?i)\bI(?:['’]m|\s+am)?\s+(?:[a-z]+\s+){{0,2}}?(?:in|with|join(?:ed)?|lead|led|run|ran|coach(?:ed)?"
               rf"|direct(?:ed)?|started|founded)\s+(?:a|an|the|my|our)\s+(?:[a-z-]+\s+)?(?P<n>{_alt(MEMBER_GROUPS)})\b"),
    # "my kids", "the gang", "my friends and family"
    re.compile(rf"(?i)\b(?P<d>my|the)\s+(?P<n>(?:{_G})(?:\s+and\s+(?:my\s+)?(?:{_G}))?)\b"),
)
_CAPTION_RE = re.compile(r"\[[^\]]*\]")
# Words after which "<S> and others" opens a clause (so it stands for a subject "we").
_CLAUSE_OPENERS = frozenset([
    "", "and", "but", "so", "when", "after", "before", "while", "because", "since", "until", "that",
    "if", "as", "then", "where", "once", "though", "although", "-", ",", ";", ":", "–", "—",
])
_GENERIC_AFTER_RE = re.compile(
    r"^\s*(?:\w+\s+){0,2}(?:people|folks|humans|women|men|guys|adults|individuals)\b", re.IGNORECASE)
# "we" that is the speaker and the listener, not the group: "since we last talked", "we both ..."
_TWO_OF_US_RE = re.compile(
    r"^\s*(?:(?:are|were|have|had)\s+)?(?:(?:last|first|just|both)\s+)?(?:talked|spoke|chatted|met|caught up|texted|both)\b", re.IGNORECASE)


_WE_RE = re.compile(r"(?i)(?<![\w'’])we(?:['’](?:re|ve|ll|d))?(?![\w'’])")


def has_we(text: str) -> bool:
    """Whether `text` has a subject "we" this module could name (cheap: regex only), so that
    the pipeline looks up the speaker's previous turn for a chunk's first message."""
    return bool(_WE_RE.search(text))


_FRESH: Any = object()  # group_in's default: parse with a fresh ChunkParses


def _spell(noun: str, owned: bool, speaker: str) -> str:
    words = [w for w in re.split(r"\s+and\s+", noun.strip(), flags=re.IGNORECASE)]
    names = []
    for w in words:
        w = re.sub(r"(?i)^my\s+", "", w).lower()
        names.append(_spelled(w))
    phrase = " and ".join(names)
    return f"{speaker}'s {phrase}" if owned else f"the {phrase}"


_PERSON_LABELS = ("PERSON",)


def _bare_name_ok(text: str, m: re.Match[str], name: str, people: frozenset[str], parses: Any) -> bool:
    """A bare name coordinated with the speaker ("Lucia and I booked ...", "me and Jake went ...")
    is a companion only when (session 14, we14b) it is not a language or demonym ("He answered
    me in Italian and I understood" is no "Italian and I"), it is a person (spaCy NER says PERSON,
    or the conversation knows the name as a person: `people`), and the parse makes "X and I" a
    coordinated subject: one is the `conj` of the other, the head is `nsubj`/`nsubjpass` of a
    verb after both. Without a parser only a known person counts, and a preposition before the
    name still rules it out."""
    low = name.casefold()
    if low in PROPER or low in _KNOWN_DEMONYMS:
        return False
    nlp_docs = parses.docs([text], _parses.NER, "we_group")[0] if parses is not None else None
    doc = parses.docs([text], _parses.PARSE, "we_group")[0] if nlp_docs is not None else None
    if doc is None:
        before = re.search(r"([A-Za-z]+)\W*$", text[:m.start("nm3" if m.group("nm3") else "nm4")])
        return low in people and not (before and before.group(1).lower() in _PREPOSITIONS)
    start = m.start("nm3") if m.group("nm3") else m.start("nm4")
    x = next((t for t in doc if t.idx == start), None)
    pron = next((t for t in doc if m.start() <= t.idx < m.end() and t.lower_ in ("i", "me")), None)
    if x is None or pron is None:
        return False
    if pron.head == x and pron.dep_ == "conj":
        head = x
    elif x.head == pron and x.dep_ == "conj":
        head = pron
    else:
        return False
    verb = head.head
    if head.dep_ not in ("nsubj", "nsubjpass") or verb.pos_ not in ("VERB", "AUX") or verb.i < max(x.i, pron.i):
        return False
    return low in people or any(e.label_ in _PERSON_LABELS and e.start <= x.i < e.end for e in doc.ents)


_PREPOSITIONS = frozenset(["in", "with", "to", "for", "from", "at", "on", "by", "about", "of", "like", "than",
                           "into", "onto", "without", "after", "before", "between", "among", "toward", "towards"])


def known_people(ctx: Any) -> frozenset[str]:
    """Names (casefolded) the conversation knows as persons, for `group_in`: entities of type
    person the extractor was told about (and their aliases), the listener, the speakers of the
    window's turns, the remembered partner."""
    types = getattr(ctx, "known_types", None) or {}
    names = {n for n, t in types.items() if t == "person"}
    names |= {a for a, n in (getattr(ctx, "known_aliases", None) or {}).items() if types.get(n) == "person"}
    names |= {s for s, _ in getattr(ctx, "previous_turns", None) or [] if s}
    for extra in (getattr(ctx, "addressee", None), getattr(ctx, "partner", None)):
        if extra and "'" not in extra:
            names.add(extra)
    return frozenset(n.strip().casefold() for n in names if n and n.strip())


def group_in(text: str, speaker: str, people: frozenset[str] = frozenset(),
             parses: Any = _FRESH) -> str | None | Literal[False]:
    """The group `text` names for its speaker's "we" (spelled for a fact), None when it names
    none, False when its deciding tier names two different groups (ambiguous). `people`: names
    (casefolded) the conversation knows as persons; `parses`: the chunk's write/parses.ChunkParses
    (default: a fresh one on the default model; None: no parser)."""
    text = _CAPTION_RE.sub(" ", text)
    for tier, rx in enumerate(_TIERS):
        found: dict[str, str] = {}
        for m in rx.finditer(text):
            d = m.groupdict()
            name = d.get("nm") or d.get("nm2") or d.get("nm3") or d.get("nm4")
            if name and name not in _NOT_NAMES and name.casefold() != speaker.casefold() and (
                    name.casefold() not in (k.casefold() for k in (*GROUP_NOUNS, *SINGLE_NOUNS))):
                if d.get("nm3") or d.get("nm4"):
                    if parses is _FRESH:
                        parses = _parses.ChunkParses(None)
                    if not _bare_name_ok(text, m, name, people, parses):
                        continue
                found.setdefault(name.casefold(), name)
                continue
            if d.get("nm3") or d.get("nm4"):
                continue  # "You and I", "Yesterday and I": no group
            noun = d.get("n") or d.get("n2") or ""
            det = (d.get("d") or d.get("d2") or ("our" if tier in (1, 2) else "")).lower()
            spelled = _spell(noun, det in ("my", "our"), speaker)
            found.setdefault(spelled.lower().replace("the ", f"{speaker.lower()}'s ", 1), spelled)
        if len(found) == 1:
            return next(iter(found.values()))
        if len(found) > 1:
            return False
    return None


def antecedent(text: str, speaker: str, previous_turns: list[tuple[str | None, str]],
               people: frozenset[str] = frozenset(), parses: Any = _FRESH,
               group_names: tuple[str, ...] = ()) -> str | None:
    """Who the speaker's "we" is besides the speaker: from the message, else from the speaker's
    previous turns in the window (newest first); None when nothing (unambiguous) says it. A name
    the speaker gave their own group (`group_names`, write/we_named_group.py) said in a source
    counts when its tiers name no group (session 18)."""
    sources = [text] + [t for s, t in reversed(previous_turns) if s and s.casefold() == speaker.casefold()]
    for n, src in enumerate(sources):
        got = group_in(src, speaker, people, parses)
        if got is None and group_names:  # "Harbor Voices gave our first concert" ... "We raised ..."
            got = we_named_group.named_in(src, group_names)
        if n == 0 and got is None:  # nothing in the message: the listener's question about the group
            got = asked_group(speaker, previous_turns)
        if got is False:
            return None
        if got:
            if n and not _carries(got, text, speaker):
                return None
            return got
    return None


_ASKED_RE = re.compile(rf"(?i)\b(?:your|the)\s+(?:[a-z-]+\s+)?(?P<n>{_alt(MEMBER_GROUPS)})\b")


def asked_group(speaker: str, previous_turns: list[tuple[str | None, str]]) -> str | None:
    """The collective the listener's last turn asks the speaker about ("How is the choir doing
    these days?", "How did your team do?"): the speaker's "we" that answers is that group
    (session 18). Only a question, only a collective the speaker can belong to (`MEMBER_GROUPS`),
    only one; the listener's own "my band" is never the speaker's."""
    listener = we_couple.listener_turn(speaker, previous_turns)
    asked = [s for s in re.split(r"(?<=[.!?])\s+", listener) if s.rstrip().endswith("?")]
    nouns = {m.group("n").lower() for s in asked for m in _ASKED_RE.finditer(s)}
    return f"{speaker}'s {_spelled(nouns.pop())}" if len(nouns) == 1 else None


def _carries(group: str, text: str, speaker: str) -> bool:
    """A group named in an earlier turn carries over to this message's "we" unless the message is
    set at work, school, a performance or a match (write/we_partner.SETTING_RE) and the group is
    people (kids, a sister, a husband) rather than a collective that has such settings (a team,
    a band, a choir): "My kids are driving me nuts" ... "We shipped the release at work" is not
    the kids (session 14, we14b)."""
    if not we_partner.SETTING_RE.search(_CAPTION_RE.sub(" ", text)):
        return True
    noun = group.removeprefix(f"{speaker}'s ").removeprefix("the ").lower()
    return noun in COLLECTIVES or noun in MEMBER_GROUPS


def _nouns_of(group: str) -> list[str]:
    out = []
    for k in (*GROUP_NOUNS, *SINGLE_NOUNS):
        if re.search(rf"(?i)\b{re.escape(_spelled(k))}\b", group):
            out.append(k)
    return out


def name_group(text: str, speaker: str, group: str, own_ok: bool = False) -> str:
    """`text` with each subject "<speaker> and others" spelled "<speaker> and <group>" where the
    rules above allow it (see the module docstring): nothing changes when `text` names the group.
    `own_ok`: a named group said only as a possessive ("at Priya's parents' house") does not
    count as named (the couple matters of write/we_couple.py)."""
    marker = f"{speaker} and others"
    nouns = _alt(_nouns_of(group))
    events = {a for a, _ in we_events.object_at(text, speaker)}  # "The school asked <S and others> ..."
    out, pos = [], 0
    for m in re.finditer(re.escape(marker) + r"\b", text):
        before = text[:m.start()].rstrip()
        prev = re.search(r"([\w'’]+|[^\w\s])$", before)
        prev_word = prev.group(1).lower() if prev else ""
        after = text[m.end():]
        if ((prev_word not in _CLAUSE_OPENERS and m.start() not in events) or _GENERIC_AFTER_RE.match(after) or _TWO_OF_US_RE.match(after)
                or (nouns and re.search(rf"(?i)\b(?:{nouns})\b", text))
                or (group[:1].isupper() and re.search(rf"\b{re.escape(group)}\b" + ("(?!['’]s)" if own_ok else ""),
                                                      text))):  # "... with Jake"
            continue
        out.append(text[pos:m.start()])
        out.append(f"{speaker} and {group}")
        pos = m.end()
    out.append(text[pos:])
    return "".join(out)


# "we" that is the speaker and the listener and says so: "we're both ...", "since we last talked"
# ("we met ..." is left: "we met the neighbours" is a group)
_PAIR_RE = re.compile(r"^\s*(?:(?:are|were|have|had)\s+)?(?:both\b|(?:(?:last|first|just)\s+)?"
                      r"(?:talked|spoke|chatted|caught\s+up)\b)", re.IGNORECASE)


def _pair(facts: list[ExtractedFact], marker: str, pair: str) -> int:
    """A fact whose "<S> and others" opens a clause with "both"/"talked" is about the two
    speakers ("We're both on different paths, but it's nice to have someone to root for us"):
    every "<S> and others" of it becomes "<S> and <addressee>" (session 12, defect12b)."""
    changed = 0
    for f in facts:
        if any(_PAIR_RE.match(f.fact_text[m.end():]) for m in re.finditer(re.escape(marker) + r"\b", f.fact_text)):
            f.fact_text = re.sub(re.escape(marker) + r"\b", pair, f.fact_text)
            changed += 1
    return changed


_SHARED_RE = re.compile(r"(?i)(?<![\w'’])(?:we|we['’](?:re|ve|ll|d)|us)(?![\w'’])")


def _shared(previous_turns: list[tuple[str | None, str]], addressee: str) -> bool:
    """The listener's turn just before spoke of the two of them ("It's great we both face the
    same challenges"): then the speaker's "we both" is the pair. Without it "we both" is
    often the speaker's own group ("Y'all work on it together?" - "We both helped", the
    speaker and a child)."""
    if not previous_turns:
        return False
    who, prev = previous_turns[-1]
    return (who or "").strip() == addressee and bool(_SHARED_RE.search(_CAPTION_RE.sub(" ", prev or "")))


def apply(facts: list[ExtractedFact], text: str, speaker: str,
          previous_turns: list[tuple[str | None, str]], addressee: str = "", partner: str | None = None,
          people: frozenset[str] = frozenset(), parses: Any = _FRESH, couple_partner: str | None = None,
          group_names: tuple[str, ...] = ()) -> int:
    """Name the group of the speaker's "we" in `facts` (in place); how many facts changed.
    `addressee`: the listener, for a "we both" of a message that names no group of its own.
    `partner`: the partner the speaker named earlier in the conversation (write/we_partner.py),
    the last resort when no group is named. `people` / `parses`: see `group_in`.
    `couple_partner`: the partner also when the speaker has named children, for a "we" about a
    couple matter (write/we_couple.py), which it names first. `group_names`: names the speaker
    gave their own groups (write/we_named_group.py)."""
    marker = f"{speaker} and others"
    changed = _couple(facts, text, speaker, previous_turns, couple_partner, people, parses)
    if not any(marker in f.fact_text for f in facts):
        return changed
    if addressee and addressee != speaker and group_in(text, speaker, people, parses) is None and _shared(
            previous_turns, addressee):
        changed += _pair(facts, marker, f"{speaker} and {addressee}")
    group = antecedent(text, speaker, previous_turns, people, parses, group_names)
    if not group:
        return changed + _with_partner(facts, text, speaker, previous_turns, partner)
    group = _partner_name(group, text, speaker, previous_turns, partner)
    for f in facts:
        if marker in f.fact_text:
            new = _collective_named(name_group(f.fact_text, speaker, group), speaker, group)
            if new != f.fact_text:
                f.fact_text = _own_their(new, speaker, f.source_text or "")
                changed += 1
    return changed


_NAMED_RE = r"(?P<v>are|were|have\s+been|had\s+been)(?P<rest>\s+(?:also\s+|now\s+|officially\s+)?(?:called|named|nicknamed|known\s+as)\b)"
_SINGULAR = {"are": "is", "were": "was", "have been": "has been", "had been": "had been"}


def _collective_named(text: str, speaker: str, group: str) -> str:
    """A name belongs to the collective, not to the speaker with it (session 14, we14b): "We're
    called the Null Pointers" of a speaker whose group is "our team" is "Jamal's team is called
    the Null Pointers", not "Jamal and Jamal's team are called ...". Only for a collective the
    speaker owns (`COLLECTIVES`: team, band, family, choir ...) and a naming verb (called, named,
    nicknamed, known as); any other predicate keeps "S and S's team" ("... won the hackathon")."""
    noun = group.removeprefix(f"{speaker}'s ")
    if noun == group or noun.lower() not in COLLECTIVES:
        return text

    def fix(m: re.Match[str]) -> str:
        verb = re.sub(r"\s+", " ", m.group("v").lower())
        return f"{group} {_SINGULAR[verb]}{m.group('rest')}"

    return re.sub(rf"{re.escape(f'{speaker} and {group}')}\s+{_NAMED_RE}", fix, text)


def _with_partner(facts: list[ExtractedFact], text: str, speaker: str,
                  previous_turns: list[tuple[str | None, str]], known: str | None) -> int:
    """"<S> and others" -> "<S> and <partner>" (write/we_partner.py) where nothing else could be
    in the "we": not in a fact that names the partner or proposes something to the listener."""
    if not we_partner.usable(text, previous_turns):  # kids, family, friends named: not the couple
        return 0
    partner = we_partner.antecedent(text, speaker, previous_turns, known)
    if not partner or we_couple.other_companion(text, partner):  # "we went with a guide" (session 18)
        return 0
    marker = f"{speaker} and others"
    own = re.escape(partner.removeprefix(f"{speaker}'s "))
    nouns = _alt(we_partner.PARTNER_NOUNS)
    changed = 0
    for f in facts:
        if marker not in f.fact_text or re.search(rf"(?i)\b(?:{own}|{nouns})\b", f.fact_text):
            continue
        if any(we_partner.is_proposal(f.fact_text[m.end():]) for m in re.finditer(re.escape(marker) + r"\b", f.fact_text)):
            continue
        new = name_group(f.fact_text, speaker, partner)
        if new != f.fact_text:
            f.fact_text = _own_their(new, speaker, f.source_text or "")
            changed += 1
    return changed


def _couple(facts: list[ExtractedFact], text: str, speaker: str, previous_turns: list[tuple[str | None, str]],
            known: str | None, people: frozenset[str], parses: Any) -> int:
    """A "we" about a couple matter is the speaker and their partner (write/we_couple.py, session
    18): "Marcus and Priya settled on about ninety guests", "Howard and Judy's 40th is in June".
    Not when the message names a group of its own (the tiers above decide it) or another companion
    of the "we" ("we went with a guide"), nor a fact that names the partner as a companion or
    proposes something to the listener."""
    partner = we_partner.antecedent(text, speaker, previous_turns, known)
    if not partner or we_couple.other_companion(text, partner):
        return 0
    marker = f"{speaker} and others"
    own = re.escape(partner.removeprefix(f"{speaker}'s "))
    grouped: Any = _FRESH  # the message's own group, looked up once and only when needed
    changed = 0
    for f in facts:
        new = f.fact_text
        if marker in new and we_couple.is_couple_matter(new, text, speaker, previous_turns, partner):
            if re.search(rf"(?i)\b{own}\b(?!['’]s)", new) or any(
                    we_partner.is_proposal(new[m.end():]) for m in re.finditer(re.escape(marker) + r"\b", new)):
                continue
            if grouped is _FRESH:
                grouped = group_in(text, speaker, people, parses)
            if grouped is not None:
                return changed
            new = name_group(new, speaker, partner, own_ok=True)
        if f"{speaker}'s " in new:
            new = we_couple.couple_our(new, text, speaker, partner)
        if new != f.fact_text:
            f.fact_text = _own_their(new, speaker, f.source_text or "")
            changed += 1
    return changed


def _partner_name(group: str, text: str, speaker: str, previous_turns: list[tuple[str | None, str]],
                  known: str | None) -> str:
    """A group that is the speaker's partner noun alone ("my fiancée and I" -> "S's fiancée") is
    spelled with the partner's name when the conversation gave one ("My fiancée Lucia ...")."""
    noun = group.removeprefix(f"{speaker}'s ")
    if noun == group or noun.lower() not in we_partner.PARTNER_NOUNS:
        return group
    return we_partner.named(text, speaker, previous_turns, known) or group


def _own_their(text: str, speaker: str, source: str) -> str:
    """A "their" written for the speaker's "my" while the subject was "<S> and others"
    (write/readability.py gives a plural subject "their") reads as the named group's once the
    group is named: "Melanie and Melanie's kids celebrated their daughter's birthday" (the
    speaker's daughter: "my daughter's birthday") -> "... celebrated Melanie's daughter's
    birthday". Only a "their W" whose source says "my W" and never "our W" or "their W"."""
    def fix(m: re.Match[str]) -> str:
        w = m.group(1)
        mine = re.search(rf"(?i)\bmy\s+{re.escape(w)}\b", source)
        other = re.search(rf"(?i)\b(?:our|their)\s+{re.escape(w)}\b", source)
        return f"{speaker}'s {w}" if mine and not other else m.group(0)

    return re.sub(r"\btheir\s+([\w'’-]+)", fix, text)


__all__ = ["COLLECTIVES", "GROUP_NOUNS", "MEMBER_GROUPS", "SINGLE_NOUNS", "antecedent", "apply", "group_in", "has_we", "known_people", "name_group"]

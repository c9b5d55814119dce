"""Offline (rule-based) extraction: deterministic, no model, well under a millisecond per message.

`extract_offline(text, ctx) -> ExtractionResult` (mode="rules") turns one chat message into
entities, self-contained facts and relations. The same text + context always gives the same
output, order included (nothing iterates a set; every regex is compiled at import).

Pipeline per message
--------------------
1. Split into sentences (`result.sentences`: every sentence, in order, each an exact stripped
   substring of the message; pure emoji/punctuation fragments are not sentences).
2. Detect the language once (en/pt by counts of stopwords and common verb forms; ties go to pt
   when the text has Portuguese diacritics). Facts are written in the message's language.
3. Per sentence: strip leading discourse markers / greetings / vocatives ("Wow, ", "Hey Mel!"),
   skip questions, thanks/congratulations/imperatives and content-free exclamations, then run the
   rules below. Every fact's `source_text` is the sentence it restates.
4. First person becomes the speaker ("I live" -> "Rafael lives", "my sister" -> "Rafael's sister",
   "Moro em Curitiba" -> "Rafael mora em Curitiba"); he/she/ele/ela become the most recently
   mentioned person of the message; "you" becomes the addressee when a vocative names them.
   Relative dates are rewritten with `temporal.render` and set `event_date`.
5. A declarative sentence with content that no rule covered becomes one generic fact about its
   subject (the speaker, a named person, a resolved pronoun), or "{speaker} mentioned that ..." /
   "{speaker} disse que ..." when it has none.

Recognised patterns
-------------------
S = subject slot: I / we / eu / nós / dropped subject (1st-person verb: "Moro em ...", "Moved to
..."), he/she/ele/ela (resolved), a name, "my|our|meu|minha <rel term> <Name>", "<Name>'s <rel
term> <Name>", "<Name> and I" / "eu e <Name>" (both get the edge). T/O/P = a proper-noun span
(capitalised words or any caseless script, with de/da/do/of... connectors, at most 6 words).

| pattern (EN / PT)                                               | relation(s)                                   | attribute_key (value)        |
|-----------------------------------------------------------------|-----------------------------------------------|------------------------------|
| S lives/is living/is based/resides in P; S mora/vive/reside em P | (S, lives_in, P)                              | location (P)                 |
| S moved/relocated to P; S (se) mudou/mudei para P               | (S, lives_in, P)                              | location (P)                 |
| S moved from F to P; S mudou de F para P                        | (S, lives_in, P) + (S, lives_in, F, retracts) | location (P)                 |
| S grew up / was born in P; S nasceu / cresceu em P              | -                                             | hometown (P)                 |
| S works at/for O; S trabalha na/no/em/para O                    | (S, works_at, O)                              | employer (O)                 |
| S joined / started at / got a job at / was hired by O;          | (S, works_at, O) (member_of if O looks like a | employer (O)                 |
|   S entrou na / começou na / foi contratado pela O              |   club/team/band/group/choir)                 |                              |
| S worked at O (past); S trabalhava/trabalhou na O               | (S, former_employee_of, O)                    | -                            |
| S studies at O / attends <School>; S estuda na O                | (S, studies_at, O)                            | school (O)                   |
| S left / quit / resigned from / was fired from / lost my job at | (S, former_employee_of, O) +                  | employer, retracts (O)       |
|   S saiu da / deixou a / largou a / pediu demissão da O         |   (S, works_at, O, retracts)                  |                              |
| S no longer works at O / doesn't work at O anymore;             | same as left                                  | employer, retracts (O)       |
|   S não trabalha mais na O                                      |                                               |                              |
| S no longer lives in P / não mora mais em P                     | (S, lives_in, P, retracts)                    | location, retracts (P)       |
| S is a member of / plays for / volunteers at O; joga no O       | (S, member_of, O)                             | membership (O)               |
| O hired N / O contratou N / O me contratou                      | (O, hired, N) + (N, works_at, O)              | -                            |
| S manages / supervises N; S gerencia / lidera N                 | (S, manages, N)                               | -                            |
| S reports to N                                                  | (S, reports_to, N)                            | -                            |
| S married / is dating / is engaged to N; casou / namora com N   | (S, partner_of, N)                            | partner (N)                  |
| S broke up with / divorced N; terminou / se separou de N        | (S, partner_of, N, retracts)                  | partner, retracts (N)        |
| S is/works as/became a <occupation>; sou/é/trabalho como <occ.> | (+ works_at if "... at O")                    | occupation (role)            |
| S is no longer a <occupation> / lost my job as a <occupation> / | -                                             | occupation, retracts (role)  |
|   não sou mais <occupation>                                     |                                               |                              |
| S is N (years old) / turned N; tenho / fiz N anos               | -                                             | age (N)                      |
| S is (not ... anymore) vegetarian/vegan/single/married/...;     | -                                             | diet / relationship_status / |
|   sou (não sou mais) vegetariana/casada/...                     |                                               |   health / employment_status |
| my/our <rel term> Name; Name, my <rel term>; Name is my <term>; | partner terms -> partner_of, family terms ->  | partner (partner terms)      |
|   meu/minha <termo> Name; Name é minha <termo>;                 |   family_of, friend -> friend_of, colleague   |                              |
|   Name (Owner's <term>); Name (minha <termo>)                   |   -> works_with, boss/chefe -> reports_to     |                              |
|                                                                 |   (possessor -> Name; for bosses the possessor|                              |
|                                                                 |   reports to Name), employee -> manages       |                              |
| my dog/cat Max; a dog named Max; meu cachorro Rex               | (owner, owns, Max); Max is typed "pet"        | pet (owner)                  |
| Name (Full Name); Full, aka / known as / conhecido como Alias;  | - (one entity: the most complete name, with   | -                            |
|   everyone calls him Alias; call me Alias / me chamam de Alias  |   the other as alias; no self-relations)      |                              |

Fact text is the restated clause ("Rafael no longer works at Acme", "Ana é esposa de Rafael");
a sentence with more content than its matched clauses also gets a generic fact. Generic facts get
attribute `plan` (future markers), `preference` (like/love/gosto/adoro...), `event` (past tense)
or None. Importance comes from `lexicon.IMPORTANCE_CUES` (kind-specific for the table above);
confidence is 0.95 explicit, 0.60 for "I think/probably/acho que", 0.40 for
"maybe/might/talvez", 0.80 for inferred facts (resolved pronouns, parenthetical hints).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import lru_cache
from typing import Any

from arandu_pipelines.keys import fold as _fold_uncached
from arandu_pipelines.write import (
    agreement,
    conjoined_subjects,
    kin_antecedents,
    name_gender,
    name_subjects,
    own_possessive,
    session_names,
)
from arandu_pipelines.write import grammar_defects as GD
from arandu_pipelines.write import lexicon as L
from arandu_pipelines.write import wellformed as WF
from arandu_pipelines.write.calendar_dates import abbreviated_month_dot
from arandu_pipelines.write.language import PT_VERB_WORDS as _PT_VERB_WORDS
from arandu_pipelines.write.language import WORD_RE as _WORD_RE
from arandu_pipelines.write.language import cap_like as _cap_like
from arandu_pipelines.write.language import conj_en as _conj_en
from arandu_pipelines.write.language import detect_language
from arandu_pipelines.write.second_person import you_is_subject
from arandu_pipelines.write.temporal import (
    TemporalMention,
    absolutize_with_spans,
    find_relative_dates,
    render,
)
from arandu_pipelines.write.types import (
    ExtractedEntity,
    ExtractedFact,
    ExtractedRelation,
    ExtractionContext,
    ExtractionResult,
)

MAX_FACTS = 100


@lru_cache(maxsize=8192)
def fold(text: str) -> str:
    """keys.fold (case- and accent-insensitive), cached: names recur across messages."""
    return _fold_uncached(text)

_MAX_PREFIX = 160

# =============================================================================================
# Character classes and name regexes
# =============================================================================================


# Capital letters: Latin (incl. Extended A/B and Additional, which mix both cases: accepted), Greek,
# Cyrillic, Armenian. Kept as a few ranges so the many name-bearing regexes compile fast.
_UP = (
    "A-Z\u00c0-\u00d6\u00d8-\u00de\u0100-\u024f\u0386-\u038f\u0391-\u03ab\u0400-\u042f"
    "\u0460-\u04ff\u0531-\u0556\u1e00-\u1eff"
)
# Scripts without case: any word in them may be a name (Hebrew, Arabic, Indic, Thai, CJK, kana, Hangul).
_CL = (
    "\u0590-\u05ff\u0600-\u06ff\u0900-\u0dff\u0e00-\u0eff\u1100-\u11ff"
    "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
)
_CL_RE = re.compile(f"[{_CL}]")
_NW = rf"(?<![\w'’])(?:[{_UP}][^\W_]*(?:['’][{_UP}][^\W_]*)?(?:-[^\W_]+)*|[{_CL}]+)"
_CONN = "|".join(sorted((c for c in L.NAME_CONNECTORS if c not in ("e", "y")), key=lambda w: (-len(w), w)))
_PROPER = rf"{_NW}(?:(?:[ \t]+(?:{_CONN}|&)){{0,2}}[ \t]+{_NW}){{0,5}}"  # bounded: linear-time scans
_PROPER_RE = re.compile(_PROPER)
_NAME_ONLY_RE = re.compile(rf"^{_PROPER}$")


def _alt(words) -> str:
    """Regex alternation of literal phrases, longest first; spaces match any whitespace."""
    uniq = sorted(set(words), key=lambda w: (-len(w), w))
    return "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in uniq)


_TOKEN_RE = re.compile(r"[^\W_]+(?:['’][^\W_]+)*|\s+|.", re.DOTALL)
_EMOJI_RE = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\ufe0f\u200d\u2b50\u2b55\u231a-\u23ff]+")
_SPACES_RE = re.compile(r"[ \t\r\n]+")

# =============================================================================================
# Vocabulary sets
# =============================================================================================

_NON_NAME = L.NON_NAME_CAPS
_REL_TERMS = {**L.REL_TERMS_EN, **L.REL_TERMS_PT}
_DISCOURSE_WORDS = frozenset(L.DISCOURSE_MARKERS)
_PET_TERMS = frozenset(L.PET_TERMS_EN) | frozenset(L.PET_TERMS_PT)
_PLURAL_TERMS = frozenset(
    ["kids", "children", "parents", "sons", "daughters", "brothers", "sisters", "friends", "colleagues", "coworkers", "filhos", "pais", "irmãos", "amigos", "amigas", "colegas"]
)
_EX_ADJ = frozenset({"ex", "former", "late", "antiga", "antigo", "falecida", "falecido"})
_NONCONTENT = (
    L.STOPWORDS_EN | L.STOPWORDS_PT | L.EVALUATIVES | L.CONTENT_STOP
    | frozenset(w for m in L.DISCOURSE_MARKERS for w in m.split())
    | frozenset(
        ["i'm", "i've", "i'd", "i'll", "it's", "that's", "what's", "there's", "here's", "let's", "don't", "can't", "won't", "didn't", "isn't", "doesn't", "wasn't", "aren't", "you've", "you'd", "you'll", "he's", "she's", "we've", "we'd", "they've", "gotta", "wanna", "gonna", "get", "got", "gets", "getting", "make", "made", "thing", "things", "something", "anything", "everything", "nothing", "one", "ones", "lot", "lots", "kind", "kinda", "sort", "bit", "little", "day", "days", "time", "times", "now", "today", "yesterday", "tomorrow", "week", "month", "year", "years", "ago", "last", "next", "still", "even", "ever", "much", "many", "well", "going", "glad", "hope", "hoping", "wish", "wishing", "think", "thought", "know", "knew", "mean", "guess", "sure", "totally", "feel", "feels", "feeling", "felt", "see", "saw", "hear", "heard", "tell", "told", "say", "said", "mind", "cause", "'cause", "ya", "yeah", "pra", "tá", "tô", "né", "aí", "coisa", "coisas", "hoje", "ontem", "amanhã", "dia", "semana", "mês", "ano", "vez", "vezes", "acho", "sei", "bem", "muito", "pouco", "tudo", "nada", "algo", "gente", "news", "big", "update", "novidade", "novidades", "notícia"]
    )
)
_TIME_WORDS = frozenset(
    ["yesterday", "today", "tonight", "tomorrow", "recently", "lately", "finally", "just", "then", "now", "also", "last", "this", "next", "week", "month", "year", "weekend", "ago", "morning", "afternoon", "evening", "night", "earlier", "later", "soon", "ontem", "hoje", "amanhã", "recentemente", "finalmente", "então", "agora", "também", "semana", "passada", "passado", "mês", "ano", "fim", "de", "que", "vem", "depois", "antes", "cedo", "noite", "tarde", "manhã", "já", "ainda"]
)
_IGNORABLE_PREFIX = (
    _TIME_WORDS
    | frozenset(w for m in L.DISCOURSE_MARKERS for w in m.split())
    | frozenset(
        ["and", "but", "so", "or", "then", "also", "just", "actually", "finally", "recently", "officially", "totally", "really", "e", "mas", "então", "aí", "daí", "também", "já", "ainda", "não", "nao", "nunca", "mais", "me", "se", "eu", "no", "longer", "not", "never"]
    )
)
_EN_SKIP_AFTER_I = (
    L.ADVERBS_EN
    | frozenset(["no", "longer", "not", "kinda", "sorta", "totally", "def", "still", "both", "all", "almost"])
)
# verbs that end like an "-ly" adverb: "I rely on", "I reply", "I apply"
_EN_LY_VERBS = frozenset(["apply", "reply", "rely", "supply", "multiply", "comply", "imply", "bully", "rally",
                          "tally", "ally", "sully", "dally", "fly"])


def _adverb_after_i(low: str) -> bool:
    """A word between "I" and its verb: a listed adverb, or any "-ly" adverb ("I nearly quit",
    "I instantly knew") that is not an "-ly" verb; conjugating it gave "S nearlies quit"."""
    return low in _EN_SKIP_AFTER_I or (len(low) > 4 and low.endswith("ly") and low not in _EN_LY_VERBS)


def _hedge_of(low: str, toks: list[str], j: int) -> bool:
    """"kind of" / "sort of" between "I" and its verb is a hedge ("I kind of have one"), no verb."""
    return low in ("kind", "sort") and j + 3 < len(toks) and toks[j + 1].isspace() \
        and toks[j + 2].lower() == "of" and toks[j + 3].isspace()


_EN_COORD_VERBS = frozenset(
    ["live", "work", "study", "love", "like", "want", "need", "go", "have", "play", "teach", "run", "write", "enjoy", "hate", "prefer", "miss", "visit", "manage", "sing", "dance", "cook", "get", "make", "take", "feel", "think", "know", "try", "plan", "hope", "volunteer", "paint", "read", "watch", "help", "spend", "keep", "use", "own", "swim", "hike", "travel", "draw", "bake", "practice", "attend", "join", "lead", "coach", "believe", "care", "do"]
)
_EN_PAST_AUX = frozenset({"been", "got", "had", "gone", "done", "become", "seen"})

_PT_ARTICLES = frozenset(
    ["o", "a", "os", "as", "do", "da", "dos", "das", "no", "na", "nos", "nas", "pelo", "pela", "pelos", "pelas", "ao", "à", "aos", "às", "num", "numa", "um", "uma"]
)
_PT_POSS = {
    "meu": "o", "minha": "a", "meus": "os", "minhas": "as",
    "nosso": "o", "nossa": "a", "nossos": "os", "nossas": "as",
}
_PT_NOT_DROPPED = frozenset({"como", "sei", "vi", "li", "dei", "era", "ia", "sai"})
_PT_ADV = L.ADVERBS_PT | frozenset({"não", "nao", "mais"})
_LEAD_ADV = frozenset(
    ["não", "nao", "nunca", "também", "tambem", "já", "ja", "ainda", "me", "se", "not", "never", "no", "longer", "don't", "didn't", "just", "also", "finally", "recently", "officially", "still", "already", "actually", "really"]
)

# =============================================================================================
# Sentence splitting
# =============================================================================================

# Linear time: a boundary is only tried where a run of terminators starts (the lookbehind), and
# the run and its closing quotes are taken whole (possessive). Tried at every position of a run
# not followed by a space, the former pattern rescanned the rest of the run each time: 40,000
# "!" cost ~40 s of the event loop.
_SENT_BOUND_RE = re.compile(r"(?<![.!?…])[.!?…]++[\"'”’)\]]*+(?=\s)|\n+")
_ABBREV = frozenset(
    ["mr", "mrs", "ms", "dr", "prof", "sr", "sra", "srta", "st", "jr", "vs", "etc", "e.g", "i.e", "a.k.a", "aka", "no", "dept", "approx", "av", "fig", "p.s"]
)
_ABBREV_LOOKBACK = 16  # longer than any abbreviation (with its opening quote or bracket)
# The longest sentence the rules see. Rules run per sentence and some regexes backtrack within
# it, so a bound on its length bounds the work per sentence and keeps a message's cost linear in
# its length, whatever it holds. Longer runs of text are cut (at a space when there is one) into
# pieces of at most this many characters, each a sentence of its own.
MAX_SENTENCE_CHARS = 1000


def split_sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) spans of the sentences of `text`, stripped, in order (fragments with no letter
    or digit are dropped; a sentence over MAX_SENTENCE_CHARS is cut into pieces). Linear time."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _SENT_BOUND_RE.finditer(text):
        if m.group(0)[0] == "." and (_abbreviation_before(text, start, m.start()) or abbreviated_month_dot(text, m.start())):
            continue
        spans.append((start, m.end()))
        start = m.end()
    spans.append((start, len(text)))
    out: list[tuple[int, int]] = []
    for a, b in spans:
        seg = text[a:b]
        stripped = seg.strip()
        if not stripped or not any(ch.isalnum() for ch in stripped):
            continue
        lead = len(seg) - len(seg.lstrip())
        out.extend(_windows(text, a + lead, a + lead + len(stripped)))
    return out


def _abbreviation_before(text: str, start: int, dot: int) -> bool:
    """Whether the word before the "." at `dot` (within the sentence from `start`) is an
    abbreviation or a single letter. Looks back a bounded distance, so a long run of skipped
    dots ("a. a. a. ...") does not rescan the sentence at each dot."""
    lo = max(start, dot - _ABBREV_LOOKBACK)
    before = text[lo:dot].rsplit(None, 1)
    if not before:
        return False
    if lo > start and len(before) == 1 and len(before[0]) == dot - lo:
        return False  # a word longer than the look-back: no abbreviation is that long
    last = before[-1].lower().strip("(\"'")
    return last in _ABBREV or (len(last) == 1 and last.isalpha())


def _windows(text: str, a: int, b: int) -> list[tuple[int, int]]:
    """[a, b) as pieces of at most MAX_SENTENCE_CHARS, cut at the last whitespace of each piece
    when it has one in its second half, each stripped (pieces with no letter or digit dropped)."""
    if b - a <= MAX_SENTENCE_CHARS:
        return [(a, b)]
    out: list[tuple[int, int]] = []
    while a < b:
        end = min(b, a + MAX_SENTENCE_CHARS)
        if end < b:
            cut = max(text.rfind(" ", a + MAX_SENTENCE_CHARS // 2, end),
                      text.rfind("\t", a + MAX_SENTENCE_CHARS // 2, end))
            end = cut if cut > a else end
        seg = text[a:end]
        stripped = seg.strip()
        if stripped and any(ch.isalnum() for ch in stripped):
            lead = len(seg) - len(seg.lstrip())
            out.append((a + lead, a + lead + len(stripped)))
        a = end
    return out


# =============================================================================================
# Language
# =============================================================================================


# =============================================================================================
# Leading / trailing noise
# =============================================================================================

_GREET_STRIP = (
    r"hey|hi|hello|heya|hiya|yo|howdy|good\s+(?:morning|afternoon|evening|night)"
    r"|(?:it'?s\s+)?(?:so\s+)?(?:good|great|nice|glad)\s+to\s+(?:see|hear\s+from|hear|meet|chat\s+with|talk\s+to)\s+you(?:\s+again)?"
    r"|long\s+time\s+no\s+(?:see|talk|chat)|how\s+are\s+you|how'?s\s+it\s+going|what'?s\s+up"
    r"|oi|olá|ola|e\s+aí|eae|bom\s+dia|boa\s+tarde|boa\s+noite|tudo\s+bem|tudo\s+bom|beleza"
)
# "Speaking of animals, I had an adventure": the topic lead names what comes next, it says nothing
# of the speaker (it had been read as a dropped-subject clause: "Joel is speaking of animals, ...")
# The topic is a short noun phrase: "Talking about money is hard, and ..." is a clause, not a lead.
_TOPIC_VERB = r"(?:is|are|was|were|be|been|has|have|had|will|would|can|could|should|must|makes?|made|means?|helps?)"
_TOPIC_LEAD = rf"(?:speaking|talking)\s+(?:of|about)\s+(?:(?!{_TOPIC_VERB}\b)[\w'’$-]+\s*){{1,5}}(?=,)"
_DISC = L.lead_alternation("marker") + "|" + _GREET_STRIP + "|" + _TOPIC_LEAD
_LEAD_RE = re.compile(rf"^(?:(?:{_DISC})(?![\w'’])[\s,!.…:;~\-–—]*)+", re.IGNORECASE)
_AND_I_RE = re.compile(r"(?<!\s)(?:\s+(?:and|&)\s+(?:I|me)(?![\w])|\s+e\s+eu(?![\w]))")  # run starts: linear
_PERSON_CTX_RE = re.compile(
    r"(?i)(?<![\w'’])(?:with|met|meet|meeting|told|tell|asked|texted|called|hugged|thanked|married|dating|visiting\s+my"
    r"|com(?:\s+[oa])?|conheci(?:\s+[oa])?|encontrei(?:\s+[oa])?|liguei\s+(?:pro|pra|para\s+[oa])|falei\s+com(?:\s+[oa])?"
    r"|conversei\s+com(?:\s+[oa])?)\s+$"
)
_SECOND_PERSON_RE = re.compile(r"(?i)(?<![\w'’])(?:you|your|you're|you've|ya|você|voce|vc|seu|sua)(?![\w'’])")
_LEAD_VOC_COMMA_RE = re.compile(rf"^(?P<n>{_PROPER})\s*,\s*")
_LEAD_VOC_RE = re.compile(rf"^(?P<n>{_PROPER})\s*(?:[,!.…]+\s*|$)")
# Tried only where a run of commas/spaces starts, its tail taken whole (possessive): linear.
_TRAIL_VOC_RE = re.compile(rf"(?<![,\s])[,\s]*,\s*(?P<n>{_PROPER})\s*+(?P<p>[!.?…]*+)\s*+$")
_DROP_RE = re.compile(
    r"^(?:thanks|thank\s+you|thx|ty|many\s+thanks|appreciate\s+(?:it|that|you|your)|congrats|congratulations"
    r"|cheers|bye|goodbye|see\s+you|see\s+ya|take\s+care|talk\s+(?:to\s+you\s+)?(?:soon|later)|ttyl"
    r"|sorry\s+(?:to\s+hear|about|for\s+your)|so\s+sorry|i'?m\s+(?:so\s+)?sorry\s+(?:to\s+hear|about|for\s+your)"
    r"|let'?s|let\s+us|keep\s+(?:it\s+up|going|up\s+the)|hang\s+in\s+there|don'?t\s+give\s+up|don'?t\s+forget"
    r"|you\s+got\s+this|we\s+got\s+this|go\s+for\s+it|have\s+fun|have\s+a\s+(?:good|great|nice)|enjoy"
    r"|take\s+a\s+look|check\s+(?:it|this|that)\s+out|look\s+at\s+(?:this|that)"
    r"|here'?s\s+(?:a|the|my)\s+(?:pic|photo|picture)\s*[!.:]*\s*$|here\s+is\s+(?:a|the|my)\s+(?:pic|photo|picture)\s*[!.:]*\s*$|obrigad[oa]|valeu|brigad[oa]|tchau|até\s+mais|ate\s+mais"
    r"|até\s+logo|até\s+amanhã|parabéns|parabens|boa\s+sorte|que\s+pena|sinto\s+muito|vamos|olha\s+(?:isso|só)"
    r"|bjs|beijos|abraços)(?![\w'’])",
    re.IGNORECASE,
)
_FIRST_PERSON_CLAUSE_RE = re.compile(
    r"(?:,|;|\s[-–—]|[-–—]\s)\s*(?=(?:I|I['’]m|I['’]ve|we|We|we['’]ve|my|My|our|Our|eu|Eu|meu|Meu|minha|Minha|a\s+gente)\b)"
)
_FILLER_ONLY_RE = re.compile(
    r"^(?:me\s+too|same\s+here|same|no\s+way|of\s+course|for\s+sure|sure\s+thing|you\s+bet|no\s+problem"
    r"|my\s+pleasure|eu\s+também|eu\s+tambem|com\s+certeza|claro|totally\s+agree|i\s+agree|agreed)\b[\s!.,]*$",
    re.IGNORECASE,
)
_THANKS_VOC_RE = re.compile(
    rf"^(?:(?i:thanks|thank\s+you|thx|congrats|congratulations|hey|hi|hello|wow|yeah|yes|oh|aw+|obrigad[oa]|valeu|parabéns|oi|olá)"
    rf"(?:\s+(?i:so\s+much|a\s+lot|again))?)[\s,]+(?P<n>{_PROPER})\s*(?:[!.,…]+|$)"
)
_EXCLAM_RE = re.compile(
    r"^(?:what\s+an?|how|so|such\s+an?|que|muito)\s+(?:\w+\s+){0,2}?"
    r"(?:cool|nice|great|awesome|amazing|lovely|sweet|fun|beautiful|wonderful|cute|gorgeous|adorable|incredible"
    r"|fantastic|sad|bad|exciting|inspiring|brave|lucky|legal|lindo|linda|bom|boa|massa|incrível)\b[^.]*[!.]?$",
    re.IGNORECASE,
)
_IMPERATIVE = frozenset(w for w in L.IMPERATIVE_STARTS_EN + L.IMPERATIVE_STARTS_PT if " " not in w) - {"have"}
_QUESTION_WORDS = frozenset(
    ["what", "why", "how", "who", "whom", "whose", "where", "which", "o", "que", "por", "quem", "onde", "quando", "qual", "quais"]
)
_HEDGE_PREFIX_RE = re.compile(
    rf"^(?:{_alt(L.HEDGE_PREFIX_EN + L.HEDGE_PREFIX_PT)})(?![\w'’])\s*,?\s*", re.IGNORECASE
)
_HEDGE_WEAK_RE = re.compile(rf"(?<![\w'’])(?:{_alt(L.HEDGE_WEAK_EN + L.HEDGE_WEAK_PT)})(?![\w'’])", re.IGNORECASE)
_HEDGE_MID_RE = re.compile(rf"(?<![\w'’])(?:{_alt(L.HEDGE_MID_EN + L.HEDGE_MID_PT)})(?![\w'’])", re.IGNORECASE)
_TRAIL_RE = re.compile(r"(?<![\s.!…;:,~\-–—])[\s.!…;:,~\-–—]++$")  # run starts only: linear

_IMPORTANCE_RES = tuple(
    (cat, re.compile(rf"(?<![\w'’])(?:{_alt(cues)})(?![\w'’])", re.IGNORECASE)) for cat, cues in L.IMPORTANCE_CUES
)
_PLAN_RE = re.compile(
    r"(?<![\w'’])(?:will|['’]ll|going\s+to|gonna|plan(?:ning)?\s+(?:to|on)|plans\s+to|want(?:s)?\s+to|wanna"
    r"|hop(?:e|es|ing)\s+to|about\s+to|intend(?:s)?\s+to|would\s+like\s+to|['’]d\s+(?:like|love)\s+to"
    r"|would\s+love\s+to|thinking\s+(?:of|about)|considering|looking\s+forward\s+to|can['’]?t\s+wait\s+to"
    r"|next\s+(?:week|month|year|weekend)|vou|vai|vamos|pretend[oe]|planej[oa]|quero|gostaria\s+de"
    r"|pens[oa]\s+em|pensando\s+em|espero)(?![\w'’])",
    re.IGNORECASE,
)
_PREF_RE = re.compile(
    r"(?<![\w'’])(?:(?:(?i:i|we|he|she|they)|(?!(?:It|That|This|What|There|Here|Their|They|Our|Your|His|Her|My|The|And|But|So|Sounds|Looks|Seems|Feels)\b)[A-Z][a-z]+)"
    r"\s+(?i:really\s+|also\s+|just\s+|absolutely\s+|totally\s+|still\s+|truly\s+)*"
    r"(?i:like|likes|love|loves|enjoy|enjoys|prefer|prefers|adore|adores|hate|hates)"
    r"|(?i:am|['’]m|is|['’]s|are|['’]re)\s+(?i:really\s+|so\s+)?(?i:into|passionate\s+about|keen\s+on|a\s+(?:big\s+|huge\s+)?fan\s+of)"
    r"|(?i:favou?rite|gost[oa]|gostava|ador[oa]|amo|ama|prefir[oa]|prefere|curt[oe]|odei[oa]|favorit[oa]))(?![\w'’])"
)
_PREF_START_RE = re.compile(r"^(?:really\s+|totally\s+|absolutely\s+)?(?:love|loved|like|enjoy|adore)\b", re.IGNORECASE)
_PAST_EN_RE = re.compile(
    rf"(?<![\w'’])(?:I|i|[Ww]e|[Hh]e|[Ss]he|[Tt]hey|[A-Z][\w'’]+)(?:\s+(?i:just|also|finally|really|actually|recently|then|[a-z]+ly))?"
    rf"\s+(?i:{'|'.join(sorted(L.IRREGULAR_PAST_EN))}|[a-z]{{2,}}ed)(?![\w'’])"
)
_PAST_PT_RE = re.compile(
    r"(?<![\w'’])(?!(?i:sou|vou|estou|europeu|museu|chapéu|ou|meu|seu|teu)\b)(?i:fui|foi|tive|teve|fiz|fez|[a-zçãé]{2,}(?:ei|ou|eu|iu))(?![\w'’])"
)

# EN dropped subject at the start of a sentence ("Love that painting!", "Went hiking today").
_FINITE_RE = re.compile(
    r"(?i)(?<![\w'’])(?:is|are|was|were|has|have|had|can|could|will|would|should|must|does|do|did|makes|made|feels|seems"
    r"|sounds|looks|helps|brings|means|gives|takes|keeps)(?![\w'’])|['’]s\b"
    rf"|(?<![\w'’])(?:{'|'.join(sorted(L.IRREGULAR_PAST_EN))}|[a-z]{{3,}}ed)(?![\w'’])"
)
_EN_DROPPED_START = {
    "gonna": "is going to", "wanna": "wants to", "been": "has been", "love": "loves", "loved": "loved",
    "like": "likes", "liked": "liked", "went": "went", "had": "had", "got": "got", "just": "just",
    "moved": "moved", "started": "started", "finished": "finished", "spent": "spent", "tried": "tried",
    "made": "made", "took": "took", "bought": "bought", "visited": "visited", "hope": "hopes",
    "miss": "misses", "can't": "can't", "cant": "can't", "gotta": "has to", "feeling": "is feeling",
    "working": "is working", "thinking": "is thinking", "planning": "is planning", "enjoyed": "enjoyed",
    "learned": "learned", "joined": "joined", "left": "left", "quit": "quit", "live": "lives",
    "work": "works", "adopted": "adopted", "met": "met", "saw": "saw", "watched": "watched",
    "painted": "painted", "finally": "finally", "loving": "is loving", "excited": "is excited",
    "thrilled": "is thrilled", "stoked": "is stoked", "glad": "is glad", "happy": "is happy",
    "proud": "is proud", "grateful": "is grateful", "thankful": "is thankful", "need": "needs",
}

# =============================================================================================
# Subject slot (searched backwards from a verb)
# =============================================================================================

_TERMS_EN_ALT = _alt(list(L.REL_TERMS_EN) + list(L.PET_TERMS_EN))
_TERMS_PT_ALT = _alt(list(L.REL_TERMS_PT) + list(L.PET_TERMS_PT))
_ADJ_EN_ALT = _alt(L.REL_ADJ_EN)
_ADJ_PT_ALT = _alt(L.REL_ADJ_PT)

_AUX_EN = (
    r"(?:\s*['’](?:ve|s|m|d|ll|re)(?![\w'’])"
    r"|\s+(?i:have|has|had|am|is|are|was|were|been|will|would|shall|just|also|still|now|currently"
    r"|recently|finally|officially|already|actually|really|even|only|ever|eventually|then|soon|probably"
    r"|definitely|maybe|no\s+longer|not|never|don['’]t|doesn['’]t|didn['’]t|do\s+not|does\s+not|did\s+not"
    r"|won['’]t|will\s+not|haven['’]t|hasn['’]t|isn['’]t|aren['’]t|wasn['’]t|going\s+to|gonna|wants?\s+to|wanna"
    r"|plan(?:s|ning)?\s+to|planning\s+on|hop(?:e|es|ing)\s+to|about\s+to|decided\s+to|might|may|could"
    r"|should|can|got|get|gets|getting|be|being|happily|proudly|all|both|too|thinking\s+(?:of|about)"
    r"|considering|trying\s+to|tried\s+to|need\s+to|needs\s+to|ha(?:ve|s)\s+to|used\s+to|ready\s+to))*"
)
_AUX_PT = (
    r"(?:\s+(?i:não|nao|já|ja|ainda|também|tambem|agora|atualmente|recentemente|finalmente|nunca|vai|vou"
    r"|vamos|quer|quero|queria|pretende|pretendo|planeja|planejo|acabou\s+de|acabei\s+de|começou\s+a"
    r"|comecei\s+a|voltou\s+a|voltei\s+a|está|estou|estava|tá|tô|foi|fui|se|me|hoje|ontem|mais|enfim"
    r"|oficialmente|pode|posso|deve|devo|precisa|preciso|gostaria\s+de|vai\s+se|vou\s+me))*"
)
_SUBJ_EN = (
    rf"(?P<poss>(?:(?P<pw>[Mm]y|[Oo]ur|[Hh]is|[Hh]er|[Tt]heir)|(?P<owner>{_PROPER})['’]s)\s+"
    rf"(?:(?i:{_ADJ_EN_ALT})\s+)*(?P<term>(?i:{_TERMS_EN_ALT}))(?:,?\s+(?P<tname>{_PROPER}))?)"
    rf"|(?P<comp>(?P<cname>{_PROPER})\s+(?:and|&)\s+(?:I|me)(?![\w'’]))"
    rf"|(?P<pron>(?<![\w'’])(?:I|i|[Ww]e|[Hh]e|[Ss]he)(?![\w]))"
    rf"|(?P<name>{_PROPER})"
)
_SUBJ_PT = (
    rf"(?P<poss>(?:(?P<pw>[Mm]eu|[Mm]inha|[Mm]eus|[Mm]inhas|[Nn]osso|[Nn]ossa)\s+(?:(?i:{_ADJ_PT_ALT})\s+)?"
    rf"(?P<term>(?i:{_TERMS_PT_ALT}))|(?:[OoAa]\s+)?(?P<term2>(?i:{_TERMS_PT_ALT}))\s+d[eoa]\s+(?P<owner>{_PROPER}))"
    rf"(?:,?\s+(?P<tname>{_PROPER}))?)"
    rf"|(?P<comp>(?P<cname>{_PROPER})\s+e\s+eu(?![\w'’])|[Ee]u\s+e\s+(?:[oa]\s+)?(?P<cname2>{_PROPER}))"
    rf"|(?P<pron>(?<![\w'’])(?:[Ee]u|[Nn]ós|[Ee]le|[Ee]la)(?![\w'’]))"
    rf"|(?P<name>{_PROPER})"
)
_TAIL_EN_RE = re.compile(rf"(?:{_SUBJ_EN})(?P<aux>{_AUX_EN})\s*$")
_TAIL_PT_RE = re.compile(rf"(?:{_SUBJ_PT})(?P<aux>{_AUX_PT})\s*$")
_MASK_RE = re.compile(
    r"\([^()]{0,60}\)|,\s*(?:(?i:my|our|his|her|meu|minha|nosso|nossa|aka|a\.k\.a\.|also\s+known\s+as"
    r"|known\s+as|conhecid[oa]\s+como)\s+[^,]{1,40}),"
)
_LAST_SUBJ_EN_RE = re.compile(rf"(?<![\w'’])(?:I|i|[Ww]e)(?![\w'’])|{_PROPER}")
_LAST_SUBJ_PT_RE = re.compile(rf"(?<![\w'’])(?:[Ee]u|[Nn]ós)(?![\w'’])|{_PROPER}")

# =============================================================================================
# Verb rules (verb + target); the subject is found by _subject()
# =============================================================================================

_T = rf"(?P<t>{_PROPER})"
_F = rf"(?P<f>{_PROPER})"
_ANYMORE = r"(?P<anymore>\s+(?i:anymore|any\s+more))?"
_THE = r"(?:(?i:the)\s+)?"
_PT_ART = r"(?:(?i:o|a|os|as)\s+)?"
_OCC_EN = _alt(L.OCCUPATIONS_EN)
_OCC_PT = _alt(L.OCCUPATIONS_PT)
_NOISE = _alt(L.ROLE_NOISE)
_STATUS = _alt(L.STATUS_ATTR)
_SCHOOL_WORDS = re.compile(
    r"(?i:university|college|school|academy|institute|universidade|faculdade|escola|instituto|colégio|usp|mit)"
)
_CLUB_WORDS = re.compile(r"(?i:club|team|band|group|choir|church|league|society|association|gym|clube|time|banda|grupo|coral|igreja)")


@dataclass(frozen=True)
class _Rule:
    kind: str
    rx: re.Pattern[str]
    gate: tuple[str, ...] | re.Pattern[str]  # substrings of the lowercased sentence (any), or a regex


def _r(kind: str, pattern: str) -> _Rule:
    return _Rule(kind, re.compile(pattern), _RULE_GATES[kind] if not isinstance(_RULE_GATES[kind], dict) else ())


_OCC_GATE_EN = re.compile(rf"(?<![\w'’])(?:{_alt(L.OCCUPATIONS_EN)})(?![\w'’])", re.IGNORECASE)
_OCC_GATE_PT = re.compile(rf"(?<![\w'’])(?:{_alt(L.OCCUPATIONS_PT)})(?![\w'’])", re.IGNORECASE)
_STATUS_GATE = re.compile(rf"(?<![\w'’])(?:{_alt(L.STATUS_ATTR)})(?![\w'’])", re.IGNORECASE)
_DIGIT_GATE = re.compile(r"\d")
_RULE_GATES: dict = {
    "move": ("mov", "reloc", "mud"), "lives": ("liv", "resid", "based", "settled", "mor", "viv", "resid"),
    "hometown": ("grew", "born", "raised", "nasc", "cresc"), "works": ("work", "employ", "trabalh"),
    "join": ("join", "start", "got", "landed", "hired", "accepted", "entr", "comec", "começ", "contratad"),
    "studies": ("stud", "enrol", "go", "attend", "estud", "faculdade"),
    "leave": ("left", "quit", "leav", "resign", "fired", "laid", "stopped", "retired", "lost", "sa", "deix",
              "larg", "demiss", "demitid"),
    "member": ("member", "play", "sing", "volunteer", "jog", "membro", "parte", "cant"),
    "hired": ("hir", "contrat"), "manages": ("manag", "supervis", "mentor", "gerenci", "lider", "coorden"),
    "reports": ("report",), "partner": ("marr", "dating", "engaged", "going out", "relationship", "together",
                                           "cas", "namor", "noiv"),
    "breakup": ("broke", "breaking", "divorc", "split", "separat", "dumped", "termin", "separ"),
    "age": _DIGIT_GATE, "status": _STATUS_GATE, "occupation": {},
}
_ALL_RULE_GATES: tuple[str, ...] = tuple(
    dict.fromkeys(g for v in _RULE_GATES.values() if isinstance(v, tuple) for g in v)
)


_RULES_EN: tuple[_Rule, ...] = (
    _r("move", rf"(?<![\w'’])(?P<verb>(?i:moved|relocated|moving|move|moves|relocating|relocate))"
               rf"(?i:\s+(?:back|here|over|away|out|house|all\s+the\s+way))?\s+(?i:from)\s+{_THE}{_F}\s+(?i:to)\s+{_THE}{_T}"),
    _r("move", rf"(?<![\w'’])(?P<verb>(?i:moved|relocated|moving|move|moves|relocating|relocate))"
               rf"(?i:\s+(?:back|here|over|away|out|house|all\s+the\s+way))?\s+(?i:to)\s+{_THE}{_T}"
               rf"(?:\s+(?i:from)\s+{_THE}{_F})?"),
    _r("lives", rf"(?<![\w'’])(?P<verb>(?i:live|lives|living|lived|reside|resides|residing|based|settled))"
                rf"\s+(?i:in)\s+{_THE}{_T}{_ANYMORE}"),
    _r("hometown", rf"(?<![\w'’])(?P<verb>(?i:grew\s+up|born|raised))\s+(?i:in)\s+{_THE}{_T}"),
    _r("occupation", rf"(?P<verb>['’][ms](?![\w'’])|(?<![\w'’])(?i:(?:lost|quit|left)\s+(?:my|his|her|their)\s+job\s+as|am|is|was|work\s+as|works\s+as|working\s+as|worked\s+as"
                     rf"|became|become|becoming|started\s+as|hired\s+as))(?P<neg>\s+(?i:not|no\s+longer))?"
                     rf"\s+(?i:an?\s+)?(?:(?i:{_NOISE})\s+)*(?:(?P<mod>[a-z][a-z-]{{1,14}}|[A-Z]{{2,4}})\s+)?"
                     rf"(?P<role>(?i:{_OCC_EN}))(?![\w'’-])"
                     rf"(?:\s+(?i:at|for|with)\s+{_THE}{_T})?{_ANYMORE}"),
    _r("works", rf"(?<![\w'’])(?P<verb>(?i:work|works|working|worked|employed))\s+(?i:at|for|in)\s+{_THE}{_T}"
                rf"(?:\s+(?i:as)\s+(?i:an?\s+)?(?:[\w-]+\s+){{0,2}}?(?P<role>(?i:{_OCC_EN}))(?![\w'’-]))?{_ANYMORE}"),
    _r("join", rf"(?<![\w'’])(?P<verb>(?i:joined|joining|join|joins|started\s+(?:working\s+)?at|start\s+at|starting\s+at"
               rf"|started\s+(?:my|a|his|her)\s+(?:new\s+)?(?:job|position|role|internship)\s+at|got\s+(?:a|my)\s+(?:new\s+)?job\s+at"
               rf"|landed\s+a\s+job\s+at|got\s+hired\s+(?:at|by)|was\s+hired\s+by|hired\s+by|accepted\s+(?:an?\s+)?(?:offer|position|job)\s+(?:at|from)))"
               rf"\s+{_THE}{_T}"),
    _r("studies", rf"(?<![\w'’])(?P<verb>(?i:study|studies|studying|studied|enrolled|student|go|goes|going|attend|attends|attending|attended))"
                  rf"\s+(?i:at|in|to)?\s*{_THE}{_T}{_ANYMORE}"),
    _r("leave", rf"(?<![\w'’])(?P<verb>(?i:left|quit|quitting|leaving|leave|leaves|resigned\s+from|was\s+fired\s+from|got\s+fired\s+from"
                rf"|fired\s+from|laid\s+off\s+from|got\s+laid\s+off\s+from|stopped\s+working\s+(?:at|for)|retired\s+from"
                rf"|lost\s+(?:my|his|her|their)\s+job\s+(?:at|with)))"
                rf"\s+(?:(?i:my|his|her|their)\s+(?:(?i:job|position|role)\s+(?i:at|with)\s+))?{_THE}{_T}"),
    _r("member", rf"(?<![\w'’])(?P<verb>(?i:(?:an?\s+)?(?:proud\s+|active\s+)?member\s+of|plays?\s+for|played\s+for|playing\s+for"
                 rf"|sings?\s+in|volunteers?\s+(?:at|for|with)|volunteering\s+(?:at|for|with)|volunteered\s+(?:at|for|with)))\s+{_THE}{_T}"),
    _r("hired", rf"(?<![\w'’])(?P<verb>(?i:hired|hires|hiring))\s+(?P<t>{_PROPER}|me)(?![\w'’])"),
    _r("manages", rf"(?<![\w'’])(?P<verb>(?i:manage|manages|managing|managed|supervise|supervises|supervising|mentor|mentors))\s+{_T}"),
    _r("reports", rf"(?<![\w'’])(?P<verb>(?i:report|reports|reporting))\s+(?i:to)\s+{_T}"),
    _r("partner", rf"(?<![\w'’])(?P<verb>(?i:married|marrying|marry|dating|engaged\s+to|going\s+out\s+with|in\s+a\s+relationship\s+with|together\s+with))\s+{_T}"),
    _r("breakup", rf"(?<![\w'’])(?P<verb>(?i:broke\s+up\s+with|breaking\s+up\s+with|divorced|split\s+up\s+with|separated\s+from|dumped))\s+{_T}"),
    _r("age", r"(?P<verb>['’][ms](?![\w'’])|(?<![\w'’])(?i:am|is|turned|turn|turns|turning))\s+(?P<age>\d{1,3})"
              r"(?:(?P<yo>\s+(?i:years?|yrs?)(?:\s+(?i:old))?)|(?=\s*(?:[.!,;]|$)))"),
    _r("status", rf"(?P<verb>['’](?:m|s|re)(?![\w'’])|(?<![\w'’])(?i:am|is|are|was|became|become|went|gone|got|getting))"
                 rf"(?P<neg>\s+(?i:not|no\s+longer))?\s+(?:(?i:fully|completely|totally|now|officially|strictly|still|happily)\s+)?"
                 rf"(?:(?i:a|an)\s+)?(?P<st>(?i:{_STATUS}))(?![\w'’-]){_ANYMORE}"),
)

_PT_PREP = r"(?i:em|no|na|nos|nas|para|pra|pela|pelo)"
_RULES_PT: tuple[_Rule, ...] = (
    _r("move", rf"(?<![\w'’])(?P<verb>(?i:mudou|mudei|mudamos|mudaram|muda|mudo|mudar|mudando|mudou-se|mudei-me))"
               rf"(?:(?i:\s+de\s+volta))?\s+(?:(?i:de|do|da|dos|das)\s+{_F}\s+)?(?i:para|pra|pro)\s+{_PT_ART}{_T}"),
    _r("lives", rf"(?<![\w'’])(?P<verb>(?i:moro|mora|moramos|moram|morando|morar|morava|morei|morou|vivo|vive|vivia|resido|reside))"
                rf"(?P<mais>\s+(?i:mais))?\s+(?i:em|no|na|nos|nas)\s+{_T}"),
    _r("hometown", rf"(?<![\w'’])(?P<verb>(?i:nasci|nasceu|cresci|cresceu))\s+(?i:em|no|na)\s+{_T}"),
    _r("occupation", rf"(?<![\w'’])(?P<verb>(?i:sou|é|era|fui|foi|trabalho\s+como|trabalha\s+como|trabalhava\s+como|virei|virou"
                     rf"|me\s+tornei|se\s+tornou|atuo\s+como|atua\s+como))(?P<mais>\s+(?i:mais))?\s+(?:(?i:um|uma)\s+)?"
                     rf"(?:(?i:{_NOISE})\s+)*(?P<role>(?i:{_OCC_PT}))(?![\w'’-])(?:\s+(?i:na|no|em|da|do)\s+{_T})?"),
    _r("works", rf"(?<![\w'’])(?P<verb>(?i:trabalho|trabalha|trabalhamos|trabalham|trabalhando|trabalhar|trabalhava|trabalhei|trabalhou))"
                rf"(?P<mais>\s+(?i:mais))?\s+{_PT_PREP}\s+{_PT_ART}{_T}"),
    _r("join", rf"(?<![\w'’])(?P<verb>(?i:entrei|entrou|entrar|entrando|comecei|começou|começar|comecei\s+a\s+trabalhar|começou\s+a\s+trabalhar"
               rf"|fui\s+contratad[oa]|foi\s+contratad[oa]|contratad[oa]))\s+(?i:na|no|em|pela|pelo)\s+{_T}"),
    _r("studies", rf"(?<![\w'’])(?P<verb>(?i:estudo|estuda|estudava|estudei|estudou|estudando|estudar|faço\s+faculdade|faz\s+faculdade))"
                  rf"(?P<mais>\s+(?i:mais))?\s+(?i:na|no|em)\s+{_T}"),
    _r("leave", rf"(?<![\w'’])(?P<verb>(?i:saí|sai|saiu|saímos|deixei|deixou|larguei|largou|pedi\s+demissão|pediu\s+demissão"
                rf"|fui\s+demitid[oa]|foi\s+demitid[oa]|vou\s+sair|vai\s+sair))\s+(?i:da|do|de|a|o)\s+{_T}"),
    _r("member", rf"(?<![\w'’])(?P<verb>(?i:jogo|joga|jogava|jogou|sou\s+membro|é\s+membro|faço\s+parte|faz\s+parte|canto|canta))"
                 rf"\s+(?i:no|na|do|da|em|de)\s+{_T}"),
    _r("hired", rf"(?<![\w'’])(?P<verb>(?i:contratou|contrataram|contratei|me\s+contratou|me\s+contrataram))(?:\s+{_PT_ART}{_T})?"),
    _r("manages", rf"(?<![\w'’])(?P<verb>(?i:gerencio|gerencia|lidero|lidera|coordeno|coordena|supervisiono|supervisiona))\s+{_PT_ART}{_T}"),
    _r("partner", rf"(?<![\w'’])(?P<verb>(?i:casei|casou|casado|casada|namoro|namora|namorando|noivei|noivou|noivo|noiva))\s+(?i:com)\s+{_PT_ART}{_T}"),
    _r("breakup", rf"(?<![\w'’])(?P<verb>(?i:terminei|terminou|separei|separou|divorciei|divorciou))\s+(?i:com|d[oa]|de)\s+{_PT_ART}{_T}"),
    _r("age", r"(?<![\w'’])(?P<verb>(?i:tenho|tem|fiz|fez|completei|completou|completo|faço|faz))\s+(?P<age>\d{1,3})\s+(?i:anos)"),
    _r("status", rf"(?<![\w'’])(?P<verb>(?i:sou|é|estou|está|era|virei|virou|fiquei|ficou|me\s+tornei))(?P<mais>\s+(?i:mais))?"
                 rf"\s+(?P<st>(?i:{_STATUS}))(?![\w'’-])"),
)

# Relationship terms ---------------------------------------------------------------------------
_ADJS_EN = rf"(?:(?i:{_ADJ_EN_ALT})[\s-]+)*"
_RELTERM_EN = (
    re.compile(rf"(?<![\w'’])(?:(?P<pw>[Mm]y|[Oo]ur)|(?P<owner>{_PROPER})['’]s)\s+(?P<adj>{_ADJS_EN})(?P<term>(?i:{_TERMS_EN_ALT}))"
               rf"(?:\s*,\s*|\s+)(?:(?i:named|called)\s+)?(?P<name>{_PROPER})"),
    re.compile(rf"(?P<name>{_PROPER})(?:\s*,\s*(?:(?i:is|was)\s+)?|\s+(?i:is|was)\s+|['’]s\s+|\s*\(\s*)(?P<pw>(?i:my|our))\s+"
               rf"(?P<adj>{_ADJS_EN})(?P<term>(?i:{_TERMS_EN_ALT}))(?![\w'’-])"),
    re.compile(rf"(?P<name>{_PROPER})\s*\(\s*(?P<owner>{_PROPER})['’]s\s+(?P<adj>{_ADJS_EN})(?P<term>(?i:{_TERMS_EN_ALT}))\s*\)"),
)
_ADJS_PT = rf"(?:(?i:{_ADJ_PT_ALT})\s+)?"
_RELTERM_PT = (
    re.compile(rf"(?<![\w'’])(?P<pw>(?i:meu|minha|meus|minhas|nosso|nossa))\s+(?P<adj>{_ADJS_PT})(?P<term>(?i:{_TERMS_PT_ALT}))"
               rf"(?:\s*,\s*|\s+)(?:(?i:chamad[oa])\s+)?(?P<name>{_PROPER})"),
    re.compile(rf"(?P<name>{_PROPER})(?:\s*,\s*(?:(?i:é|era)\s+)?|\s+(?i:é|era)\s+|\s*\(\s*)(?:(?i:o|a)\s+)?"
               rf"(?P<pw>(?i:meu|minha|meus|minhas|nosso|nossa))\s+(?P<adj>{_ADJS_PT})(?P<term>(?i:{_TERMS_PT_ALT}))(?![\w'’-])"),
    re.compile(rf"(?P<name>{_PROPER})(?:\s*,\s*|\s*\(\s*|\s+(?i:é)\s+(?:(?i:o|a)\s+)?)(?P<adj>{_ADJS_PT})(?P<term>(?i:{_TERMS_PT_ALT}))"
               rf"\s+d[eoa]\s+(?P<owner>{_PROPER})"),
    re.compile(rf"(?<![\w'’])(?:(?i:o|a)\s+)?(?P<term>(?i:{_TERMS_PT_ALT}))\s+d[eoa]\s+(?P<owner>{_PROPER})\s*,?\s+(?P<name>{_PROPER})"),
)
_PET_NAMED_RE = re.compile(
    rf"(?<![\w'’])(?i:a|an|another|um|uma|outro|outra|my|our|his|her|their|meu|minha|nosso|nossa|new|novo|nova)\s+"
    rf"(?:(?i:{_ADJ_EN_ALT}|{_ADJ_PT_ALT})\s+)?"
    rf"(?P<term>(?i:{_alt(L.PET_TERMS_EN + L.PET_TERMS_PT)}))\s+(?i:named|called|chamad[oa])\s+(?P<name>{_PROPER})"
)
_MORE_NAMES_RE = re.compile(rf"^(?:\s*,\s*(?:(?i:and|e)\s+)?|\s+(?i:and|e|&)\s+)(?P<name>{_PROPER})")

# Aliases ----------------------------------------------------------------------------------------
_ALIAS_PAREN_RE = re.compile(rf"(?P<a>{_PROPER})\s*\(\s*(?P<b>{_PROPER})\s*\)")
_ALIAS_AKA_RE = re.compile(
    rf"(?P<a>{_PROPER})\s*,?\s+(?i:aka|a\.k\.a\.?|also\s+known\s+as|better\s+known\s+as|known\s+as|conhecid[oa]\s+como"
    rf"|vulgo|apelidad[oa]\s+de|also\s+called|who\s+goes\s+by|goes\s+by)\s+(?P<b>{_PROPER})"
)
_ALIAS_CALL_RE = re.compile(
    rf"(?i:(?:everyone|everybody|people|we|they|friends|all|most\s+people|todo\s+mundo|todos|a\s+gente|geral)"
    rf"\s+(?:calls?|called|chamam?|chamava|chamavam)\s+(?P<p>him|her|them|ele|ela|o|a)\s+(?:de\s+)?)(?P<b>{_PROPER})"
)
_ALIAS_ME_RE = re.compile(
    rf"(?i:(?:call|calls|called)\s+me|me\s+chame\s+de|me\s+chamam\s+de|pode\s+me\s+chamar\s+de|my\s+name\s+is|my\s+name['’]s"
    rf"|meu\s+nome\s+é|me\s+chamo)\s+(?P<b>{_PROPER})"
)

# =============================================================================================
# Kind table: relation, attribute, target type, importance
# =============================================================================================

_KIND = {
    "lives": ("lives_in", "location", "place", "biographical_milestone"),
    "move": ("lives_in", "location", "place", "relationship_change"),
    "hometown": (None, "hometown", "place", "biographical_milestone"),
    "works": ("works_at", "employer", "organization", "biographical_milestone"),
    "join": ("works_at", "employer", "organization", "relationship_change"),
    "studies": ("studies_at", "school", "organization", "biographical_milestone"),
    "leave": ("former_employee_of", "employer", "organization", "relationship_change"),
    "member": ("member_of", "membership", "organization", "biographical_milestone"),
    "hired": ("hired", None, "person", "relationship_change"),
    "manages": ("manages", None, "person", "biographical_milestone"),
    "reports": ("reports_to", None, "person", "biographical_milestone"),
    "partner": ("partner_of", "partner", "person", "relationship_change"),
    "breakup": ("partner_of", "partner", "person", "relationship_change"),
    "occupation": (None, "occupation", "organization", "biographical_milestone"),
    "age": (None, "age", None, "biographical_milestone"),
    "status": (None, None, None, "biographical_milestone"),
}
_RANK_PATTERN, _RANK_KNOWN, _RANK_PERSONVERB, _RANK_OTHER = 3, 2, 1, 0

_EN_FUTURE_AUX = re.compile(
    r"(?i:will|['’]ll|going\s+to|gonna|wants?\s+to|wanna|plan|planning|hop(?:e|es|ing)\s+to|about\s+to|might|may|could"
    r"|should|would|['’]d|thinking|considering|trying\s+to|need|needs|ha(?:ve|s)\s+to|ready\s+to)"
)
_EN_NEG = re.compile(r"(?i:no\s+longer|not|never|n['’]t)")
_PT_FUTURE_AUX = re.compile(r"(?i:vai|vou|vamos|quer|quero|queria|pretende|pretendo|planeja|planejo|gostaria|pode|posso|deve|devo|precisa|preciso)")
_PT_NEG = re.compile(r"(?i:não|nao|nunca)")
_EN_PAST_VERBS = frozenset(
    ["lived", "worked", "studied", "attended", "attended", "went", "grew", "played", "volunteered", "managed", "supervised", "reported", "born", "raised"]
)
_PT_PAST_VERBS = frozenset(
    ["morava", "morei", "morou", "vivia", "trabalhava", "trabalhei", "trabalhou", "estudava", "estudei", "estudou", "jogava", "jogou"]
)

# =============================================================================================
# Message state
# =============================================================================================


@dataclass
class _Sent:
    start: int  # offset of the sentence in the message
    text: str  # the sentence
    body_off: int  # offset of body inside text
    body: str  # sentence minus leading discourse/greeting/vocative and trailing vocative
    covered: list[tuple[int, int]] = field(default_factory=list)  # body spans used by rules
    dates: list[TemporalMention] = field(default_factory=list)  # relative dates in body
    last_subj: _Subj | None = None  # the _Subj of the last structured clause (for "... and works at X")
    n_facts: int = 0
    antecedent: str | None = None  # what a leading "It"/"They" stands for (the previous sentence's subject)


class _Msg:
    def __init__(self, text: str, ctx: ExtractionContext, lang: str):
        self.text = text
        self.ctx = ctx
        self.lang = lang
        self.speaker = (ctx.speaker_name or "").strip() or "User"
        self.sp_fold = fold(self.speaker)
        self.ents: dict[str, ExtractedEntity] = {}
        self.rank: dict[str, int] = {}
        self.alias_of: dict[str, str] = {}
        self.mention_pos: list[tuple[int, str]] = []  # (message offset, entity key) in order
        self.noun_gender: dict[str, str] = {}  # entity key -> "m" / "f" from an apposed kin noun
        self.facts: list[ExtractedFact] = []
        self.fact_keys: set[tuple[str, str]] = set()
        self.relations: list[ExtractedRelation] = []
        self.rel_keys: set[tuple[str, str, str, bool]] = set()
        self.addressee: str | None = None  # named by a vocative in this message
        self.default_addressee = (ctx.addressee or "").strip() or None  # the other speaker
        self.rule_kind = "rule"  # the rule kind of the facts `_fact` makes now (bench/fact_kinds.py)
        self.generic: list[ExtractedFact] = []  # facts of `_generic` (restated sentences)
        self.known_types = ctx.known_types or {}
        self.cross_turn: list = []  # write/antecedents.Replacement of pronouns resolved from the previous turn
        self.resolved: dict[str, str] = {}  # names person_antecedents put in a pronoun's place (write/name_subjects.py)
        self.ner_only: set[str] = set()  # keys typed a person by NER alone, no first name: no he/she antecedent
        self.pair_firsts: set[str] = set()  # "Jake and her sister": a pair not typed (write/conjoined_subjects.py)
        self._turn_names: dict[str, str] | None = None
        spk = ExtractedEntity(self.speaker, "person", [], True)
        self.ents[self.sp_fold] = spk
        self.rank[self.sp_fold] = 9

    # ---- entities ---------------------------------------------------------------------------
    def key(self, name: str) -> str:
        k = fold(name)
        return self.alias_of.get(k, k)

    def is_speaker(self, name: str) -> bool:
        return self.key(name) == self.sp_fold

    def add_entity(self, name: str, etype: str | None, rank: int, pos: int | None = None) -> str:
        """Register `name` (surface form); returns the canonical display name."""
        name = name.strip()
        full = self.default_addressee
        if full and _is_nickname(name, full) and self.key(name) not in self.ents:
            # "Caro"/"Mel" said to Caroline/Melanie: the addressee, by a short form of the name
            display = self.add_entity(full, "person", max(rank, _RANK_PERSONVERB), pos)
            self._add_alias(self.key(display), name)
            return display
        k = self.key(name)
        if not k:
            return name
        if k not in self.ents:
            display = name
            known = self.ctx.known_aliases.get(fold(name)) if self.ctx.known_aliases else None
            if known:
                display = known
                kk = fold(known)
                if kk != k:
                    self.alias_of[k] = kk
                    k = kk
            if k not in self.ents:
                kt = self.known_types.get(display)
                t, r = etype or "other", rank
                if kt and (r < _RANK_KNOWN or not etype):
                    t, r = kt, max(r, _RANK_KNOWN)
                self.ents[k] = ExtractedEntity(display, t, [], False)
                self.rank[k] = r
            if fold(display) != fold(name):
                self._add_alias(k, name)
        ent = self.ents[k]
        if etype and rank > self.rank.get(k, 0) and not ent.is_speaker:
            ent.entity_type = etype
            self.rank[k] = rank
        if pos is not None:
            self.mention_pos.append((pos, k))
        return ent.name

    def _add_alias(self, k: str, alias: str) -> None:
        ent = self.ents[k]
        if fold(alias) != fold(ent.name) and all(fold(a) != fold(alias) for a in ent.aliases):
            ent.aliases.append(alias)
        self.alias_of.setdefault(fold(alias), k)

    def merge_alias(self, a: str, b: str, etype: str | None = None) -> None:
        """`a` and `b` name one entity: keep the most complete name, the other becomes an alias."""
        ka, kb = self.key(a), self.key(b)
        if ka == kb:
            return
        if kb == self.sp_fold or (ka != self.sp_fold and _completeness(b) > _completeness(a)):
            a, b, ka, kb = b, a, kb, ka
        if ka not in self.ents:
            self.add_entity(a, etype, _RANK_PATTERN if etype else _RANK_OTHER)
            ka = self.key(a)
        if kb in self.ents and kb != ka and not self.ents[kb].is_speaker:
            old = self.ents.pop(kb)
            for al in old.aliases:
                self._add_alias(ka, al)
            if self.rank.get(kb, 0) > self.rank.get(ka, 0):
                self.ents[ka].entity_type = old.entity_type
                self.rank[ka] = self.rank[kb]
            self.rank.pop(kb, None)
            self.mention_pos = [(p, ka if k == kb else k) for p, k in self.mention_pos]
        self._add_alias(ka, b)
        for al, target in list(self.alias_of.items()):
            if target == kb:
                self.alias_of[al] = ka

    def entity_type(self, name: str) -> str:
        e = self.ents.get(self.key(name))
        return e.entity_type if e else "other"

    def note_gender(self, name: str, noun: str) -> None:
        """Record the gender a kin noun apposed to `name` shows ("my wife Patty", "my son Tom"):
        conversation evidence, which `person_gender` prefers to the name table."""
        from arandu_pipelines.write.person_antecedents import FEMALE, MALE

        low = noun.lower()
        if low in MALE or low in FEMALE:
            self.noun_gender[self.key(name)] = "m" if low in MALE else "f"

    def person_gender(self, name: str | None) -> str | None:
        """"m" / "f" / None for a person of this message: a kin noun's evidence, else the name."""
        if not name:
            return None
        return self.noun_gender.get(self.key(name)) or name_gender.gender_of(name)

    def last_person(self, before: int, pronoun: str | None = None) -> str | None:
        """The last person named before `before`; with `pronoun` ("he", "ela" ...), the last one
        whose first name's known gender does not conflict with it (write/name_gender.py: "he"
        after "Patty" is not Patty)."""
        gender = name_gender.pronoun_gender(pronoun)
        for pos, k in reversed(self.mention_pos):
            if pos < before and k != self.sp_fold and k in self.ents and self._pronoun_person(k, gender, pos, pronoun):
                if self.addressee and k == self.key(self.addressee):
                    continue
                known = self.person_gender(self.ents[k].name)
                if gender and known and known != gender:
                    continue
                return self.ents[k].name
        return None

    def _pronoun_person(self, k: str, gender: str | None, pos: int, pronoun: str | None) -> bool:
        """Whether the mention of entity `k` at `pos` may be what `pronoun` (of `gender`) stands for
        (write/pronoun_people.py: "at Brookfield and I" is no "he"; "a quarterback like Malik. He's
        ..." is Malik though no rule typed Malik yet)."""
        from arandu_pipelines.write import pronoun_people as P
        from arandu_pipelines.write.person_antecedents import PERSON_NOUNS

        e = self.ents[k]
        if e.entity_type == "person":
            if gender and k in self.ner_only:
                return False  # "Brookfield made the semifinals. He's a junior.": no known first name
            return not gender or not P.place_like(e.name, self.text)
        if not gender or e.entity_type != "other" or not P.subject_pronoun(pronoun) \
                or not P.ner_person(e.name, self.ctx.ner, self.text) \
                or P.owner_of_person(self.text, pos, e.name, PERSON_NOUNS):
            return False
        # "Maya is now driving her friend Jess to school. She got a ticket": a name of the pronoun's
        # known gender earlier in the same sentence may be the one meant: not Jess
        return not P.same_gender_before(self.text, pos, gender, {self.sp_fold, fold(e.name), fold(e.name.split()[0])})

    def resolved_people(self) -> set[str]:
        """Keys of the people and pets this message typed (the scan's name subjects included)."""
        return {k for k, e in self.ents.items() if e.entity_type in ("person", "pet") and not e.is_speaker}

    def turn_names(self) -> dict[str, str]:
        """Names the conversation has shown as people or pets (write/name_subjects.from_turns), once."""
        if self._turn_names is None:
            from arandu_pipelines.write.person_antecedents import (
                PERSON_NOUNS,
                PET_NOUNS,
            )

            ctx = self.ctx
            self._turn_names = name_subjects.from_turns(
                ctx.previous_turns or [], [ctx.speaker_name, ctx.addressee, *[w for w, _ in ctx.previous_turns or []]],
                PERSON_NOUNS | PET_NOUNS | kin_antecedents.ROLE_NOUNS, PET_NOUNS)
        return self._turn_names

    # ---- output -----------------------------------------------------------------------------
    def add_fact(self, f: ExtractedFact) -> None:
        if len(self.facts) >= MAX_FACTS:
            return
        f.fact_text = _clean(f.fact_text)
        if not f.fact_text or not f.subject:
            return
        f.fact_text = f.fact_text[:1].upper() + f.fact_text[1:]
        k = ("", f.fact_text.casefold())
        if k in self.fact_keys:
            return
        self.fact_keys.add(k)
        f.mentions = [m for i, m in enumerate(f.mentions) if fold(m) != fold(f.subject) and m not in f.mentions[:i]]
        self.facts.append(f)

    def add_relation(self, source: str, rel: str, target: str, confidence: float, retracts: bool = False) -> None:
        if not source or not target or self.key(source) == self.key(target):
            return
        k = (self.key(source), rel, self.key(target), retracts)
        if k in self.rel_keys:
            return
        self.rel_keys.add(k)
        self.relations.append(ExtractedRelation(source, rel, target, confidence, retracts))


def _is_nickname(name: str, full: str) -> bool:
    """`name` is a short form of `full`'s first name ("Mel" of "Melanie", "Caro" of "Caroline"):
    one word of at least 3 letters that starts the first name and is shorter than it."""
    if " " in name or len(name) < 3:
        return False
    first = fold(full.split()[0]) if full.split() else ""
    n = fold(name)
    return len(n) < len(first) and first.startswith(n)


def _completeness(name: str) -> tuple[int, int]:
    return (len(name.split()), len(name))


def _clean(s: str) -> str:
    s = _EMOJI_RE.sub("", s)
    s = _SPACES_RE.sub(" ", s).strip()
    s = _TRAIL_RE.sub("", s)
    s = re.sub(r"\s+([,;:])", r"\1", s)
    return s.strip(" -–—,")


def _is_name(s: str) -> bool:
    """A proper-noun span that is not a stop-listed capitalised word."""
    words = s.split()
    if not words:
        return False
    if len(words) == 1:
        w = words[0].lower().replace("’", "'")
        if len(w) < 2 and not _CL_RE.match(w):
            return False
        if w in _NON_NAME or w in L.STOPWORDS_EN or w in L.EVALUATIVES:
            return False
        if w in _DISCOURSE_WORDS or GD.is_laughter(w):
            return False
    elif (words[0].lower() in _NON_NAME or GD.is_laughter(words[0])) and not _CL_RE.match(words[0]):
        return False
    return True


def _trim_name(s: str) -> str:
    """Drop leading stop-listed capitalised words ("The Beatles" -> "Beatles", "Hey Mel" -> "Mel")."""
    words = s.split()
    while len(words) > 1 and (words[0].lower().replace("’", "'") in _NON_NAME or words[0].lower() in L.NAME_CONNECTORS
                              or GD.is_laughter(words[0])):
        words = words[1:]
    while len(words) > 1 and (
        words[-1].lower() in L.NAME_CONNECTORS or (words[-1].lower() in _NON_NAME and words[-1].lower() not in L.WEEKDAYS_MONTHS)
    ):
        words = words[:-1]
    return " ".join(words)


# =============================================================================================
# First person -> third person rewriting
# =============================================================================================


def _conj_pt(word: str) -> str:
    low = word.lower()
    if low in L.PT_1SG_TO_3SG:
        return _cap_like(word, L.PT_1SG_TO_3SG[low])
    if low.endswith("guei"):
        return word[:-4] + "gou"
    if low.endswith("quei"):
        return word[:-4] + "cou"
    if low.endswith("cei"):
        return word[:-3] + "çou"
    if low.endswith("ei") and low not in L.PT_NOT_VERB_EI and len(low) > 3:
        return word[:-2] + "ou"
    if low.endswith("i") and len(low) > 3 and low[-2] not in "aeiou":
        return word + "u"
    if low.endswith("o") and len(low) > 3:
        return word[:-1] + "a"
    return word


@dataclass
class _Who:
    speaker: str
    pron: str | None = None  # he/she/ele/ela ->
    pron_gender: str | None = None  # the referent's known gender ("m" / "f"; write/name_gender.py)
    addr: str | None = None  # you ->
    parses: Any = None  # the chunk's ChunkParses: a coordinated verb is parse-confirmed (write/agreement.py)


def _next_word(toks: list[str], i: int) -> int:
    j = i + 1
    while j < len(toks) and toks[j].isspace():
        j += 1
    return j


def _prev_word(toks: list[str], i: int) -> str:
    j = i - 1
    while j >= 0 and toks[j].isspace():
        j -= 1
    return toks[j].lower() if j >= 0 else ""


def _is_word(tok: str) -> bool:
    return bool(tok) and (tok[0].isalnum())


def _compound_subject(toks: list[str], i: int, verb: str = "") -> bool:
    """True for "Ana and I" / "me and my sister and I" / "Kayla, my dad and I are": the verb
    stays plural (`verb`: the word after "I", adverbs skipped; write/agreement.py)."""
    j = i - 1
    while j >= 0 and toks[j].isspace():
        j -= 1
    if j < 0 or toks[j].lower() not in ("and", "or", "&", "nor"):
        return False
    j -= 1
    while j >= 0 and toks[j].isspace():
        j -= 1
    if j < 0 or not _is_word(toks[j]):
        return False
    w = toks[j]
    if w[:1].isupper() or w.lower() in ("he", "she", "they", "you", "him", "her", "me", "friends", "family", "kids"):
        return True
    before = [t.lower().replace("’", "'") for t in toks[j::-1] if not t.isspace()][:4]
    return agreement.compound_with_i(before + [""] * (4 - len(before)), verb)


# First-person words with a fixed rewrite ({S}: the speaker), checked before the other tables.
_EN_FIRST_PERSON = {
    "i'm": "{S} is", "im": "{S} is", "i've": "{S} has", "i'd": "{S} would", "i'll": "{S} will",
    "me": "{S}", "my": "{S}'s", "mine": "{S}'s", "myself": "themselves",
    "we": "{S} and others", "we're": "{S} and others are", "we've": "{S} and others have",
    "we'll": "{S} and others will", "we'd": "{S} and others would", "us": "{S} and others",
    "our": "{S}'s", "ours": "{S}'s", "ourselves": "themselves",
}
# ... of which these only as written here ("IM", "US" are abbreviations)
_EN_EXACT_ONLY = {"im": ("im",), "us": ("us", "Us")}
# "I'm sunk tons of time into it": chat's "I'm" for "I've" before a participle with an object
# (session 12, spell12; was "Jon is sunk tons of time"). Only participles that cannot be a
# passive taking that object here ("I'm given a chance" stays "is"), and only before an object's
# first word; "been" always ("I'm been busy").
_EN_IM_HAVE_PARTICIPLES = frozenset(["sunk", "spent", "been", "had", "put", "made", "taken", "written", "done",
                                     "gotten", "grown", "poured", "invested"])
_EN_OBJECT_START = frozenset(["a", "an", "the", "my", "some", "so", "tons", "lots", "loads", "plenty", "hours",
                              "years", "months", "weeks", "days", "all", "this", "that", "these", "those", "it",
                              "much", "many", "more", "every", "everything", "too", "countless"])
# participles that do not end in "-ed", after "'d" ("I'd forgotten" -> "had forgotten")
_EN_IRREGULAR_PARTICIPLES = frozenset({
    "been", "done", "gone", "seen", "taken", "given", "forgotten", "written", "known", "eaten", "gotten", "broken",
    "chosen", "driven", "fallen", "flown", "grown", "hidden", "ridden", "risen", "spoken", "stolen", "thrown",
    "worn", "woken", "begun", "drunk", "sung", "swum", "shown", "beaten", "bitten", "forgiven", "frozen",
    "mistaken", "shaken", "brought", "bought", "caught", "taught", "thought", "told", "heard", "met", "lost",
    "left", "felt", "kept", "slept", "spent", "won", "found", "made", "had", "sold", "sent", "built"})


def _ed_is_participle(v: str) -> bool:
    """An "-ed" word that is no base form ("finished", "planned"; not "need", "feed", "proceed")."""
    from arandu_pipelines.write.language import _BASE_ENDING_ED

    return v not in _BASE_ENDING_ED


# Third-person words, when the pronoun's referent is known ({P}); "he's"/"her" need context.
_EN_THIRD_PERSON = {
    "he": "{P}", "she": "{P}", "he'd": "{P} would", "she'd": "{P} would", "he'll": "{P} will",
    "she'll": "{P} will", "him": "{P}", "his": "{P}'s",
}
# Second-person words, when the addressee is known ({A}); "you" itself needs context.
_EN_ADDRESSEE = {
    "your": "{A}'s", "yours": "{A}'s", "you're": "{A} is", "you've": "{A} has", "you'd": "{A} would",
    "you'll": "{A} will", "yourself": "themselves",
}
# Words after which "you" starts a clause, so its verb is conjugated ("... that you live" ->
# "... that Ana lives").
_EN_YOU_CLAUSE_START = ("", "and", "but", "so", "that", "because", "if", "when", ",", "think", "know",
                        "what", "how", "where", "why", "who", "which", "as", "since", "while")


def rewrite_en(text: str, who: _Who) -> str:
    """`text` in the third person: the speaker's "I/me/my/we" become their name (verbs
    conjugated), "he/she" and "you" the known referent / addressee."""
    return _EnRewrite(text, who).run()


_HER_ADJECTIVES = frozenset({"first", "last", "own", "only", "very"})
# every third-person singular word `_EnRewrite` may replace by the subject's referent
_EN_THIRD_WORDS = frozenset(_EN_THIRD_PERSON) | {"he's", "she's", "her"}
_EN_PLACE_PREPS = frozenset({"in", "at", "from", "to", "near", "into", "around", "across", "via"})


def _kin_of_gender() -> dict[str, frozenset[str]]:
    """Kin nouns that show a gender ("dad", "Mom", "my sister"), for `_EnRewrite.not_referent`:
    another person of the pronoun's gender between the resolved subject pronoun and a later
    "his"/"her" may be its owner. The generic "guy", "man", "girl" ... are left out ("He's a nice
    guy and his wife ..." is the subject's)."""
    from arandu_pipelines.write.person_antecedents import FEMALE, MALE

    generic = {"boy", "guy", "man", "girl", "lady", "woman"}
    return {"m": MALE - generic, "f": FEMALE - generic}


_KIN_OF_GENDER = _kin_of_gender()


_OPEN_QUOTES = {'"': ('"', "”"), "“": ('"', "”"), "'": ("'", "’"), "‘": ("'", "’")}
_MAX_QUOTED = 60  # tokens: a longer "quoted" run is a stray quote mark, not a title or a quotation


def _quoted_end(toks: list[str], i: int) -> int:
    """The index of the quote mark that closes a quotation opening at `i`, or -1. A title ("Me
    Before You", 'Where You Go') or a quotation keeps its words: its "I" and "you" are not the
    speaker's and the listener's (session 18). A single quote opens only before a capitalized word
    and after a space, so an apostrophe never does."""
    closers = _OPEN_QUOTES.get(toks[i])
    if closers is None or (i > 0 and not toks[i - 1].isspace() and toks[i - 1] not in "([—–-"):
        return -1
    single = toks[i] in ("'", "‘")
    if i + 1 >= len(toks) or (single and not toks[i + 1][:1].isupper()):
        return -1
    for j in range(i + 1, min(len(toks), i + _MAX_QUOTED)):
        if toks[j] in closers and (not single or j + 1 == len(toks) or not _is_word(toks[j + 1])):
            return j if j > i + 1 else -1
    return -1


class _EnRewrite:
    """One pass over the tokens of `text`, appending the rewritten ones to `out`."""

    def __init__(self, text: str, who: _Who) -> None:
        self.toks = _TOKEN_RE.findall(text)
        self.n = len(self.toks)
        self.out: list[str] = []
        self.who = who
        self.coord = False  # a 1st-person verb was just conjugated: "... and work at X" follows it
        self.coord_at = -1  # the char offset of that verb in `text` (write/agreement.py)
        self.conjugated: list[int] = []  # the char offsets of every verb conjugated so (", then VERB")
        self.you_named = False  # a "you" became the addressee: a later "yourself" is theirs, not generic
        self.text = text
        self.at = [0]  # char offset of each token
        for tok in self.toks:
            self.at.append(self.at[-1] + len(tok))
        self.own = own_possessive.ClauseSubject()  # "He passed his exam" keeps "his" (write/own_possessive.py)
        self.last_third = 0  # after the last third-person word rewritten (write/name_gender.py)

    def run(self) -> str:
        toks, n, out = self.toks, self.n, self.out
        i = 0
        while i < n:
            t = toks[i]
            j = _quoted_end(toks, i)
            if j > 0:  # a title or words quoted as said: "You Can't Take It with You" stays as written
                out.extend(toks[i:j + 1])
                i = j + 1
                continue
            if self.coord and t.lower() == "to":
                j = _next_word(toks, i)
                if j < n and toks[j] in GD.INFINITIVE_VERBS:
                    self.coord = False  # "want to live here and help": "help" is the infinitive's
                elif j < n and agreement.may_be_verb(self.who.parses, toks[j]):
                    self.coord_at = -1  # "want to sit by the fire and stare": the parse may misattach
            if self.coord and t.lower() in ("and", "or", "but") or self.then_verb(i):
                j = self.coordinated_after(i)
                if j >= 0:
                    out.append(t)
                    out.extend(toks[i + 1:j])
                    out.append(_conj_en(toks[j]))
                    i = j + 1
                    continue
            if not _is_word(t) or (i > 0 and toks[i - 1] in ("-", "/")) or (
                    i + 1 < n and toks[i + 1] in ("-", "/")):
                self.own.punct(t)
                out.append(t)  # punctuation, "me-time", "and/or"
                i += 1
                continue
            i = self.word(i, t)
            if t.lower().replace("’", "'") in _EN_THIRD_WORDS:
                self.last_third = i  # a name before a later pronoun is read from here on
        return "".join(out)

    def word(self, i: int, t: str) -> int:
        """Rewrite the word at `i`; the index to continue from."""
        low = t.lower().replace("’", "'")
        who, out = self.who, self.out
        if low == "i" and t in ("I", "i"):
            out.append(who.speaker)
            if _compound_subject(self.toks, i, self.verb_after(i)) or (
                    i + 1 < self.n and self.toks[i + 1] in (",", ")")):
                return i + 1
            return self.conj_after(i)
        if low == "myself" or low == "yourself" and who.addr and self.you_named:
            return self.reflexive(i, low)
        if low in ("i'm", "im") and t in _EN_EXACT_ONLY.get(low, (t,)) and self.im_is_have(i):
            out.append(f"{who.speaker} has")
        elif low in _EN_FIRST_PERSON and t in _EN_EXACT_ONLY.get(low, (t,)):
            out.append(_EN_FIRST_PERSON[low].format(S=who.speaker))
        elif who.pron and low in _EN_THIRD_WORDS and self.not_referent(i, low):
            out.append(t)  # "... to give Tom when he graduates": "he" is not the subject's referent
        elif who.pron and low == "his" and self.own.keeps(low):
            out.append(t)  # "Tom passed his exam": the subject's own, as the writer gendered it
        elif who.pron and low in _EN_THIRD_PERSON:
            self.own.subject(low)
            out.append(_EN_THIRD_PERSON[low].format(P=who.pron))
        elif who.pron and low in ("he's", "she's"):
            self.own.subject(low)
            nxt = self.verb_after(i)  # adverbs skipped: "She's already got me wrapped ..." -> has
            aux = "has" if (nxt in _EN_PAST_AUX or nxt.endswith("ed") and nxt not in L.EVALUATIVES
                            or agreement.s_is_has(nxt, self.word_after_verb(i))) else "is"
            out.append(f"{who.pron} {aux}")
        elif who.pron and low == "her":
            j = _next_word(self.toks, i)
            nxt = self.next_lower(i)
            k = _next_word(self.toks, j) if j < self.n else self.n
            if j < self.n and _is_word(self.toks[j]) and (
                    nxt not in L.STOPWORDS_EN and nxt not in L.ADVERBS_EN
                    # "her first parking ticket": "first"/"last"/"own" before a word are adjectives
                    or nxt in _HER_ADJECTIVES and k < self.n and _is_word(self.toks[k])):
                out.append(t if self.own.keeps("her") else f"{who.pron}'s")
            else:
                out.append(who.pron)
        elif who.addr and low in ("you", "u"):
            out.append(who.addr)
            self.you_named = True
            prev = _prev_word(self.toks, i)
            if prev in _EN_YOU_CLAUSE_START or you_is_subject(prev, self.verb_after(i)) or agreement.relative_subject(
                    prev, self.word_before(i, 2), self.verb_after(i)):
                return self.conj_after(i)  # "someone you trust" -> "someone Ana trusts"
        elif who.addr and low in _EN_ADDRESSEE:
            out.append(_EN_ADDRESSEE[low].format(A=who.addr))
        else:
            out.append(t)
        if low.endswith("'d") and out and out[-1].endswith(" would") and self.d_is_had(i):
            out[-1] = out[-1][: -len("would")] + "had"  # "I'd completely forgotten": had, not would
        return i + 1

    def d_is_had(self, i: int) -> bool:
        """Whether the "'d" at `i` is "had": a past participle follows it, adverbs skipped ("I'd
        completely forgotten", "she'd finished"); "I'd love", "I'd need" stay "would"; "I'd better
        go" is "had better" (`agreement.d_is_had`)."""
        v = self.verb_after(i).replace("’", "'")
        return v in _EN_IRREGULAR_PARTICIPLES or agreement.d_is_had(v) or (len(v) > 4 and v.endswith("ed") and _conj_en(v) == v
                                                  and v not in L.EVALUATIVES and _ed_is_participle(v))

    def not_referent(self, i: int, low: str) -> bool:
        """Whether the third-person word at `i` is not (clearly) the subject's referent `who.pron`:
        the referent's first name has the other gender ("Meera ... his godmother"), or a person of
        the pronoun's gender is named after the last pronoun (or the start) and before this one
        ("He is carving an eagle to give Tom when he graduates": the nearer Tom may be "he"; the
        pronoun stays as written, never the older referent). Names by write/name_gender.py only
        (a capitalised word of unknown gender, "Paris", is not taken for a person)."""
        gender = name_gender.pronoun_gender(low)
        if gender is None:
            return False
        if self.who.pron_gender not in (None, gender):
            return True
        own = {w.casefold() for n in (self.who.pron, self.who.speaker, self.who.addr) if n for w in n.split()}
        kin = _KIN_OF_GENDER.get(gender, frozenset())
        for j in range(self.last_third, i):
            t = self.toks[j]
            if t.lower() in kin and t.casefold() not in own:
                return True  # "He calls Dad every Sunday, which lifts his mood": Dad's, maybe
            if not (t[:1].isupper() and t[1:].islower()) or t.casefold() in own or j == 0:
                continue
            if _prev_word(self.toks, j).lower() in _EN_PLACE_PREPS:
                continue  # "in Jordan", "from Florence": a place
            if name_gender.gender_of(t) == gender:
                return True
        return False

    def like_verb(self, j: int) -> str:
        """"likes" for the "like" at `j` right after a substituted "I" (adverbs skipped): there it is
        the verb ("I really like her office" gave "Nadia really like her office": `conj_en` keeps
        "like", mostly a preposition, as it is); "" otherwise, and for a filler "like" before a
        past verb or an adverb ("I like totally forgot")."""
        if self.toks[j].lower() != "like" or j + 2 >= self.n or not self.toks[j + 1].isspace():
            return ""  # "I like, really want it": a filler before a comma
        k = _next_word(self.toks, j)
        nxt = self.toks[k].lower() if k < self.n else ""
        if not nxt or _adverb_after_i(nxt) or nxt in L.IRREGULAR_PAST_EN or nxt.endswith("ed"):
            return ""
        return _cap_like(self.toks[j], "likes")

    def then_verb(self, i: int) -> bool:
        """Whether the "then" at `i` follows a comma after a conjugated verb: ", then crash" may
        hold a second verb of the same subject (`coordinated_after` asks the parse)."""
        if not self.conjugated or self.toks[i].lower() != "then":
            return False
        k = i - 1
        while k >= 0 and self.toks[k].isspace():
            k -= 1
        return k >= 0 and self.toks[k] == ","

    def coordinated_after(self, i: int) -> int:
        """The index of a verb coordinated by the "and"/"or"/"but" at `i` with the verb just
        conjugated, or -1: a listed verb right after it ("and work at X"), or any verb the parse
        confirms, adverbs and "then" skipped ("and just stare", "and then read"; write/agreement.py).
        After ", then" (`then_verb`) only the parse decides, whatever the verb."""
        toks, n = self.toks, self.n
        j = _next_word(toks, i)
        verbs = tuple(self.conjugated)
        if toks[i].lower() == "then":
            ok = j < n and agreement.after_then(self.who.parses, self.text, verbs, self.at[j], toks[j])
            return j if ok else -1
        if j < n and toks[j].lower() in _EN_COORD_VERBS:
            return j
        while j < n and _is_word(toks[j]) and _adverb_after_i(toks[j].lower()):
            j = _next_word(toks, j)
        if j < n and self.coord_at >= 0 and agreement.coordinated(self.who.parses, self.text, self.coord_at,
                                                                  self.at[j], toks[j], verbs):
            return j
        return -1

    def reflexive(self, i: int, low: str) -> int:
        """"myself" / "yourself" of a named person: "himself"/"herself" by the known gender, an
        emphatic one dropped, else "themselves" (write/agreement.py). "yourself" only after a
        "you" named the addressee ("you can write him yourself"); a generic one ("having confidence
        in yourself") keeps "themselves", as before."""
        name = self.who.speaker if low == "myself" else self.who.addr
        form = agreement.reflexive(name, _prev_word(self.toks, i).replace("’", "'"))
        if form is None:
            self.out.append("themselves")
        elif form:
            self.out.append(_cap_like(self.toks[i], form))
        elif self.out and self.out[-1].isspace():
            self.out.pop()  # "restoring it myself" -> "restoring it"
        return i + 1

    def word_before(self, i: int, k: int) -> str:
        """The `k`-th word before `i`, lower-cased ("" past the start)."""
        j = i
        for _ in range(k):
            j -= 1
            while j >= 0 and self.toks[j].isspace():
                j -= 1
        return self.toks[j].lower().replace("’", "'") if j >= 0 else ""

    def word_after_verb(self, i: int) -> str:
        """The word after `verb_after(i)`, lower-cased ("He's already taken me" -> "me")."""
        j = _next_word(self.toks, i)
        while j < self.n and _is_word(self.toks[j]) and _adverb_after_i(self.toks[j].lower().replace("’", "'")):
            j = _next_word(self.toks, j)
        k = _next_word(self.toks, j) if j < self.n else self.n
        return self.toks[k].lower().replace("’", "'") if k < self.n else ""

    def im_is_have(self, i: int) -> bool:
        """"I'm sunk tons of time": "I'm" typed for "I've" (see `_EN_IM_HAVE_PARTICIPLES`)."""
        j = _next_word(self.toks, i)
        if j >= self.n or self.toks[j].lower() not in _EN_IM_HAVE_PARTICIPLES:
            return False
        return self.toks[j].lower() == "been" or self.next_lower(j) in _EN_OBJECT_START

    def verb_after(self, i: int) -> str:
        """The first word after `i` that is not an adverb, lower-cased ("you really were" -> "were");
        a plural marker right after "you" ("both", "all") is returned as is."""
        j = _next_word(self.toks, i)
        if j < self.n and self.toks[j].lower() in ("both", "all"):
            return self.toks[j].lower()
        while j < self.n and _is_word(self.toks[j]) and _adverb_after_i(self.toks[j].lower().replace("’", "'")):
            j = _next_word(self.toks, j)
        return self.toks[j].lower() if j < self.n and _is_word(self.toks[j]) else ""

    def next_lower(self, i: int) -> str:
        j = _next_word(self.toks, i)
        return self.toks[j].lower() if j < self.n else ""

    def conj_after(self, i: int) -> int:
        """Copy tokens after position i up to and including the conjugated verb; return next index."""
        toks, out = self.toks, self.out
        j = i + 1
        while j < self.n:
            t = toks[j]
            low = t.lower().replace("’", "'")
            if t.isspace() or _adverb_after_i(low):
                out.append(t)
                j += 1
                continue
            if _hedge_of(low, toks, j):
                # "I kind of have one": the hedge is an adverb, its verb conjugates (session 18,
                # tails18; it gave "Nadia kinds of have one")
                out.extend(toks[j:j + 3])
                j += 3
                continue
            if _is_word(t) and j + 2 < self.n and toks[j + 1] == "-" and _is_word(toks[j + 2]):
                # a hyphenated verb conjugates its head: "color-codes", "double-checks" (not "colors-code")
                conj = _conj_en(toks[j + 2])
                out.extend([t, "-", conj])
                self.coord = conj != toks[j + 2]
                return j + 3
            if _is_word(t):
                conj = self.like_verb(j) or _conj_en(t)
                out.append(conj)
                self.coord = conj != t
                self.coord_at = self.at[j]
                if self.coord:
                    self.conjugated.append(self.at[j])
                return j + 1
            return j
        return j


_PT_LEAD_SKIP = frozenset(
    ["ontem", "hoje", "anteontem", "amanhã", "depois", "então", "aí", "daí", "semana", "passada", "passado", "mês", "ano", "fim", "de", "no", "na", "que", "vem", "à", "a", "noite", "tarde", "manhã", "cedo", "domingo", "segunda", "terça", "quarta", "quinta", "sexta", "sábado", "feira", "finalmente", "recentemente", "agora", "enfim", "bom", "bem", "olha", "cara", "gente", "pois", "é"]
)
_PT_NEAR_VERB = ("não", "nao", "também", "tambem", "já", "ja", "ainda", "me", "só", "nunca")


def _pt_dropped_verb(toks: list[str]) -> tuple[int, int] | None:
    """(verb token index, subject insertion index) of a clause-initial 1st-person verb, if any."""
    words = [(k, t) for k, t in enumerate(toks) if _is_word(t)]
    k = 0
    while k < len(words) and words[k][1].lower() in _PT_LEAD_SKIP and k < 6:
        k += 1
    while k < len(words) and words[k][1].lower() in _PT_NEAR_VERB:
        k += 1
    if k >= len(words):
        return None
    w = words[k][1].lower()
    if w in _PT_NOT_DROPPED or not (
        w in L.PT_1SG_TO_3SG or (w.endswith("ei") and w not in L.PT_NOT_VERB_EI and len(w) > 3)
    ):
        return None
    ins = k
    while ins > 0 and words[ins - 1][1].lower() in _PT_NEAR_VERB:
        ins -= 1
    return words[k][0], words[ins][0]


_PT_1PL = {
    "vamos": "vão", "somos": "são", "fomos": "foram", "estamos": "estão", "temos": "têm", "podemos": "podem",
    "fizemos": "fizeram", "tivemos": "tiveram", "queremos": "querem", "sabemos": "sabem", "moramos": "moram",
}
_PT_1PL_NOT = frozenset({"ramos", "gamos", "tramos"})


_PT_CONT_1SG = frozenset(
    w for w in L.PT_1SG_TO_3SG
    if w not in _PT_NOT_DROPPED and w not in ("era", "estava", "tinha", "fazia", "gostava", "morava", "trabalhava",
                                              "estudava", "queria", "podia", "gostaria", "disse", "quis", "como")
)


def _pt_is_1sg(w: str) -> bool:
    return w in _PT_CONT_1SG or (w.endswith("ei") and w not in L.PT_NOT_VERB_EI and len(w) > 3)


# Words with a fixed rewrite ({S}: the speaker, {P}: the known "ele/ela", {A}: the addressee).
_PT_FIRST_PERSON = {"mim": "{S}", "comigo": "com {S}", "nós": "{S} e outros"}
_PT_THIRD_PERSON = {"ele": "{P}", "ela": "{P}", "dele": "de {P}", "dela": "de {P}"}
_PT_ADDRESSEE = {"você": "{A}", "voce": "{A}", "vc": "{A}"}
# Words after which a 1st-person verb continues the speaker's clause ("... e estou adorando").
_PT_CONTINUERS = ("e", "mas", "então", "aí", "depois", "porque", "que")


def rewrite_pt(text: str, who: _Who) -> str:
    """`text` in the third person (see `rewrite_en`), including a dropped subject ("Mudei para
    Lisboa" -> "Rafael mudou para Lisboa") and possessives ("minha irmã" -> "a irmã de Rafael")."""
    return _PtRewrite(text, who).run()


class _PtRewrite:
    """One pass over the tokens of `text`, appending the rewritten ones to `out`."""

    def __init__(self, text: str, who: _Who) -> None:
        self.toks = _TOKEN_RE.findall(text)
        self.n = len(self.toks)
        self.out: list[str] = []
        self.who = who

    def run(self) -> str:
        toks, n, out = self.toks, self.n, self.out
        i = self.dropped_subject()
        while i < n:
            t = toks[i]
            if not _is_word(t) or (i > 0 and toks[i - 1] in ("-", "/")) or (
                    i + 1 < n and toks[i + 1] in ("-", "/")):
                out.append(t)
                i += 1
                continue
            i = self.word(i, t)
        return "".join(out)

    def dropped_subject(self) -> int:
        """ "(Ontem) (não) (me) moro/mudei ..." -> "(Ontem) Rafael (não) (se) mora/mudou ...";
        the index to continue from."""
        toks, out = self.toks, self.out
        k = _pt_dropped_verb(toks)
        if k is None:
            return 0
        verb_i, ins = k
        out.extend(toks[:ins])
        out.append(self.who.speaker + " ")
        for j in range(ins, verb_i):
            t = toks[j]
            if _is_word(t) and t.lower() == "me":
                out.append("se")
            elif j == ins and _is_word(t):
                out.append(t[:1].lower() + t[1:])
            else:
                out.append(t)
        vt = toks[verb_i]
        if verb_i == ins:
            vt = vt[:1].lower() + vt[1:]
        out.append(_conj_pt(vt))
        return verb_i + 1

    def word(self, i: int, t: str) -> int:
        """Rewrite the word at `i`; the index to continue from."""
        toks, n, out, who = self.toks, self.n, self.out, self.who
        low = t.lower()
        if low == "eu":
            out.append(who.speaker)
            return self.conj_after(i)
        if low in _PT_POSS:
            return self.possessive(i, t, low)
        if low in _PT_1PL:
            out.append(_cap_like(t, _PT_1PL[low]))
            return i + 1
        if len(low) > 5 and low.endswith(("amos", "emos", "imos")) and t[:1].islower() and low not in _PT_1PL_NOT:
            out.append(t[:-4] + ("am" if low.endswith("amos") else "em"))
            return i + 1
        if low in _PT_CONTINUERS or t == ",":
            j = _next_word(toks, i)
            if j < n and _is_word(toks[j]) and toks[j].lower() in _PT_CONT_1SG:
                out.append(t)
                out.extend(toks[i + 1:j])
                out.append(_conj_pt(toks[j]))  # "... e estou adorando" -> "... e está adorando"
                return j + 1
        if low == "gente" and _prev_word(toks, i) == "a" and out and out[-2:-1] and out[-2].lower() == "a":
            out[-2] = who.speaker
            out[-1] = " "
            out.append("(e outros)")
        elif low in _PT_FIRST_PERSON:
            out.append(_PT_FIRST_PERSON[low].format(S=who.speaker))
        elif low == "me":
            return self.me(i, t)
        elif who.pron and low in _PT_THIRD_PERSON:
            out.append(_PT_THIRD_PERSON[low].format(P=who.pron))
        elif who.addr and low in _PT_ADDRESSEE:
            out.append(_PT_ADDRESSEE[low].format(A=who.addr))
        else:
            out.append(t)
        return i + 1

    def possessive(self, i: int, t: str, low: str) -> int:
        """ "minha irmã" -> "a irmã de Rafael" ("nossa!" is an exclamation)."""
        toks, n, out, S = self.toks, self.n, self.out, self.who.speaker
        j = _next_word(toks, i)
        nxt = toks[j] if j < n else ""
        if not _is_word(nxt) or (low in ("nossa",) and (i + 1 < n and toks[i + 1] in ("!", ","))):
            out.append(t)
            return i + 1
        prev = _prev_word(toks, i)
        art = "" if prev in _PT_ARTICLES else _PT_POSS[low] + " "
        np_end = j
        noun = toks[j]
        if toks[j].lower() in L.REL_ADJ_PT:
            j2 = _next_word(toks, j)
            if j2 < n and _is_word(toks[j2]):
                noun = "".join(toks[j:j2 + 1])
                np_end = j2
        phrase = f"{art}{noun} de {S}"
        out.append(_cap_like(t, phrase) if not art or t[:1].isupper() else phrase)
        k2 = _next_word(toks, np_end)
        if k2 < n and _NAME_ONLY_RE.match(toks[k2]) and _is_name(toks[k2]):
            out.append(",")
        return np_end + 1

    def me(self, i: int, t: str) -> int:
        """ "me" before a verb: reflexive (", me divorciei" -> ", Rafael se divorciou") or the
        verb's object ("me ligou" -> "ligou para Rafael")."""
        toks, n, out, S = self.toks, self.n, self.out, self.who.speaker
        j = _next_word(toks, i)
        if j < n and _is_word(toks[j]) and _pt_is_1sg(toks[j].lower()):
            out.append(f"{S} se ")
            out.append(_conj_pt(toks[j]))
            return j + 1
        if j < n and _is_word(toks[j]):
            verb = toks[j]
            out.append(verb)
            out.append(f" para {S}" if verb.lower() in L.PT_DATIVE_VERBS else f" {S}")
            return j + 1
        out.append(t)
        return i + 1

    def conj_after(self, i: int) -> int:
        """Copy tokens after position i up to and including the conjugated verb; return next index."""
        toks, n, out = self.toks, self.n, self.out
        j = i + 1
        while j < n:
            t = toks[j]
            low = t.lower()
            if t.isspace():
                out.append(t)
                j += 1
                continue
            if low == "me":
                out.append("se")
                j += 1
                continue
            if low in _PT_ADV:
                out.append(t)
                j += 1
                continue
            if _is_word(t):
                out.append(_conj_pt(t))
                j += 1
                if j + 1 < n and toks[j] == "-" and toks[j + 1].lower() == "me":
                    out.append("-se")
                    j += 2
                return j
            return j
        return j


def _rewrite(text: str, lang: str, who: _Who) -> str:
    return rewrite_pt(text, who) if lang == "pt" else rewrite_en(text, who)


# =============================================================================================
# Helpers
# =============================================================================================


def _confidence(sentence: str) -> float:
    if _HEDGE_WEAK_RE.search(sentence):
        return L.CONF_SPECULATIVE
    if _HEDGE_MID_RE.search(sentence):
        return L.CONF_HEDGED
    return L.CONF_EXPLICIT


def _importance(text: str, default: str = "specific_event") -> str:
    for cat, rx in _IMPORTANCE_RES:
        if cat == "stable_preference":
            if _PREF_RE.search(text):  # "like"/"love" alone are too often a preposition / a noun
                return cat
        elif rx.search(text):
            return cat
    return default


def _rewrite_for_stance(text: str, speaker: str, addressee: str) -> str:
    """`rewrite_en` for write/stance.py, which knows the speaker and the addressee by name."""
    return rewrite_en(text, _Who(speaker, pron=None, addr=addressee))


def _content_words(text: str) -> int:
    n = 0
    for w in _WORD_RE.findall(text):
        low = w.lower().replace("’", "'")
        low = low.removesuffix("'s")
        if low in _NONCONTENT or low.isdigit():
            continue
        if len(low) >= 3 or _CL_RE.search(low):
            n += 1
    return n


def _overlaps(a: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    return any(a[0] < e and s < a[1] for s, e in spans)


class _SpanSet:
    """Spans taken so far in a sentence, answering `_overlaps` in O(log n) instead of O(n).

    Kept sorted by start, spans that strictly overlap merged into one, so no span starts before
    the previous one ends and ends are sorted too: a query [a, b) overlaps a span iff the last
    span starting before b ends after a. Same answers as `_overlaps` over the added spans
    (an empty span inside a query counts, as there). A sentence with thousands of names made the
    list scan quadratic."""

    __slots__ = ("ends", "starts")

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def overlaps(self, span: tuple[int, int]) -> bool:
        i = bisect.bisect_left(self.starts, span[1]) - 1
        return i >= 0 and self.ends[i] > span[0]

    def add(self, span: tuple[int, int]) -> None:
        a, b = span
        lo = bisect.bisect_left(self.ends, a + 1)  # spans from lo on end after a
        hi = bisect.bisect_left(self.starts, b)  # spans before hi start before b
        if lo < hi:  # [lo, hi) overlap the new span: one span covers them all
            a, b = min(a, self.starts[lo]), max(b, self.ends[hi - 1])
            del self.starts[lo:hi], self.ends[lo:hi]
        at = min(lo, hi)
        self.starts.insert(at, a)
        self.ends.insert(at, b)


def _lower_first(s: str, keep: bool) -> str:
    if keep or not s:
        return s
    return s[:1].lower() + s[1:]


# =============================================================================================
# Main entry point
# =============================================================================================


# A message longer than this is extracted in windows of whole sentences of at most this many
# characters, each with its own message state (entities, mentions, pronoun antecedents), and the
# windows' results merged. Some of that state is scanned per sentence, so one window's cost grows
# with the square of its length: bounded windows keep a message's cost linear in its length.
# Ordinary messages (one window) are unaffected.
MAX_WINDOW_CHARS = 10_000


def extract_offline(text: str, ctx: ExtractionContext) -> ExtractionResult:
    """Entities, facts and relations of one message by deterministic rules (see module docstring)."""
    from arandu_pipelines.write import gender_evidence

    # what the chat says of a name's gender ("my brother Nikita", "Noor ... her bump") beats the
    # name table for every he/she/his/her decision of this message (write/gender_evidence.py)
    with gender_evidence.scope(text, ctx):
        return _extract_offline(text, ctx)


def _extract_offline(text: str, ctx: ExtractionContext) -> ExtractionResult:
    result = ExtractionResult(mode="rules")
    if not text or not text.strip():
        return result
    spans = split_sentences(text)
    if not spans:
        return result
    lang = detect_language(text)
    from arandu_pipelines.write import (
        org_antecedents,
        people_forms,
        person_antecedents,
        thing_antecedents,
    )

    said = (text, spans)
    formed = said
    owners: list[int] | None = None
    resolved: dict[str, str] = {}  # names put in a he/she's place -> "person" / "pet" (write/name_subjects.py)
    if lang == "en":
        text = _LOWER_I_RE.sub("I", text)  # same length: the spans stay valid
        text = _unshout(text, ctx)  # "I GOT THE JOB" -> "I got the job" (write/chat_forms.py), same length
        # "He's doing great" after "How's your brother?" -> "My brother is doing great": every rule
        # below reads the person the pronoun stands for (spans move with the replacements)
        said = (text, spans)
        # "Dad moved in ..., we decided ..." -> "My dad moved in .... We decided ..." (write/people_forms.py)
        text, spans, owners = people_forms.rewrite(text, spans, ctx)
        formed = (text, spans)
        # the names put in a pronoun's place are people / pets for the rules ("Mia's test is ...")
        if ctx.named_before is None:  # the people and pets the caller's turns named (write/session_names.py)
            ctx = replace(ctx, named_before=session_names.for_context(ctx))
        text, spans, ctx = person_antecedents.rewrite_typed(text, spans, ctx, resolved)
        # "news from the library. They asked me ..." -> "... The library asked me ...", "We bought a
        # camper. It sleeps four" -> "... Our camper sleeps four" (write/org_antecedents.py)
        text, spans = org_antecedents.rewrite(text, spans, ctx)
        # "Next step is the inspection. It's on May 3rd" -> "... My inspection is on May 3rd"; "We
        # painted the van. Teal." -> "We painted the van teal. Teal." (write/thing_antecedents.py)
        text, spans = thing_antecedents.rewrite(text, spans, ctx)
    windows = _sentence_windows(spans)
    from arandu_pipelines.write import held_back

    with held_back.collect():
        if len(windows) == 1:
            result = _extract_spans(text, spans, ctx, lang, resolved)
        else:
            result = _merged([_extract_spans(text, w, ctx, lang, resolved) for w in windows])
        refined = {id(f) for f in result.facts}  # finished by fact_quality.refine (see qa_pairs below)
        if lang == "en":  # advice asked for / a proposal (write/advice.py), then at most one act toward the listener
            from arandu_pipelines.write import advice, speech_acts

            sents = [text[a:b].strip() for a, b in spans]
            used = set(advice.apply(result, text, ctx, sentences=sents, model=ctx.spacy_model))
            speech_acts.apply(result, text, ctx, sentences=[s for s in sents if s not in used],
                              rewrite=_rewrite_for_stance, model=ctx.spacy_model)
        held_back.restore(result)  # a message left with no fact: its held-back stance (generic "we", mood)
        if lang == "en":  # "we" -> "Melanie and Melanie's kids" where the conversation says who
            from arandu_pipelines.write import (
                object_it,
                object_them,
                qa_pairs,
                we_group,
            )
            from arandu_pipelines.write import parses as chunk_parses
            from arandu_pipelines.write.fact_shape import name_reminder

            we_group.apply(result.facts, text, (ctx.speaker_name or "").strip() or "User", ctx.previous_turns,
                           addressee=(ctx.addressee or "").strip(), partner=ctx.partner,
                           people=we_group.known_people(ctx),
                           parses=chunk_parses.for_context(ctx, ctx.spacy_model),
                           couple_partner=ctx.couple_partner if ctx.couple_partner is not None else ctx.partner,
                           group_names=ctx.group_names)
            if ctx.group_names and re.search(r"(?i)\bour\b", text):  # "Harbor Voices gave its first concert"
                from arandu_pipelines.write.we_named_group import its_our

                for f in result.facts:
                    f.fact_text = its_our(f.fact_text, text, (ctx.speaker_name or "").strip() or "User",
                                          ctx.group_names)
            # "help them learn" -> "help Jon's students learn" (write/object_them.py)
            object_them.apply(result.facts, text, (ctx.speaker_name or "").strip() or "User",
                              (ctx.addressee or "").strip(), ctx.previous_turns)
            # "restoring it" -> "restoring the 1967 Ford Mustang", "adopted him" -> "adopted Bolt" (write/object_it.py)
            object_it.apply(result.facts, text, ctx)
            # "crush that goal" -> "crush Nadia's goal for the race", "did the first two" -> "... two cooking classes"
            from arandu_pipelines.write import object_demonstratives

            object_demonstratives.apply(result.facts, text, ctx)
            # "Speaking of Sam, I read his novel" -> "Nadia read Sam's novel" (write/object_possessives.py)
            from arandu_pipelines.write import object_possessives

            object_possessives.apply(result.facts, text, ctx)
            # "5 years already!" answering "How long have you been married?" (write/qa_pairs.py)
            answered = {id(f): f.fact_text for f in result.facts}
            qa_pairs.apply(result, text, ctx)
            # "Did Marco agree to join the band?" + "He did" -> "Marco agreed to join the band" (write/elided_answers.py)
            from arandu_pipelines.write import elided_answers

            elided_answers.apply(result, text, ctx)
            # refine never finished what came after it: the speech acts, held-back and qa facts, and
            # a fact qa_pairs rewrote (the fragment "Knitting, mostly." as "S spends S's evenings knitting")
            refined -= {id(f) for f in result.facts if answered.get(id(f), f.fact_text) != f.fact_text}
            from arandu_pipelines.write import chat_forms, readability
            from arandu_pipelines.write.plain_forms import polish

            for f in result.facts:  # "A reminder to X" -> "The tattoo is a reminder to X"
                f.fact_text = name_reminder(f.fact_text, f.subject, text, f.source_text)
                # the speech acts and held-back facts added after refine: "chase those dreams" (plain_forms)
                f.fact_text = polish(f.fact_text, (ctx.speaker_name or "").strip(), ctx.addressee)
                if id(f) not in refined:  # ... and refine's last steps they missed (session 16, defects16):
                    # "S thinks A is famous haha" (write/chat_forms.py), "Howard keeps track of all of
                    # Howard's pieces" -> "... their pieces" (write/readability.py)
                    f.fact_text = readability.pronouns(chat_forms.unlaugh(f.fact_text), f.subject,
                                                        source=f.source_text)
                # "Lena's dad bruised Lena's dad's hip" -> "... his hip" (write/own_possessive.py)
                f.fact_text = own_possessive.apply(f.fact_text)

    if lang == "en":  # rule-kind precision filters: "let's" pep talk, advice (write/kind_filters.py)
        from arandu_pipelines.write import kind_filters

        kind_filters.apply(result, text)
        from arandu_pipelines.write import moments

        moments.apply(result, ctx)  # a reaction of the moment beside the turn's news (write/moments.py)
        from arandu_pipelines.write import passing_remarks

        passing_remarks.apply(result, ctx, text)  # "Rose is a beautiful name", "X doesn't know yet" (write/passing_remarks.py)
    # a fact another fact of the message states in full: "Dev is S's brother" beside "S's brother
    # Dev gave S his old bike" (write/subsumed.py; the relation itself stays an edge)
    from arandu_pipelines.write import subsumed

    subsumed.apply(result)
    if lang == "en":  # "since Lena was six" -> "since she was six" (write/repeated_names.py)
        from arandu_pipelines.write import parses as chunk_parses
        from arandu_pipelines.write import repeated_names

        repeated_names.apply(result.facts, chunk_parses.for_context(ctx, ctx.spacy_model))
    if formed != (text, spans):  # the message's sentences as written (they are its search vectors)
        person_antecedents.restore(result, text, spans, *formed)
    if owners is not None:
        people_forms.restore(result, *formed, owners, *said)
    return result


# Chat writes the pronoun in lower case ("i need a holiday", "i'm moving"): the rules know "I".
_LOWER_I_RE = re.compile(r"(?<![\w'’-])i(?=(?:['’](?:m|ve|ll|d))?(?![\w'’-]))")


def _unshout(text: str, ctx: ExtractionContext) -> str:
    from arandu_pipelines.write import chat_forms

    if not re.search(r"[A-Z]{2}", text):
        return text
    return chat_forms.unshout(text, chat_forms.known_names(
        [*ctx.known_aliases.values(), ctx.speaker_name, ctx.addressee or ""], [t for _, t in ctx.previous_turns]))


def _sentence_windows(spans: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """Consecutive sentences grouped into windows spanning at most MAX_WINDOW_CHARS."""
    windows: list[list[tuple[int, int]]] = [[]]
    for a, b in spans:
        if windows[-1] and b - windows[-1][0][0] > MAX_WINDOW_CHARS:
            windows.append([])
        windows[-1].append((a, b))
    return windows


def _merged(parts: list[ExtractionResult]) -> ExtractionResult:
    """The windows' results as one: sentences in order, entities by folded name (aliases joined,
    a specific type over "other"), facts and relations once each, facts up to MAX_FACTS."""
    result = ExtractionResult(mode="rules")
    ents: dict[str, ExtractedEntity] = {}
    aliases: dict[str, set[str]] = {}
    facts: set[str] = set()
    rels: set[tuple[str, str, str, bool]] = set()
    for part in parts:
        result.sentences.extend(part.sentences)
        for e in part.entities:
            k = fold(e.name)
            have = ents.get(k)
            if have is None:
                ents[k] = e
                aliases[k] = {k, *(fold(x) for x in e.aliases)}
                result.entities.append(e)
                continue
            for x in e.aliases:
                if fold(x) not in aliases[k]:
                    aliases[k].add(fold(x))
                    have.aliases.append(x)
            if have.entity_type == "other" and e.entity_type != "other":
                have.entity_type = e.entity_type
        for f in part.facts:
            if len(result.facts) < MAX_FACTS and f.fact_text.casefold() not in facts:
                facts.add(f.fact_text.casefold())
                result.facts.append(f)
        for r in part.relations:
            rk = (fold(r.source), r.rel_type, fold(r.target), r.retracts)
            if rk not in rels:
                rels.add(rk)
                result.relations.append(r)
    return result


def _extract_spans(text: str, spans: list[tuple[int, int]], ctx: ExtractionContext, lang: str,
                   resolved: dict[str, str] | None = None) -> ExtractionResult:
    """The rules over the sentences `spans` of `text`, with one message state (`resolved`: names
    person_antecedents put in a pronoun's place, with their type)."""
    result = ExtractionResult(mode="rules")
    ms = _Msg(text, ctx, lang)
    ms.resolved = resolved or {}
    sents = [_prepare_sentence(ms, a, text[a:b]) for a, b in spans]
    result.sentences = [s.text for s in sents]
    for s in sents:
        _scan_entities(ms, s)
    if lang == "en":
        _link_antecedents(ms, sents)
        from arandu_pipelines.write.antecedents import replacements

        ms.cross_turn = replacements(text, ctx, ctx.spacy_model)  # "it" pointing into the previous turn
    for s in sents:
        _process_sentence(ms, s)
    result.entities = list(ms.ents.values())
    result.facts = ms.facts[:MAX_FACTS]
    result.relations = ms.relations
    from arandu_pipelines.write import rules_extra
    from arandu_pipelines.write.fact_quality import refine

    rules_extra.apply(result, text, ms.speaker, ms.generic, content_words=_content_words)
    from arandu_pipelines.write import stance

    stance.apply(result, text, ctx, sentences=[text[a:b].strip() for a, b in split_sentences(text)],
                 rewrite=_rewrite_for_stance)
    from arandu_pipelines.write import beliefs

    beliefs.apply(result, text, ctx, sentences=[text[a:b].strip() for a, b in split_sentences(text)],
                  rewrite=_rewrite_for_stance)  # "..., but I'm sure X": the clause the restater cut
    if ctx.ner:
        from arandu_pipelines.write.nlp import apply_labels

        apply_labels(result, ctx.ner)
    from arandu_pipelines.write import small_talk

    with small_talk.turn(text):  # small_talk's `closing` rows see whether the turn says goodbye
        refine(result, ctx, generic=ms.generic)
    return result


# A sentence opening with a thing as its subject ("Dancing helps me de-stress", "Flowers bring
# joy", "My garden is ...") lends it to a next sentence that opens with "It"/"They" ("It's where
# I'm most alive" -> "Dancing is where Jon is most alive").
_THING_SUBJ_RE = re.compile(
    r"^(?P<np>(?:(?:[Mm]y|[Oo]ur|[Tt]he)\s+(?:[a-z][\w'’-]*\s+){0,2}[a-z][\w'’-]*|[A-Z][a-z]+(?:ing)?"
    r"(?:\s+[a-z]+ing)?))\s+(?:(?:really|always|just|also|sure|definitely|totally)\s+)?"
    r"(?:is|are|was|were|has|have|had|helps?|helped|brings?|brought|gives?|gave|makes?|made|keeps?|kept|lets?"
    r"|represents?|means?|meant|reminds?|reminded|taught|teaches|shows?|showed|gets?|got)\b")
_IT_START_RE = re.compile(r"^(?P<p>It['’]s\s+(?:been|got|gotten)|It['’]s|It|They['’]re|They['’]ve|They)(?=\s)")
_NOT_THING = frozenset(["i", "it", "this", "that", "these", "those", "there", "here", "he", "she", "they", "we", "you", "what", "which", "who", "how", "why", "when", "my", "our", "the", "nothing", "everything", "something", "everyone", "someone"])


def _person_nouns() -> frozenset[str]:
    from arandu_pipelines.write.person_antecedents import PERSON_NOUNS

    return PERSON_NOUNS


_PERSON_NOUNS = _person_nouns()


def _link_antecedents(ms: _Msg, sents: list[_Sent]) -> None:
    """Mark `antecedent` on sentences whose "It"/"They" stands for the previous sentence's
    subject, when that subject is a thing (not a person or pronoun) and agrees in number."""
    prev: str | None = None
    for s in sents:
        body = s.body.strip()
        pm = _IT_START_RE.match(body)
        if pm and prev:
            plural = prev.endswith("s") and not prev.endswith(("ss", "ing")) or prev.lower().split()[-1] in (
                "family", "fam", "kids", "friends", "parents", "people")
            if pm.group("p").lower().startswith("they") == plural:
                s.antecedent = prev
            continue  # the same thing can be "it" again in the next sentence
        m = _THING_SUBJ_RE.match(body)
        np = m.group("np") if m else None
        head = np.split()[0].lower() if np else ""
        if np and np.split()[-1].lower() in _PERSON_NOUNS:
            np = None  # "My grandma gave it to me. It's ...": a person is not what "it" stands for
        if np and (np.lower() in _NOT_THING or (head not in ("my", "our", "the") and (
                ms.key(np) in ms.ents or head in _NOT_THING or np.lower() in _DISCOURSE_WORDS))):
            np = None
        prev = np


def _with_antecedent(text: str, antecedent: str) -> str:
    """"It's where I'm most alive" + "Dancing" -> "Dancing is where I'm most alive"."""
    m = _IT_START_RE.match(text)
    if not m:
        return text
    p = m.group("p").lower().replace("’", "'")
    ante = antecedent[:1].upper() + antecedent[1:]
    repl = {"it's been": f"{ante} has been", "it's got": f"{ante} has got", "it's gotten": f"{ante} has gotten",
            "it's": f"{ante} is", "it": ante, "they're": f"{ante} are",
            "they've": f"{ante} have", "they": ante}[re.sub(r"\s+", " ", p)]
    return repl + text[m.end():]


def _prepare_sentence(ms: _Msg, start: int, sentence: str) -> _Sent:
    body, off = sentence, 0
    th = _THANKS_VOC_RE.match(body)
    if th:
        name = _trim_name(th.group("n"))
        if _is_name(name):
            ms.addressee = ms.addressee or ms.add_entity(name, "person", _RANK_PERSONVERB, start + th.start("n"))
            if not body[th.end():].strip(" !.,…"):
                return _Sent(start, sentence, len(sentence), "")
    m = _LEAD_RE.match(body)
    stripped_lead = m is not None and m.end() > 0
    if m is not None and stripped_lead:
        off = m.end()
        body = sentence[off:]
    v0 = _LEAD_VOC_COMMA_RE.match(body) or (_LEAD_VOC_RE.match(body) if stripped_lead else None)
    if v0:
        name = _trim_name(v0.group("n"))
        if _is_name(name) and not _looks_verb_follow(body, v0.end("n")) and not name.lower().endswith(("ly", "ing")) and (
            stripped_lead or _known_person(ms, name) or _SECOND_PERSON_RE.search(body[v0.end():])
            or _DROP_RE.match(body[v0.end():]) or _content_words(body[v0.end():]) == 0
        ):
            if _may_address(ms, name):
                ms.addressee = ms.addressee or ms.add_entity(name, "person", _RANK_PERSONVERB, start + off)
            off += v0.end()
            body = sentence[off:]
    tv = _TRAIL_VOC_RE.search(body)
    if tv and _is_name(_trim_name(tv.group("n"))) and (
        "!" in tv.group("p") or "?" in tv.group("p") or len(body[: tv.start()].split()) <= 6
        or ms.known_types.get(ms.ctx.known_aliases.get(fold(tv.group("n")), tv.group("n"))) == "person"
    ):
        name = _trim_name(tv.group("n"))
        ms.addressee = ms.addressee or ms.add_entity(name, "person", _RANK_PERSONVERB, start + off + tv.start("n"))
        body = body[: tv.start()] + tv.group("p")
    return _Sent(start, sentence, off, body)


def _may_address(ms: _Msg, name: str) -> bool:
    """Whether a name set off by a comma at a sentence's start ("And Olive, the little tyrant?")
    may call the listener. When the listener is known (the other speaker), only their name, a
    short form of it ("Mel", "Danny": the same first three letters) or another speaker of the
    session may; any other name is a topic
    ("And Olive?" about a kitten), and taking it as the addressee made "You raised them" read
    "Olive raised them" (session 18). "you" then stays the other speaker, as in any two-person chat."""
    other = ms.default_addressee
    if not other:
        return True
    f = fold(name)
    speakers = {fold(w) for s, _ in ms.ctx.previous_turns if s for w in (s, s.split()[0])}
    for o in (fold(other), fold(other.split()[0]), *speakers):
        if f == o or o.startswith(f) or f.startswith(o) or (len(f) >= 3 and f[:3] == o[:3]):
            return True  # the name, or a short form of it ("Mel", "Danny" for Daniel)
    return fold(ms.ctx.known_aliases.get(f, "")) == fold(other)


def _known_person(ms: _Msg, name: str) -> bool:
    k = ms.key(name)
    if k in ms.ents and ms.ents[k].entity_type == "person":
        return True
    display = ms.ctx.known_aliases.get(fold(name)) if ms.ctx.known_aliases else None
    return bool(display) and display is not None and ms.known_types.get(display) == "person"


def _looks_verb_follow(body: str, end: int) -> bool:
    """True when the name is followed by a verb (so it is a subject, not a vocative)."""
    rest = body[end:].lstrip(" ,")
    w = rest.split(None, 1)[0].lower() if rest.split(None, 1) else ""
    return w in L.PERSON_VERBS_EN or w in L.PERSON_VERBS_PT


# ---- entity scan ------------------------------------------------------------------------------


def _first_word_start(body: str) -> int:
    m = re.search(r"[^\W_]", body)
    return m.start() if m else 0


def _scan_entities(ms: _Msg, s: _Sent) -> None:
    body, base = s.body, s.start + s.body_off
    first = _first_word_start(body)
    taken = _SpanSet()
    # known aliases (any case, any position)
    if ms.ctx.known_aliases:
        for a, b, surface in _known_alias_spans(ms, body):
            display = ms.ctx.known_aliases.get(fold(surface)) or ms.ctx.known_aliases.get(surface.lower())
            if not display:
                continue
            ms.add_entity(display, ms.known_types.get(display), _RANK_KNOWN, base + a)
            if fold(display) != fold(surface):
                ms._add_alias(ms.key(display), surface)
            taken.add((a, b))
    for m in _PROPER_RE.finditer(body):
        raw = m.group(0)
        name = _trim_name(raw)
        a = m.start() + raw.find(name)
        b = a + len(name)
        if taken.overlaps((a, b)):
            continue
        initial = a == first or (a < first + 2 and body[:a].strip(" \"'“(") == "")
        if not initial and ms.lang == "en" and name_subjects.TIME_LEAD_RE.match(body[:a]):
            initial = True  # "Yesterday Tyler scored a goal": only a time word before the subject
        if not _is_name(name) and not (initial and _english_first_name(ms, name)):
            continue  # ("Marco" is also Portuguese "março": a name in English, write/name_subjects.py)
        follows_verb = _looks_verb_follow(body, b)
        if follows_verb and initial and _not_a_person(ms, body, a, name):
            # "Westfield won ...": NER types a no-first-name ORG / GPE / FAC; the fact stays (the
            # rules' person-verb evidence), but it is no antecedent of he/she (write/name_subjects.py)
            ms.add_entity(name, "person", _RANK_PERSONVERB, base + a)
            ms.ner_only.add(ms.key(name))
            taken.add((a, b))
            continue
        if not follows_verb and initial and _conjoined_people(ms, body, base, a, b, name, taken):
            continue  # "Jake and his wife bought ...", "Tyler and Rose got married" (write/conjoined_subjects.py)
        if not follows_verb and initial:
            subject_type = _first_name_person(ms, body, a, b, name)
            if subject_type is None:
                continue
            # "Nora arrived on the 9th", "Tyler scored a goal", "Rufus chewed ..." (write/name_subjects.py)
            ms.add_entity(name, subject_type, _RANK_PERSONVERB, base + a)
            taken.add((a, b))
            continue
        if not follows_verb and (
            _PERSON_CTX_RE.search(body[max(0, a - 30):a]) or _AND_I_RE.match(body, b)
            or (ms.lang == "en" and kin_antecedents.apposed_to_person(body[:a], _PERSON_NOUNS))
        ):
            follows_verb = True  # "with Ana", "met Carlos", "one girl on the team, Kira" (write/kin_antecedents.py)
        etype = "person" if follows_verb else None
        ms.add_entity(name, etype, _RANK_PERSONVERB if etype else _RANK_OTHER, base + a)
        taken.add((a, b))


_NEXT_LOWER_RE = re.compile(r"\s+(?!(?:and|or|but|nor|of|in|on|at|to|for|with|from|the|a|an|as|than|so|too|&)\b)[a-z][a-z'’]*\b")


def _english_first_name(ms: _Msg, name: str) -> bool:
    """A name of the first-name lists that a stop list holds only as a Portuguese word ("Marco",
    "março"; "Linda"): in an English message it may be a name (write/name_subjects.py)."""
    w = name.casefold()
    return (ms.lang == "en" and " " not in w and w not in L.STOPWORDS_EN and w not in _DISCOURSE_WORDS
            and name_subjects.is_first_name(w))


def _conjoined_people(ms: _Msg, body: str, base: int, a: int, b: int, name: str, taken: _SpanSet) -> bool:
    """A sentence-initial "<Name> and <Name | his wife | my sister> <predicate>" whose two conjuncts
    are people by name_subjects' evidence, read as a pair (write/conjoined_subjects.py): both
    names typed people. True when the first name was typed."""
    if ms.lang != "en" or ms.key(name) == ms.sp_fold:
        return False
    cj = conjoined_subjects.conjunct_after(body, b)
    if cj is None:
        return False
    second = cj.name
    others = [*cj.middle, *([(cj.start, second)] if second is not None else [])]  # "Tyler, Rose and Sam"
    if any(ms.key(n) == ms.sp_fold or not (_is_name(n) or _english_first_name(ms, n)) for _, n in others):
        return False
    grades = [_name_evidence(ms, body, a, name), *(_name_evidence(ms, body, at, n) for at, n in others)]
    if second is None:
        grades.append(conjoined_subjects.STRONG)  # "his wife", "my sister": a person
    if not conjoined_subjects.pair_is_people(*grades):
        return False
    # (the chat's evidence reads "Jake and her sister" as "Jake is she" and, against the table,
    # makes Jake unknown: the table decides then, write/gender_evidence.py)
    gender = ms.person_gender(name) or name_gender.table_gender(name.split()[0].casefold())
    if not conjoined_subjects.possessive_agrees(cj.possessive, gender):
        ms.pair_firsts.add(ms.key(name))  # "Jake and her sister": "her" is someone named before
        return False
    for at, n in others:
        ms.add_entity(n, "person", _RANK_PERSONVERB, base + at)
        taken.add((at, at + len(n)))
    ms.add_entity(name, "person", _RANK_PERSONVERB, base + a)
    taken.add((a, b))
    return True


def _name_evidence(ms: _Msg, body: str, a: int, name: str) -> int:
    """How much a name at `a` looks like a person's (write/conjoined_subjects.py's scale): known
    to the message or the conversation, or spaCy NER PERSON: STRONG; a known first name
    (name_subjects.listed_name) NER does not place: WEAK; one NER places: PLACED; else NONE."""
    C = conjoined_subjects
    if _known_person(ms, name) or ms.resolved.get(name.casefold()) == "person" \
            or ms.turn_names().get(name.split()[0].casefold()) == "person":
        return C.STRONG
    from arandu_pipelines.write import parses as chunk_parses

    label = name_subjects.label_at(chunk_parses.for_context(ms.ctx, ms.ctx.spacy_model), body, a, name)
    if label == "PERSON":
        return C.STRONG
    if not name_subjects.listed_name(name):
        return C.NONE
    return C.PLACED if label in name_subjects.PLACE_LABELS else C.WEAK


def _first_name_person(ms: _Msg, body: str, a: int, b: int, name: str) -> str | None:
    """"person" / "pet" for a sentence-initial name followed by a lower-case word, the subject of
    third-party news: put there by the he/she resolution, known to the conversation, typed PERSON
    by spaCy NER (write/subject_forms.py), or a known first name NER does not place
    (write/name_subjects.py); else None."""
    if ms.lang != "en" or not _NEXT_LOWER_RE.match(body, b) or ms.key(name) == ms.sp_fold:
        return None
    if ms.key(name) in ms.ents:
        return None
    first = name.split()[0].casefold()
    known = ms.resolved.get(name.casefold()) or ms.turn_names().get(first)
    if known:
        return known
    from arandu_pipelines.write import parses as chunk_parses

    label = name_subjects.label_at(chunk_parses.for_context(ms.ctx, ms.ctx.spacy_model), body, a, name)
    if label == "PERSON":
        if name_subjects.weak_person(name, ms.text + " " + " ".join(t for _, t in ms.ctx.previous_turns or [])):
            ms.ner_only.add(ms.key(name))
        return "person"
    if label is None or label in name_subjects.PLACE_LABELS or not _is_name(name) and label:
        return None
    return "person" if name_subjects.table_candidate(name, body[b:]) else None


def _not_a_person(ms: _Msg, body: str, a: int, name: str) -> bool:
    """A sentence-initial name followed by a person verb that no first-name list knows and that
    spaCy NER types an organisation or place ("Westfield won the final"): not a person for he/she."""
    if ms.lang != "en" or not name_subjects.unlisted(name) or _known_person(ms, name):
        return False
    if ms.resolved.get(name.casefold()) or ms.turn_names().get(name.casefold()):
        return False
    from arandu_pipelines.write import parses as chunk_parses

    label = name_subjects.label_at(chunk_parses.for_context(ms.ctx, ms.ctx.spacy_model), body, a, name)
    return bool(label) and label in name_subjects.NOT_PERSON_LABELS


_NGRAM_STOP_RE = re.compile(r"[.!?,;]")
_POSSESSIVE_RE = re.compile(r"['’]s$")


_heads_cache: tuple[Any, int, frozenset[str]] = (None, 0, frozenset())  # (alias map, size, heads)


def _alias_heads(known: dict[str, str]) -> frozenset[str]:
    """First words of the known aliases. An n-gram can only match if its first word is one of
    them, which rules out most positions of a sentence with one set lookup instead of folding up
    to five n-grams each (the scan was most of rules extraction). Cached for the chunk's map; the
    cache is one tuple, read and replaced whole, so concurrent extractions never mix two maps."""
    global _heads_cache
    cached = _heads_cache
    if cached[0] is known and cached[1] == len(known):
        return cached[2]
    heads = frozenset(h for k in known for h in (k.split(None, 1) or [""])[:1])
    _heads_cache = (known, len(known), heads)
    return heads


def _may_start_alias(word: str, heads: frozenset[str]) -> bool:
    bare = _POSSESSIVE_RE.sub("", word)
    for w in (word, bare) if bare != word else (word,):
        for form in (fold(w), w.lower()):
            first = form.split(None, 1)
            if first and first[0] in heads:
                return True
    return False


def _known_alias_spans(ms: _Msg, body: str) -> list[tuple[int, int, str]]:
    """(start, end, surface) of n-grams (up to 5 words) of `body` that are known aliases; an
    n-gram never spans sentence punctuation."""
    words = [(m.start(), m.end(), m.group(0)) for m in _WORD_RE.finditer(body)]
    known = ms.ctx.known_aliases
    heads = _alias_heads(known)
    out: list[tuple[int, int, str]] = []
    i = 0
    while i < len(words):
        if not _may_start_alias(words[i][2], heads):
            i += 1
            continue
        hit = None
        stop = _NGRAM_STOP_RE.search(body, words[i][0])
        limit = stop.start() if stop else len(body)  # n-grams ending past it contain punctuation
        for n in range(min(5, len(words) - i), 0, -1):
            a, b = words[i][0], words[i + n - 1][1]
            if b > limit:
                continue
            surface = body[a:b]
            bare = _POSSESSIVE_RE.sub("", surface)
            for cand in (surface, bare) if bare != surface else (surface,):
                f = fold(cand)
                if f in known or cand.lower() in known:
                    low = cand.lower()
                    common = low in L.STOPWORDS_EN or low in L.STOPWORDS_PT or low in _NON_NAME or low in L.EVALUATIVES
                    if common and (not cand[:1].isupper() or a == _first_word_start(body)):
                        continue
                    hit = (a, a + len(cand), cand, n)
                    break
            if hit:
                break
        if hit:
            out.append(hit[:3])
            i += hit[3]
        else:
            i += 1
    return out


# ---- per sentence -----------------------------------------------------------------------------


# a question after a dash that follows a statement ("... - want to see a pic?", "... - pretty cool, huh?")
_TAG_QUESTION_RE = re.compile(r"\s+[-–—]+\s+[^-–—?]*\?[?!]*\W*$")


def _process_sentence(ms: _Msg, s: _Sent) -> None:
    body = s.body
    stripped = body.strip()
    if not stripped or not any(ch.isalnum() for ch in stripped):
        return
    # aliases first: they merge names and are informative even in questions
    alias_facts = _aliases(ms, s)
    is_question = stripped.rstrip(" \"'”)").endswith("?") or stripped.rstrip(" \"'”)").endswith("?!")
    tail_q = _TAG_QUESTION_RE.search(body) if is_question else None
    if tail_q and tail_q.start() > 0:
        # "I finished another pottery project - want to see a pic?": a statement, then a question
        s.body = body = body[: tail_q.start()]
        stripped = body.strip()
        is_question = False
    if not is_question and ms.lang != "pt":
        # grammar13b: an inverted question without "?", a thanks by "shoutout", a verbless
        # prepositional fragment are no statements; a trailing "..., I guess" hedge is cut
        if GD.inverted_question(stripped) or GD.is_shoutout(stripped) or GD.verbless_pp(stripped, _FINITE_RE):
            return
        cut = GD.hedge_start(body)
        if cut is not None:
            s.body = body = body[:cut]
            stripped = body.strip()
    first_word = (_WORD_RE.findall(stripped)[:1] or [""])[0].lower().replace("’", "'")
    if _DROP_RE.match(stripped) and not is_question:
        cm = _FIRST_PERSON_CLAUSE_RE.search(body)
        if not cm:
            return
        s.body_off += cm.end()
        s.body = body = body[cm.end():]
        stripped = body.strip()
        first_word = (_WORD_RE.findall(stripped)[:1] or [""])[0].lower().replace("’", "'")
    if is_question or _FILLER_ONLY_RE.match(stripped):
        return
    if first_word in _IMPERATIVE and not _PREF_START_RE.match(stripped):
        return
    if _EXCLAM_RE.match(stripped):
        return
    if first_word in _QUESTION_WORDS and not stripped.endswith((".", "!")) and len(stripped.split()) < 8:
        return
    s.dates = find_relative_dates(body, ms.ctx.occurred_at, ms.ctx.timezone, calendar=True)
    conf = _confidence(body)
    _relterms(ms, s, conf)
    _verb_rules(ms, s, conf)
    for f in alias_facts:
        ms.add_fact(f)
    _generic(ms, s, conf)


# ---- aliases ----------------------------------------------------------------------------------


def _aliases(ms: _Msg, s: _Sent) -> list[ExtractedFact]:
    body, base = s.body, s.start + s.body_off
    ms.rule_kind = "alias"
    facts: list[ExtractedFact] = []
    pt = ms.lang == "pt"
    for rx in (_ALIAS_PAREN_RE, _ALIAS_AKA_RE):
        for m in rx.finditer(body):
            a, b = _trim_name(m.group("a")), _trim_name(m.group("b"))
            if not (_is_name(a) and _is_name(b)) or fold(a) == fold(b):
                continue
            ka, kb = ms.key(a), ms.key(b)
            ta = ms.ents[ka].entity_type if ka in ms.ents else "other"
            tb = ms.ents[kb].entity_type if kb in ms.ents else "other"
            etype = ta if ta != "other" else (tb if tb != "other" else "person")
            ms.add_entity(a, etype, _RANK_PERSONVERB, base + m.start("a"))
            ms.add_entity(b, etype, _RANK_PERSONVERB, base + m.start("b"))
            ms.merge_alias(a, b, etype)
            full, short = (a, b) if _completeness(a) >= _completeness(b) else (b, a)
            s.covered.append((m.start(), m.end()))
            if rx is _ALIAS_AKA_RE:
                text = f"{full} também é conhecido como {short}" if pt else f"{full} is also known as {short}"
                facts.append(_fact(ms, s, full, text, None, None, "biographical_milestone", L.CONF_EXPLICIT, [short]))
    for m in _ALIAS_CALL_RE.finditer(body):
        b = _trim_name(m.group("b"))
        if not _is_name(b):
            continue
        who = ms.last_person(base + m.start())
        if not who:
            continue
        ms.add_entity(b, "person", _RANK_PERSONVERB, base + m.start("b"))
        ms.merge_alias(who, b, "person")
        full = ms.ents[ms.key(who)].name
        text = f"{full} também é conhecido como {b}" if pt else f"{full} is also known as {b}"
        s.covered.append((m.start(), m.end()))
        facts.append(_fact(ms, s, full, text, None, None, "biographical_milestone", L.CONF_EXPLICIT, [b]))
    for m in _ALIAS_ME_RE.finditer(body):
        b = _trim_name(m.group("b"))
        if not _is_name(b) or fold(b) == ms.sp_fold:
            continue
        ms._add_alias(ms.sp_fold, b)
        ms.mention_pos.append((base + m.start("b"), ms.sp_fold))
        text = f"{ms.speaker} também é conhecido como {b}" if pt else f"{ms.speaker} is also known as {b}"
        s.covered.append((m.start(), m.end()))
        facts.append(_fact(ms, s, ms.speaker, text, None, None, "biographical_milestone", L.CONF_EXPLICIT, [b]))
    return facts


# ---- relationship terms ---------------------------------------------------------------------


def _relterms(ms: _Msg, s: _Sent, conf: float) -> None:
    body, base = s.body, s.start + s.body_off
    ms.rule_kind = "relterm"
    pt = ms.lang == "pt"
    rxs = _RELTERM_PT if pt else _RELTERM_EN
    done = _SpanSet()
    for idx, rx in enumerate(rxs):
        for m in rx.finditer(body):
            if done.overlaps((m.start(), m.end())):
                continue
            gd = m.groupdict()
            term = m.group("term").lower()
            adj = (gd.get("adj") or "").strip().lower()
            names = [m.group("name")]
            if term in _PLURAL_TERMS and gd.get("pw"):
                rest = body[m.end():]
                while True:
                    mm = _MORE_NAMES_RE.match(rest)
                    if not mm:
                        break
                    names.append(mm.group("name"))
                    rest = rest[mm.end():]
            names = [_trim_name(x) for x in names]
            names = [x for x in names if _is_name(x)]
            if not names:
                continue
            owner_raw = gd.get("owner")
            if owner_raw:
                owner_raw = _trim_name(owner_raw)
                if not _is_name(owner_raw):
                    continue
                ms.add_entity(owner_raw, "person", _RANK_PATTERN, base + m.start("owner"))
                owner_surface = owner_raw
            else:
                owner_surface = ms.speaker
            inferred = idx == 2 and not pt or "(" in m.group(0)
            c = min(conf, L.CONF_INFERRED) if inferred else conf
            is_pet = term in _PET_TERMS
            rel = "owns" if is_pet else _REL_TERMS.get(term, "related_to")
            is_ex = any(w in _EX_ADJ for w in adj.split()) or term.startswith("ex-")
            done.add((m.start(), m.end()))
            s.covered.append((m.start(), m.end()))
            term_text = (adj + " " + m.group("term")).strip() if adj else m.group("term")
            for nm in names:
                if fold(nm) == fold(owner_surface):
                    continue
                ms.add_entity(nm, "pet" if is_pet else "person", _RANK_PATTERN, base + m.start("name"))
                ms.note_gender(nm, term)  # "my wife Andrea": the noun's gender beats the name table
                if rel and not is_ex:
                    if rel == "reports_to":
                        ms.add_relation(owner_surface, "reports_to", nm, c)
                    else:
                        ms.add_relation(owner_surface, rel, nm, c)
                if pt:
                    t = term_text
                    if term in _PLURAL_TERMS and t.endswith("s"):
                        t = t[:-1]  # filhos -> filho, pais -> pai
                    text = f"{nm} é {t} de {owner_surface}"
                else:
                    if term in _PLURAL_TERMS and len(names) > 1:
                        text = f"{nm} is one of {owner_surface}'s {term_text}"
                    else:
                        text = f"{nm} is {owner_surface}'s {term_text}"
                attr = "pet" if is_pet else ("partner" if rel == "partner_of" and not is_ex else None)
                value = owner_surface if attr else None
                imp = "relationship_change" if not is_pet else "biographical_milestone"
                ms.add_fact(_fact(ms, s, nm, text, attr, value, imp, c, [owner_surface]))
    # "a dog named Max", "um cachorro chamado Rex"
    for m in _PET_NAMED_RE.finditer(body):
        if done.overlaps((m.start(), m.end())):
            continue
        nm = _trim_name(m.group("name"))
        if not _is_name(nm):
            continue
        pet_owner = _owner_before(ms, s, m.start())
        if not pet_owner:
            continue
        ms.add_entity(nm, "pet", _RANK_PATTERN, base + m.start("name"))
        ms.add_relation(pet_owner, "owns", nm, conf)
        term = m.group("term")
        text = (f"{nm} é {'a' if term.lower().endswith('a') else 'o'} {term} de {pet_owner}" if pt
                else f"{nm} is {pet_owner}'s {term}")
        s.covered.append((m.start(), m.end()))
        ms.add_fact(_fact(ms, s, nm, text, "pet", pet_owner, "biographical_milestone", conf, [pet_owner]))


def _owner_before(ms: _Msg, s: _Sent, pos: int) -> str | None:
    rx = _LAST_SUBJ_PT_RE if ms.lang == "pt" else _LAST_SUBJ_EN_RE
    last = None
    for m in rx.finditer(s.body[:pos]):
        last = m
    if last is None:
        return ms.speaker if ms.lang == "pt" or re.search(r"(?i)\b(?:i|my|we|our)\b", s.body[:pos]) else None
    w = last.group(0)
    if w.lower() in ("i", "we", "eu", "nós"):
        return ms.speaker
    nm = _trim_name(w)
    if not _is_name(nm):
        return ms.speaker
    ms.add_entity(nm, "person", _RANK_PERSONVERB)
    return nm


# ---- verb rules ---------------------------------------------------------------------------------


@dataclass
class _Subj:
    name: str  # fact subject (surface)
    kind: str  # speaker | we | name | pron | term | dropped | inherit
    start: int  # body offset where the subject text starts (-1: none in text)
    aux: str = ""
    owner: str | None = None  # for kind "term" (unnamed "my sister"): whose term
    inferred: bool = False
    lead: int = -1  # dropped subject: where the clause's leading adverbs/negation start
    others: list[str] = field(default_factory=list)  # "Ana and I": co-subjects
    surface: str = ""  # the subject as written ("My sister", "Ana and I"); "" when dropped


_PREP_END_RE = re.compile(r"(?i)(?<![\w'’])(?:in|at|to|from|for|with|of|on|em|no|na|de|do|da|para|com|pra|pro)\s+$")
_WORD_START_RE = re.compile(r"(?<![\w'’])[^\W_]")


def _tail_match(rx: re.Pattern[str], prefix: str) -> re.Match[str] | None:
    """Leftmost word start among the last 10 from which `rx` (anchored at the end) matches."""
    starts = [m.start() for m in _WORD_START_RE.finditer(prefix)][-10:]
    for pos in starts:
        m = rx.match(prefix, pos)
        if m:
            return m
    return None


def _subject(ms: _Msg, s: _Sent, verb_start: int, verb: str) -> _Subj | None:
    body, base = s.body, s.start + s.body_off
    lo = max(0, verb_start - _MAX_PREFIX)
    prefix = body[lo:verb_start]
    masked = _MASK_RE.sub(lambda m: " " * len(m.group(0)), prefix)
    pt = ms.lang == "pt"
    m = _tail_match(_TAIL_PT_RE if pt else _TAIL_EN_RE, masked)
    if m:
        aux = m.group("aux") or ""
        st = lo + m.start()
        sub = _subject_from_match(ms, s, m, aux, st, base)
        if sub is not None and sub.kind in ("name", "term") and _second_conjunct(ms, body[:st]):
            return None  # "Tyler and Rose got married": no fact for Rose alone (write/conjoined_subjects.py)
        if sub is not None and sub.kind != "dropped":
            sub.surface = body[st: lo + m.start("aux")].strip()
        if sub is not None or not m.group("name"):
            return sub
        # a stop-listed capitalised word ("Não", "Yesterday") is not a subject: look further
    return _subject_implicit(ms, s, lo, masked, verb_start, verb, base)


def _second_conjunct(ms: _Msg, prefix: str) -> bool:
    """The text before a verb rule's subject is "<person> and " at the sentence start: a person
    name the scan typed or a possessive kin / role phrase ("Jake and my sister got married")."""
    if ms.lang != "en" or not prefix.rstrip().endswith(("and", "&")):
        return False
    got = conjoined_subjects.first_conjunct(prefix)
    if got is None:
        return False
    name = got[0]
    return name is None or (ms.entity_type(name) == "person" or ms.key(name) in ms.pair_firsts) and not ms.is_speaker(name)


def _subject_from_match(ms: _Msg, s: _Sent, m: re.Match[str], aux: str, st: int, base: int) -> _Subj | None:
    lo = st - m.start()
    if m.group("comp"):
        other = _trim_name(m.group("cname") or m.group("cname2") or "")
        before = s.body[:st]
        if _is_name(other) and not _PREP_END_RE.search(before) and ms.entity_type(other) in ("person", "other"):
            return _Subj(ms.speaker, "compound", st, aux, others=[other])
        tail = re.search(r"(?i)(?:I|me|eu)$", m.group("comp"))  # the pattern ends "comp" with one
        i_at = lo + m.end("comp") - (len(tail.group(0)) if tail else 0) if m.group("cname") else st
        return _Subj(ms.speaker, "speaker", i_at, aux)
    if m.group("pron"):
        p = m.group("pron").lower()
        if p in ("i", "eu"):
            return _Subj(ms.speaker, "speaker", st, aux)
        if p in ("we", "nós"):
            return _Subj(ms.speaker, "we", st, aux)
        who = ms.last_person(base + st, p)
        return _Subj(who, "pron", st, aux, inferred=True) if who else None
    if m.group("poss"):
        tname = m.group("tname")
        owner_raw = m.group("owner")
        pw = (m.group("pw") or "").lower()
        owner: str | None
        if owner_raw:
            owner = _trim_name(owner_raw)
            if not _is_name(owner):
                return None
        elif pw in ("his", "her", "their"):
            owner = ms.last_person(base + st, pw)
            if not owner:
                return None
        else:
            owner = ms.speaker
        if tname and _is_name(_trim_name(tname)):
            return _Subj(_trim_name(tname), "name", st, aux)
        return _Subj(owner, "term", st, aux, owner=owner)
    if m.group("name"):
        nm = _trim_name(m.group("name"))
        low = nm.lower()
        if ms.lang == "pt" and " " not in nm and low in _PT_VERB_WORDS:
            # "Estou namorando ...": a capitalised verb, not a name
            return _Subj(ms.speaker, "dropped", -1, aux, lead=st) if low in L.PT_1SG_TO_3SG else None
        if _is_name(nm) or (ms.lang == "en" and ms.key(nm) in ms.resolved_people()):
            # ("Marco is a firefighter": a name the scan typed, though a stop list holds "marco")
            return _Subj(nm, "name", lo + m.start("name") + m.group("name").find(nm), aux)
    return None


def _subject_implicit(ms: _Msg, s: _Sent, lo: int, masked: str, verb_start: int, verb: str, base: int) -> _Subj | None:
    pt = ms.lang == "pt"
    # no explicit subject: dropped (1st person) or inherited after "and"/","
    words = [w.lower().replace("’", "'") for w in _WORD_RE.findall(masked)]
    for d in s.dates:
        if d.span[1] <= verb_start:
            for w in _WORD_RE.findall(d.phrase):
                if w.lower() in words:
                    words.remove(w.lower())
    vlow = verb.lower().split()[0]
    lead = verb_start
    for wm in reversed(list(_WORD_RE.finditer(masked))):
        if wm.group(0).lower().replace("’", "'") in _LEAD_ADV:
            lead = lo + wm.start()
        else:
            break
    if all(w in _IGNORABLE_PREFIX for w in words) and not re.search(r"[,;]\s*\w", masked.strip()) or not words:
        if pt:
            if vlow in L.PT_1SG_TO_3SG or (vlow.endswith("ei") and len(vlow) > 3) or vlow in ("saí", "fui", "me"):
                return _Subj(ms.speaker, "dropped", -1, " ".join(words), lead=lead)
            who = ms.last_person(base + verb_start)
            if who and vlow in L.PERSON_VERBS_PT:
                return _Subj(who, "pron", -1, " ".join(words), inferred=True)
            return None
        if not vlow.endswith("s") or vlow in ("was", "has"):
            return _Subj(ms.speaker, "dropped", -1, " ".join(words), lead=lead)
        return None
    if re.search(r"(?i)(?:\band|\be|\bthen|\bbut|\bmas|,)\s*$", masked) and s.last_subj:
        prev = s.last_subj
        return _Subj(prev.name, "inherit", -1, "", owner=prev.owner, inferred=prev.inferred,
                     others=list(prev.others), lead=-1 if prev.kind != "term" else -2,
                     surface=prev.surface or ("Eu" if pt else "I"))
    return None


def _verb_rules(ms: _Msg, s: _Sent, conf: float) -> None:
    body = s.body
    pt = ms.lang == "pt"
    used = _SpanSet()
    low = body.lower()
    present = {g for g in _ALL_RULE_GATES if g in low}
    hits: list[tuple[int, int, str, re.Match[str]]] = []
    for order, rule in enumerate(_RULES_PT if pt else _RULES_EN):
        gate = rule.gate
        if rule.kind == "occupation":
            if not (_OCC_GATE_PT if pt else _OCC_GATE_EN).search(body):
                continue
        elif isinstance(gate, tuple):
            if present.isdisjoint(gate):
                continue
        elif not gate.search(body):
            continue
        hits.extend((m.start("verb"), order, rule.kind, m) for m in rule.rx.finditer(body))
    # in text order (a clause's subject is known before "... and joined X" inherits it); at one
    # position the table's order decides
    for _, _, kind, m in sorted(hits, key=lambda h: (h[0], h[1])):
        if used.overlaps((m.start("verb"), m.end())):
            continue
        if _apply_rule(ms, s, kind, m, conf):
            used.add((m.start("verb"), m.end()))


@dataclass
class _Hit:
    """One verb rule's match on a clause, resolved step by step by `_apply_rule`."""

    kind: str
    m: re.Match[str]
    gd: dict[str, Any]
    vlow: str
    t_raw: str | None
    target: str | None
    origin: str | None
    subj: Any = None
    negated: bool = False
    retract: bool = False
    future: bool = False
    perfect: bool = False
    past: bool = False


# rule kinds whose pattern may match without a named target ("I'm a nurse", "I'm 30", "vegan")
_TARGET_OPTIONAL = frozenset({"occupation", "age", "status", "hired"})
_FUTURE_VERBS = frozenset({"moving", "relocating", "leaving", "quitting", "joining", "mudando", "vou sair", "vai sair"})
_GO_VERBS = ("go", "goes", "going", "attend", "attends", "attending", "attended", "student", "enrolled")


def _rule_hit(kind: str, body: str, m: re.Match[str]) -> _Hit | None:
    """The match's target and origin names; None when the rule does not apply after all."""
    gd = m.groupdict()
    vlow = re.sub(r"\s+", " ", m.group("verb").lower())
    t_raw = gd.get("t")
    target = None
    if t_raw:
        target = _trim_name(t_raw)
        if not _is_name(target) and not (kind == "hired" and t_raw.lower() == "me"):
            if kind != "occupation":
                return None
            target = None
    elif kind not in _TARGET_OPTIONAL:
        return None
    f_raw = gd.get("f")
    origin = _trim_name(f_raw) if f_raw else None
    if origin and not _is_name(origin):
        origin = None
    hit = _Hit(kind, m, gd, vlow, t_raw, target, origin)
    gate = _KIND_GATES.get(kind)
    return gate(hit, body) if gate else hit


def _gate_studies(h: _Hit, body: str) -> _Hit | None:
    """"goes to Paris" is not studying; "attends"/"studies in" need a school-looking name."""
    school = bool(_SCHOOL_WORDS.search(h.target or ""))
    if h.vlow.split()[0] in _GO_VERBS and not school:
        return None
    if not school and body[h.m.start("verb"):h.m.start("t")].lower().rstrip().endswith(" in"):
        return None
    return h


def _gate_works(h: _Hit, body: str) -> _Hit | None:
    """"works in Paris" is a place of work, not an employer."""
    if body[h.m.end("verb"):h.m.start("t")].strip().lower() == "in" and not re.search(
            r"(?i)\b(?:inc|corp|ltd|company)\b", h.target or ""):
        h.kind = "lives_works_in"
    return h


def _gate_status(h: _Hit, body: str) -> _Hit | None:
    """"is a retired Coast Guard officer": "retired" describes the officer, no status of the
    subject's (write/wellformed.attributive, session 17)."""
    st = h.m.start("st")
    article = bool(re.search(r"(?i)\b(?:a|an)\s+$", body[h.m.end("verb"):st]))
    return None if WF.attributive(body, article, h.m.end("st")) else h


_KIND_GATES: dict[str, Any] = {"studies": _gate_studies, "works": _gate_works, "status": _gate_status}


def _modality(ms: _Msg, s: _Sent, h: _Hit) -> None:
    """Negation, retraction ("no longer", "não ... mais"), future, perfect and past of the clause."""
    pt = ms.lang == "pt"
    aux = (h.subj.aux or "").lower()
    neg = h.gd.get("neg") or ""
    tail = h.gd.get("anymore") or h.gd.get("mais") or ""
    h.negated = bool((_PT_NEG if pt else _EN_NEG).search(aux + " " + neg))
    if pt:
        pre = s.body[max(0, h.m.start("verb") - 12):h.m.start("verb")].lower()
        h.negated = h.negated or bool(re.search(r"(?:não|nao|nunca)\s+(?:\w+\s+)?$", pre))
        tail = tail or (" mais" if re.search(r"(?<![\w])mais(?![\w])", aux) else "")
    no_longer = "no longer" in aux or "no longer" in neg.lower()
    h.retract = h.negated and (bool(tail.strip()) or no_longer)
    if h.kind == "occupation" and h.vlow.startswith(("lost ", "quit ", "left ")):
        h.retract = True  # "lost my job as a banker"
    h.future = bool((_PT_FUTURE_AUX if pt else _EN_FUTURE_AUX).search(aux)) or h.vlow in _FUTURE_VERBS
    h.perfect = bool(re.search(r"(?i)\b(?:have|has)\b|['’]ve", aux))
    h.past = (h.vlow in _EN_PAST_VERBS or h.vlow in _PT_PAST_VERBS or h.vlow == "grew up") and not h.perfect


def _register_names(ms: _Msg, s: _Sent, h: _Hit, ttype: str | None) -> tuple[list[str], str | None]:
    """Entities of the subject, target and origin; the fact's mentions and (maybe new) target."""
    base = s.start + s.body_off
    subj, target = h.subj, h.target
    if subj.kind == "name":
        etype = "person"
        if h.kind == "hired":
            etype = ms.known_types.get(ms.ctx.known_aliases.get(fold(subj.name), subj.name)) or "organization"
        ms.add_entity(subj.name, etype, _RANK_PATTERN, base + max(subj.start, 0))
    mentions: list[str] = []
    hired_me = h.kind == "hired" and (h.t_raw or "").lower() == "me"
    if target and not hired_me:
        ms.add_entity(target, ttype, _RANK_PATTERN, base + h.m.start("t"))
        mentions.append(target)
    if hired_me and target:
        target = ms.speaker
        mentions.append(target)
    if h.origin:
        ms.add_entity(h.origin, "place", _RANK_PATTERN, base + h.m.start("f"))
        mentions.append(h.origin)
    return mentions, target


# ---- the attribute value each kind records (default: the target's name) -------------------------
def _value_age(h: _Hit, fact_attr: str | None) -> tuple[str | None, str | None] | None:
    value = h.gd["age"]  # the rule's pattern always has the group
    if not (h.gd.get("yo") or h.vlow in ("turned", "turn", "turns", "turning")) and int(value) > 120:
        return None
    return value, fact_attr


# a lower-case word after "<X>'s <role>" that makes the role a modifier of a possessed noun
_POSSESSED_ROLE_RE = re.compile(
    r"\s+(?!(?:at|for|with|in|on|and|or|but|now|too|who|since|from|of|by|here|there|again|anymore|already"
    r"|yet|again|today|now|full|part)\b)[a-z]")


def _value_occupation(h: _Hit, fact_attr: str | None) -> tuple[str | None, str | None] | None:
    if h.vlow in ("'s", "’s") and not re.search(r"(?i)(?<![\w'’])an?\s", h.m.group(0)) \
            and _POSSESSED_ROLE_RE.match(h.m.string, h.m.end("role")):
        return None  # "Mia's dentist appointment is ...": a possessive, not "Mia is a dentist"
    value = re.sub(r"\s+", " ", h.m.group("role").lower())
    if h.past and not h.perfect or h.vlow in ("was", "era", "fui", "foi"):
        fact_attr = None
    return value, fact_attr


def _value_status(h: _Hit, fact_attr: str | None) -> tuple[str | None, str | None] | None:
    st = h.m.group("st").lower()
    return st, (None if h.vlow in ("was", "era") else L.STATUS_ATTR.get(st))


_KIND_VALUES: dict[str, Any] = {"age": _value_age, "occupation": _value_occupation, "status": _value_status}


def _apply_rule(ms: _Msg, s: _Sent, kind: str, m: re.Match[str], conf: float) -> bool:
    """One verb rule's match -> entities, a fact and relations. The steps are table-driven:
    `_KIND` (relation, attribute, target type, importance per kind), `_KIND_GATES` (when a
    kind does not apply), `_KIND_VALUES` (what value a kind records), `_KIND_RELATIONS` (the
    edges a kind adds)."""
    h = _rule_hit(kind, s.body, m)
    if h is None:
        return False
    h.subj = _subject(ms, s, m.start("verb"), m.group("verb"))
    if h.subj is None:
        return False
    ms.rule_kind = f"verb.{h.kind}"
    _modality(ms, s, h)
    # every rule kind is in _KIND; "lives_works_in" ("works in Paris") comes from _gate_works
    rel, attr, ttype, imp = _KIND.get(h.kind, (None, None, "place", "specific_event"))
    if h.kind == "join" and h.target and _CLUB_WORDS.search(h.target):
        rel, attr = "member_of", "membership"
    if h.kind == "hired" and h.subj.kind == "dropped" and ms.lang == "pt" and "me" in h.vlow:
        return False
    mentions, target = _register_names(ms, s, h, ttype)
    c = min(conf, L.CONF_INFERRED) if h.subj.inferred else conf
    span_start, fact_text, edate = _rule_fact_text(ms, s, h)
    s.last_subj = h.subj
    if h.subj.kind == "term" or h.subj.lead == -2:
        # "my sister lives in X": a fact about the speaker's relative, not the speaker's location
        ms.add_fact(_fact(ms, s, h.subj.owner or ms.speaker, fact_text, None, None, imp, c, mentions, edate=edate))
        s.covered.append((span_start, m.end()))
        return True
    value_of = _KIND_VALUES.get(h.kind)
    got = value_of(h, attr) if value_of else (target, attr)
    if got is None:
        return False
    value, fact_attr = got
    fact_attr, value, rel, imp, retracts, retract_value = _apply_modality(h, fact_attr, value, rel, imp, fact_text)
    ms.add_fact(_fact(ms, s, h.subj.name, fact_text, fact_attr, None if fact_attr in (None, "plan") else value,
                      imp, c, mentions, retracts=retracts, retract_value=retract_value, edate=edate))
    if h.kind == "works" and h.gd.get("role") and fact_attr == "employer":
        _role_fact(ms, s, h, c, edate)
    for other in h.subj.others:
        ms.add_entity(other, "person", _RANK_PATTERN, s.start + s.body_off + max(h.subj.start, 0))
    emit = _KIND_RELATIONS.get(h.kind, _rel_default)
    for src in [h.subj.name, *h.subj.others]:
        emit(ms, h, src, target, rel, c)
    s.covered.append((span_start, m.end()))
    return True


def _who_of(ms: _Msg, pron: str | None) -> _Who:
    """Who the rewrite names: the speaker, the pronoun's referent, the addressee, with the
    chunk's parses (a coordinated verb is parse-confirmed: write/agreement.py)."""
    from arandu_pipelines.write import parses as chunk_parses

    return _Who(ms.speaker, pron=pron, addr=ms.addressee or ms.default_addressee, pron_gender=ms.person_gender(pron),
                parses=chunk_parses.for_context(ms.ctx, ms.ctx.spacy_model))


def _rule_fact_text(ms: _Msg, s: _Sent, h: _Hit) -> tuple[int, str, datetime | None]:
    """The clause from its subject to the match's end, in third person, dates resolved."""
    subj, pt = h.subj, ms.lang == "pt"
    span_start = subj.start if subj.start >= 0 else (subj.lead if subj.lead >= 0 else h.m.start("verb"))
    clause = s.body[span_start:h.m.end()]
    pron = subj.name if subj.kind == "pron" else None
    who = _who_of(ms, pron)
    if subj.kind == "dropped":
        # [recon] "Still working at Acme" -> "I am still working at Acme" (a progressive needs its "am")
        am = "am " if not pt and h.vlow.endswith("ing") else ""
        clause = ("Eu " if pt else "I " + am) + _lower_first(clause, clause.startswith("I ") or clause[:2] == "I'")
    elif subj.kind == "inherit":
        clause = f"{subj.surface} {clause}"
    fact_text, edate = _dates_in_clause(ms, s, _rewrite(clause, ms.lang, who), span_start, h.m.end(),
                                        append=_is_event_kind(h.kind, h.vlow), inside=h.kind != "age")
    return span_start, fact_text, edate


def _apply_modality(
    h: _Hit, fact_attr: str | None, value: str | None, rel: str | None, imp: str, fact_text: str,
) -> tuple[str | None, str | None, str | None, str, bool, str | None]:
    """(attribute, value, relation, importance, retracts, retract_value) after modality."""
    if h.retract:
        if h.kind == "occupation" and not fact_attr:
            fact_attr = "occupation"
        if h.kind == "status":
            fact_attr = L.STATUS_ATTR.get(h.m.group("st").lower())
        return fact_attr, None, rel, "relationship_change", True, value
    if h.negated:
        return None, None, None, _importance(fact_text), False, None
    if h.future:
        return "plan", None, None, "specific_event", False, None
    if h.kind in ("leave", "breakup"):
        return fact_attr, None, rel, imp, True, h.target
    if h.past and h.kind in ("lives", "works", "studies", "member"):
        return None, None, ("former_employee_of" if h.kind == "works" else None), "specific_event", False, None
    return fact_attr, value, rel, imp, False, None


def _role_fact(ms: _Msg, s: _Sent, h: _Hit, c: float, edate: datetime | None) -> None:
    """"I work at Acme as a backend engineer": the role is an occupation fact of its own."""
    body, m = s.body, h.m
    as_at = body.lower().rfind(" as ", m.end("t"), m.start("role") + 1)
    role_text = body[as_at + 1:m.end("role")] if as_at >= 0 else "as " + m.group("role")
    ms.add_fact(_fact(ms, s, h.subj.name, f"{h.subj.name} works {role_text}", "occupation",
                      m.group("role").lower(), "biographical_milestone", c, [], edate=edate))


# ---- the edges each kind adds, per subject (each co-subject of "Ana and I" gets them) -------------
def _rel_hired(ms: _Msg, h: _Hit, src: str, target: str | None, rel: str | None, c: float) -> None:
    if target and not h.future and not h.negated:
        ms.add_relation(src, "hired", target, c)
        if ms.entity_type(src) == "organization":
            ms.add_relation(target, "works_at", src, c)


def _rel_occupation(ms: _Msg, h: _Hit, src: str, target: str | None, rel: str | None, c: float) -> None:
    if target and not h.future and not h.negated:
        ms.add_relation(src, "works_at", target, c)


def _rel_leave(ms: _Msg, h: _Hit, src: str, target: str | None, rel: str | None, c: float) -> None:
    if target and not h.future:
        ms.add_relation(src, "former_employee_of", target, c)
        ms.add_relation(src, "works_at", target, c, retracts=True)


def _rel_breakup(ms: _Msg, h: _Hit, src: str, target: str | None, rel: str | None, c: float) -> None:
    if target and not h.future:
        ms.add_relation(src, "partner_of", target, c, retracts=True)


def _rel_default(ms: _Msg, h: _Hit, src: str, target: str | None, rel: str | None, c: float) -> None:
    if h.retract and target and rel:
        if rel == "works_at":
            ms.add_relation(src, "former_employee_of", target, c)
        ms.add_relation(src, rel, target, c, retracts=True)
    elif rel and target and not h.negated and not h.future:
        ms.add_relation(src, rel, target, c)
        if h.kind == "move" and h.origin and fold(h.origin) != fold(target):
            ms.add_relation(src, "lives_in", h.origin, c, retracts=True)


_KIND_RELATIONS: dict[str, Any] = {
    "hired": _rel_hired, "occupation": _rel_occupation, "leave": _rel_leave, "breakup": _rel_breakup,
}


def _is_event_kind(kind: str, vlow: str) -> bool:
    """Clauses that happen at a time (a date elsewhere in the sentence dates them); states do not
    ("Sou vegetariana há 5 anos" is a duration, not an event 5 years ago)."""
    if kind in ("move", "join", "leave", "hired", "partner", "breakup"):
        return True
    if kind == "age":
        return vlow.startswith("turn") or vlow in ("fiz", "fez", "faz", "faço", "completei", "completou", "completa", "completo")
    return vlow.endswith("ed") and vlow not in ("based", "employed", "married", "engaged", "settled")


def _dates_in_clause(
    ms: _Msg, s: _Sent, fact_text: str, a: int, b: int, append: bool = True, inside: bool = True
) -> tuple[str, datetime | None]:
    """Absolutize dates inside the clause; append the sentence's first date outside it (events only)."""
    if not s.dates:
        return fact_text, None
    new = fact_text
    if inside:
        new, spans = absolutize_with_spans(fact_text, ms.ctx.occurred_at, ms.ctx.timezone, calendar=True)
        if spans:
            return new, spans[0][2].start
    if not append:
        return new, None
    for d in s.dates:
        if not (a <= d.span[0] < b):
            return f"{new} {render(d)}", d.start
    return new, None


def _fact(
    ms: _Msg, s: _Sent, subject: str, text: str, attr: str | None, value: str | None, imp: str, conf: float,
    mentions: list[str], retracts: bool = False, retract_value: str | None = None,
    edate: datetime | None = None, ctx_note: str | None = None,
) -> ExtractedFact:
    s.n_facts += 1
    return ExtractedFact(
        subject=subject, fact_text=text, attribute_key=attr, value=value, importance_category=imp,
        confidence=conf, retracts=retracts, retract_value=retract_value, event_date=edate,
        source_context=ctx_note, mentions=list(mentions), source_text=s.text, rule_kind=ms.rule_kind,
    )


# ---- generic fact ---------------------------------------------------------------------------------


def _generic(ms: _Msg, s: _Sent, conf: float) -> None:
    body = s.body
    pt = ms.lang == "pt"
    if s.covered:
        rest = body
        for a, b in sorted(s.covered, reverse=True):
            rest = rest[:a] + " " + rest[b:]
        if _content_words(rest) < 2:
            return
    if s.antecedent:
        text = _with_antecedent(body.strip(), s.antecedent)
    elif ms.cross_turn:
        from arandu_pipelines.write.antecedents import apply as apply_antecedents

        text = apply_antecedents(body, s.start + s.body_off, ms.cross_turn).strip()
    else:
        text = body.strip()
    text = _HEDGE_PREFIX_RE.sub("", text) or text
    subj, kind = _generic_subject(ms, s, text)
    min_content = 1 if kind != "none" else 2
    if _content_words(text) < min_content and not (_BELIEF_PT_RE if pt else _BELIEF_EN_RE).match(text):
        return
    pron = subj if kind == "pron" else None
    who = _who_of(ms, pron)
    if kind == "dropped_en":
        lead = text.lstrip()
        adv = ""
        m0 = re.match(r"(?i)(?:(?:just|finally|also|really|recently|totally|still)\s+)+", lead)
        if m0:
            adv, lead = m0.group(0).lower(), lead[m0.end():]
        w0 = _WORD_RE.match(lead)
        first = w0.group(0).lower().replace("’", "'") if w0 else ""
        rest = lead[len(w0.group(0)):] if w0 else lead
        if re.match(r"(?i)\s*me\b", rest) and first not in ("miss", "love", "loved", "like", "liked"):
            return  # "Really made me think", "Took me ages": the dropped subject is "it", not the speaker
        verb = _EN_DROPPED_START.get(first, ("is " + first) if first.endswith("ing") else first)
        if adv and verb.startswith(("is ", "has ")):
            aux, _, tail = verb.partition(" ")
            verb = f"{aux} {adv}{tail}"
        else:
            verb = adv + verb
        fact_text = f"{ms.speaker} {verb}{rewrite_en(rest, who)}"
    else:
        fact_text = _rewrite(text, ms.lang, who)
    # dates after the person rewrite, so "Ontem fui" -> "Ontem Rafael foi" -> "Em 7 de maio de 2023 Rafael foi"
    spans: list[tuple[int, int, TemporalMention]] = []
    if s.dates:
        fact_text, spans = absolutize_with_spans(fact_text, ms.ctx.occurred_at, ms.ctx.timezone, calendar=True)
    edate = spans[0][2].start if spans else None
    abs_text = text
    fact_text = _clean(fact_text)
    if not fact_text:
        return
    c = conf
    if kind == "pron":
        c = min(conf, L.CONF_INFERRED)
    if kind != "none" and fold(subj) not in fold(fact_text):
        kind = "none"  # "Taking care of ourselves is vital": the subject did not survive the rewrite
    # A statement of value whose first clause has no person as its subject ("Talking about
    # inclusion is crucial, and you ...") is the speaker's belief.
    belief = _belief(ms, fact_text, abs_text) if kind in ("none", "addr", "speaker") else None
    said_kind = "generic.belief"
    if belief is None and kind in ("none", "speaker"):
        belief, said_kind = _dream(ms, fact_text), "generic.dream"
    if belief is not None:
        fact_text, subj, kind = belief, ms.speaker, "speaker"
        ms.rule_kind = said_kind
    if kind == "none":
        # A sentence with no person as its subject ("That's awesome", "Hold onto those moments")
        # is talk, not a fact about anyone: it stays searchable on the event, no fact.
        return
    low = abs_text.lower()
    if _PLAN_RE.search(abs_text) and not (pt is False and re.search(r"(?i)\b(?:went|was|were|had|did)\b", low)):
        attr = "plan"
    elif _PREF_RE.search(abs_text) or kind == "dropped_en" and _PREF_START_RE.match(abs_text.lstrip()):
        attr = "preference"
    elif (_PAST_PT_RE if pt else _PAST_EN_RE).search(abs_text):
        attr = "event"
    else:
        attr = None
    imp = _importance(body)
    if imp == "conversational" and attr in ("preference",):
        imp = "stable_preference"
    if fold(fact_text) in (f"{ms.sp_fold} is {ms.sp_fold}", f"{ms.sp_fold} e {ms.sp_fold}",
                           f"{ms.sp_fold}'s name is {ms.sp_fold}", f"o nome de {ms.sp_fold} e {ms.sp_fold}"):
        return  # "I'm Rafael." said by Rafael
    mentions = _mentions_in(ms, s, fact_text, subj)
    fact_text = fact_text[:1].upper() + fact_text[1:]
    if belief is None:  # generic.<subject kind>.<attribute>: "generic.speaker.event", "generic.addr.plain"
        ms.rule_kind = f"generic.{kind}.{attr or 'plain'}"
    generic = _fact(ms, s, subj, fact_text, attr, None, imp, c, mentions, edate=edate)
    ms.generic.append(generic)  # a restated sentence, not a rule's match: refine() is strict with it
    ms.add_fact(generic)


_VALUE_EN = _alt(L.VALUE_WORDS_EN)
_VALUE_PT = _alt(L.VALUE_WORDS_PT)
# "<subject phrase> is/are (so) crucial ...", "It's (really) important to/that ..."
_BELIEF_EN_RE = re.compile(
    rf"(?i)^(?:(?:it|it's|it’s)\s+(?:is\s+|was\s+)?(?:(?:so|really|very|super|truly|always)\s+)*(?:{_VALUE_EN})\s+(?:to|that)\s"
    rf"|[a-z][\w'’-]*(?:\s+[\w'’-]+){{0,8}}?\s+(?:is|are)\s+(?:(?:so|really|very|super|truly|always)\s+)*(?:{_VALUE_EN})\b)")
_BELIEF_PT_RE = re.compile(
    rf"(?i)^(?:(?:é|e)\s+(?:(?:muito|super|tão)\s+)?(?:{_VALUE_PT})\s+|[a-zà-ú][\w-]*(?:\s+[\w-]+){{0,8}}?\s+(?:é|são)\s+"
    rf"(?:(?:muito|super|tão)\s+)?(?:{_VALUE_PT})\b)")
# generic "you"/"ourselves"/"oneself" in a value statement: about people in general
_GENERIC_YOU_RE = re.compile(r"(?i)\b(?:you|your|yourself|yourselves|ourselves|oneself|você|voce|vc)\b")
# "Networking really pays off": a gerund followed by an adverb is the sentence's subject,
# not a first-person sentence with its "I'm" dropped
_GERUND_SUBJECT_NEXT = frozenset(["really", "just", "always", "truly", "definitely", "sure", "totally", "actually", "also"])
_FIRST_CLAUSE_RE = re.compile(r"\s*(?:[,;:–—]|\s-\s)\s*")
_PRONOUN_START_RE = re.compile(r"(?i)^(?:that|this|these|those|which|what|i|i'm|we|he|she|they|you"
                               r"|isso|isto|aquilo|eu|nós|ele|ela|eles|elas)\b")


def _belief(ms: _Msg, text: str, said: str) -> str | None:
    """A general statement of value with no person as its subject ("Talking about inclusivity
    and acceptance is crucial", "É fundamental ter apoio") is what the speaker believes:
    "<speaker> believes talking about ...". Only its first clause is kept; generic "you"
    ("having faith in yourself is key") has no addressee to resolve to, so such a clause (in
    `said`, the sentence as written) is left out."""
    rx = _BELIEF_PT_RE if ms.lang == "pt" else _BELIEF_EN_RE
    body = _FIRST_CLAUSE_RE.split(text.strip(), 1)[0].strip().rstrip("!.")
    head = _FIRST_CLAUSE_RE.split(said.strip(), 1)[0]
    if (_GENERIC_YOU_RE.search(head) or _PRONOUN_START_RE.match(head.lstrip()) or body.startswith(ms.speaker)
            or not rx.match(body)):
        return None
    verb = "acredita que" if ms.lang == "pt" else "believes"
    return f"{ms.speaker} {verb} {body[:1].lower() + body[1:]}"


_DREAM_RE = re.compile(
    r"(?i)\bit(?:['’]s|\s+is|\s+has|\s+was)?\s+(?:always\s+)?(?:been\s+)?(?:(?:a|one)\s+|[\w'’]+['’]s\s+)"
    r"(?:big\s+|long-?time\s+|lifelong\s+)?dream(?:\s+of\s+[\w'’]+)?\s+to\s+(?P<x>[^,;:–—]+)")


def _dream(ms: _Msg, text: str) -> str | None:
    """"It's been a dream to have a family" (the rewrite of "it's been my dream ...") says what
    the speaker dreams of: "<speaker>'s dream is to have a family"."""
    if ms.lang == "pt":
        return None
    m = _DREAM_RE.search(text)
    if not m:
        return None
    x = re.split(r"\s+-\s+", m.group("x"), maxsplit=1)[0].strip().rstrip("!.")
    if len(x.split()) < 2:
        return None
    return f"{ms.speaker}{'' if ms.speaker.endswith('s') else chr(39) + 's'} dream is to {x}"


# "Creating community and supporting each other, especially for kids, is really important",
# "Supporting each other - that's so inspiring": the -ing phrase is the subject of a judgement,
# not a first-person sentence with its "I'm" dropped
_GERUND_JUDGED_RE = re.compile(
    rf"(?i)(?:,|\s[-–—]+)?\s(?:is|are|was|that['’]s|it['’]s)\s+(?:(?:so|really|very|super|truly|just|always)\s+)*"
    rf"(?:{_VALUE_EN}|inspiring|amazing|awesome|great|cool|wonderful|rewarding|fun)\b")


def _generic_subject(ms: _Msg, s: _Sent, text: str) -> tuple[str, str]:
    """(subject, kind) of a sentence: kind speaker | name | pron | addr | dropped_en | none."""
    pt = ms.lang == "pt"
    base = s.start + s.body_off + (s.body.find(text) if text in s.body else 0)
    words = list(_WORD_RE.finditer(text))
    if not words:
        return ms.speaker, "none"
    k0 = 0
    while k0 < len(words) - 1 and words[k0].group(0).lower() in ("just", "finally", "also", "really", "recently", "totally",
                                                                   "still"):
        k0 += 1
    first = words[k0].group(0).lower().replace("’", "'")
    nxt = words[k0 + 1].group(0).lower() if k0 + 1 < len(words) else ""
    if first == "been" and not nxt.endswith(("ing", "ed")) and nxt not in ("busy", "to", "only"):  # "Been busy painting"
        first = ""
    # chat often starts a sentence in lower case ("sprained my finger bouldering"): the first word counts too
    opens = words[k0].group(0)[:1].isupper() or not text[:words[k0].start()].strip()
    if not pt and first not in _EN_DROPPED_START and opens and len(words) > k0 + 1:
        if (first in L.IRREGULAR_PAST_EN or (first.endswith("ed") and len(first) > 4 and first not in L.EVALUATIVES)) and (
            nxt in ("my", "a", "an", "the", "some", "to", "up", "out", "our", "back", "in", "on", "off", "with", "into")  # not "me": "Made me think" drops "it"
        ) and first not in _NON_NAME:
            return ms.speaker, "dropped_en"
        # "Researching adoption agencies — it's been a dream": only the first clause must lack a verb
        if (first.endswith("ing") and len(first) > 5 and not _FINITE_RE.search(_FIRST_CLAUSE_RE.split(text, 1)[0])
                and first not in L.EVALUATIVES and nxt not in _GERUND_SUBJECT_NEXT
                and nxt not in ("but", "and", "or", "so", "too", "as") and not _GERUND_JUDGED_RE.search(text)
                and not WF.gerund_is_subject(first, text[words[k0].start():])):  # "Nothing beats", "Fostering lets me"
            return ms.speaker, "dropped_en"
    if not pt and first in ("gonna", "going") and re.match(r"(?i)(?:gonna|going\s+to)\s+be\s+(?:a|an|the|such)\b",
                                                          text[words[k0].start():]):
        return ms.speaker, "none"  # "Gonna be a big change": the dropped subject is "it", not the speaker
    # ("Like 3 hours total": a "like" before an amount is the hedge "about", not the verb)
    if not pt and first in _EN_DROPPED_START and first not in ("just", "finally") and not (
            first == "like" and (GD.like_amount(text[words[k0].start():])
                                 or (WF.simile(text[words[k0].start():]) and not ms.text[:s.start].strip()))):
        # "Love that painting!", "Gonna continue my edu", "Went hiking today"
        return ms.speaker, "dropped_en"
    if pt and _pt_dropped_verb(_TOKEN_RE.findall(text)) is not None:
        return ms.speaker, "speaker"
    for w in words:
        raw = w.group(0)
        low = raw.lower().replace("’", "'")
        if pt:
            if low in ("eu", "meu", "minha", "meus", "minhas", "mim", "comigo", "nós", "nosso", "nossos", "nossas") or (
                low == "gente" and text[max(0, w.start() - 2):w.start()].lower() == "a "
            ):
                return ms.speaker, "speaker"
            if low in ("ele", "ela", "dele", "dela"):
                who = ms.last_person(base + w.start(), low)
                if who:
                    return who, "pron"
                continue
            if low in ("você", "voce", "vc") and (addressee := ms.addressee or ms.default_addressee):
                return addressee, "addr"
        else:
            if low in L.SELF_PRONOUNS_EN or low in L.WE_PRONOUNS_EN:
                if low == "us" and raw == "US":
                    continue
                return ms.speaker, "speaker"
            if low in ("he", "she", "him", "his", "he's", "she's", "he'd", "she'd", "he'll", "she'll") or (low == "her"):
                who = ms.last_person(base + w.start(), low)
                if who:
                    return who, "pron"
                continue
            if low in ("you", "your", "you're", "you've", "you'd", "you'll") and (
                    addressee := ms.addressee or ms.default_addressee):
                return addressee, "addr"
        k = ms.key(raw)
        if raw[:1].isupper() or _CL_RE.match(raw):
            # multi-word names: try the proper-noun span starting here
            pm = _PROPER_RE.match(text, w.start())
            cand = _trim_name(pm.group(0)) if pm else raw
            k = ms.key(cand)
            if k in ms.ents and k != ms.sp_fold and ms.ents[k].entity_type in ("person", "pet"):
                return cand, "name"
            if k == ms.sp_fold:
                return ms.speaker, "name"
        elif k in ms.ents and k != ms.sp_fold and ms.ents[k].entity_type in ("person", "pet"):
            return raw, "name"
    return ms.speaker, "none"


def _mentions_in(ms: _Msg, s: _Sent, fact_text: str, subject: str) -> list[str]:
    out: list[str] = []
    ft = fold(fact_text)
    a, b = s.start + s.body_off, s.start + len(s.text)
    for pos, k in ms.mention_pos:
        if a <= pos < b and k in ms.ents and k != ms.key(subject):
            e = ms.ents[k]
            names = [e.name] + e.aliases
            if any(fold(n) and fold(n) in ft for n in names) and e.name not in out:
                out.append(e.name)
    return out


__all__ = ["detect_language", "extract_offline", "rewrite_en", "rewrite_pt", "split_sentences"]

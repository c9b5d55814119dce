"""Conversational filler kept as facts: small talk recognised by its FORM, a table of rows.

A chat's turns carry much that is addressed to the listener rather than said about anyone:
asking to hear their news, regards for their family, "been good, busy", a reaction to what they
just said. The rule engine restates such sentences like any other ("S wants to hear every detail
of it", "Say hi to L's dad and Rosa for S", "S loves that way of thinking"), and a held-out probe
in LoCoMo's register (docs/facts.md, session 13, branch filler13c) showed them as the main loss
of "supported" there. Each row of `ROWS` is one form, written as a regex over the fact's final
text with the fact's subject (`{S}`) and the message's addressee (`{L}`) filled in; a row never
keys on a topic word, only on the grammar of the form (the verb of wanting to hear, the greeting
imperative, a copula with a state and nothing after it, a verb of evaluation with a demonstrative
object). `fact_quality.CHECKS` runs each row as its own check named `small_talk_<row>` over the
free-text facts only (a rule's match such as "lives in" is never judged here), after every other
check, so a row's drop count is what it adds.

| row          | drops (form)                                                  | keeps                           |
|--------------|---------------------------------------------------------------|---------------------------------|
| hear_news    | wanting/longing to hear or know + the listener's news: a      | "S wants to hear back from the  |
|              | wh-clause, "every detail", "all about", "more (about it)",    | university about ..." (a plan), |
|              | "hear everything / all of it / the whole story"               | "S wants to see everything in X"|
| regards      | greetings passed on: "Say hi to ...", "Give/Send S's regards/ | "S visited L's dad"             |
|              | love to ...", "Tell L's mom S said hello"                     |                                 |
| how_are_you  | state of being with no object: "S has been good, busy",       | "S is good at chess", "S has    |
|              | "Things are a bit hectic on S's side right now", "S is still  | been busy renovating the house" |
|              | floating", "S is doing well"                                  |                                 |
| hungry       | a state the listener's words caused: "S is getting hungry     |                                 |
|              | just thinking about it"                                       |                                 |
| happy_day    | a greeting "Happy Saturday!" read as a mood: "S is happy      | "S is happy with the new job"   |
|              | Saturday", "S is happy Saturday is here"                      |                                 |
| evaluation   | evaluation of the listener's idea with a demonstrative:       | "S loves that café in Lisbon",  |
|              | "S loves that way of thinking", "S likes the sound of that"   | "S loves painting"              |
| hearsay      | "S hears those are the hard parts" (present "hears" + a       | "S heard from the university"   |
|              | pronoun-led clause: a reply, not news)                        |                                 |
| recall       | "S remembers L said it was coming up" (the listener's words)  | "S remembers S's first concert" |
| guess        | "S imagines it's not easy for him ...", "S guesses that's ..."| "S figured out the bug"         |
| comparative  | a fragment opening with a comparative: "Better than S         | "S is better at swimming than   |
|              | expected", "Way more fun than ..."                            | running"                        |
| leave_taking | leaving the chat or where the turn is written from (undated   | "S needs to go get a checkup"   |
|              | facts only): "S has to run now", "S is off to a swim", "S is  | (an errand), "S is off to Lisbon|
|              | writing from the parking lot"                                 | for work", "S has to run a race"|
| ellipsis     | VP ellipsis, an auxiliary with no complement: "S has too",    | "S and others did it in under   |
|              | "S is, honestly", "S and others did, on S's fourth day"       | two hours", "S is, honestly, X" |
| turn_taking  | "Enough about S" / "But enough about S and others" (session 14)| "S has had enough of S's boss"  |
| news_teaser  | news announced, not told: "S has some big news", "S's news is | "S has big news about S's job:  |
|              | a bit bigger than S expected" (session 14)                    | S got promoted"                 |
| leave_reason | in a CLOSING turn only (`closing_turn`: "Talk soon!", "Gotta  | the same fact in a turn with no |
|              | run", "I have to go, ..."), undated: "S has game film to watch| goodbye, or dated ("... to run  |
|              | before practice", "S is heading there right after the chat",  | tomorrow"): a plan; a LASTING   |
|              | a momentary state of S's things: "S's dinner is burning"      | reason is cut to what S has     |
|              | (session 15)                                                  | ("S has two kids to take care   |
|              |                                                               | of" -> "S has two kids",        |
|              |                                                               | `lasting_reason`, session 15)   |

Closing rows read the message through `turn()` (a ContextVar set by extract_offline around refine).

What each row dropped on the dev pair, and how much of it matched gold: docs/facts.md
("Conversational filler by its form"). English only: a Portuguese fact matches no row.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache

from arandu_pipelines.write import lexicon as L

# degree words that may sit between a copula and its state ("a bit", "pretty", "so")
_DEG = r"(?:(?:so|really|very|pretty|super|quite|a\s+bit|a\s+little|kinda|kind\s+of|too|all|just|still|doing|been)\s+)*"
# what may follow a state and still say nothing: a time word, "on S's side/end", "lately", "thanks"
_TIME = r"(?:right\s+now|now|lately|these\s+days|at\s+the\s+moment|recently|today|this\s+week|as\s+usual|as\s+always" \
        r"|thanks(?:\s+for\s+asking)?|though|too|honestly|mostly|overall|I\s+guess)"
_SIDE = r"(?:(?:on|at|over|in)\s+{S}['’]s\s+(?:side|end|part)|for\s+{S}|here)"
_TAIL = rf"(?:[,\s]+(?:{_SIDE}|{_TIME}))*\W*$"
# a wellness state said to "how are you?"
_WELL = r"(?:good|well|fine|ok|okay|alright|all\s+right|great|busy|hectic|crazy|swamped|not\s+bad|hanging\s+in|surviving" \
        r"|floating|buzzing|glowing|beaming|chilling|chill|quiet|calm|slow|nuts|wild|so-so|hanging\s+in\s+there)"


@dataclass(frozen=True)
class Row:
    """One form of small talk: `pattern` is a template over the fact's text, `{S}` its subject,
    `{L}` the addressee (a pattern needing `{L}` is skipped when there is none)."""

    name: str
    pattern: str
    undated: bool = False  # the row drops only facts without a resolved date (a dated one is a plan)
    closing: bool = False  # the row drops only in a turn that closes the chat (`closing_turn`)


ROWS: tuple[Row, ...] = (
    # wanting to hear/know + the listener's news; "hear back from", "hear from" (a reply awaited) stay
    Row("hear_news",
        r"^{S}\s+(?:wants|would\s+love|['’]d\s+love|loves|is\s+dying|is\s+eager|is\s+curious|can['’]?t\s+wait|is\s+excited"
        r"|needs)\s+to\s+(?:hear|know|see)\s+(?!back\b|from\b)"
        r"(?:(?:how|what|when|where|who|why|whether|if)\b(?!\s+to\b)|every\s+(?:detail|bit)|(?:some\s+|the\s+)?(?:pics|pictures|photos)\b"
        r"|(?:(?:all|more)\s+)?about\s+(?:it|that|this|them|those|{L}\b|{L}['’]s\b)|more\W*$|all\s+the\s+details)"
        r"|^{S}\s+(?:wants|would\s+love|['’]d\s+love|is\s+dying|can['’]?t\s+wait)\s+to\s+hear\s+(?:all|more)\s+about\b"
        # "hear everything / all of it / the whole story": the listener's news, whatever it is about
        r"|^{S}\s+(?:wants|would\s+love|['’]d\s+love|loves|is\s+dying|is\s+eager|can['’]?t\s+wait|needs)\s+to\s+hear\s+"
        r"(?:(?:absolutely|just)\s+)?(?:everything|all\s+of\s+(?:it|that|this|them)|(?:the\s+)?whole\s+(?:story|thing)"
        r"|all\s+the\s+(?:news|stories|details))\b"),
    # greetings passed on, as an imperative or a statement
    Row("regards",
        r"^(?:{S}\s+(?:says|sends|said)\s+)?(?:say\s+(?:hi|hello|hey)|send\s+(?:\w+['’]s\s+|my\s+)?(?:love|regards|best|hugs)"
        r"|give\s+(?:\w+['’]s\s+|my\s+)?(?:love|regards|best|hugs)|tell\s+.{1,40}?\s+(?:{S}\s+)?said\s+(?:hi|hello|hey)"
        r"|give\s+.{1,40}?\s+a\s+(?:big\s+)?(?:hug|kiss|pat|scratch)\s+(?:from|for)\s+{S})\b"
        r"|^{S}\s+(?:says|sends)\s+(?:hi|hello|hey|(?:{S}['’]s\s+)?(?:love|regards|best))\s+to\s+"
        r"(?:him|her|them|everyone|{L}\b|\w+['’]s\s+\w+)"),
    # "how are you?" answered: a wellness state and nothing but time words / "on S's side" after it
    Row("how_are_you",
        rf"^(?:{{S}}|(?:{{S}}['’]s\s+)?(?:things|life|everything|it|work|week|day|weekend|month|year))\s+(?:is|are|has\s+been|have\s+been|['’]s\s+been|was|were)\s+{_DEG}"
        rf"{_WELL}(?:(?:\s*,\s*|\s+and\s+|\s+but\s+){_DEG}{_WELL})*"
        rf"{_TAIL}"),
    # a bodily state the listener's words caused: "getting hungry just thinking about it"
    Row("hungry",
        r"^{S}\s+(?:is|was|['’]s)\s+(?:getting|feeling|already|so|now|\s)*\w+\s+(?:just\s+)?(?:thinking|hearing|reading|talking)"
        r"\s+about\s+(?:it|that|this|them|those|all\s+this)\b"),
    # "Happy Saturday!" read as a mood
    Row("happy_day",
        r"^{S}\s+(?:is|['’]s)\s+happy\s+(?:(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?|weekend|holidays)\b"),
    # evaluation of the listener's idea: a verb of liking + demonstrative + an abstract of talk
    Row("evaluation",
        r"^{S}\s+(?:loves|likes|adores|digs|admires|appreciates|respects)\s+(?:that|this|the)\s+"
        r"(?:way\s+of\s+(?:thinking|looking\s+at\s+it|seeing\s+it)|sound\s+of\s+(?:that|it)|idea|attitude|mindset|outlook"
        r"|perspective|spirit|energy|vibe|approach|plan|thought|philosophy)\W*$"
        r"|^{S}\s+(?:loves?|likes?)\s+the\s+sound\s+of\s+(?:that|it|this)\b"),
    # hearsay as a reply: present "hears" + a clause led by a pronoun or demonstrative
    Row("hearsay",
        r"^{S}\s+hears\s+(?:that\s+)?(?:those|these|that|this|it|they|he|she)\b"),
    # recalling what the listener said
    Row("recall",
        r"^{S}\s+(?:remembers|recalls)\s+(?:that\s+)?(?:{L}|you)\s+(?:said|saying|mentioned|mentioning|told|telling|talked)\b"),
    # a guess about the listener's situation
    Row("guess",
        r"^{S}\s+(?:imagines|guesses|supposes|bets|figures|assumes|reckons)\s+(?!out\b)(?:that\s+)?"
        r"(?:it|that|this|those|these|they|he|she|there|{L})\b"),
    # a fragment opening with a comparative ("Better than S expected")
    # leaving the chat, or where the turn is written from: the chat's own logistics, not news. "has to
    # go/run" at the end (or before a comma), "has to go + bare verb" ("go pick up Maya"), "is off
    # to / heading out to" + at most one lowercase word ("off to a swim", "off to the gym now";
    # "off to Lisbon" names a trip, "off to go swimming with the kids" matched gold on dev: both
    # stay), "writing/typing this from". Undated facts only:
    # a resolved date ("needs to go buy a laptop next month") makes it a plan.
    Row("leave_taking",
        r"^{S}\s+(?:has\s+to|have\s+to|needs\s+to|must|['’]s\s+got\s+to|has\s+got\s+to|gotta|is\s+going\s+to|should)\s+"
        r"(?:(?:go|run|head\s+(?:out|off)|dash|jet|bounce|split|get\s+going|sign\s+off|log\s+off)\b"
        r"(?:\s+(?:now|soon|for\s+now|for\s+today|in\s+a\s+bit|in\s+a\s+sec))?\s*(?:[,;!.]|$))"
        r"|^{S}\s+(?:is|['’]s|am)\s+(?:(?:just|now|finally|all)\s+)?(?:off\s+to|(?:heading|about\s+to\s+head)\s+(?:out|off)(?:\s+to)?)"
        r"(?:\s+(?:a|an|the|my|{S}['’]s))?(?:\s+(?-i:[a-z]+))?(?:\s+(?:now|soon|for\s+now|for\s+a\s+bit|real\s+quick))?"
        r"\s*(?:[,;!.](?-i:[^A-Z]*))?$"
        r"|^{S}\s+(?:is|['’]s|am)\s+(?:(?:currently|just|actually)\s+)?(?:writing|typing|texting|messaging|chatting)"
        r"\s+(?:this\s+|(?:to\s+)?{L}\s+)?from\b",
        undated=True),
    # VP ellipsis: an auxiliary with no complement ("We did, on our fourth day!" -> "S and others did,
    # on S's fourth day", "S has too", "S is, honestly"): its verb is in the other speaker's turn.
    # Only adverbs, "too/as well", and prepositional or time adjuncts may follow; "did it ...",
    # "is, honestly, the best cook" have a complement and stay.
    Row("ellipsis",
        r"^{S}(?:\s+and\s+(?:others|[\w'’]+))?\s+(?:did|does|do|has|have|had|is|are|was|were|am|will|would|can|could)"
        r"(?:n['’]t|\s+not)?(?:\s+(?:too|also|as\s+well|both|all|indeed|though|honestly|definitely|totally|really))*"
        r"(?:\s*,\s*(?:(?:honestly|really|definitely|totally|though|too|actually|(?:many|several|a\s+few)\s+times|once|twice"
        r"|yesterday|today|last\s+\w+|this\s+\w+)\b"
        r"|(?:on|in|at|for|after|before|during|with|last|this|back\s+in)\s+[^,]{1,40}))*\W*$"),
    # turn-taking: "Enough about me, how's the clinic?" -> "Enough about S" (the speaker hands the
    # turn over; nothing is said about them). Only the speaker (or "us": "S and others") after it.
    Row("turn_taking",
        r"^(?:{S}\s*:\s*)?(?:(?:but|anyway|anyways|ok|okay|well|so|alright|ha|haha|oh|and)\b[,\s]+)*"
        r"enough\s+(?:about|of|talk\s+about)\s+{S}(?:\s+and\s+others)?\b(?!['’])"),
    # an announcement of news whose content is not in the fact: "S has (some) big news", "S has got
    # news to share", "S's news is a bit bigger than S expected" (the news itself is another fact of
    # the turn, or of the next one). "S has big news about S's job: S got promoted" names it: stays.
    Row("news_teaser",
        r"^{S}\s+(?:has|had|['’]s\s+got|has\s+got|got|have)\s+(?:(?:some|a\s+bit\s+of|a\s+little|so\s+much|more|exciting|big|huge"
        r"|great|good|amazing|wild|crazy|interesting|fun|important|major|awesome|little|real|bad|sad|other)\s+)*"
        r"(?:news|update|updates|announcement)(?:\s+(?:to\s+(?:share|tell)(?:\s+(?:with\s+)?[\w'’]+)?|for\s+[\w'’]+))?{TAIL}"
        r"|^{S}['’]s\s+(?:(?:big|huge|great|good|little|own|other)\s+)*(?:news|update)\s+(?:is|was)\s+(?!that\b|about\b)"
        r"(?:(?:a\s+bit|a\s+little|way|much|even|so|pretty|really)\s+)*\w+(?:\s+than\s+{S}\s+(?:expected|thought|planned))?\W*$"),
    # leaving the chat, with the reason, in a turn that says goodbye ("I have to go, I've got a team
    # meeting to run. Talk soon!"): an obligation "S has (got) <what> to <verb>" or "S is heading
    # there/out right after (the) chat". Undated only: "... tomorrow" is a plan.
    Row("leave_reason",
        r"^{S}\s+(?:has|['’]s\s+got|has\s+got|have)\s+(?!to\b)(?:[\w'’-]+\s+){1,5}?to\s+[a-z]+\b(?:\s+(?:(?-i:[a-z]+)|{S}['’]s)){0,4}\W*$"
        r"|^{S}\s+(?:is|['’]s|am)\s+(?:(?:just|now|about\s+to|going\s+to)\s+)?(?:heading|head|going|off|running|rushing)\b"
        r"(?:\s+(?:there|out|off|over|back|home))?(?:\s+(?:right|straight|just))?\s+(?:after|once)\s+(?:the|this|our)\s+(?:chat|call|talk)\b"
        # a momentary state of the speaker's things, the reason to leave (session 15): "S's dinner is
        # burning", "S's phone is dying", "S's ride is waiting outside"; a verb with a complement
        # ("S's sister is getting married") is news, kept
        r"|^{S}['’]s\s+(?:[a-z-]+\s+){1,2}?(?:is|are)\s+(?:(?:just|already|about\s+to\s+be|still)\s+)?[a-z]{2,}ing"
        r"(?:\s+(?:now|right\s+now|again|up|over|out|outside|downstairs|for\s+{S}|on\s+{S}))*\W*$",
        undated=True, closing=True),
    Row("comparative",
        r"^(?:(?:way|much|so\s+much|even|a\s+lot|far|definitely|honestly)\s+)?"
        r"(?:(?:better|worse|easier|harder|nicer|cooler|bigger|smaller|faster|slower)\b(?:\s+\w+)?|(?:more|less)\s+\w+)\s+than\b"),
)
# the lasting part of a leave-taking reason (session 15): "S has two kids to take care of" drops as
# the reason to leave, yet says S has two kids. The obligation's object, when it is a bare or counted
# (a/an/numeral) kin or pet noun, is kept as what S has; a task ("a meeting to run", "film to watch")
# or a definite/possessive object ("the kids to pick up") is not a possession statement.
_NUM = r"(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d+)"
_LASTING_RE = re.compile(
    rf"^(?P<s>.+?)\s+(?:has|have|['’]s\s+got|has\s+got)\s+(?P<np>(?:{_NUM}\s+)?(?:(?:little|young|small|old|teenage|grown"
    rf"|baby)\s+)?(?P<n>[a-z-]+(?:\s+pig)?))\s+to\s+[a-z]+\b", re.IGNORECASE)
_LASTING_NOUNS = frozenset(
    [w for w, r in L.REL_TERMS_EN.items() if r == "family_of"] + list(L.PET_TERMS_EN)
    + [p + "s" for p in L.PET_TERMS_EN] + ["puppies", "bunnies", "grandkids", "grandchildren"])


def lasting_reason(text: str, subject: str) -> str | None:
    """The lasting fact inside a leave-taking reason ("S has two kids to take care of" -> "S has
    two kids", "S has a dog to walk" -> "S has a dog"), or None when the reason is only the task."""
    m = _LASTING_RE.match(text.strip())
    if not m or m.group("s") != subject or m.group("n").lower() not in _LASTING_NOUNS:
        return None
    return f"{subject} has {m.group('np')}"


#: row names that run; a benchmark may narrow it to measure one row's effect
ENABLED: set[str] = {r.name for r in ROWS}


# a turn that closes the chat: a goodbye formula or leaving now ("Talk soon!", "Gotta run", "I have
# to go", "Bye!", "Catch you later"), as a sentence of its own or a clause before a comma
_CLOSING_RE = re.compile(
    r"(?i)(?:^|[.!?…]\s+|,\s*)(?:(?:ok|okay|anyway|anyways|well|alright|but|so|oh|welp)\b[,\s]+)*"
    r"(?:talk\s+(?:to\s+you\s+)?(?:soon|later|tomorrow)|ttyl|take\s+care|bye|goodbye|bye\s+for\s+now|catch\s+(?:you|ya)\s+later"
    r"|see\s+(?:you|ya)(?:\s+(?:soon|later|around))?|gotta\s+(?:run|go|jet|dash|bounce)|(?:i\s+)?(?:have|need|got)\s+to\s+(?:run|go|jet|dash)"
    r"|i['’]?m\s+off|i\s+(?:should|must)\s+(?:go|run|get\s+going)|signing\s+off|later)(?:\s+(?:now|for\s+now|guys|everyone))?(?=\s*(?:[,.!…;:)\-–—]|$))")
_TURN: ContextVar[str | None] = ContextVar("arandu_small_talk_turn", default=None)


@contextmanager
def turn(text: str) -> Iterator[None]:
    """Within it, the rows marked `closing` see the message `text` (write/extract_rules.py sets
    it around `fact_quality.refine`; outside it no turn closes and those rows drop nothing)."""
    token = _TURN.set(text)
    try:
        yield
    finally:
        _TURN.reset(token)


def closing_turn(text: str | None = None) -> bool:
    """Whether the message (`text`, else the one set by `turn`) says goodbye: "Talk soon!",
    "Gotta run", "I have to go, ...", "Bye!"."""
    msg = _TURN.get() if text is None else text
    return bool(msg and _CLOSING_RE.search(msg.strip()))


@lru_cache(maxsize=4096)
def _compiled(row: Row, subject: str, addressee: str) -> re.Pattern[str] | None:
    if "{L}" in row.pattern and not addressee:
        return None
    text = row.pattern.replace("{TAIL}", _TAIL).replace("{S}", re.escape(subject)).replace("{L}", re.escape(addressee))
    return re.compile(text, re.IGNORECASE)


def drops(row: Row, text: str, subject: str, addressee: str | None, dated: bool = False,
          closing: bool | None = None) -> bool:
    """True when `text` (a free-text fact about `subject`; `dated` when it has a resolved date)
    has this row's form. `closing`: whether the turn closes the chat (None: `closing_turn()`)."""
    if dated and row.undated:
        return False
    if row.closing and not (closing_turn() if closing is None else closing):
        return False
    pat = _compiled(row, subject, addressee or "")
    return bool(pat and pat.search(text.strip()))


def drop_reason(text: str, subject: str, addressee: str | None = None, dated: bool = False,
                closing: bool | None = None) -> str | None:
    """The name of the first enabled row whose form `text` has, or None to keep it."""
    for row in ROWS:
        if row.name in ENABLED and drops(row, text, subject, addressee, dated, closing):
            return row.name
    return None

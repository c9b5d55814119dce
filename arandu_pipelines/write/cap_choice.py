"""Which restated sentences of a message survive the per-subject cap (write/fact_quality._cap).

Session 16 (cap16): the cap ranked mostly by length, so a long vague sentence beat the short news
beside it ("Lena finally did the thing she has been talking about for years" kept, "Lena started
a community choir" cut). Three signs of news, each general:

- `opens_with`: the fact opens with its subject after a leading time word ("Now Ann's dad wants
  to come every week") or as the second of a pair ("Rachel and Joel want to send it in March"):
  it is about the subject as much as one opening with the name.
- `vague_deed`: the deed is a placeholder ("did something", "did the thing"): the sentence that
  says what the thing was is the news.
- `dated`: a number, a month or a weekday ("is eighty-one", "in March", "on Saturday") counts as
  content the way a named entity does.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from arandu_pipelines.write import lexicon as L

# a leading time / discourse word before the subject ("Now", "Then", "Also", "So")
_LEAD_RE = re.compile(r"(?i)^(?:now|then|also|so|and|today|tonight|yesterday|lately|recently|finally),?\s+")
# "Rachel and Joel ...", "Rachel and Joel's ...": the subject second in a pair opening the fact
_PAIR_RE = r"^[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)?\s+and\s+"
_VAGUE_RE = re.compile(r"(?i)\b(?:did|does|do|done|doing)\s+(?:something|(?:the|that|this)\s+thing)\b")
_NUMBER_WORDS = ("two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen"
                 "|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
                 "|hundred|thousand|million")
_DATED_RE = re.compile(
    rf"\d|(?i:\b(?:{_NUMBER_WORDS})(?:-(?:one|two|three|four|five|six|seven|eight|nine))?\b)"
    rf"|\b(?:{'|'.join(L.MONTHS_EN + L.WEEKDAYS_EN)})\b")


def opens_with(text: str, subject: str) -> bool:
    """The fact opens with its subject, after a leading time word or as a pair's second name."""
    rest = _LEAD_RE.sub("", text, count=1)
    if rest.startswith(subject):
        return True
    return re.match(_PAIR_RE + re.escape(subject) + r"\b", rest) is not None


def vague_deed(text: str) -> bool:
    """The deed is a placeholder ("finally did the thing she has talked about for years")."""
    return _VAGUE_RE.search(text) is not None


def dated(text: str, content: Callable[[str], set[str]]) -> bool:
    """A number, a month or a weekday, in a fact that says something besides it: the subject and
    two more content words once the date is out ("Ann's dad is eighty-one and stubborn"). A bare
    deed with a date ("Ann finished on Saturday": finished what?) is no better than its siblings.
    `content`: the caller's content-word bag (fact_quality._content)."""
    return _DATED_RE.search(text) is not None and len(content(_DATED_RE.sub(" ", text))) >= 3

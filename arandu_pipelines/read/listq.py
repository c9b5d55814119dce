"""Questions whose answer is a list gathered across a conversation ("What are Kate's hobbies?").

The evidence of such a question is spread over many sessions (each hobby came up on another
day), while a single-answer question ("What did Kate cook on Friday?") is usually answered by one
turn and its neighbours. Message ranking treats the two differently (read/events.py: a list
question scores more candidates and spreads its top ranks over sessions), so the test here is
cheap and surface-level, English only: a plural head noun after what/which ("What books has ...",
"Which cities ...", "What kinds of ..."), or words that ask for several things ("how many",
"all the ...s"). Not "both" or "in common" (two people, often one exchange) nor "What are
Kate's plans?" (one answer, often in the reply to a question): on the dev questions those lost
more than they gained.
"""

from __future__ import annotations

import re

_PLURAL = r"[a-z]{3,}(?<!ss)(?<!us)(?<!is)(?<!'s)s"
_PLURAL_HEAD = re.compile(
    r"^\s*(?:what|which)\s+(?:(?:kinds|types|sorts)\s+of\s+)?(?:[\w+/'-]+\s+){0,2}?"
    rf"({_PLURAL})\s+(?:has|have|had|does|do|did|is|are|were|was)\b", re.IGNORECASE)
_SEVERAL = re.compile(r"\b(?:how many|all (?:the |of (?:the |her |his |their )?)?\w+s|(?:kinds|types|sorts) of)\b",
                      re.IGNORECASE)


def is_list_question(query: str) -> bool:
    """True when `query` asks for several things that may lie in different sessions."""
    return bool(_PLURAL_HEAD.search(query) or _SEVERAL.search(query))

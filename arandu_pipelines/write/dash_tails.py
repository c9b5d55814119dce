"""Dash tails: the chat dash a careful writer replaces by punctuation, or cuts.

Chat joins a second thought to a sentence with a dash ("I went to a poetry reading - it was
really powerful!", "I'm having an art show with my paintings - can't wait!", "my family- they
motivate me"). Restated as a fact it reads as a transcript. `join_dashes(text)` decides per
tail, by its first words (a table, general English, no parse):

| tail after the dash                                      | becomes                  | example                                    |
|----------------------------------------------------------|--------------------------|--------------------------------------------|
| a coordinator: but / and / yet / or / plus, or "so"      | ", " + tail              | "... ups and downs, but it's been a ride"  |
| before a subject ("so we left")                          |                          |                                            |
| a clause with its own subject: a pronoun (it, they,      | "; " + tail              | "... poetry reading; it was really         |
| there's ...), a subordinator (when, if, because ...),    |                          | powerful", "... a mom; Caroline applied to |
| a name followed by a word, a possessive (their, S's)     |                          | adoption agencies"                         |
| an exclamation with no subject: "can't wait", "so much   | cut (with the dash)      | "... with Caroline's paintings"            |
| ...", "such ...", "what a ...", "love it", "let's ...",  |                          |                                            |
| a subjectless "feels/looks/sounds ..."; or a pronoun     |                          |                                            |
| clause that is only praise ("it's amazing", "that's for  |                          |                                            |
| sure"), a question, a pointer to a photo ("here's ...",  |                          |                                            |
| "check it out")                                          |                          |                                            |
| a participle or gerund (-ing)                            | ", " + tail              | "... dance routines, rehearsing hard ..."  |
| anything else (a noun phrase, a list)                    | ": " + tail              | "... kids' books: classics, stories ..."   |

A noun phrase or participle between two dashes ("Ana - the new manager - joined the team") is a
parenthetical and is set off by commas; a list between two dashes ("me-time each day - running,
reading, or playing my violin - which ...") keeps its dashes: later checks cut a fact at its
commas, and in parentheses the cut left "... each day (running" (measured on conv-26). A dash after a head that only presents ("But here's some good news - I've got ...") stays, so
fact_quality's checks still read the whole as talk. A dash counts when it has a space after it (" - ", "- ", " -- ", "–", "—"); a hyphen inside a
word ("me-time", "9-5") or between numbers ("10 - 12") is left alone. A cut never leaves fewer
than three words. Information after the dash is kept whenever the tail carries a subject or a
noun phrase; only subjectless exclamations go. Portuguese: the tables are English, so a
Portuguese tail falls into the last rows (", " or ": "), which keeps its words.
"""

from __future__ import annotations

import re

# the dash: one or two hyphens, an en or em dash, with a space after it (and a word before it)
_DASH_RE = re.compile(r"(?<=[\w'’\")!?.])\s*(?:-{1,2}|[–—])\s+(?=\S)")
COORDINATORS = frozenset(["but", "and", "so", "yet", "or", "plus"])
SUBJECT_STARTS = frozenset(
    ["it", "it's", "it'll", "it'd", "it’s", "they", "they're", "they've", "they'll", "they’re", "that", "that's",
     "that’s", "this", "these", "those", "there", "there's", "there’s", "he", "she", "he's", "she's", "we", "we're",
     "i", "i'm", "i've", "you", "you're", "everyone", "everybody", "everything", "nothing", "nobody", "someone",
     "somebody", "people", "when", "if", "because", "since", "as", "while", "once", "until", "though",
     "although", "whenever", "which", "who", "their", "his", "her", "its", "our", "my", "your"])
# first words of a subjectless exclamation or reaction
EXCLAMATION_STARTS = frozenset(
    ["so", "such", "what", "how", "too", "can't", "cannot", "can’t", "love", "loved", "loving", "wow", "yay",
     "amazing", "awesome", "great", "best", "good", "nice", "cool", "fun", "really", "totally", "definitely",
     "feels", "felt", "looks", "sounds", "seems", "hope", "let's", "let’s", "thanks", "thank", "cheers",
     "keep", "fingers", "wish", "oh", "ah", "haha", "lol", "omg", "yes", "yeah", "never", "no", "not",
     "absolutely", "truly", "pretty", "super", "couldn't", "can", "stoked", "excited", "glad", "happy",
     # a pointer to a shared photo ("- here's something I just finished", "- check it out")
     "here's", "here’s", "here", "check", "take", "look"])
# a head that only presents what follows ("But here's some good news - I've got something to share"):
# the dash stays, so the whole stays talk for fact_quality's checks
_PRESENTING_HEAD_RE = re.compile(r"(?i)(?:^|[.!?]\s+)(?:(?:but|and|so|oh|well)\s+)?here['’]s\b[^.!?]*$")
# a pronoun clause that is only praise or agreement ("- it's amazing", "- that's for sure")
_PRAISE_RE = re.compile(
    r"(?i)^(?:it['’]s|it\s+was|that['’]s|this\s+is|they['’]re)\s+(?:so\s+|just\s+|really\s+|truly\s+)?"
    r"(?:amazing|awesome|great|cool|wonderful|fantastic|incredible|the\s+best|for\s+sure|true|fun|magical)\W*$")
_NUMBER_DASH_RE = re.compile(r"\d\s*$")


def _kind(tail: str) -> str:
    """"join" (", "), "clause" ("; "), "cut", "ing" (", ") or "phrase" (": ") for a dash tail."""
    words = tail.split()
    first = words[0].lower().strip(",.!?\"'") if words else ""
    second = words[1].lower().strip(",.!?") if len(words) > 1 else ""
    if first in COORDINATORS and not (first == "so" and second not in SUBJECT_STARTS and not words[1][:1].isupper()):
        return "join"  # "so" joins a clause ("so we left"), not an exclamation ("so much energy")
    if _PRAISE_RE.match(tail.strip()) or tail.rstrip().endswith("?"):
        return "cut"  # praise, or a question to the listener ("- ever been to one?")
    if first in SUBJECT_STARTS:
        return "clause"
    if re.match(r"^[A-Z][\w'’]*(?:\s+(?:and|&)\s+[A-Z]\w*)?\s+[a-z]", tail) and not re.match(r"^\w+['’]s\b", tail):
        return "clause"  # "Caroline applied ...", "Caroline and others went ...", "Gina can't ..."
    if re.match(r"^[A-Z]\w*['’]s\s", tail):
        return "clause"  # "Melanie's family helped": a possessive opens a subject
    if first in EXCLAMATION_STARTS:
        return "cut"
    if first.endswith("ing") and len(first) > 4:
        return "ing"
    return "phrase"


def join_dashes(text: str) -> str:
    """`text` with each chat dash replaced by punctuation or cut (see module docstring)."""
    out = text
    pos = 0
    while True:
        m = _DASH_RE.search(out, pos)
        if not m:
            return out
        head, tail = out[: m.start()], out[m.end():]
        if _NUMBER_DASH_RE.search(head) and re.match(r"\d", tail):
            pos = m.end()  # "10 - 12 people": a range
            continue
        if _PRESENTING_HEAD_RE.search(head):
            pos = m.end()
            continue
        kind = _kind(tail)
        pair = _DASH_RE.search(tail)
        if kind in ("phrase", "ing") and pair and len(tail[: pair.start()].split()) <= 8:
            # a parenthetical between two dashes ("Ana - the new manager - joined ...") is set off by commas
            inner = tail[: pair.start()].rstrip(" ,;:")
            if "," in inner:  # a list between dashes stays: later checks cut a fact at its commas
                pos = m.end() + pair.end()
                continue
            joined = f"{head.rstrip(' ,;:')}, {inner}, "
            out = joined + tail[pair.end():]
            pos = len(joined)
            continue
        if kind == "cut":
            if len(head.split()) >= 3:
                return head.rstrip(" ,;:")
            pos = m.end()
            continue
        head = head.rstrip(" ,;:")
        sep = {"join": ", ", "clause": "; ", "ing": ", ", "phrase": ": "}[kind]
        out = head + sep + tail
        pos = len(head) + len(sep)

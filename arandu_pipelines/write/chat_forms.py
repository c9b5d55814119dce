"""Chat register out of facts: what a careful person fixes when writing a chat turn down as a fact.

A group chat shouts ("OMG I GOT THE JOB"), abbreviates ("ur right", "tmrw", "bc", "pls"),
laughs ("lol", "haha"), stretches ("sooo", "yesss"), decorates (emoji, "!!!") and trails off
("... tho"). The stored message keeps all of it (messages are verbatim); the fact does not. Two
steps, both tables below:

- `unshout(text, names)`, before extraction (write/extract_rules.extract_offline): a shouted run
  (two or more capitalised words, or one emphasis word from `EMPHASIS`, or a stretched one
  "YESSS") is lower-cased so the rules read it as a sentence ("I GOT THE JOB" would otherwise
  pass as a name or not parse at all). Same length as the input (only case changes), so
  sentence spans stay valid. "I" stays; a word without a vowel (NHS, LGBTQ, BBC) or in `ACRONYMS`
  stays; a run that spells a known name (the context's aliases, or a capitalised phrase of the
  session's previous turns: "Kestrel Labs") takes that name's case.
- `tidy(text, subject)`, on every fact (first check of write/fact_quality.refine), rewrites by
  `SPELLINGS` (word -> careful form; "" drops it: laughter, "btw", "tbh"), `AGREEMENT` (the
  rules' third-person "-s" on a chat negation: "donts" -> "doesn't"), removes emoji and a
  trailing "tho", cuts a "please" request clause off a statement, collapses stretched letters
  (`_unstretch`), runs of "!"/"?", lower-cases an emphasis word still shouted ("AGAIN"; any
  other capitalised word is a name or an initialism: "USP"), capitalises weekdays,
  months and languages (`PROPER`) and the first letter. `late` writes out "gonna"/"wanna"/"gotta"
  after the other checks, which read "gonna" as a modal (an unanchored prediction is dropped).

Ambiguous chat words are resolved by their neighbour, never guessed: "ur" is "you're" before an
adjective/adverb/participle-like word (`_UR_ARE_NEXT`, "-ing", "-ed") and "your" before a noun;
"r" is "are" only between words; "w" is "with" only before a word. Second person then resolves
to the addressee (fact_quality._second_person). "sat", "def", "prob" stay: a past tense, a
noun, a word too ambiguous to expand.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from arandu_pipelines.write.dash_tails import join_dashes

# word (casefolded) -> careful form; "" drops the word (and a comma left next to it)
SPELLINGS: dict[str, str] = {
    # second person (resolved to the addressee afterwards)
    "u": "you", "yall": "you all", "y'all": "you all", "urself": "yourself",
    "ure": "you're", "youre": "you're", "youve": "you've", "youll": "you'll",
    # contractions without the apostrophe
    "im": "I'm", "ive": "I've", "dont": "don't", "cant": "can't", "didnt": "didn't",
    "doesnt": "doesn't", "isnt": "isn't", "wasnt": "wasn't", "werent": "weren't", "arent": "aren't",
    "havent": "haven't", "hasnt": "hasn't", "hadnt": "hadn't", "couldnt": "couldn't",
    "wouldnt": "wouldn't", "shouldnt": "shouldn't", "thats": "that's", "whats": "what's",
    "theres": "there's", "theyre": "they're",
    # abbreviations
    "pls": "please", "plz": "please", "tmrw": "tomorrow", "tmr": "tomorrow",
    "tmrow": "tomorrow", "tmw": "tomorrow", "2moro": "tomorrow", "2day": "today", "2nite": "tonight",
    "tonite": "tonight", "nite": "night", "bc": "because", "cuz": "because", "coz": "because",
    "cos": "because", "rn": "right now", "ppl": "people", "b4": "before", "bday": "birthday",
    "abt": "about", "thx": "thanks", "msg": "message", "txt": "text", "wknd": "weekend",
    "kinda": "kind of", "sorta": "sort of", "dunno": "don't know",
    "w/": "with", "w/o": "without", "bf": "boyfriend", "gf": "girlfriend", "bff": "best friend",
    "tho": "though", "thru": "through", "srsly": "seriously", "obvs": "obviously", "defo": "definitely",
    # session 12 (spell12): chat words kept in LoCoMo facts, each with one meaning
    "'cause": "because", "'cuz": "because", "'em": "them", "'bout": "about", "'til": "until",
    "fam": "family", "biz": "business", "fave": "favorite", "faves": "favorites", "fav": "favorite",
    "favs": "favorites", "pic": "picture", "pics": "pictures", "convo": "conversation",
    "convos": "conversations", "prolly": "probably", "outta": "out of", "lotta": "lot of",
    "tryna": "trying to",
    # laughter, interjections and chat tags: not part of any fact
    "lol": "", "lmao": "", "lmfao": "", "rofl": "", "omg": "", "omfg": "", "btw": "", "tbh": "",
    "ngl": "", "imo": "", "imho": "", "fyi": "", "jk": "", "xd": "", "smh": "", "istg": "",
}
# nouns among them that also take a possessive or "is" ("fam's been great" -> "family's")
NOUN_SPELLINGS = frozenset(["fam", "biz", "fave", "fav", "pic", "convo", "bday", "bf", "gf", "bff", "msg", "txt", "wknd"])
# English words a careful writer capitalises: weekdays, months, languages and nationalities ("may"
# and "march" are verbs too: "march" only beside a number, "may" never)
PROPER: dict[str, str] = {w.lower(): w for w in ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Fridays", "Saturdays", "Sundays", "January", "February", "April", "June", "July", "August", "September", "October", "November", "December", "English", "Japanese", "Spanish", "French", "German", "Italian", "Portuguese", "Chinese", "Mandarin", "Cantonese", "Korean", "Arabic", "Hindi", "Russian", "Dutch", "Greek", "Turkish", "Polish", "Swedish", "Norwegian", "Danish", "Irish", "Scottish", "Welsh", "British", "American", "Canadian", "Mexican", "Brazilian", "Indian", "Thai", "Vietnamese", "Australian"]}
# the rules' agreement for a third-person subject turns a chat negation into "donts"
AGREEMENT: dict[str, str] = {
    "donts": "doesn't", "dont's": "doesn't", "cants": "can't", "wonts": "won't", "didnts": "didn't",
    "doesnts": "doesn't", "isnts": "isn't", "wasnts": "wasn't", "havents": "hasn't", "ims": "is",
}
# laughter written out at any length ("hahaha", "hehe", "ahahah"), stretched interjections
_LAUGH_RE = re.compile(r"(?i)\b(?:a?(?:ha){2,}h?|(?:he){2,}h?|(?:hi){3,}|lo+l|lu+l|ugh+|argh+|ya+y+|wo+h?o+|k{3,}|(?:rs){2,}|hu(?:e){2,}(?:hue)*)\b")  # pt: "kkkk", "rsrs"
# after "ur": the verb "are" ("ur right", "ur so", "ur going"); otherwise the possessive
_UR_ARE_NEXT = frozenset(
    ["right", "wrong", "welcome", "so", "too", "very", "really", "basically", "literally", "always", "never",
     "not", "still", "gonna", "going", "the", "a", "an", "in", "on", "at", "from", "amazing", "awesome",
     "insane", "crazy", "mad", "kidding", "joking", "invited", "sure", "lucky", "brave", "sweet", "kind",
     "the best", "best", "ok", "okay", "fine", "back", "here", "there", "home", "done", "late", "early",
     "one", "just", "actually", "definitely", "probably", "like", "such", "all", "both", "allowed", "free",
     "busy", "tired", "sick", "ill", "right?", "legend", "hero", "star", "genius"])
# single words written in capitals for emphasis (lower-cased by unshout when alone)
EMPHASIS = frozenset(
    ["again", "mine", "and", "not", "never", "ever", "always", "so", "very", "really", "all", "every", "finally",
     "literally", "actually", "too", "yes", "no", "way", "omg", "wow", "love", "hate", "best", "worst", "the",
     "huge", "still", "one", "much", "more", "now", "today", "tonight", "tomorrow", "lol", "new", "got", "did",
     "won", "finished", "passed", "sold", "done", "free", "first", "last", "own", "but", "or", "just", "only",
     "is", "was", "are", "were", "it", "this", "that", "what", "who", "why", "how", "amazing", "insane", "crazy",
     "home", "here", "there", "nope", "yeah", "yay", "ok", "okay", "guess", "me", "my", "you", "we", "he", "she"])
# capitals that careful prose keeps (initialisms with a vowel; vowel-less ones are kept anyway)
ACRONYMS = frozenset(["I", "OK", "USA", "US", "UK", "EU", "UN", "AI", "ID", "IT", "HR", "PE", "PR", "MBA", "PHD",
                      "ICU", "GP", "ER", "A&E", "ASAP", "NASA", "UNESCO", "UFC", "NBA", "NFL", "BBQ", "DIY",
                      "OMG", "UCLA", "NYU", "IKEA", "IMAX", "AIDS", "COVID", "ADHD", "DJ"])

_CAPS_WORD = r"[A-Z][A-Z'’&]*[A-Z]|[A-Z]"
_CAPS_RUN_RE = re.compile(rf"(?<![\w'’])(?:{_CAPS_WORD})(?:[\s,]+(?:{_CAPS_WORD}))*(?![\w'’])")
_VOWEL_RE = re.compile(r"[AEIOUY]")
_STRETCH_RE = re.compile(r"([A-Za-z])\1{2,}")
_NAME_RE = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*\b")


def _acronym(word: str) -> bool:
    return word in ACRONYMS or (not _VOWEL_RE.search(word) and not _STRETCH_RE.search(word))


def known_names(aliases: Iterable[str], texts: Iterable[str]) -> dict[str, str]:
    """Casefolded name -> its written form: the context's aliases (display names) and the
    capitalised phrases of earlier turns ("one to Kestrel Labs" -> "kestrel labs": "Kestrel Labs")."""
    out = {a.casefold(): a for a in aliases if a and not a.isupper()}
    for t in texts:
        for m in _NAME_RE.finditer(t or ""):
            out.setdefault(m.group(0).casefold(), m.group(0))
    return out


def unshout(text: str, names: dict[str, str] | None = None) -> str:
    """Shouted runs lower-cased, same length (see module docstring); `names` from `known_names`."""
    names = names or {}

    def run(m: re.Match[str]) -> str:
        s = m.group(0)
        words = re.findall(_CAPS_WORD, s)
        long_words = [w for w in words if len(w) > 1]
        if not long_words:
            return s  # "I", "A"
        alone = len(long_words) == 1
        if alone and not (long_words[0].lower() in EMPHASIS or _STRETCH_RE.search(long_words[0])):
            return s  # one capitalised word: an initialism or a name ("NASA", "LGBTQ")
        out = s.lower()
        # a known name inside the run takes its own case ("KESTREL LABS" -> "Kestrel Labs")
        for key, form in sorted(names.items(), key=lambda kv: -len(kv[0])):
            i = out.find(key)
            while i >= 0 and len(form) == len(key):
                if (i == 0 or not out[i - 1].isalnum()) and (i + len(key) == len(out) or not out[i + len(key)].isalnum()):
                    out = out[:i] + form + out[i + len(key):]
                i = out.find(key, i + len(key))
        # "I" and initialisms keep their capitals
        pieces = re.split(r"([\s,]+)", out)
        orig = re.split(r"([\s,]+)", s)
        return "".join(o if (o == "I" or (len(o) > 1 and _acronym(o))) else p
                       for p, o in zip(pieces, orig, strict=True))

    return _CAPS_RUN_RE.sub(run, text)


# common words whose doubled letter survives a stretch ("goood" -> "good", "sooo" -> "so")
_DOUBLE = frozenset(
    ["good", "too", "soon", "cool", "been", "see", "feel", "need", "sleep", "week", "all", "well", "really",
     "will", "still", "call", "pretty", "happy", "sorry", "coffee", "book", "food", "look", "free", "tree",
     "keep", "off", "stuff", "cheers", "agree", "three", "seen", "fall", "ball", "full", "kill", "miss",
     "boss", "less", "mess", "yess", "yell", "hell", "bee", "wee", "moon", "noon", "zoo", "boo", "woo", "shh",
     "grr", "brr", "hmm", "mmm", "summer", "dinner", "butter", "little", "bottle", "apple", "tall", "small"])


def _unstretch(word: str, names: dict[str, str]) -> str:
    """"sooo" -> "so", "goood" -> "good", "PRIYAAAA" -> "Priya" (a known name)."""
    if not _STRETCH_RE.search(word):
        return word
    single = _STRETCH_RE.sub(r"\1", word)
    double = _STRETCH_RE.sub(r"\1\1", word)
    for cand in (double, single):
        if cand.casefold() in names:
            return names[cand.casefold()]
    if double.lower() in _DOUBLE and double.lower() != "yess":
        return double
    return single


_EMOJI_RE = re.compile("[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\u2300-\u23FF\uFE0F\u200D\u20E3]+")
_WORDISH_RE = re.compile(r"(?<![\w'’/])(?:[A-Za-z][\w'’]*(?:/o|/)?|['’](?:cause|cuz|em|bout|til)|2moro|2day|2nite|b4)(?![\w'’])")
# a dropped "g" written as an apostrophe ("livin'", "startin'"): the word with its "-ing"
_DROPPED_G_RE = re.compile(r"^[a-z]{2,}in['’]$")
_TRAILING_THO_RE = re.compile(r"(?i)[,\s]+(?:tho|though)\W*$")
# "... so pick somewhere with veggie options pls": a request clause inside a statement
_PLEASE_CLAUSE_RE = re.compile(r"(?i)(?:,\s*|\s+-+\s+|\s+(?:so|and|but)\s+)(?=[^,]*\bplease\b)[^,]*$|\s+please\b.*$")
# an interjection left at the end ("... driving licence yesss" -> "yes")
_TRAILING_CHEER_RE = re.compile(r"(?i)[,\s]+(?:yes|yay|wow|phew|ugh|woohoo|whoop|yeah|finally)\W*$")
# "its" before an adverb, an article or a participle is "it's"
_ITS_NEXT = frozenset(["so", "too", "very", "really", "not", "a", "an", "the", "ok", "okay", "fine", "been",
                       "going", "gonna", "just", "still", "all", "like", "actually", "literally", "always", "never"])
_PUNCT_RUN_RE = re.compile(r"[!?]{2,}")
_NOUN_VERB_RE = re.compile(r"^(?P<subj>.+?) (?!(?:ha|wa|doe|i|thi|hi|it|wa|need|want|feel|seem|look)s )(?P<noun>[a-z]{3,})s (?P<copula>was|is|has been)\b")
# expanded only by `late`, after fact_quality's checks: "gonna" there is a modal that marks an
# unanchored prediction ("Jon is gonna make it"), which "going to" (a plan) would hide
LATE: dict[str, str] = {"gonna": "going to", "wanna": "want to", "gotta": "has to"}
_LATE_RE = re.compile(r"(?i)\b(?:gonna|wanna|gotta)\b")


def tidy(text: str, subject: str = "", names: dict[str, str] | None = None) -> str:
    """The fact text in a careful writer's register (see module docstring)."""
    names = dict(names or {})
    if subject:
        names.setdefault(subject.casefold(), subject)
    t = _EMOJI_RE.sub(" ", text)
    t = _LAUGH_RE.sub(" ", t)
    t = _TRAILING_THO_RE.sub("", t)
    t = _PUNCT_RUN_RE.sub(lambda m: "?" if "?" in m.group(0) else "!", t)

    def repl(m: re.Match[str]) -> str:
        w = m.group(0)
        low = w.lower().replace("’", "'")
        nxt = _STRETCH_RE.sub(r"\1", t[m.end():].lstrip(" ,").split(" ", 1)[0].lower().strip(".,!?"))
        if low == "ur":
            return _case(w, "you're" if nxt in _UR_ARE_NEXT or nxt.endswith(("ing", "ed")) else "your")
        if low == "r":  # "u r", "they r": only between two words
            return "are" if m.start() > 0 and nxt else w
        if low == "w":
            return "with" if m.start() > 0 and nxt else w
        if low == "its" and (nxt in _ITS_NEXT or (nxt.endswith("ing") and len(nxt) > 4)):
            return _case(w, "it's")
        if low in AGREEMENT:
            return AGREEMENT[low]
        base, s_tail = low[:-2], low[-2:]
        if s_tail == "'s" and base in NOUN_SPELLINGS:
            return _case(w, SPELLINGS[base]) + w[-2:]
        if _DROPPED_G_RE.match(w):  # lower case only: "Berlin'" closing a quote stays
            return w[:-1] + "g"
        if low in SPELLINGS:
            new = SPELLINGS[low]
            return new if new.startswith("I'") else _case(w, new)
        if low in PROPER:
            return PROPER[low]
        if low == "march" and (re.match(r"\s*\d", t[m.end():]) or re.search(r"\d(?:st|nd|rd|th)?\s*$", t[:m.start()])):
            return "March"
        if w.isupper() and len(w) > 1 and (low in EMPHASIS or _STRETCH_RE.search(w)) and w not in ACRONYMS:
            w = w.lower()  # a word still shouted ("Priya FINISHED"): names and initialisms stay
        return _unstretch(w, names)

    t = _WORDISH_RE.sub(repl, t)
    m = _NOUN_VERB_RE.match(t)
    if m and subject and m.group("subj") == subject:  # "Mo works was rough" (from "work was rough")
        t = f"{subject}'s {m.group('noun')} {m.group('copula')}{t[m.end():]}"
    t = _TRAILING_CHEER_RE.sub("", t)
    cut = _PLEASE_CLAUSE_RE.search(t)
    if cut and len(t[: cut.start()].split()) >= 3:
        t = t[: cut.start()]
    t = re.sub(r"\bplease\b\W*$", "", t, flags=re.IGNORECASE)
    t = join_dashes(t)
    # spacing left by dropped words: "rough , Northwind" / "a  b" / ", ," / leading comma
    t = re.sub(r"\s+([,.!?;:])", r"\1", t)
    t = re.sub(r"([,;:])(?:\s*[,;:])+", r"\1", t)
    t = re.sub(r"\s{2,}", " ", t).strip(" ,;:-")
    return t[:1].upper() + t[1:] if t else t


def transposed(word: str, vocabulary: Iterable[str]) -> str | None:
    """The vocabulary word that `word` spells with two adjacent letters swapped ("remnid" ->
    "remind"), the commonest typo of fast thumbs; None when there is none."""
    low = word.lower()
    vocab = set(vocabulary)
    for i in range(len(low) - 1):
        cand = low[:i] + low[i + 1] + low[i] + low[i + 2:]
        if cand != low and cand in vocab:
            return cand
    return None


def late(text: str) -> str:
    """"gonna"/"wanna"/"gotta" written out, once the checks that read them as modals are done;
    a space left before a "; "/": " of write/dash_tails.py by a later cut removed."""
    def repl(m: re.Match[str]) -> str:
        new = LATE[m.group(0).lower()]
        if new == "has to" and re.search(r"(?i)\b(?:others|they|we|you)\s+$", text[:m.start()]):
            new = "have to"  # "Ana and others gotta leave early" -> "have to"
        return _case(m.group(0), new)

    out = _LATE_RE.sub(repl, text)
    # a date phrase removed after `tidy` can leave "the gang ; Caroline and others ..." (dash_tails)
    return re.sub(r"(?<=\w) +([;:])(?= )", r"\1", out)


def unlaugh(text: str) -> str:
    """`text` without written laughter ("S thinks A is famous haha" -> "... famous"): `tidy` takes
    it out of the facts `fact_quality.refine` keeps, but the facts added after refine (speech acts,
    held-back stance, question-and-answer pairs) never pass through it (session 16, defects16).
    A text with no laughter comes back unchanged."""
    if not _LAUGH_RE.search(text):
        return text
    t = _LAUGH_RE.sub(" ", text)
    t = re.sub(r"\s+([,.!?;:])", r"\1", t)
    return re.sub(r"\s{2,}", " ", t).strip(" ,;:-")


def _case(word: str, new: str) -> str:
    """The replacement keeps a capital first letter ("Ur" -> "Your")."""
    return new[:1].upper() + new[1:] if word[:1].isupper() else new

"""News told in three chat forms the rules do not read as statements (session 15, branch forms15).

A chat often gives news in a form that is no declarative sentence of its own, so the rules kept
nothing of it. Each form is put back into the plain statement it stands for, one sentence at a
time, inside `people_forms.rewrite` (so the facts' evidence is restored to the words as written):

- **Rhetorical "guess who" question** (`guess_who`): "Guess who ran 10 miles this morning?!" is
  the speaker's news: "I ran 10 miles this morning!". When the next sentence of the same message
  names who it is ("Guess who's getting married?! My sister!", "... Me and Tom!"), that answer
  sentence becomes the statement ("My sister is getting married!", "Tom and I are getting
  married!") and the question stays a question (dropped as before); when the next sentence opens
  with someone else ("My sister Jo finally said yes!": a relation noun of the lexicon, or a name
  spaCy NER types PERSON) the question is rewritten with that person as its subject. Only a "who" that is the
  subject (a verb follows it); "Guess who I saw today?" (an object slot) is left alone, as is
  "Guess I'll go to bed" (no "who"). "Guess what? I got the job!" needs nothing: the news is
  already its own sentence.
- **Yes/no answer fragment** (`yes_no_fragment`): after the other speaker's yes/no question to
  "you" whose verb is "be" or main-verb "have" ("Are you still at the hospital?"), a reply that
  opens with yes/yep/yeah/no/nope/still and goes on with a verbless fragment headed by a
  prepositional, adjectival or noun phrase ("Yep, still in the ER at St. Vincent's, mostly
  nights now.") restates the questioned state: "I am still in the ER at St. Vincent's, mostly
  nights now." (the question's verb copied; any other verb: left alone). The fragment must fit
  the question's predicate: a PP or adjective after "be" + PP/ADJ, a noun phrase (no duration)
  after "be" + NP or "have". "Yep, totally!" (an
  adverb), "No, not really" and a full clause ("Yes, I am") are left alone; a "have" question
  with "any/a N" is qa_pairs' (write/qa_pairs.py).
- **Identification with an apposition** (`identification`): after the other speaker's who /
  what/which question or a photo share ("[image: ...]" in either turn), "That's pane
  casereccio, a country loaf my grandfather used to make." names the thing and says what it is:
  "Pane casereccio is a country loaf my grandfather used to make." Only when the named phrase
  is a name, "my/our X" or a bare noun phrase (no "a"/"the" + common noun: "That's a shame, ..."),
  its head is a noun (not "That's awesome, a dream come true") and the apposition is a noun
  phrase; without an apposition nothing is written (the rules drop the bare "That's X").

Each form needs the chunk's shared spaCy parse (write/parses.py) of the one sentence it changes;
the regex gates keep the parsed sentences few. English only.
"""

from __future__ import annotations

import re
from typing import Any

STAGE = "news_forms"

# ---- rhetorical "guess who" --------------------------------------------------------------------
_GUESS_RE = re.compile(
    r"^(?P<lead>\s*(?:(?:oh|so|okay|ok|hey|omg|ahh*)\s*[,!]*\s*)?)guess\s+who(?P<aux>['’]s|\s+is|\s+has|\s+was)?"
    r"\s+(?P<vp>[^?!.…]+?)\s*[?!.…]+\s*$", re.IGNORECASE)
# who is the answer: "Me!", "My sister!", "Tom!", "Me and Tom!", "Yours truly!"
_ONE_RE = r"(?:[Mm]e|I|[Yy]ours\s+truly|[Mm]y\s+(?:[a-z]+\s+){0,2}[a-z]+(?:\s+[A-Z][a-z]+)?|[Oo]ur\s+(?:[a-z]+\s+){0,2}[a-z]+|[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)"
_ANSWER_RE = re.compile(r"^\s*(?P<who>" + _ONE_RE + r"(?:\s*(?:,|and|&)\s*" + _ONE_RE + r")*)\s*[!.…]*\s*$")
_ME = frozenset({"me", "i", "yours truly"})
_OBJECT_SLOT = frozenset({"i", "we", "you", "he", "she", "they", "my", "our", "your", "his", "her", "their", "the", "a",
                          "an", "this", "that", "it"})
_TO_FIRST = {"is": "am", "'s": "am", "’s": "am", "has": "have", "was": "was"}
_TO_PLURAL = {"is": "are", "'s": "are", "’s": "are", "has": "have", "was": "were"}


def _base(verb: str) -> str:
    """A present third-singular verb in its base form ("loves" -> "love", "goes" -> "go")."""
    low = verb.lower()
    irregular = {"has": "have", "does": "do", "goes": "go", "is": "are"}
    if low in irregular:
        return irregular[low]
    if re.search(r"[^aeiou]ies$", low):
        return verb[:-3] + "y"
    if re.search(r"(?:s|sh|ch|x|z|o)es$", low):
        return verb[:-2]
    return verb[:-1] if low.endswith("s") else verb


def _answer_subject(who: str) -> tuple[str, bool, bool]:
    """The answer's words as a subject, whether it is plural, whether it is the speaker alone."""
    parts = [p.strip() for p in re.split(r"\s*(?:,|\band\b|&)\s*", who) if p.strip()]
    me = [p for p in parts if p.lower() in _ME]
    others = [p for p in parts if p.lower() not in _ME]
    words = [*others, *(["I"] if me else [])]
    subj = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
    if subj != "I" and subj[:1].islower():
        subj = subj[:1].upper() + subj[1:]
    return subj, len(words) > 1, words == ["I"]


def _verb_phrase(aux: str | None, vp: str, first_word_tag: str, plural: bool, first: bool) -> str | None:
    """The verb phrase agreed with its new subject ("'s getting" -> "am getting" for "I")."""
    table = _TO_FIRST if first else _TO_PLURAL if plural else None
    if aux:
        a = aux.strip().lower()
        if a in ("'s", "’s"):  # "who's been promoted" is "has"; "who's getting" is "is"
            a = "has" if re.match(r"(?i)(?:been|got|gotten|finally\s+been)\b", vp) else "is"
        word = table.get(a, a) if table else a
        return f"{word} {vp}"
    head, _, rest = vp.partition(" ")
    if first_word_tag == "VBZ" and (first or plural):
        head = _base(head)
    elif first_word_tag not in ("VBD", "VBZ", "VBP", "VB", "MD"):
        return None
    return f"{head} {rest}".strip()


_OWN_PERSON_RE = re.compile(r"^\s*(?:[Mm]y|[Oo]ur)\s+[\w-]+(?:\s+[\w-]+)?")
_NAME_START_RE = re.compile(r"^\s*(?P<name>[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)\b")


def _answer_is_someone(s: str) -> bool:
    """A bare answer names a person or a pet: "Me!", "Tom!", "My cousin Leo!"; a "my ..." phrase
    only with a relation or pet noun in it ("My legs are dead" is no answer)."""
    from arandu_pipelines.write.lexicon import PET_TERMS_EN, REL_TERMS_EN

    for part in re.split(r"\s*(?:,|\band\b|&)\s*", s.strip(" !.…")):
        words = part.split()
        if words and words[0].lower() in ("my", "our") and not any(
                w.lower() in REL_TERMS_EN or w.lower() in PET_TERMS_EN or w[:1].isupper() for w in words[1:]):
            return False
    return True


def _names_someone(s: str, parses: Any) -> str | None:
    """The person the sentence after "Guess who's getting married?!" opens with, as a subject:
    a relation noun of the speaker's ("My sister Jo finally said yes!" -> "My sister Jo") or a
    name spaCy NER types PERSON ("Daniel proposed ..." -> "Daniel"); None: no one else."""
    from arandu_pipelines.write.lexicon import REL_TERMS_EN
    from arandu_pipelines.write.subject_forms import person_subject

    m = _OWN_PERSON_RE.match(s)
    if m is not None:
        words = m.group(0).split()
        rel = next((k for k, w in enumerate(words[1:], 1) if w.lower() in REL_TERMS_EN), None)
        if rel is None:
            return None
        after = [*words[rel + 1:], *s[m.end():].split()]
        name = after[0] if after and re.fullmatch(r"[A-Z][a-z]+", after[0]) else ""
        return " ".join([*words[: rel + 1], name]).strip()
    n = _NAME_START_RE.match(s)
    if n is None or n.group("name").split()[0].lower() in _OBJECT_SLOT:
        return None
    return n.group("name") if person_subject(parses, s, n.start("name"), n.group("name")) else None


def guess_who(sentences: list[str], i: int, parses: Any) -> str | None:
    """Sentence i (or the answer sentence after it) as a statement; see module docstring.
    Returns the new text of sentence i, or None when sentence i is unchanged."""
    s = sentences[i]
    m = _GUESS_RE.match(s)
    ans = None
    if m is None:  # sentence i may be the answer to a "guess who" just before it
        if i == 0 or not _ANSWER_RE.match(s) or not _answer_is_someone(s):
            return None
        m = _GUESS_RE.match(sentences[i - 1])
        if m is None:
            return None
        ans = _ANSWER_RE.match(s)
    elif i + 1 < len(sentences) and _ANSWER_RE.match(sentences[i + 1]) and _answer_is_someone(sentences[i + 1]):
        return None  # the answer sentence carries the statement
    other = _names_someone(sentences[i + 1], parses) if ans is None and i + 1 < len(sentences) else None
    vp = m.group("vp").strip()
    aux = m.group("aux")
    first_word = re.sub(r"[^\w'’]", "", vp.split()[0]).lower() if vp.split() else ""
    if not first_word or (not aux and first_word in _OBJECT_SLOT):
        return None  # "Guess who I saw": an object slot, nothing to fill
    tag = ""
    adv = ""
    if not aux:
        if parses is None:
            return None
        from arandu_pipelines.write.parses import PARSE

        doc = parses.doc(f"She {vp}.", PARSE, STAGE)
        if doc is None or len(doc) < 2:
            return None
        tok = doc[1]
        while tok.pos_ == "ADV" and tok.i + 1 < len(doc):  # "who just got", "who finally finished"
            tok = doc[tok.i + 1]
        if tok.tag_ not in ("VBD", "VBZ", "VBP", "VB", "MD"):  # "swam" is often tagged VBP: written as is
            return None
        words = vp.split()
        if tok.i > 1:  # the adverbs stay before the verb
            adv, vp = " ".join(words[: tok.i - 1]) + " ", " ".join(words[tok.i - 1:])
        tag = tok.tag_
    if other is not None:  # the news is that person's: "My sister Jo is getting married!"
        subj, plural, first, lead = other[:1].upper() + other[1:], False, False, m.group("lead")
    elif ans is None:
        if re.search(r"(?i)\b(?:me|myself)\b", vp):
            return None  # "Guess who called me?": the speaker is the object, the caller unnamed
        subj, plural, first, lead = "I", False, True, m.group("lead")
    else:
        subj, plural, first = _answer_subject(ans.group("who"))
        lead = ""
    out = _verb_phrase(aux, vp, tag, plural, first)
    return None if out is None else f"{lead}{subj} {adv}{out}!"


# ---- the other speaker's last question ---------------------------------------------------------
_QUESTION_RE = re.compile(r"[^.!?…]*\?")
_IMAGE_RE = re.compile(r"(?i)\[(?:shared a photo|image|photo|foto)\b|\bimage:")


def _last_turn(ctx: Any) -> tuple[str, str] | None:
    turns = getattr(ctx, "previous_turns", None) or []
    me = (getattr(ctx, "speaker_name", None) or "").strip().casefold()
    if not turns or not me:
        return None
    who, text = turns[-1]
    if not who or who.strip().casefold() == me:
        return None
    return who, text or ""


def _last_question(ctx: Any) -> str | None:
    last = _last_turn(ctx)
    if last is None:
        return None
    asks = [q.group(0).strip() for q in _QUESTION_RE.finditer(last[1])]
    return asks[-1] if asks else None


# ---- yes/no answer fragment --------------------------------------------------------------------
_YES_NO_Q_RE = re.compile(
    r"(?i)^(?:[^,?]*,\s*)?(?P<aux>are|is|were|was|have|has|do|does)\s+you\b(?!\s+(?:guys|two|all|both)\b)"
    r"(?P<rest>[^?]*)\?$")
_REPLY_RE = re.compile(
    r"(?i)^(?P<lead>\s*)(?P<yes>(?:yes|yeah|yep|yup|yea|no|nope|nah)\b[\s,!.—–-]*(?=\w)|(?=still\b))(?P<frag>[^!?…\[]+?)"
    r"(?P<end>[.!?…]*)\s*(?:\[[^\]]*\]?\s*)?$")
_FINITE = frozenset({"VBZ", "VBP", "VBD", "MD"})
_LEAD_ADVS = frozenset({"still", "now", "just", "currently", "mostly", "already", "finally", "back", "only"})
_BE = frozenset({"are", "is", "were", "was", "'re", "’re"})
# a prepositional phrase that is an idiom, not a place or a state: "of course", "for sure", "at all"
_IDIOMS = frozenset({("of", "course"), ("for", "sure"), ("in", "fact"), ("at", "all"), ("at", "least"), ("at", "most"),
                     ("by", "way"), ("for", "real"), ("for", "now"), ("at", "once"), ("in", "sec"), ("in", "second"),
                     ("in", "minute"), ("in", "bit"), ("in", "while"), ("at", "moment"), ("in", "general"),
                     ("in", "case"), ("in", "deed"), ("in", "detail"), ("on", "way"), ("in", "way")})
# nouns that make a noun phrase a duration or a time, not a predicate ("five years now", "both days")
_TIME_NOUNS = frozenset({"day", "days", "week", "weeks", "month", "months", "year", "years", "hour", "hours",
                         "minute", "minutes", "time", "times", "morning", "mornings", "night", "nights",
                         "weekend", "weekends", "bit", "lot", "while"})
_PRONOUNS = frozenset({"you", "your", "we", "us", "our", "it", "that", "this", "they", "them", "me", "i", "there", "here",
                       "opposite"})


def _category(head: Any) -> str | None:
    """"pp", "adj" or "np" for a predicate's head token, None for anything else."""
    if head.pos_ == "ADP":
        obj = next((c for c in head.children if c.dep_ == "pobj"), None)
        if head.lower_ in ("of", "for") or obj is None or obj.pos_ not in ("NOUN", "PROPN") \
                or (head.lower_, obj.lower_) in _IDIOMS and obj.pos_ == "NOUN":
            return None
        return "pp"
    if head.pos_ == "ADJ" and head.dep_ in ("acomp", "ROOT", "amod") and head.head.pos_ != "NOUN":
        return None if head.lower_ == "same" else "adj"  # "Yep, same here"
    if head.tag_ == "VBN" and not any(c.dep_ in ("dobj", "nsubj") for c in head.children):
        return "adj"  # "Nope, engaged!", "Nope, retired"
    if head.pos_ in ("NOUN", "PROPN", "DET", "ADJ", "NUM"):
        noun = head if head.pos_ in ("NOUN", "PROPN") else head.head
        if noun.pos_ not in ("NOUN", "PROPN") or noun.lower_ in _TIME_NOUNS:
            return None
        return "np"
    return None


def _question_predicate(q: Any) -> tuple[str, str] | None:
    """(verb, category) of a yes/no question to "you" whose main verb is "be" or "have":
    ("am", "pp") for "Are you still at the hospital?", ("have", "np") for "Do you still have the
    boat?"; None for any other verb ("Are you coming?", "Did you like it?")."""
    toks = [t for t in q if not t.is_punct]
    root = next((t for t in toks if t.dep_ == "ROOT"), None)
    if root is None:
        return None
    subj = next((t for t in root.children if t.dep_ == "nsubj"), None)
    if subj is None or subj.lower_ != "you":
        return None
    if root.lower_ in _BE:
        pred = next((c for c in root.children if c.dep_ in ("acomp", "attr", "prep") and c.i > subj.i), None)
        if pred is None:
            return None
        cat = {"acomp": "adj", "prep": "pp", "attr": "np"}[pred.dep_]
        if cat == "np" and pred.lower_ in _PRONOUNS | {"one"}:
            return None  # "Are you the one in the photo?"
        return ("am" if root.lower_ in ("are", "is", "'re", "’re") else "was"), cat
    if root.lower_ in ("have", "got"):
        obj = next((c for c in root.children if c.dep_ == "dobj"), None)
        if obj is None or any(c.dep_ == "det" and c.lower_ in ("any", "a", "an") for c in obj.children):
            return None  # "Do you have any pets?" + "Yes, two!": write/qa_pairs.py
        return "have", "np"
    return None


_FITS = {"pp": ("pp", "adj"), "adj": ("adj", "pp"), "np": ("np",)}
# chat words after the fragment: "Still at the hospital, yeah", "second violin now haha"
_TAIL_RE = re.compile(r"(?i)[\s,]+(?:yeah|yep|yes|ha(?:ha)+|lol|though|tbh|lmao)\s*$")


def yes_no_fragment(s: str, is_first: bool, ctx: Any, parses: Any) -> str | None:
    """The reply's opening fragment as "I am/have <fragment>"; None when it is no such reply."""
    if not is_first or parses is None:
        return None
    m = _REPLY_RE.match(s)
    q = _last_question(ctx)
    if m is None or q is None or not _YES_NO_Q_RE.match(q):
        return None
    frag = _TAIL_RE.sub("", m.group("frag").strip())
    last = _last_turn(ctx)
    if last is not None:  # "Yep, still in the ER, Ben!": the vocative is no part of the state
        frag = re.sub(r",\s*" + re.escape(last[0].strip()) + r"\s*$", "", frag)
    if not frag or len(frag.split()) > 14:
        return None
    from arandu_pipelines.write.parses import PARSE

    qdoc, doc = parses.docs([q, frag], PARSE, STAGE)
    if qdoc is None or doc is None:
        return None
    asked = _question_predicate(qdoc)
    if asked is None:
        return None
    verb, cat = asked
    toks = [t for t in doc if not t.is_punct]
    if not toks or any(t.tag_ in _FINITE and t.lower_ not in ("'s", "’s") for t in toks):
        return None  # "Yes, I am", "Nope, I quit": a clause of its own
    if any(t.lower_ in _PRONOUNS for t in toks):
        return None  # "Yep, me on the left", "Yep, same here", "Yep, still there"
    head = next((t for t in toks if t.lower_ not in _LEAD_ADVS), None)
    if head is None or _category(head) not in _FITS[cat]:
        return None  # "Yep, totally!", "Yes, both days!" after "Are you free?", "Yes, of course"
    words = frag[:1].lower() + frag[1:] if toks[0].pos_ != "PROPN" else frag
    end = m.group("end").strip() or "."
    return f"{m.group('lead')}I {verb} {words}{end[:1] if end[:1] in '.!' else '.'}"


# ---- identification with an apposition ---------------------------------------------------------
_IDENT_RE = re.compile(
    r"^(?P<lead>\s*)(?:that|this|it)(?:['’]s|\s+is)\s+(?P<np>[^,;:!?.…—–\[]+?)\s*,\s*(?P<app>(?:a|an|the|my|our|one)\s+[^!?…\[]+?)"
    r"(?P<end>[.!…]*)\s*(?:\[[^\]]*\]?\s*)?$", re.IGNORECASE)  # a photo caption after it is no part of it
_ASK_WHAT_RE = re.compile(r"(?i)(?:^|[\s,])(?:what|which|who)\b")


def identification(s: str, ctx: Any, text: str, parses: Any) -> str | None:
    """"That's X, a Y ..." after a what/which question or a photo share -> "X is a Y ..."."""
    m = _IDENT_RE.match(s)
    if m is None or parses is None:
        return None
    q = _last_question(ctx)
    last = _last_turn(ctx)
    shown = bool(_IMAGE_RE.search(text)) or (last is not None and bool(_IMAGE_RE.search(last[1])))
    if not (q is not None and _ASK_WHAT_RE.search(q)) and not shown:
        return None
    np = m.group("np").strip()
    words = np.split()
    if not words or len(words) > 6:
        return None
    low0 = words[0].lower()
    if low0 in ("a", "an", "so", "such", "very", "really", "just", "pretty", "too", "not"):
        return None  # "That's a shame, ...", "That's so cool, ..."
    if low0 == "the" and not (len(words) > 1 and words[1][:1].isupper()):
        return None  # "That's the best part, ...": "the" + a common noun says nothing named
    from arandu_pipelines.write.parses import PARSE

    doc = parses.doc(f"It is {np}.", PARSE, STAGE)
    if doc is None:
        return None
    toks = [t for t in doc[2:] if not t.is_punct]
    if not toks or any(t.pos_ in ("VERB", "AUX") and t.tag_ in _FINITE for t in toks):
        return None
    head = next((t for t in toks if t.dep_ in ("attr", "acomp", "ROOT")), toks[-1])
    if head.pos_ not in ("NOUN", "PROPN") and not any(t.pos_ in ("NOUN", "PROPN") for t in toks):
        return None  # "That's awesome, a dream come true"
    if head.pos_ == "ADJ" or toks[-1].pos_ == "ADJ":
        return None
    subj = np[:1].upper() + np[1:]
    return f"{m.group('lead')}{subj} is {m.group('app').strip()}{m.group('end').strip() or '.'}"


# ---- the hook ----------------------------------------------------------------------------------
_GATE_RE = re.compile(r"(?i)\bguess\s+who\b|(?:^|[.!?…]\s+)(?:yes|yeah|yep|yup|yea|no|nope|nah|still)\b|\b(?:that|this|it)(?:['’]s|\s+is)\s+[^,]{1,60},")


def gate(text: str) -> bool:
    """Cheap test whether `rewrite_sentence` may change something in `text`."""
    return bool(_GATE_RE.search(text))


def rewrite_sentence(text: str, sentences: list[str], i: int, ctx: Any, parses: Any) -> str | None:
    """Sentence i of the message (`sentences`, as split) as a plain statement, or None (unchanged)."""
    s = sentences[i]
    out = guess_who(sentences, i, parses)
    if out is None:
        opening = all(len(x.split()) <= 3 and "?" not in x for x in sentences[:i])  # after "Hey Ben!" / "Yep!"
        out = yes_no_fragment(s, opening, ctx, parses)
    if out is None:
        out = identification(s, ctx, text, parses)
    return out


__all__ = ["STAGE", "gate", "guess_who", "identification", "rewrite_sentence", "yes_no_fragment"]

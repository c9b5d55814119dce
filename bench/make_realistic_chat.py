"""Write bench/data/realistic-chat.json: a small group chat with the traits LoCoMo lacks.

    python bench/make_realistic_chat.py [--out bench/data/realistic-chat.json] [--seed 18]

Three friends over three weeks in March 2024, 12 dated sessions, ~350 turns, in LoCoMo's JSON
shape (speaker_a/speaker_b (+ speaker_c), session_N, session_N_date_time, turns with speaker,
dia_id, text; qa with question, answer, evidence, category 1-4), so `bench/locomo.py` reads it.

What makes it unlike LoCoMo: typos, slang, emoji and one-word reactions between the turns that
matter; the speaker label "Muhhamed" is a misspelling his friends never use ("Mo"), and the
questions ask about "Muhammad", "Kate" (label "Katherine") and once "Pirya"; several questions ask
for a list gathered across sessions ("What are Kate's hobbies?"), with every gathering turn as
evidence.

Everything that carries an answer is hand-written below (one line per turn, tagged); the filler
between those turns comes from templates, chosen and misspelt by a seeded RNG, so the file is
deterministic and reviewable. Evidence labels are computed from the tags, never typed by hand.
Written for this project, not copied from any public data set.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from datetime import datetime, timedelta
from pathlib import Path

K, M, P = "Katherine", "Muhhamed", "Priya"
START = datetime(2024, 3, 4)

# (day offset, hour, minute) of each session: three weeks, mostly evenings.
SESSIONS = [(0, 19, 12), (2, 21, 40), (4, 12, 5), (6, 18, 30), (8, 20, 15), (9, 22, 48),
            (11, 19, 3), (13, 13, 20), (15, 21, 2), (16, 8, 45), (18, 20, 30), (20, 17, 55)]

# Hand-written turns per session: (speaker, text, tag). A tag names the fact a turn carries; the
# questions below cite tags. None: a scripted turn that carries no answer.
SCRIPT: list[list[tuple[str, str, str | None]]] = [
    [  # 1: Mon 4 March
        (P, "ok who's alive after the weekend 🙋‍♀️", None),
        (K, "barely lol. went bouldering sat at the quarry wall w the climbing lot, arms are jelly", "k_boulder"),
        (M, "Kat you're insane, I get tired climbing the stairs to my flat", None),
        (P, "I did my long run sunday, 16k!! half marathon training is eating my life", "p_running"),
        (K, "when's the race again?", None),
        (P, "edinburgh half, sunday 24th march. 3 weeks lol 😬", "p_race_date"),
        (M, "we'll come cheer. with signs. embarrassing ones", None),
        (K, "night shifts all week at St Mary's so I'm a zombie till friday", "k_work"),
        (P, "nurse life 😭 take care of urself", None),
    ],
    [  # 2: Wed 6 March
        (M, "guys I joined a chess club at the library, thursdays 7pm", "m_chess"),
        (P, "mo the grandmaster!!", None),
        (M, "grandmaster of losing in 12 moves yes", None),
        (K, "biscuit ate my left trainer today. just the left one", "k_dog"),
        (P, "omg Biscuit 😂 how old is he now", None),
        (K, "2 in may. still a puppy brain. beagles man", "k_dog"),
        (M, "work was rough btw, Northwind Freight is restructuring the backend team again", "m_work"),
        (P, "ugh. are u looking around?", None),
        (M, "kinda. sent a few applications, one to Kestrel Labs", "m_apply"),
    ],
    [  # 3: Fri 8 March
        (K, "GUESS WHO HAD HER FIRST CELLO LESSON", "k_cello"),
        (P, "NO WAY kate!! since when do u play", None),
        (K, "since today 🎻 teacher is a retired guy called Mr Okafor, very patient", "k_cello"),
        (M, "your neighbours are gonna love you", None),
        (P, "quiz tonight at the Crown btw, Quizteama Aguilera rides again", "p_quiz"),
        (M, "I can't, chess thing. who else is on the team", None),
        (P, "me, my flatmate Dev and two ppl from school", None),
        (P, "year 3 are doing volcanoes this week so my classroom is covered in papier mache lava", "p_job"),
    ],
    [  # 4: Sun 10 March
        (M, "update: my sourdough starter is alive. I named it Doughvid", "m_bread"),
        (P, "😂😂 doughvid", None),
        (K, "pics or it didn't happen", None),
        (M, "first loaf was a brick but second one actually rose", "m_bread"),
        (P, "did 18k today, knees say no", "p_running"),
        (K, "sprained my finger bouldering on friday, tape everywhere", "k_injury"),
        (M, "so no cello?", None),
        (K, "cello is fine, its my left ring finger. climbing is off for a week tho", None),
    ],
    [  # 5: Tue 12 March
        (M, "KESTREL LABS OFFERED ME THE JOB 🎉🎉", "m_offer"),
        (P, "MOOOO omg congrats!!!", None),
        (K, "yesss I knew it. senior backend?", None),
        (M, "yeah senior backend engineer, better pay and 3 days remote", "m_offer"),
        (M, "haven't said yes yet, want to see what Northwind counters with", None),
        (P, "don't let them guilt trip u", None),
        (P, "also I'm veggie so pick somewhere with actual veggie options for the celebration pls", "p_veggie"),
    ],
    [  # 6: Wed 13 March, late
        (K, "pottery class tonight!! I made a mug. it's wonky but its MINE", "k_pottery"),
        (P, "a wonky mug is a mug with character", None),
        (P, "my brother Arjun is getting married in april!! 20th april in Leicester", "p_wedding"),
        (M, "no way, congrats to him. you doing a speech?", None),
        (P, "I'm doing a reading and probably crying through it", None),
        (M, "I'd come visit u more Pri but your cat and my eyes do not get along 🤧", "m_allergy"),
        (P, "Mango takes that personally", "p_cat"),
    ],
    [  # 7: Fri 15 March
        (M, "started cycling to work this week, 25 min each way along the canal", "m_cycling"),
        (K, "look at u, fitness king", None),
        (P, "helmet??", None),
        (M, "yes mum, helmet", None),
        (K, "finger's better, back on the wall tomorrow", None),
        (P, "taper week next week, only short runs. feels illegal", "p_running"),
    ],
    [  # 8: Sun 17 March
        (K, "my sister Lucy's coming up from Bristol on thursday for 5 days", "k_sister"),
        (P, "yay Lucy! bring her to quiz", None),
        (P, "we came 2nd at the Crown on friday, lost on the last round to 'Les Quizerables' 😤", "p_quiz"),
        (M, "robbed", None),
        (M, "ok I said yes to Kestrel. start date is 8 april", "m_accept"),
        (K, "YESSS", None),
        (P, "proud of u mo 🥹", None),
    ],
    [  # 9: Tue 19 March
        (K, "did a trail run in the Pentlands with Lucy this morning, mud to my knees", "k_trail"),
        (P, "ur basically training for my race now", None),
        (K, "haha no, 8k is my limit. it's a new hobby tho, I like it", "k_trail"),
        (M, "I'll stick to bikes", None),
        (P, "carb loading starts friday. pasta every day. living the dream 🍝", None),
    ],
    [  # 10: Wed 20 March, morning
        (M, "started learning japanese on duolingo, 14 day streak", "m_japanese"),
        (K, "why japanese?", None),
        (M, "me and my cousin are going to tokyo in october, want to order ramen like a pro", "m_japanese"),
        (P, "I'm knitting Arjun a scarf for the wedding, it's in his cricket club colours", "p_knit"),
        (K, "pri knitting now too? u have more hobbies than me", None),
        (P, "knitting keeps me from doom scrolling before the race", "p_knit"),
    ],
    [  # 11: Fri 22 March
        (M, "found a flat!! moving to Leith at the end of april", "m_move"),
        (K, "leith is so nice, near the water", None),
        (P, "new job AND new flat, mo's having a year", None),
        (K, "lucy bought me new climbing shoes as a thank you, my old ones had holes 🥲", "k_shoes"),
        (M, "Biscuit better not eat those", None),
        (K, "he already tried", "k_dog"),
    ],
    [  # 12: Sun 24 March
        (P, "I FINISHED 🏃‍♀️ 1:58:40!!! under 2 hours", "p_result"),
        (K, "PRIYAAAA we were screaming at mile 10", None),
        (M, "our sign said 'run like Mango is chasing you' lol", None),
        (P, "that sign got me through the hill tbh", None),
        (P, "never again. (until next year)", None),
        (K, "brunch to celebrate? somewhere veggie obviously", None),
    ],
]

# Filler: small talk, reactions and logistics, with slang and emoji. `{x}` slots are filled from
# the lists after.
FILLER = [
    "lol", "lmao", "😂😂", "haha", "omg", "wait what", "ngl thats wild", "same tbh", "ok ok", "fair",
    "brb", "back", "🙏", "❤️", "👀", "yesss", "noooo", "ugh", "mood", "big mood", "ikr", "true",
    "hahaha stop", "im crying", "honestly same", "that's so u", "classic", "rip", "👍", "k",
    "anyone else {complaint}", "ugh {complaint}", "did u see {thing}", "whats everyone doing {day}",
    "{day} works for me", "can't do {day}, sorry", "I'm so tired today", "send pics", "sorry was on the bus",
    "phone died sorry", "wait whos bringing snacks", "coffee later?", "its raining AGAIN", "grr",
    "i need a holiday", "anyone watching {show}", "{show} spoilers pls no", "the group chat is so chaotic today",
    "sorry just saw this", "omw", "5 min late sry", "remind me on {day}", "thats hilarious",
]
FILL = {
    "complaint": ["hate mondays", "can't sleep", "forget their keys today", "spill coffee on themselves",
                  "get stuck behind a tram", "miss the bus", "have a headache"],
    "thing": ["the sunset last night", "that video of the seal", "the price of eggs", "the new bakery on Leith Walk",
              "the tram strike news"],
    "day": ["tmrw", "friday", "saturday", "sunday", "next week", "tonight", "wednesday"],
    "show": ["the traitors", "severance", "bake off", "the bear"],
}


def typo(text: str, rng: random.Random) -> str:
    """One realistic slip in a longer filler line: swapped letters or a dropped letter."""
    words = text.split(" ")
    idx = [i for i, w in enumerate(words) if len(w) > 4 and w.isalpha()]
    if not idx:
        return text
    i = rng.choice(idx)
    w = words[i]
    j = rng.randrange(1, len(w) - 2)
    words[i] = w[:j] + w[j + 1] + w[j] + w[j + 2:] if rng.random() < 0.5 else w[:j] + w[j + 1:]
    return " ".join(words)


def filler(rng: random.Random) -> str:
    line = rng.choice(FILLER)
    line = re.sub(r"\{(\w+)\}", lambda m: rng.choice(FILL[m.group(1)]), line)
    return typo(line, rng) if rng.random() < 0.25 else line


def build(seed: int) -> dict:
    rng = random.Random(seed)
    speakers = [K, M, P]
    conv: dict = {"speaker_a": K, "speaker_b": M, "speaker_c": P}
    tags: dict[str, list[str]] = {}
    for n, (script, (day, hh, mm)) in enumerate(zip(SCRIPT, SESSIONS, strict=True), 1):
        when = START + timedelta(days=day, hours=hh, minutes=mm)
        conv[f"session_{n}_date_time"] = (f"{when.hour % 12 or 12}:{when.minute:02d} "
                                          f"{'am' if when.hour < 12 else 'pm'} on {when.day} "
                                          f"{when.strftime('%B')}, {when.year}")
        turns = []
        for turn in script:
            speaker, text, tag = turn
            for _ in range(rng.randint(1, 4)):  # chatter before each scripted turn
                turns.append((rng.choice([s for s in speakers if s != speaker]), filler(rng), None))
            turns.append((speaker, text, tag))
        for _ in range(rng.randint(2, 5)):
            turns.append((rng.choice(speakers), filler(rng), None))
        out = []
        for i, (speaker, text, tag) in enumerate(turns, 1):
            dia = f"D{n}:{i}"
            out.append({"speaker": speaker, "dia_id": dia, "text": text})
            if tag:
                tags.setdefault(tag, []).append(dia)
        conv[f"session_{n}"] = out
    qa = []
    for question, answer, tag_list, category in QUESTIONS:
        evidence = [d for t in tag_list for d in tags[t]]
        qa.append({"question": question, "answer": answer, "evidence": evidence, "category": category})
    unused = set(tags) - {t for _, _, tl, _ in QUESTIONS for t in tl}
    if unused:
        raise SystemExit(f"tags no question cites: {sorted(unused)}")
    return {"conversation": conv, "qa": qa}


# (question, answer, tags of the evidence turns, category 1 multi-hop | 2 temporal |
# 3 open-domain/inference | 4 single-hop). Names as people ask them, not as the labels spell them.
QUESTIONS: list[tuple[str, str, list[str], int]] = [
    ("What are Kate's hobbies?", "bouldering, cello, pottery, trail running",
     ["k_boulder", "k_cello", "k_pottery", "k_trail"], 1),
    ("What hobbies has Muhammad picked up?", "chess, sourdough baking, cycling, Japanese",
     ["m_chess", "m_bread", "m_cycling", "m_japanese"], 1),
    ("What are Priya's hobbies?", "running, pub quiz, knitting", ["p_running", "p_quiz", "p_knit"], 1),
    ("What pets do the friends have?", "Kate's beagle Biscuit and Priya's cat Mango", ["k_dog", "p_cat"], 1),
    ("Which companies has Muhammad worked for or been offered a job by?", "Northwind Freight, Kestrel Labs",
     ["m_work", "m_apply", "m_offer", "m_accept"], 1),
    ("Why doesn't Muhammad visit Priya's place more often?", "he is allergic to her cat Mango",
     ["m_allergy", "p_cat"], 1),
    ("What is the name of Kate's dog?", "Biscuit", ["k_dog"], 4),
    ("Where does Kate work?", "St Mary's, as a nurse on night shifts", ["k_work"], 4),
    ("When did Muhammad get the job offer from Kestrel Labs?", "12 March 2024", ["m_offer"], 2),
    ("When does Muhammad start at Kestrel Labs?", "8 April", ["m_accept"], 2),
    ("When is Priya's half marathon?", "24 March 2024", ["p_race_date"], 2),
    ("What is Priya's pub quiz team called?", "Quizteama Aguilera", ["p_quiz"], 4),
    ("Who came to visit Kate?", "her sister Lucy, from Bristol", ["k_sister"], 4),
    ("What did Kate make in pottery class?", "a wonky mug", ["k_pottery"], 4),
    ("What does Priya teach?", "year 3", ["p_job"], 4),
    ("Would Priya order a steak at the celebration dinner?", "No, she is vegetarian", ["p_veggie"], 3),
    ("When is Priya's brother's wedding?", "20 April 2024", ["p_wedding"], 2),
    ("What was Priya's half marathon time?", "1:58:40", ["p_result"], 4),
    ("What language is Muhammad learning and why?", "Japanese, for a trip to Tokyo in October",
     ["m_japanese"], 3),
    ("What did Mo name his sourdough starter?", "Doughvid", ["m_bread"], 4),
    ("When did Kate have her first cello lesson?", "8 March 2024", ["k_cello"], 2),
    ("Where is Muhammad moving?", "Leith", ["m_move"], 4),
    ("What sports do Kate, Muhammad and Priya do?", "bouldering, trail running, cycling, running",
     ["k_boulder", "k_trail", "m_cycling", "p_running"], 1),
    ("How did Kate hurt her finger?", "bouldering", ["k_injury"], 4),
    ("How does Muhammad get to work?", "he cycles along the canal", ["m_cycling"], 4),
    ("What gift did Kat get from her sister?", "new climbing shoes", ["k_shoes"], 4),
    ("What did Pirya knit for her brother?", "a scarf in his cricket club colours", ["p_knit"], 4),
    ("Where did the pub quiz team come in the quiz at the Crown?", "second", ["p_quiz"], 4),
    ("Is Kate likely to join Priya for a half marathon?", "No, 8k is her limit", ["k_trail"], 3),
    ("When did Muhhamed accept the Kestrel Labs offer?", "17 March 2024", ["m_accept"], 2),
    ("What kind of dog does Katherine have?", "a beagle", ["k_dog"], 4),
]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "data" / "realistic-chat.json")
    ap.add_argument("--seed", type=int, default=18)
    args = ap.parse_args(argv)
    data = build(args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    conv = data["conversation"]
    n_turns = sum(len(v) for k, v in conv.items() if re.fullmatch(r"session_\d+", k))
    print(f"wrote {args.out}: {n_turns} turns in {len(SESSIONS)} sessions, {len(data['qa'])} questions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Word lists and tables for the offline (rule-based) extractor, English and Portuguese.

Kept apart from the extraction code so the rules read as grammar and the vocabulary can grow
without touching them. Everything here is a tuple, a frozenset (membership tests only) or a dict
(insertion-ordered), so nothing that reaches extractor output depends on set iteration order.
"""

from __future__ import annotations

import re

# --------------------------------------------------------------------------------------------
# Language detection
# --------------------------------------------------------------------------------------------

STOPWORDS_EN: frozenset[str] = frozenset(
    ["the", "a", "an", "and", "or", "but", "of", "to", "in", "on", "at", "for", "with", "from", "by", "is", "are", "was", "were", "be", "been", "being", "am", "i", "you", "he", "she", "it", "we", "they", "me", "my", "your", "his", "her", "its", "our", "their", "this", "that", "these", "those", "what", "which", "who", "whom", "how", "when", "where", "why", "not", "no", "yes", "do", "does", "did", "have", "has", "had", "will", "would", "can", "could", "should", "just", "so", "very", "really", "too", "also", "than", "then", "there", "here", "about", "out", "up", "down", "over", "if", "because", "as", "i'm", "i've", "i'd", "i'll", "it's", "that's", "don't", "didn't", "can't", "won't", "isn't", "wasn't", "you're", "we're", "they're", "gonna", "wanna", "got", "get", "going", "been", "went", "some", "any", "all", "more", "most", "much", "many"]
)

STOPWORDS_PT: frozenset[str] = frozenset(
    ["o", "a", "os", "as", "um", "uma", "uns", "umas", "de", "do", "da", "dos", "das", "em", "no", "na", "nos", "nas", "por", "pelo", "pela", "pelos", "pelas", "para", "pra", "pro", "com", "sem", "e", "ou", "mas", "que", "se", "não", "nao", "sim", "eu", "tu", "ele", "ela", "nós", "nos", "vocês", "você", "voce", "vc", "eles", "elas", "meu", "minha", "meus", "minhas", "seu", "sua", "seus", "suas", "nosso", "nossa", "dele", "dela", "isso", "isto", "aquilo", "esse", "essa", "este", "esta", "é", "foi", "era", "são", "estou", "está", "estava", "tenho", "tem", "tinha", "vou", "vai", "muito", "muita", "mais", "também", "tambem", "já", "ja", "ainda", "quando", "onde", "como", "porque", "porquê", "então", "entao", "aqui", "lá", "ao", "à", "aos", "às", "me", "te", "lhe", "mim", "comigo", "hoje", "ontem", "amanhã"]
)

# --------------------------------------------------------------------------------------------
# First person (the speaker)
# --------------------------------------------------------------------------------------------

SELF_PRONOUNS_EN: tuple[str, ...] = (
    "i", "me", "my", "mine", "myself", "i'm", "i've", "i'd", "i'll", "im", "ive",
)
SELF_PRONOUNS_PT: tuple[str, ...] = (
    "eu", "me", "meu", "minha", "meus", "minhas", "mim", "comigo",
)
WE_PRONOUNS_EN: tuple[str, ...] = ("we", "us", "our", "ours", "ourselves", "we're", "we've", "we'll", "we'd")



# --------------------------------------------------------------------------------------------
# Relationship terms: surface term -> relation type (relation goes possessor -> named person,
# except reports_to which goes possessor -> boss, i.e. the speaker reports to the boss).
# --------------------------------------------------------------------------------------------

REL_TERMS_EN: dict[str, str] = {
    "wife": "partner_of", "husband": "partner_of", "girlfriend": "partner_of",
    "boyfriend": "partner_of", "partner": "partner_of", "fiancé": "partner_of",
    "fiancée": "partner_of", "fiance": "partner_of", "fiancee": "partner_of",
    "spouse": "partner_of", "ex-wife": "partner_of", "ex-husband": "partner_of",
    "mom": "family_of", "mum": "family_of", "mother": "family_of", "dad": "family_of",
    "father": "family_of", "brother": "family_of", "sister": "family_of", "son": "family_of",
    "daughter": "family_of", "aunt": "family_of", "uncle": "family_of", "cousin": "family_of",
    "grandma": "family_of", "grandpa": "family_of", "grandmother": "family_of",
    "grandfather": "family_of", "niece": "family_of", "nephew": "family_of",
    "stepmom": "family_of", "stepdad": "family_of", "stepbrother": "family_of",
    "stepsister": "family_of", "sibling": "family_of", "kid": "family_of", "child": "family_of",
    "kids": "family_of", "children": "family_of", "parents": "family_of", "sons": "family_of",
    "daughters": "family_of", "brothers": "family_of", "sisters": "family_of",
    "mother-in-law": "family_of", "father-in-law": "family_of", "sister-in-law": "family_of",
    "brother-in-law": "family_of", "grandson": "family_of", "granddaughter": "family_of",
    "best friend": "friend_of", "friend": "friend_of", "bff": "friend_of", "buddy": "friend_of",
    "friends": "friend_of", "roommate": "friend_of",
    "colleague": "works_with", "coworker": "works_with", "co-worker": "works_with",
    "teammate": "works_with", "colleagues": "works_with", "coworkers": "works_with",
    "boss": "reports_to", "manager": "reports_to", "supervisor": "reports_to",
    "employee": "manages", "intern": "manages", "assistant": "manages",
    "neighbor": "neighbor_of", "neighbour": "neighbor_of",
}

REL_TERMS_PT: dict[str, str] = {
    "esposa": "partner_of", "marido": "partner_of", "namorada": "partner_of",
    "namorado": "partner_of", "noivo": "partner_of", "noiva": "partner_of",
    "mulher": "partner_of", "companheiro": "partner_of", "companheira": "partner_of",
    "parceiro": "partner_of", "parceira": "partner_of", "ex-mulher": "partner_of",
    "ex-marido": "partner_of",
    "mãe": "family_of", "pai": "family_of", "irmão": "family_of", "irmã": "family_of",
    "filho": "family_of", "filha": "family_of", "tia": "family_of", "tio": "family_of",
    "primo": "family_of", "prima": "family_of", "avó": "family_of", "avô": "family_of",
    "sobrinho": "family_of", "sobrinha": "family_of", "neto": "family_of", "neta": "family_of",
    "sogra": "family_of", "sogro": "family_of", "cunhado": "family_of", "cunhada": "family_of",
    "filhos": "family_of", "pais": "family_of", "irmãos": "family_of",
    "melhor amigo": "friend_of", "melhor amiga": "friend_of", "amigo": "friend_of",
    "amiga": "friend_of", "amigos": "friend_of", "amigas": "friend_of",
    "colega de trabalho": "works_with", "colega": "works_with", "colegas": "works_with",
    "chefe": "reports_to", "gerente": "reports_to", "gestor": "reports_to", "gestora": "reports_to",
    "funcionário": "manages", "funcionária": "manages", "estagiário": "manages",
    "estagiária": "manages",
    "vizinho": "neighbor_of", "vizinha": "neighbor_of",
}

PET_TERMS_EN: tuple[str, ...] = (
    "dog", "cat", "puppy", "kitten", "pup", "pet", "bunny", "rabbit", "hamster", "parrot",
    "bird", "horse", "turtle", "fish", "guinea pig",
)
PET_TERMS_PT: tuple[str, ...] = (
    "cachorro", "cachorra", "cachorrinho", "cachorrinha", "cão", "cadela", "gato", "gata",
    "gatinho", "gatinha", "coelho", "papagaio", "pássaro", "cavalo", "tartaruga", "peixe",
    "hamster", "pet", "calopsita",
)

# Adjectives that may sit between a possessive and a relationship/pet term ("my little sister").
REL_ADJ_EN: tuple[str, ...] = (
    "new", "best", "old", "older", "younger", "little", "big", "late", "dear", "ex", "former",
    "current", "lovely", "oldest", "youngest", "baby", "twin", "step", "sweet", "elder",
)
REL_ADJ_PT: tuple[str, ...] = (
    "nova", "novo", "melhor", "velha", "velho", "querida", "querido", "antiga", "antigo",
    "atual", "falecida", "falecido", "primeira", "primeiro", "grande", "pequena", "pequeno",
)

# --------------------------------------------------------------------------------------------
# Occupations (the noun decides whether "is a X" is an occupation)
# --------------------------------------------------------------------------------------------

OCCUPATIONS_EN: tuple[str, ...] = (
    "nurse", "doctor", "teacher", "engineer", "developer", "programmer", "designer", "banker",
    "lawyer", "accountant", "architect", "artist", "painter", "musician", "writer", "author",
    "journalist", "chef", "cook", "waiter", "waitress", "barista", "student", "professor",
    "researcher", "scientist", "manager", "consultant", "analyst", "dentist", "pharmacist",
    "therapist", "counselor", "counsellor", "psychologist", "psychiatrist", "social worker",
    "firefighter", "police officer", "cop", "soldier", "pilot", "driver", "mechanic",
    "electrician", "plumber", "carpenter", "farmer", "photographer", "dancer", "singer",
    "actor", "actress", "entrepreneur", "ceo", "cto", "founder", "salesperson", "cashier",
    "librarian", "veterinarian", "vet", "paramedic", "surgeon", "freelancer", "intern",
    "secretary", "receptionist", "tutor", "coach", "instructor", "editor", "translator",
    "data scientist", "product manager", "software engineer", "web developer", "attorney",
    "judge", "economist", "biologist", "chemist", "physicist", "mathematician",
    "nanny", "babysitter", "hairdresser", "tailor", "baker", "butcher", "dj", "youtuber",
    "streamer", "influencer", "model", "athlete", "blogger", "sommelier", "historian",
)
OCCUPATIONS_PT: tuple[str, ...] = (
    "enfermeiro", "enfermeira", "médico", "médica", "professor", "professora", "engenheiro",
    "engenheira", "desenvolvedor", "desenvolvedora", "programador", "programadora", "designer",
    "bancário", "bancária", "advogado", "advogada", "contador", "contadora", "arquiteto",
    "arquiteta", "artista", "pintor", "pintora", "músico", "música", "escritor", "escritora",
    "jornalista", "cozinheiro", "cozinheira", "garçom", "garçonete", "estudante", "aluno",
    "aluna", "pesquisador", "pesquisadora", "cientista", "gerente", "consultor", "consultora",
    "analista", "dentista", "farmacêutico", "farmacêutica", "terapeuta", "psicólogo",
    "psicóloga", "psiquiatra", "bombeiro", "bombeira", "policial", "piloto", "motorista",
    "mecânico", "mecânica", "eletricista", "encanador", "carpinteiro", "fazendeiro",
    "fotógrafo", "fotógrafa", "dançarino", "dançarina", "bailarino", "bailarina", "cantor",
    "cantora", "ator", "atriz", "empresário", "empresária", "empreendedor", "empreendedora",
    "vendedor", "vendedora", "caixa", "bibliotecário", "bibliotecária", "veterinário",
    "veterinária", "cirurgião", "cirurgiã", "estagiário", "estagiária", "secretário",
    "secretária", "recepcionista", "tutor", "tutora", "treinador", "treinadora", "instrutor",
    "instrutora", "editor", "editora", "tradutor", "tradutora", "juiz", "juíza", "economista",
    "biólogo", "bióloga", "químico", "química", "físico", "física", "padeiro", "padeira",
    "cabeleireiro", "cabeleireira", "costureira", "faxineira", "diarista", "babá", "modelo",
    "atleta", "nutricionista", "fisioterapeuta", "servidor público", "servidora pública",
)

# Adjectives dropped from an occupation value ("a great nurse" -> "nurse").
ROLE_NOISE: frozenset[str] = frozenset(
    ["great", "good", "amazing", "awesome", "single", "proud", "new", "big", "little", "real", "true", "full-time", "part-time", "bom", "boa", "ótimo", "ótima", "grande", "novo", "nova"]
)

# Predicate adjectives that have a single-valued attribute (so "not X anymore" can retract them).
STATUS_ATTR: dict[str, str] = {
    "vegetarian": "diet", "vegan": "diet", "pescatarian": "diet", "gluten-free": "diet",
    "keto": "diet", "vegetariano": "diet", "vegetariana": "diet", "vegano": "diet",
    "vegana": "diet",
    "single": "relationship_status", "married": "relationship_status",
    "engaged": "relationship_status", "divorced": "relationship_status",
    "widowed": "relationship_status", "solteiro": "relationship_status",
    "solteira": "relationship_status", "casado": "relationship_status",
    "casada": "relationship_status", "noivo": "relationship_status",
    "noiva": "relationship_status", "divorciado": "relationship_status",
    "divorciada": "relationship_status",
    "pregnant": "health", "grávida": "health", "sober": "health", "sóbrio": "health",
    "retired": "employment_status", "unemployed": "employment_status",
    "aposentado": "employment_status", "aposentada": "employment_status",
    "desempregado": "employment_status", "desempregada": "employment_status",
}

# --------------------------------------------------------------------------------------------
# English verbs
# --------------------------------------------------------------------------------------------

MODALS_EN: frozenset[str] = frozenset(
    ["can", "could", "will", "would", "shall", "should", "may", "might", "must", "ought"]
)

IRREGULAR_PAST_EN: frozenset[str] = frozenset(
    ["went", "was", "were", "had", "did", "got", "made", "took", "saw", "came", "gave", "found", "felt", "thought", "told", "said", "knew", "left", "lost", "met", "ran", "bought", "brought", "began", "became", "chose", "drew", "drove", "ate", "fell", "flew", "forgot", "held", "kept", "led", "meant", "paid", "sent", "sat", "slept", "spent", "spoke", "stood", "taught", "understood", "won", "wrote", "built", "caught", "sold", "heard", "hung", "rode", "rose", "sang", "swam", "threw", "wore", "woke", "grew", "hid", "fought", "fed", "dug", "broke", "froze", "shook", "stole", "struck", "bent", "lent", "lit", "slid", "spun", "stuck", "stung", "swung", "tore", "wept", "wound", "put", "read", "cut", "hit", "let", "set", "quit", "hurt", "cost", "shut", "spread", "burst", "cast", "split", "bet", "laid", "knelt", "dealt", "leant", "learnt", "burnt", "spelt", "spilt", "swept", "crept", "clung", "flung", "wrung", "sprung", "sung", "rung", "strung", "shone", "shot", "spat", "sought", "snuck", "blew", "overslept", "forgave", "wove"]
)

# Present-tense 3rd person of irregular/base forms.
THIRD_PERSON_EN_VERBS: dict[str, str] = {
    "have": "has", "be": "is", "do": "does", "go": "goes", "say": "says", "am": "is",
    "don't": "doesn't", "haven't": "hasn't", "wanna": "wants to", "gotta": "has to",
    "was": "was", "were": "was",
}

# Words after "I" that are not verbs to conjugate (the next word may be).
ADVERBS_EN: frozenset[str] = frozenset(
    ["really", "also", "just", "still", "always", "usually", "never", "often", "sometimes", "actually", "truly", "definitely", "kinda", "sorta", "even", "only", "already", "finally", "recently", "now", "then", "personally", "honestly", "seriously", "absolutely", "completely", "mostly", "rarely", "hardly", "literally", "basically", "generally", "normally", "occasionally", "totally", "probably", "maybe", "certainly", "surely", "ever", "constantly", "simply", "barely", "def", "def.", "officially", "first", "last", "once", "again", "too", "currently", "definitely"]
)

# Verbs that make a capitalised sentence-initial word a person's name ("Carlos lives ...").
PERSON_VERBS_EN: frozenset[str] = frozenset(
    ["lives", "lived", "works", "worked", "moved", "left", "quit", "joined", "said", "says", "told", "tells", "went", "goes", "married", "studies", "studied", "started", "starts", "hired", "visited", "loves", "loved", "likes", "liked", "wants", "wanted", "thinks", "thought", "feels", "felt", "met", "called", "texted", "asked", "knows", "knew", "gave", "bought", "adopted", "graduated", "dated", "divorced", "travelled", "traveled", "retired", "plays", "played", "teaches", "taught", "runs", "ran", "wrote", "writes", "has", "had", "got", "gets", "was", "does", "did", "decided", "died", "passed", "broke", "loves", "hates", "hated", "enjoys", "enjoyed", "prefers", "preferred", "introduced", "helped", "invited", "misses", "missed", "visits", "manages", "managed", "sings", "sang", "dances", "danced", "cooked", "cooks", "lost", "won", "quit", "relocated", "came", "comes"]
)

PERSON_VERBS_PT: frozenset[str] = frozenset(
    ["mora", "morava", "morou", "trabalha", "trabalhava", "trabalhou", "saiu", "entrou", "casou", "estuda", "estudava", "estudou", "foi", "vai", "disse", "diz", "falou", "contou", "gosta", "gostou", "ama", "amou", "adora", "quer", "queria", "mudou", "começou", "conheceu", "ligou", "mandou", "comprou", "adotou", "contratou", "viajou", "voltou", "tem", "teve", "está", "estava", "era", "joga", "jogou", "pediu", "terminou", "namora", "namorou", "nasceu", "formou", "faleceu", "morreu", "visitou"]
)

# --------------------------------------------------------------------------------------------
# Portuguese verbs: 1st person singular -> 3rd person singular
# --------------------------------------------------------------------------------------------

PT_1SG_TO_3SG: dict[str, str] = {
    "moro": "mora", "trabalho": "trabalha", "estudo": "estuda", "tenho": "tem", "sou": "é",
    "estou": "está", "vou": "vai", "fui": "foi", "gosto": "gosta", "amo": "ama",
    "comecei": "começou", "mudei": "mudou", "saí": "saiu", "sai": "saiu", "entrei": "entrou",
    "conheci": "conheceu", "casei": "casou", "faço": "faz", "quero": "quer", "posso": "pode",
    "preciso": "precisa", "adotei": "adotou", "acho": "acha", "sei": "sabe", "vi": "viu",
    "fiz": "fez", "tive": "teve", "disse": "disse", "pude": "pôde", "quis": "quis",
    "estive": "esteve", "dei": "deu", "li": "leu", "comi": "comeu", "bebi": "bebeu",
    "corri": "correu", "vendi": "vendeu", "perdi": "perdeu", "decidi": "decidiu",
    "consegui": "conseguiu", "assisti": "assistiu", "voltei": "voltou", "cheguei": "chegou",
    "fiquei": "ficou", "comprei": "comprou", "viajei": "viajou", "terminei": "terminou",
    "namoro": "namora", "adoro": "adora", "prefiro": "prefere", "vivo": "vive",
    "moro.": "mora.", "trabalhei": "trabalhou", "estudei": "estudou", "morei": "morou",
    "morava": "morava", "trabalhava": "trabalhava", "estudava": "estudava", "era": "era",
    "estava": "estava", "tinha": "tinha", "ia": "ia", "fazia": "fazia", "gostava": "gostava",
    "jogo": "joga", "joguei": "jogou", "corro": "corre", "leio": "lê", "escrevo": "escreve",
    "como": "come", "bebo": "bebe", "durmo": "dorme", "saio": "sai", "venho": "vem",
    "vim": "veio", "trouxe": "trouxe", "dou": "dá", "digo": "diz", "ouço": "ouve",
    "peço": "pede", "pedi": "pediu", "sinto": "sente", "senti": "sentiu", "odeio": "odeia",
    "ganhei": "ganhou", "nasci": "nasceu", "cresci": "cresceu", "aprendi": "aprendeu",
    "aprendo": "aprende", "entendo": "entende", "penso": "pensa", "pensei": "pensou",
    "gerencio": "gerencia", "lidero": "lidera", "coordeno": "coordena", "deixei": "deixou",
    "larguei": "largou", "formei": "formou", "separei": "separou", "divorciei": "divorciou",
    "visitei": "visitou", "liguei": "ligou", "encontrei": "encontrou", "passei": "passou",
    "completei": "completou", "curto": "curte", "pretendo": "pretende", "planejo": "planeja",
    "costumo": "costuma", "consigo": "consegue", "devo": "deve", "acredito": "acredita",
    "espero": "espera", "gostaria": "gostaria", "queria": "queria", "podia": "podia",
    "estou.": "está.", "abri": "abriu", "parti": "partiu", "subi": "subiu", "dormi": "dormiu",
    "sonho": "sonha", "ensino": "ensina", "cuido": "cuida", "uso": "usa", "moramos": "moram",
}

# Sentence-initial words that are *not* a dropped-subject verb although they end in -ei.
PT_NOT_VERB_EI: frozenset[str] = frozenset(["lei", "rei", "sei", "dei"])

# Clitic object "me" -> "para X" for dative verbs, plain "X" otherwise.
PT_DATIVE_VERBS: frozenset[str] = frozenset(
    ["ligou", "ligava", "disse", "diz", "deu", "dá", "mandou", "manda", "contou", "conta", "falou", "fala", "escreveu", "pediu", "pede", "perguntou", "pergunta", "emprestou", "ensinou", "mostrou", "enviou", "envia", "explicou", "ofereceu"]
)

ADVERBS_PT: frozenset[str] = frozenset(
    ["também", "tambem", "já", "ja", "ainda", "não", "nao", "nunca", "sempre", "só", "so", "realmente", "até", "mesmo", "agora", "finalmente", "recentemente", "acabei", "quase", "provavelmente", "talvez", "certamente", "hoje", "ontem"]
)

# --------------------------------------------------------------------------------------------
# Hedges -> confidence
# --------------------------------------------------------------------------------------------

HEDGE_WEAK_EN: tuple[str, ...] = ("maybe", "might", "perhaps", "possibly", "not sure", "may be")
HEDGE_WEAK_PT: tuple[str, ...] = ("talvez", "quem sabe", "não sei se", "nao sei se", "possivelmente")
HEDGE_MID_EN: tuple[str, ...] = (
    "i think", "probably", "i guess", "i believe", "i suppose", "likely", "i assume",
    "i reckon", "pretty sure", "i'm thinking",
)
HEDGE_MID_PT: tuple[str, ...] = (
    "acho que", "provavelmente", "acredito que", "creio que", "imagino que", "suponho que",
    "parece que",
)
# Leading hedges removed from the fact text (they are the speaker's stance, kept as confidence).
HEDGE_PREFIX_EN: tuple[str, ...] = (
    "i think that", "i think", "i guess", "i believe", "i suppose", "i reckon", "i assume",
)
HEDGE_PREFIX_PT: tuple[str, ...] = (
    "acho que", "acredito que", "creio que", "imagino que", "suponho que",
)

CONF_EXPLICIT = 0.95
CONF_INFERRED = 0.80
CONF_HEDGED = 0.60
CONF_SPECULATIVE = 0.40

# --------------------------------------------------------------------------------------------
# Greetings, thanks, fillers, evaluatives
# --------------------------------------------------------------------------------------------

# Discourse lead words (session 15): what a sentence may open with before its first clause, each
# with its classes. ONE table for every module that strips lead words (extract_rules' lead strip,
# advice, reply_forms, grammar_defects); each module picks the classes its own job needs through
# `lead_alternation`. A key is a phrase (a space matches any white space) or, marked by regex
# characters, a pattern of written-out forms (laughter). Classes:
#   interjection - a cry with no content ("oh", "wow", "aw", "hmm", "omg")
#   laughter     - laughter written out ("haha", "lol"; the pattern covers "ahaha", "hehe", "lmao")
#   answer       - a yes/no answer or agreement particle ("yes", "yeah", "okay", "sure", "totally")
#   connective   - a discourse connective ("and", "but", "so", "also", "anyway", "well")
#   sequencer    - a step or time word that orders what follows ("first", "then", "now", "finally")
#   stance       - a speaker's stance adverb ("honestly", "actually", "seriously")
#   urging       - pushes the listener on ("please", "come on", "go on")
#   vocative     - calls or greets the listener ("hey", "hi", "man", "guys")
#   filler       - a hesitation before the words come ("well", "um", "hmm")
#   marker       - stripped by the rule engine's lead strip (extract_rules) and non-content there
#   pt           - Portuguese
_I, _LA, _AN, _CO, _SE, _ST, _UR, _VO, _FI, _MK, _PT = (
    "interjection", "laughter", "answer", "connective", "sequencer", "stance", "urging", "vocative", "filler",
    "marker", "pt")
LEAD_WORDS: dict[str, frozenset[str]] = {k: frozenset(v) for k, v in {
    # interjections
    "oh": (_I, _MK), "ooh": (_I, _MK), "ah": (_I, _MK), "aw": (_I, _MK), "aww": (_I, _MK), "awww": (_I, _MK),
    "wow": (_I, _MK), "woah": (_I, _MK), "whoa": (_I, _MK), "omg": (_I, _MK), "gosh": (_I, _MK),
    "hmm": (_I, _FI, _MK), "hm": (_I, _FI, _MK), "um": (_I, _FI), "uh": (_I, _FI), "yay": (_I,),
    "oh man": (_I, _MK),
    # interjections with "my" (session 14): "Oh my gosh, that's movie stuff" is no "S's gosh". "my word"
    # and a bare "(oh) my" only before punctuation ("My word is final" is about the speaker's word).
    r"(?:oh\s+)?my\s+(?:gosh|god|gawd|goodness|lord|heavens|stars|days)(?=[\s,!.…?]|$)": (_I, _MK),
    r"(?:oh\s+)?my\s+word(?=\s*[,!.…?]|$)": (_I, _MK), r"(?:oh\s+)?my(?=\s*[,!…]|$)": (_I, _MK),
    # laughter
    "haha": (_LA, _MK), "hahaha": (_LA, _MK), "lol": (_LA, _MK),
    r"a?(?:ha)+h?": (_LA,), r"(?:he){2,}h?": (_LA,), "heh": (_LA,), r"lo+l": (_LA,), r"lmf?ao+": (_LA,),
    "rofl": (_LA,),
    # answers and agreement
    "yes": (_AN, _MK), "yeah": (_AN, _MK), "yea": (_AN, _MK), "yep": (_AN, _MK), "yup": (_AN, _MK),
    "nah": (_AN,), "ok": (_AN, _MK), "okay": (_AN, _MK), "alright": (_AN,), "all right": (_AN,),
    "sure": (_AN, _MK), "right": (_AN, _MK), "true": (_AN, _MK), "agreed": (_AN, _MK), "exactly": (_AN, _MK),
    "absolutely": (_AN, _MK), "definitely": (_AN, _MK), "totally": (_AN, _MK), "indeed": (_AN, _MK),
    "no doubt": (_AN, _MK), "of course": (_AN,), "for sure": (_AN,), "cool": (_AN, _MK), "nice": (_AN, _MK),
    # connectives and sequencers
    "and": (_CO, _MK), "but": (_CO, _MK), "so": (_CO, _MK), "also": (_CO, _MK), "plus": (_CO, _MK),
    "well": (_CO, _FI, _MK), "anyway": (_CO, _MK), "anyways": (_CO, _MK), "btw": (_CO, _MK), "by the way": (_CO, _MK),
    "now": (_SE,), "then": (_SE,), "first": (_SE,), "finally": (_SE,), "lastly": (_SE,), "just": (_SE,),
    # stance, urging, vocatives
    "honestly": (_ST, _MK), "actually": (_ST, _MK), "seriously": (_ST,),
    "please": (_UR,), "come on": (_UR,), "go on": (_UR,), "c['’]mon": (_UR,),
    "hey": (_VO, _MK), "hi": (_VO, _MK), "hello": (_VO, _MK), "man": (_VO, _MK), "dude": (_VO, _MK),
    "guys": (_VO, _MK), "bro": (_VO, _MK),  # "Bro I'm already hungry" (session 17)
    # Portuguese (the rule engine's lead strip only)
    **{w: (_PT, _MK) for w in (
        "nossa", "olha", "então", "entao", "bom", "ei", "oi", "olá", "ola", "cara", "sim", "pois é", "enfim",
        "aliás", "alias", "né", "tipo", "kkk", "kkkk", "rs", "opa", "uau", "caramba", "poxa", "ufa", "e aí",
        "é", "pois", "bem", "aí", "ai")},
}.items()}
_REGEX_CHARS_RE = re.compile(r"[\\()?*+\[\]{}|]")


def lead_alternation(*classes: str, exclude: tuple[str, ...] = (), elongate: bool = False) -> str:
    """Regex alternation (longest first) of the lead words in any of `classes` and none of
    `exclude`; a phrase's space matches any white space, a pattern key stands as written.
    `elongate`: a word's last letter may be repeated ("ohh", "hmmm", "awww"), for modules that
    read chat spelling."""
    out = []
    for k, cls in LEAD_WORDS.items():
        if not cls & set(classes) or cls & set(exclude):
            continue
        if _REGEX_CHARS_RE.search(k):
            out.append(k)
        else:
            out.append(re.escape(k).replace(r"\ ", r"\s+") + ("+" if elongate and k.isalpha() else ""))
    return "|".join(sorted(dict.fromkeys(out), key=lambda w: (-len(w), w)))


# the rule engine's discourse markers: literal phrases (their words are non-content there too)
DISCOURSE_MARKERS: tuple[str, ...] = tuple(k for k, c in LEAD_WORDS.items() if _MK in c and not _REGEX_CHARS_RE.search(k))

GREETING_PATTERNS: tuple[str, ...] = (
    r"(?:hey|hi|hello|heya|hiya|yo|howdy|oi|olá|ola|e aí|eae|fala)\b",
    r"good (?:morning|afternoon|evening|night|to see you|to hear from you|luck)\b",
    r"(?:thanks|thank you|thx|ty|many thanks|appreciate it|appreciate your)\b",
    r"(?:congrats|congratulations|cheers|bye|goodbye|see you|see ya|take care|talk (?:to you )?(?:soon|later)|ttyl)\b",
    r"(?:nice|great|good|glad) to (?:see|hear|meet|chat|talk)\b",
    r"long time no (?:see|talk|chat)\b",
    r"(?:how are you|how's it going|how have you been|what's up|whats up|sup)\b",
    r"(?:obrigad[oa]|valeu|brigad[oa]|tchau|até mais|ate mais|até logo|até amanhã|bom dia|boa tarde|boa noite|parabéns|parabens|boa sorte|tudo bem|tudo bom|beleza|falou)\b",
    r"(?:sorry to hear|sorry about|so sorry|i'm sorry to hear|que pena|sinto muito)\b",
    r"(?:let's|lets|let us|vamos)\b",
    r"(?:keep (?:it up|going|up the)|hang in there|don't give up|don't forget|you got this|we got this|go for it|have fun|enjoy)\b",
    r"(?:take a look|check (?:it|this|that) out|look at (?:this|that)|here's a (?:pic|photo|picture)|here is a (?:pic|photo)|olha (?:isso|só))\b",
    r"(?:me too|same here|same|no way|of course|for sure|sure thing|you bet|no problem|my pleasure|eu também|eu tambem|com certeza|claro)\b[\s!.]*$",
)

# Adjectives/words that carry no memorable content on their own.
EVALUATIVES: frozenset[str] = frozenset(
    ["great", "awesome", "amazing", "cool", "nice", "lovely", "wonderful", "fantastic", "incredible", "beautiful", "gorgeous", "good", "bad", "sweet", "cute", "fun", "funny", "crazy", "wild", "perfect", "impressive", "inspiring", "inspired", "powerful", "special", "important", "vital", "crucial", "key", "necessary", "interesting", "exciting", "excited", "happy", "glad", "proud", "sad", "sorry", "tough", "hard", "easy", "true", "right", "wrong", "best", "better", "worse", "worst", "super", "so", "really", "very", "totally", "absolutely", "definitely", "such", "much", "pretty", "quite", "kinda", "lot", "lots", "thing", "things", "stuff", "way", "ways", "awesome!", "rad", "epic", "brilliant", "terrific", "superb", "stunning", "legit", "sick", "dope", "legal", "massa", "top", "demais", "incrível", "incrivel", "lindo", "linda", "ótimo", "otimo", "ótima", "otima", "bonito", "bonita", "maravilhoso", "maravilhosa", "bacana", "show", "sensacional", "fantástico"]
)

CONTENT_STOP: frozenset[str] = frozenset(
    ["it's", "that's", "this", "that", "these", "those", "it", "its", "there", "here", "they", "them", "their", "what", "which", "who", "sounds", "sound", "looks", "look", "seems", "seem", "feels", "feel", "like", "just", "thanks", "thank", "you", "your", "you're", "yours", "wow", "yeah", "yes", "oh", "hey", "haha", "lol", "omg", "aww", "ah", "me", "too", "also", "can", "can't", "wait", "agree", "love"]
)

# Sentence-initial imperatives that make a sentence an instruction rather than a statement.
IMPERATIVE_STARTS_EN: tuple[str, ...] = (
    "let's", "lets", "keep", "don't", "hang", "believe", "stay", "wish", "enjoy", "check",
    "look", "take", "go", "have", "imagine", "remember", "tell", "try", "come", "be", "stop",
    "push", "make", "give", "listen", "trust", "thank", "congrats", "cherish", "watch",
)
IMPERATIVE_STARTS_PT: tuple[str, ...] = (
    "vamos", "olha", "veja", "vê", "continue", "continua", "não desista", "aproveite",
    "aproveita", "confia", "confie", "acredite", "acredita", "imagina", "imagine", "lembre",
    "lembra", "fica", "fique", "manda", "mande",
)

QUESTION_STARTS_EN: tuple[str, ...] = (
    "what", "why", "how", "who", "whom", "whose", "where", "when", "which", "did", "do", "does",
    "are", "is", "was", "were", "have", "has", "can", "could", "would", "will", "should",
    "any", "anything", "wanna", "got any", "ever",
)
QUESTION_STARTS_PT: tuple[str, ...] = (
    "o que", "que", "por que", "porque", "como", "quem", "onde", "quando", "qual", "quais",
    "quanto", "quantos", "quantas", "será", "você", "vc", "tem", "tá", "ta",
)

# --------------------------------------------------------------------------------------------
# Capitalised words that are never names on their own.
# --------------------------------------------------------------------------------------------

WEEKDAYS_MONTHS: frozenset[str] = frozenset(
    ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun", "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "segunda", "terça", "terca", "quarta", "quinta", "sexta", "sábado", "sabado", "domingo", "segunda-feira", "terça-feira", "quarta-feira", "quinta-feira", "sexta-feira", "janeiro", "fevereiro", "março", "marco", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro", "novembro", "dezembro"]
)

NON_NAME_CAPS: frozenset[str] = frozenset(
    ["i", "i'm", "i've", "i'd", "i'll", "im", "the", "a", "an", "this", "that", "these", "those", "there", "here", "it", "it's", "its", "he", "she", "they", "we", "you", "he's", "she's", "they're", "we're", "you're", "my", "your", "his", "her", "our", "their", "me", "us", "them", "what", "why", "how", "who", "where", "when", "which", "yesterday", "today", "tomorrow", "tonight", "hey", "hi", "hello", "wow", "thanks", "thank", "yes", "yeah", "yep", "no", "nope", "ok", "okay", "oh", "ah", "omg", "lol", "haha", "hmm", "well", "so", "but", "and", "or", "also", "just", "still", "anyway", "anyways", "actually", "honestly", "sorry", "please", "congrats", "congratulations", "good", "great", "nice", "cool", "awesome", "amazing", "happy", "merry", "dear", "mr", "mrs", "ms", "dr", "sir", "madam", "mom", "mum", "dad", "grandma", "grandpa", "maybe", "perhaps", "probably", "sure", "absolutely", "definitely", "totally", "whoa", "woah", "aww", "ontem", "hoje", "amanhã", "amanha", "oi", "olá", "ola", "obrigado", "obrigada", "valeu", "nossa", "olha", "então", "entao", "bom", "boa", "eu", "ele", "ela", "nós", "vocês", "você", "voce", "vc", "meu", "minha", "meus", "minhas", "seu", "sua", "isso", "isto", "esse", "essa", "este", "esta", "aquele", "aquela", "o", "os", "as", "um", "uma", "uns", "umas", "de", "do", "da", "dos", "das", "no", "na", "nos", "nas", "em", "por", "para", "pra", "com", "sem", "mas", "porque", "quando", "onde", "como", "quem", "qual", "sim", "não", "nao", "tipo", "cara", "mano", "enfim", "aliás", "alias", "talvez", "acho", "if", "because", "after", "before", "since", "while", "until", "though", "although", "once", "then", "now", "lately", "recently", "finally", "last", "next", "every", "each", "all", "some", "any", "many", "much", "more", "most", "other", "another", "such", "both", "either", "neither", "not", "never", "always", "sometimes", "often", "usually", "gonna", "wanna", "gotta", "let's", "lets", "let", "speaking", "talking", "thinking", "going", "being", "having", "getting", "feeling", "looking", "lgbtq", "lgbtq+", "lgbt", "ps", "btw", "fyi", "imo", "tbh", "idk", "irl", "asap", "diy", "tv", "pc", "ai", "family", "life", "work", "school", "home", "love", "god", "mother", "father", "sister", "brother", "daughter", "son", "wife", "husband", "friend", "friends", "kids", "everyone", "everybody", "someone", "somebody", "anyone", "anybody", "nobody", "nothing", "everything", "something", "anything", "people", "guys", "folks", "todos", "todo", "alguém", "ninguém", "gente", "galera", "pessoal"]
) | WEEKDAYS_MONTHS

# Lower-case words allowed inside a multi-word proper name ("Rio de Janeiro").
NAME_CONNECTORS: frozenset[str] = frozenset(
    ["de", "da", "do", "dos", "das", "del", "della", "di", "du", "van", "von", "der", "den", "la", "le", "of", "e", "y"]
)

# --------------------------------------------------------------------------------------------
# Importance categories (ordered: first match wins)
# --------------------------------------------------------------------------------------------

IMPORTANCE_CUES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("biographical_milestone", (
        "graduated", "graduate", "graduation", "married", "got married", "wedding", "born",
        "got a job", "new job", "promoted", "promotion", "retired", "passed away", "died",
        "pregnant", "gave birth", "engaged", "adopted", "bought a house", "diagnosed",
        "formou", "formei", "formatura", "casou", "casei", "casamento", "nasceu", "nasci",
        "promovido", "promovida", "promoção", "aposentou", "aposentei", "faleceu", "morreu",
        "grávida", "noivou", "noivei", "adotei", "adotou", "novo emprego",
    )),
    ("relationship_change", (
        "started dating", "broke up", "breakup", "break up", "divorced", "divorce",
        "separated", "moved", "moving", "relocated", "joined", "left", "quit", "fired",
        "laid off", "lost my job", "lost his job", "lost her job", "new house", "no longer",
        "anymore", "terminou", "terminei", "separou", "separei", "divorciou", "divorciei",
        "saiu", "saí", "mudou", "mudei", "mudança", "entrou", "entrei", "demitido", "demitida",
        "pediu demissão", "pedi demissão", "começou a namorar", "comecei a namorar", "não mais",
        "hired", "contratou", "contratado", "contratada",
    )),
    ("stable_preference", (
        "like", "likes", "love", "loves", "prefer", "prefers", "favorite", "favourite",
        "enjoy", "enjoys", "hate", "hates", "into", "passionate", "fan of", "keen on",
        "gosto", "gosta", "gostava", "amo", "ama", "adoro", "adora", "prefiro", "prefere",
        "favorito", "favorita", "odeio", "odeia", "curto", "curte", "apaixonado", "apaixonada",
    )),
    ("routine_activity", (
        "every", "usually", "always", "on mondays", "on tuesdays", "on wednesdays",
        "on thursdays", "on fridays", "on saturdays", "on sundays", "on weekends", "daily",
        "weekly", "each day", "each week", "most days", "often", "regularly", "routine",
        "todo dia", "todos os dias", "toda semana", "sempre", "geralmente", "costumo",
        "costuma", "diariamente", "semanalmente", "às segundas", "aos sábados", "aos domingos",
    )),
    ("conversational", (
        "feel", "feels", "feeling", "felt", "tired", "exhausted", "stressed", "swamped",
        "happy", "sad", "excited", "thankful", "grateful", "glad", "proud", "nervous",
        "anxious", "worried", "bored", "lucky", "hopeful", "blessed", "overwhelmed",
        "cansado", "cansada", "feliz", "triste", "animado", "animada", "ansioso", "ansiosa",
        "preocupado", "preocupada", "sinto", "sente", "grato", "grata", "estressado",
        "estressada", "entediado",
    )),
)

# Future / intention markers (a clause with one is a plan, not a current state).
FUTURE_MARKERS_EN: tuple[str, ...] = (
    "will", "'ll", "going to", "gonna", "want to", "wanna", "plan to", "planning to",
    "plan on", "planning on", "hope to", "hoping to", "would", "'d", "might", "may", "could",
    "should", "thinking of", "thinking about", "considering", "about to", "intend to",
    "wish to", "would like to", "gotta", "need to", "have to",
)
FUTURE_MARKERS_PT: tuple[str, ...] = (
    "vou", "vai", "vamos", "quero", "quer", "pretendo", "pretende", "planejo", "planeja",
    "gostaria de", "penso em", "pensando em", "talvez", "espero", "preciso", "precisa",
    "devo", "deve", "queria", "ia",
)


MONTHS_EN: tuple[str, ...] = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)
WEEKDAYS_EN: tuple[str, ...] = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS_PT: tuple[str, ...] = (
    "janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro",
    "outubro", "novembro", "dezembro",
)


# Value words of a general statement ("Talking about inclusion is crucial", "It's important to
# be kind"): said by a speaker with no person as its subject, such a sentence is the speaker's
# belief, and is kept as "<speaker> believes <statement>" (extract_rules._belief).
VALUE_WORDS_EN: frozenset[str] = frozenset(
    ["crucial", "important", "essential", "key", "vital", "necessary", "everything", "powerful", "worth"]
)
VALUE_WORDS_PT: frozenset[str] = frozenset(
    ["crucial", "importante", "essencial", "fundamental", "vital", "necessário", "necessaria", "necessária", "tudo"]
)

# Moods: "<person> is excited and kinda nervous", "Jon is hanging in there" say how someone felt
# at one moment, with no cause or object; fact_quality._mood drops such free-text facts.
MOOD_WORDS_EN: frozenset[str] = frozenset(
    ["excited", "nervous", "hopeful", "optimistic", "thankful", "grateful", "happy", "sad", "ok", "okay", "fine", "good", "great", "well", "stoked", "thrilled", "pumped", "scared", "afraid", "anxious", "stressed", "tired", "exhausted", "relieved", "liberated", "empowered", "amazing", "awesome", "blessed", "proud", "overwhelmed", "calm", "bummed", "upset", "down", "hyped", "feliz", "triste", "animado", "animada", "nervoso", "nervosa", "cansado", "cansada", "ansioso", "ansiosa", "bem"]
)
MOOD_FILLERS: frozenset[str] = frozenset(
    ["is", "am", "are", "was", "were", "feels", "feel", "felt", "feeling", "be", "been", "being", "so", "really", "very", "super", "totally", "kinda", "kind", "of", "sort", "pretty", "quite", "a", "bit", "little", "mix", "and", "but", "also", "too", "still", "just", "all", "staying", "stays", "doing", "está", "esta", "estou", "estava", "ficou", "muito", "meio", "e", "mas"]
)
MOOD_PHRASES_EN: tuple[str, ...] = ("over the moon", "hanging in there", "the same way", "on cloud nine")

# A feeling whose object is only these words says nothing to remember ("Melanie is excited for
# this new chapter", "Jon is looking forward to more cool memories", "Gina is excited to see
# where it takes her", "Melanie had a great time"): fact_quality._vague drops it.
FEELING_HEADS_EN: tuple[str, ...] = (
    "excited", "stoked", "pumped", "thrilled", "psyched", "glad", "happy", "proud", "grateful", "thankful",
    "looking forward", "eager", "a great time", "a blast", "a good time", "so much fun", "fun",
)
VAGUE_OBJECT_WORDS_EN: frozenset[str] = frozenset(
    ["future", "chapter", "new", "next", "years", "year", "memories", "memory", "moments", "moment", "time", "times", "it", "this", "that", "these", "those", "part", "see", "where", "takes", "take", "how", "far", "come", "came", "more", "cool", "happy", "great", "good", "awesome", "all", "what", "comes", "ahead", "things", "stuff", "start", "begin", "watch", "hear", "happen", "happens", "journey", "one", "ones", "again", "everything", "something", "wait", "day", "days", "whole", "lot", "bit"]
)


def count_content(text: str, stop: frozenset[str], names: tuple[str, ...], min_len: int = 2) -> int:
    """Words of `text` that carry content: not in `stop`, not a word of one of `names` (a name
    or its possessive), at least `min_len` letters. How much a rule's captured phrase says
    (write/stance.py, write/beliefs.py: "proud of you for sticking with it" names nothing)."""
    skip = {w.lower() for n in names for w in re.findall(r"[\w'’]+", n)}
    return sum(1 for w in re.findall(r"[\w'’-]+", text.lower())
               if w not in stop and w.removesuffix("'s").removesuffix("’s") not in skip and len(w) >= min_len)

# Things everyone shares (a game, the weather, the news): nobody's own thing, so never "my X" or
# an "it" to resolve to (write/thing_antecedents.py, write/demonstrative_subjects.py).
PUBLIC_THINGS = frozenset({
    "game", "match", "movie", "film", "show", "concert", "play", "episode", "series", "season", "book", "song",
    "album", "news", "weather", "election", "world", "internet", "sun", "moon", "sky", "city", "town", "country",
    "park", "beach", "lake", "river", "ocean", "sea", "mountain", "neighborhood", "neighbourhood", "area",
    "street", "road", "place", "traffic", "economy", "market", "government", "story", "article", "post", "video",
    "podcast", "exhibit", "exhibition", "festival", "parade", "fair", "tournament", "race", "marathon",
    "conference", "storm", "hurricane", "earthquake", "flood", "fire", "heatwave", "blizzard", "outage", "eclipse",
    "pandemic", "war", "strike", "protest", "holiday", "lottery", "sale", "update", "trend", "team"})

"""English + Portuguese emotion lexicon for the offline emotion tagger.

Words are stored folded (lowercase, accents stripped); each maps to (emotion, base intensity).
Multi-word entries ("fed up", "de saco cheio") are matched as phrases. The tagger scales the
base intensity with intensifiers and exclamation marks and drops a hit preceded by a negation
within two words. Energy comes from the emotion, overridden by explicit energy words.
"""

from __future__ import annotations

EMOTIONS: dict[str, tuple[str, float]] = {
    # ---- joy / happiness -------------------------------------------------------------------
    "happy": ("joy", 0.6), "glad": ("joy", 0.5), "joy": ("joy", 0.7), "joyful": ("joy", 0.7),
    "delighted": ("joy", 0.8), "cheerful": ("joy", 0.6), "great": ("joy", 0.4),
    "wonderful": ("joy", 0.7), "amazing": ("joy", 0.7), "awesome": ("joy", 0.6),
    "fantastic": ("joy", 0.7), "love it": ("joy", 0.7), "enjoyed": ("joy", 0.5),
    "enjoy": ("joy", 0.4), "fun": ("joy", 0.4), "pleased": ("joy", 0.5), "thrilled": ("joy", 0.85),
    "ecstatic": ("joy", 0.95), "feliz": ("joy", 0.6), "contente": ("joy", 0.5),
    "alegre": ("joy", 0.6), "alegria": ("joy", 0.7), "maravilhoso": ("joy", 0.7),
    "maravilhosa": ("joy", 0.7), "otimo": ("joy", 0.5), "otima": ("joy", 0.5),
    "incrivel": ("joy", 0.7), "adorei": ("joy", 0.7), "amei": ("joy", 0.75),
    "divertido": ("joy", 0.5), "felicidade": ("joy", 0.7),
    # ---- excitement --------------------------------------------------------------------------
    "excited": ("excitement", 0.7), "exciting": ("excitement", 0.6),
    "can't wait": ("excitement", 0.75), "cant wait": ("excitement", 0.75),
    "pumped": ("excitement", 0.75), "stoked": ("excitement", 0.75),
    "animado": ("excitement", 0.65), "animada": ("excitement", 0.65),
    "empolgado": ("excitement", 0.75), "empolgada": ("excitement", 0.75),
    "ansioso para": ("excitement", 0.6), "ansiosa para": ("excitement", 0.6),
    "mal posso esperar": ("excitement", 0.8),
    # ---- gratitude ---------------------------------------------------------------------------
    "grateful": ("gratitude", 0.65), "thankful": ("gratitude", 0.6), "thanks": ("gratitude", 0.3),
    "thank you": ("gratitude", 0.4), "grato": ("gratitude", 0.65), "grata": ("gratitude", 0.65),
    "agradecido": ("gratitude", 0.65), "agradecida": ("gratitude", 0.65),
    "obrigado": ("gratitude", 0.3), "obrigada": ("gratitude", 0.3),
    # ---- love / affection --------------------------------------------------------------------
    "love": ("love", 0.6), "adore": ("love", 0.7), "miss her": ("love", 0.55),
    "miss him": ("love", 0.55), "amo": ("love", 0.65), "adoro": ("love", 0.6),
    "saudade": ("love", 0.55), "saudades": ("love", 0.55), "carinho": ("love", 0.5),
    # ---- pride -------------------------------------------------------------------------------
    "proud": ("pride", 0.65), "accomplished": ("pride", 0.6), "orgulhoso": ("pride", 0.65),
    "orgulhosa": ("pride", 0.65), "orgulho": ("pride", 0.6), "consegui": ("pride", 0.5),
    # ---- calm / relief -----------------------------------------------------------------------
    "relieved": ("relief", 0.55), "relief": ("relief", 0.5), "calm": ("calm", 0.4),
    "relaxed": ("calm", 0.45), "peaceful": ("calm", 0.45), "aliviado": ("relief", 0.55),
    "aliviada": ("relief", 0.55), "alivio": ("relief", 0.5), "tranquilo": ("calm", 0.4),
    "tranquila": ("calm", 0.4), "relaxado": ("calm", 0.45), "relaxada": ("calm", 0.45),
    # ---- sadness -----------------------------------------------------------------------------
    "sad": ("sadness", 0.6), "unhappy": ("sadness", 0.6), "depressed": ("sadness", 0.85),
    "heartbroken": ("sadness", 0.9), "lonely": ("sadness", 0.6),
    "miserable": ("sadness", 0.8), "upset": ("sadness", 0.55), "cry": ("sadness", 0.6),
    "crying": ("sadness", 0.65), "cried": ("sadness", 0.65), "grief": ("sadness", 0.85),
    "disappointed": ("sadness", 0.55), "triste": ("sadness", 0.6), "tristeza": ("sadness", 0.65),
    "deprimido": ("sadness", 0.85), "deprimida": ("sadness", 0.85), "chateado": ("sadness", 0.55),
    "chateada": ("sadness", 0.55), "sozinho": ("sadness", 0.45), "sozinha": ("sadness", 0.45),
    "chorei": ("sadness", 0.65), "chorando": ("sadness", 0.65), "decepcionado": ("sadness", 0.55),
    "decepcionada": ("sadness", 0.55), "arrasado": ("sadness", 0.85), "arrasada": ("sadness", 0.85),
    # ---- anger -------------------------------------------------------------------------------
    "angry": ("anger", 0.7), "mad": ("anger", 0.6), "furious": ("anger", 0.9),
    "pissed": ("anger", 0.75), "hate": ("anger", 0.7), "outraged": ("anger", 0.85),
    "annoyed": ("anger", 0.45), "irritated": ("anger", 0.5), "raiva": ("anger", 0.7),
    "bravo": ("anger", 0.6), "brava": ("anger", 0.6), "furioso": ("anger", 0.9),
    "furiosa": ("anger", 0.9), "irritado": ("anger", 0.5), "irritada": ("anger", 0.5),
    "odeio": ("anger", 0.7), "puto": ("anger", 0.75), "puta da vida": ("anger", 0.8),
    # ---- frustration -------------------------------------------------------------------------
    "frustrated": ("frustration", 0.6), "frustrating": ("frustration", 0.55),
    "fed up": ("frustration", 0.65), "sick of": ("frustration", 0.6),
    "frustrado": ("frustration", 0.6), "frustrada": ("frustration", 0.6),
    "de saco cheio": ("frustration", 0.7), "cansado de": ("frustration", 0.55),
    "cansada de": ("frustration", 0.55),
    # ---- fear / anxiety ----------------------------------------------------------------------
    "afraid": ("fear", 0.65), "scared": ("fear", 0.65), "terrified": ("fear", 0.9),
    "frightened": ("fear", 0.7), "medo": ("fear", 0.65), "assustado": ("fear", 0.65),
    "assustada": ("fear", 0.65), "apavorado": ("fear", 0.9), "apavorada": ("fear", 0.9),
    "anxious": ("anxiety", 0.6), "worried": ("anxiety", 0.55), "nervous": ("anxiety", 0.55),
    "stressed": ("anxiety", 0.6), "overwhelmed": ("anxiety", 0.7), "panic": ("anxiety", 0.85),
    "preocupado": ("anxiety", 0.55), "preocupada": ("anxiety", 0.55), "nervoso": ("anxiety", 0.55),
    "nervosa": ("anxiety", 0.55), "estressado": ("anxiety", 0.6), "estressada": ("anxiety", 0.6),
    "ansioso": ("anxiety", 0.6), "ansiosa": ("anxiety", 0.6), "sobrecarregado": ("anxiety", 0.7),
    "sobrecarregada": ("anxiety", 0.7),
    # ---- surprise ----------------------------------------------------------------------------
    "surprised": ("surprise", 0.55), "shocked": ("surprise", 0.75), "wow": ("surprise", 0.5),
    "unbelievable": ("surprise", 0.6), "surpreso": ("surprise", 0.55), "surpresa": ("surprise", 0.55),
    "chocado": ("surprise", 0.75), "chocada": ("surprise", 0.75),
    # ---- tiredness ---------------------------------------------------------------------------
    "tired": ("tiredness", 0.5), "exhausted": ("tiredness", 0.75), "drained": ("tiredness", 0.7),
    "sleepy": ("tiredness", 0.4), "burned out": ("tiredness", 0.8), "burnt out": ("tiredness", 0.8),
    "cansado": ("tiredness", 0.5), "cansada": ("tiredness", 0.5), "exausto": ("tiredness", 0.75),
    "exausta": ("tiredness", 0.75), "esgotado": ("tiredness", 0.75), "esgotada": ("tiredness", 0.75),
    # ---- disgust -----------------------------------------------------------------------------
    "disgusted": ("disgust", 0.7), "gross": ("disgust", 0.5), "nojo": ("disgust", 0.65),
}

INTENSIFIERS = frozenset(
    ["very", "so", "really", "extremely", "super", "totally", "incredibly", "absolutely", "truly", "deeply", "muito", "muita", "demais", "bem", "tao", "super", "extremamente", "totalmente", "realmente"]
)

HIGH_ENERGY = frozenset({"excitement", "anger", "surprise", "fear"})
LOW_ENERGY = frozenset({"sadness", "tiredness", "calm", "relief"})
ENERGY_WORDS: dict[str, str] = {
    "energized": "high", "energetic": "high", "pumped": "high", "hyped": "high",
    "elétrico": "high", "eletrico": "high", "cheio de energia": "high", "a mil": "high",
    "tired": "low", "exhausted": "low", "sleepy": "low", "drained": "low", "lazy": "low",
    "cansado": "low", "cansada": "low", "exausto": "low", "exausta": "low", "sem energia": "low",
    "com sono": "low", "preguica": "low",
}

POSITIVE = frozenset({"joy", "excitement", "gratitude", "love", "pride", "relief", "calm"})

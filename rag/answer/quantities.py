"""Figures in sentences, and the kind of quantity a "how much / how many" question asks for.

A numeric question is answered by a figure, but not by any figure: "what share of adults had
a risk factor?" asks for a proportion ("79% of participants"), not the sample size ("574
adults were sampled"), which the sentence describing the sample states next to the same
words; "how long", "which doses", "how much faster", "what was the hazard ratio" ask for a
duration, an amount of a drug, a ratio, an effect measure. :func:`asked_quantity` reads
which of these a question asks for and :func:`states_quantity` whether a sentence gives
one; the ranker (:mod:`rag.answer.rank`) weighs the match with a learnt weight, as it
weighs any figure near the question's words (:func:`near`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence, Set

from rag.terms import stem

__all__ = ["FIGURE", "MEASURES", "NEAR", "WORD_NUMBER", "asked_quantity", "asks_figure", "near",
           "states_figure", "states_quantity", "stems"]  # fmt: skip

FIGURE = re.compile(
    r"\d+(\.\d+)?\s*(%|x\b|×|times|fold|percent|[KMGT]B|billion|million|B\b)|"
    r"\b\d+(\.\d+)?x\b|\b\d+(\.\d+)?[KMBT]\b|\b\d+\.\d+\b|\b\d{2,}\b|"
    r"\b\d+\s*(ml|mg|kg|g|mmol|µg|mcg|cm|mm|ms|min|"
    r"h|hours?|days?|weeks?|months?|years?|patients|subjects|participants|cases|per)\b",
    re.IGNORECASE,
)
WORD_NUMBER = re.compile(
    r"\b(two|three|four|five|six|seven|eight|nine|ten|twelve|dozens?|hundreds?|thousands?)\b",
    re.IGNORECASE,
)
# Any figure at all, in digits or words ("sixteen countries", "half as likely", "sevenfold"):
# what a sentence must hold to answer a question asking for one (Question.asks_figure).
_NUMBER_WORDS = (
    r"two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
    r"fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|"
    r"eighty|ninety|hundreds?|thousands?|millions?|billions?|trillions?|dozens?|half|halved|"
    r"halves|thirds?|quarters?|fifths?|sixths?|sevenths?|eighths?|ninths?|tenths?|twice|"
    r"double[ds]?|doubling|triple[ds]?|tripling|quadrupled?"
)
# A size said by its unit's scale ("kilometer-scale", "nanoscale", "micron-sized").
_SCALE = (
    r"\b(?:pico|nano|micro|milli|centi|kilo|mega|giga|tera)(?:met(?:er|re)s?|n)?-?"
    r"(?:scale|sized?|long|thick)\b"
)
_ANY_FIGURE = re.compile(
    rf"(?<![\w.])\d|%|\b(?:{_NUMBER_WORDS})\b|\w-?fold\b|\borders? of magnitude\b|{_SCALE}",
    re.IGNORECASE,
)
NEAR = 6  # words between a figure and the question's word it measures
_TOKEN = re.compile(r"\d[\d.,]*|[^\W\d_][\w-]*")

# What each kind of question reads like, and what a sentence answering it states. A share
# is a percentage or a part of a whole ("4 of 90", "one in five"), not a confidence level.
_ASKS = {
    "effect": r"\b(hazard|odds|risk|rate|incidence) ratios?\b|\brelative risks?\b|"
    r"\b(?-i:a?HR|a?OR|RR|IRR)s?\b",
    "share": r"\b(share|proportion|percentage|fraction|percent|prevalence|incidence)\b|"
    r"\bhow many of\b|\bhow (common|prevalent|frequent|often)\b|\bwhat rate\b|%",
    "duration": r"\bhow long\b|\bduration\b|\bhow many (seconds|minutes|hours|days|weeks|months|"
    r"years)\b|\b(median|mean|average) (time|survival|follow-?up)\b|\bfollow-?up (time|period)\b",
    "dose": r"\b(doses?|dosages?|dosing)\b|\bhow much \w+ (was|were|is|are) (given|administered)\b",
    "ratio": r"\bhow (much|many times) (faster|slower|smaller|larger|bigger|fewer|more|less|"
    r"cheaper|quicker)\b|\bspeed-?ups?\b|\bhow many times\b|\bby how much\b|\bwhat factor\b",
    "size": r"\bhow (big|large)\b|\bwhat size\b|\bhow many (parameters|tokens|tensors|images|"
    r"pairs|documents|samples|examples|sequences|words)\b",
}
_STATES = {
    "effect": r"\b(?:(?-i:a?HR|a?OR|RR|IRR)s?|(?:hazard|odds|risk|rate|incidence) ratios?|"
    r"relative risks?)\b[^.;]{0,25}?\d",
    "share": r"\d(\.\d+)?\s*(%|percent\b)|\b\d+\s*(of|out of|/)\s*(the )?\d+\b|"
    r"\b(one|two|three|four) (in|of|out of) (every )?(two|three|four|five|six|seven|eight|"
    r"nine|ten|\d+)\b|\b(half|a third|a quarter|two-thirds|three-quarters)\b",
    "duration": r"\b\d+(\.\d+)?(\s*(-|–|to|and)\s*\d+(\.\d+)?)?\s*(seconds?|s|minutes?|mins?|"
    r"hours?|hrs?|h|days?|d|weeks?|wks?|months?|mo|years?|yrs?)\b",
    "dose": r"\b\d+(\.\d+)?((\s*(,|-|–|to|and|or)\s*\d+(\.\d+)?)*)\s*(mg|g|µg|μg|mcg|ug|ng|ml|"
    r"mL|l|IU|units?|mmol|µmol|mol|Gy|cGy|mg/kg|mg/m2|mg/day|g/day)\b",
    "ratio": r"\d+(\.\d+)?\s*(x\b|×|times\b|-?fold\b|%)|\b\d+(\.\d+)?x\b",
    "size": r"\d+(\.\d+)?\s*([KMBT]\b|[KMGTP]B\b|billion|million|thousand|trillion)|"
    r"\b\d{1,3}(,\d{3})+\b",
}
_ASK_RE = {kind: re.compile(p, re.IGNORECASE) for kind, p in _ASKS.items()}
_STATE_RE = {kind: re.compile(p, re.IGNORECASE if kind != "dose" else 0) for kind, p in
             _STATES.items()}  # fmt: skip
# A figure that is no answer: a confidence level or interval, a p-value.
_NOT_ANSWER = re.compile(
    r"(?:\b9[059](?:\.0)?\s*%\s*)?\b(?:CI|C\.I\.|confidence intervals?|credible intervals?)\b"
    r"[^;)\]]{0,30}|\bp\s*[<=>≤]\s*0?\.\d+",
    re.IGNORECASE,
)


def asked_quantity(text: str) -> str:
    """The kind of figure a numeric question asks for ("effect": a hazard or odds ratio;
    "share", "duration", "dose", "ratio", "size"), or "" when it asks for none of these (a
    count, a score: any figure by the question's words answers it)."""
    for kind, pattern in _ASK_RE.items():
        if pattern.search(text):
            return kind
    return ""


@functools.lru_cache(maxsize=65_536)
def _stated(text: str) -> frozenset[str]:
    plain = _NOT_ANSWER.sub(" ", text)
    return frozenset(kind for kind, pattern in _STATE_RE.items() if pattern.search(plain))


def states_quantity(text: str, kind: str) -> bool:
    """Whether ``text`` gives a figure of the ``kind`` :func:`asked_quantity` names."""
    return bool(kind) and kind in _stated(text)


# A question asking for a figure: its opening, after a lead-in ("In the 2008 survey, how
# many ...", "By how much ...", "Up to what dose ..."), is "how many / much / long / large /
# accurate ..." or "what (was) the <up to four words> <measure>", the measure ending the
# noun phrase ("What rate theory ...?" asks for a theory); or it asks a value in a unit
# ("... in MPa?"). Shaped on the ten fields' training-only questions: of their answerable
# ones so asking, 248 have an answer sentence with a figure and 4 one without.
_HOW = (
    r"how (?:many|much|long|old|large|big|high|low|fast|far|often|accurate|common|prevalent|"
    r"frequent|quickly|precise|small|wide|deep|heavy|cheap|expensive|sensitive|specific|"
    r"strong|strongly|internally consistent)\b"
)
# What is measured: a figure answers a question asking for one of these (the question's
# kind, rag.answer.question); asks_figure takes a wider list, the quantities of the sciences.
MEASURES = (
    r"speed ?ups?|percentages?|proportions?|fractions?|shares?|sizes?|accuracy|throughput|"
    r"latency|improvements?|reductions?|gains?|costs?|numbers?|scale|fid|bleu|f1|rates?|"
    r"ratios?|odds|risks?|incidence|prevalence|mortality|survival|doses?|dosage|sensitivity|"
    r"specificity|median|mean|average|cut-?off|thresholds?|levels?|concentrations?|duration|"
    r"age|count|frequency|yield|amount|range|values?|percent|efficiency|scalability|auc|"
    r"scores?|length|weight|volume|time|period|follow-up|interval|difference"
)
_MEASURE = (
    MEASURES + r"|conductivit(?:y|ies)|coefficients?|gaps?|strengths?|temperatures?|"
    r"energ(?:y|ies)|modul(?:us|i)|densit(?:y|ies)|capacit(?:y|ies)|constants?|r-squared|r2|"
    r"dice|errors?|rmse|mae|returns?|regret|elasticit(?:y|ies)|retention|prices?|yields?|"
    r"dimensions?|widths?|heights?|depths?|distances?|lengths?|masses?|speeds?|magnitudes?|"
    r"limits?|durations?|spans?|periods?|counts?|totals?|amounts?"
)
_BEFORE = r"(?:(?:by|up to|around|about|on|over|at|from|to|in|roughly|approximately|nearly)\s+)*"
_GAP = (  # words between "what" and the measure: no verb, preposition or article among them
    r"(?:(?!(?:did|does|do|happens?|happened|was|were|is|are|has|have|had|of|to|in|for|on|"
    r"with|by|from|at|about|between|among|the|a|an|and|or)\b)[\w+-]+ ){0,4}?"
)
_FIGURE_ASK = re.compile(
    rf"^{_BEFORE}(?:{_HOW}|what (?:(?:was|were|is|are|'s) )?(?:the |a |an )?{_GAP}"
    rf"(?-i:{_MEASURE})(?![\w-])(?=\s*(?:$|[?,;:(]|(?:of|for|in|on|at|to|from|with|among|"
    r"across|between|under|over|did|does|do|was|were|is|are|has|have|had|can|could|would|"
    r"will|that|when|after|before|per|by|and|\w+ed)\b)))",
    re.IGNORECASE,
)
_IN_UNIT = re.compile(
    r"\bin (?:[kmg]?pa|k|mk|ms|milliseconds|seconds|minutes|hours|days|weeks|months|years|"
    r"percent|%|micromolar|[µμnm]m|cm|km|kg|mg|g|[mk]?ev|j/kg/k|j/kg|w/mk|s/cm|ms/cm|"
    r"[kmg]?hz|db|dollars|usd|euros?)(?!\w)",
    re.IGNORECASE,
)
_LEAD_IN = re.compile(
    r"^(?:(?:and|so|but|then|also|roughly|approximately|about|overall|exactly|ok|okay)\W+)*",
    re.IGNORECASE,
)
_OPENS = re.compile(
    rf"{_BEFORE}(?:how|what|which|who|whom|whose|where|when|why|is|are|was|were|do|does|"
    r"did|can|could|has|have|had|will|would|should)\b",
    re.IGNORECASE,
)


def asks_figure(parts: Sequence[str]) -> bool:
    """Whether every part of a question asks for a figure ("How many firms ...?", "In the
    trial, what was the median follow-up?", "By how much ...?", "... yield strength in
    MPa?"): only a sentence stating one can answer it (:mod:`rag.answer.gate`)."""
    return bool(parts) and all(_FIGURE_ASK.match(_opening(p)) or _IN_UNIT.search(p) for p in parts)


def _opening(part: str) -> str:
    """The question's own opening: lead-in words dropped, and a phrase before its first
    comma when the part does not open with a question word ("In the 2008 survey, how ...")."""
    opening = _LEAD_IN.sub("", part.strip())
    if not _OPENS.match(opening) and "," in opening:
        opening = _LEAD_IN.sub("", opening.split(",", 1)[1].strip())
    return opening


def states_figure(text: str) -> bool:
    """Whether ``text`` states any figure, in digits or in words (a year counts too)."""
    return _ANY_FIGURE.search(text) is not None


def stems(text: str) -> tuple[str, ...]:
    """The stems of a text's words in order, numbers as "#"."""
    return tuple("#" if w[0].isdigit() else stem(w) for w in _TOKEN.findall(text.casefold()))


def near(tokens: Sequence[str], wanted: Set[str], reach: int = NEAR) -> bool:
    """A number within ``reach`` words of a word of the question ("mortality ... was 9.1%")."""
    numbers = [i for i, t in enumerate(tokens) if t == "#"]
    return any(abs(i - j) <= reach for j, t in enumerate(tokens) if t in wanted for i in numbers)

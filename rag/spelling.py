"""One spelling for words people write several ways, so a question finds the words of an
abstract however either is spelt.

Applied alike to what is indexed and to what is asked (the BM25 analyzer,
:mod:`rag.index.lexical`, and the answer's content words, :mod:`rag.terms`), so the form a
word is mapped to matters less than that both spellings reach it:

- British and American spelling: "catalogue"/"catalog", "behaviour"/"behavior",
  "optimisation"/"optimization", "analyse"/"analyze", "centre"/"center",
  "haemoglobin"/"hemoglobin", "programme"/"program", "artefact"/"artifact";
- Greek letters, as printed ("β", "Hα") or written out ("beta", "H-alpha"), and TeX's own
  ("$\\alpha$"): all read as the letter's name;
- TeX markup of arXiv abstracts ("$z\\sim 2$", "\\textit{in situ}", "M$_\\odot$") is not
  read as words: its commands and braces go, their arguments stay; a sub- or superscript
  glued to a name joins it as people type it ("La$_2$CoIrO$_6$" is "La2CoIrO6", "T$_c$"
  "Tc", "C$_{70}$" "C70");
- Unicode's compatibility forms and accents are folded ("Sr₂" is "Sr2", "ﬁ" "fi",
  "Müller" "Muller"), and a hyphen, a dash between two words or TeX's "--" read as "-"
  ("N‐doped", "Gross–Pitaevskii", "Gross--Pitaevskii", "$L$-Lipschitz").

Possessives need nothing here: "the galaxy's wind" splits at the apostrophe. Hyphenated
compounds are the analyzer's (it also indexes "self-supervised" as "selfsupervised").
"""

from __future__ import annotations

import functools
import re
import unicodedata

__all__ = ["american", "plain_text"]

_GREEK = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ϵ": "epsilon",
    "ζ": "zeta", "η": "eta", "θ": "theta", "ϑ": "theta", "ι": "iota", "κ": "kappa",
    "λ": "lambda", "μ": "mu", "µ": "mu", "ν": "nu", "ξ": "xi", "ο": "omicron", "π": "pi",
    "ρ": "rho", "σ": "sigma", "ς": "sigma", "τ": "tau", "υ": "upsilon", "φ": "phi",
    "ϕ": "phi", "χ": "chi", "ψ": "psi", "ω": "omega", "Γ": "gamma", "Δ": "delta",
    "Θ": "theta", "Λ": "lambda", "Ξ": "xi", "Π": "pi", "Σ": "sigma", "Φ": "phi",
    "Ψ": "psi", "Ω": "omega",
}  # fmt: skip
_GREEK_CHAR = re.compile("([A-Za-z]?)([" + "".join(_GREEK) + "])")
# TeX: formatting commands whose argument is the text ("\textit{in situ}" -> "in situ"),
# then any other command's backslash ("\alpha" -> "alpha", "\sim" -> "sim"), then the
# math, group, sub- and superscript marks.
_TEX_FORMAT = re.compile(
    r"\\(?:text(?:it|bf|rm|sc|tt|sf|up)?|emph|math(?:rm|it|bf|cal|bb|sf|tt|frak)|"
    r"operatorname|mbox|rm|it|bf|cal|boldsymbol|bm|left|right|big|Big)\b\s*"
)
_TEX_MARKS = re.compile(r"[$^_{}\\]")
# A TeX sub- or superscript glued to a name: Sr$_{2}$IrO$_{4}$ is written Sr2IrO4.
_TEX_SCRIPT = re.compile(r"(?<=[\w)])\$?\s*[_^]\s*\{?([\w.+-]{1,12})\}?(?:\s*\$)?")
# Unicode hyphens and the non-breaking one, as "-" ("N‐doped", "Ti‑6Al‑4V").
_HYPHENS = str.maketrans(dict.fromkeys("\u2010\u2011", "-"))
# Accents on Latin letters, once decomposed ("Müller" is "Muller"); other scripts keep theirs.
_LATIN_ACCENT = re.compile(r"(?<=[A-Za-z])[\u0300-\u036f]+")
# A dash or TeX's "--" joining two words' letters ("Gross–Pitaevskii"), not a range of
# numbers ("298–1573 K"); TeX's "$" beside a hyphen ("$L$-Lipschitz").
_JOINED = re.compile(r"(?<=[A-Za-z])(?:--|\u2013)(?=[A-Za-z])")
_MATH_HYPHEN = re.compile(r"\$(?=-\w)|(?<=\w-)\$")

# Whole words or stems spelt apart in ways no general rule catches.
_WORDS = {
    "aluminium": "aluminum", "sulphur": "sulfur", "sulphate": "sulfate", "sulphide": "sulfide",
    "grey": "gray", "mould": "mold", "moulds": "molds", "odour": "odor", "odours": "odors",
    "programme": "program", "programmes": "programs", "gramme": "gram", "grammes": "grams",
    "artefact": "artifact", "artefacts": "artifacts", "defence": "defense",
    "offence": "offense", "licence": "license", "licences": "licenses", "pretence": "pretense",
    "practise": "practice", "practised": "practiced", "practising": "practicing",
    "manoeuvre": "maneuver", "manoeuvres": "maneuvers", "sceptical": "skeptical",
    "sceptic": "skeptic", "scepticism": "skepticism", "tyre": "tire", "tyres": "tires",
    "plough": "plow", "draught": "draft", "whilst": "while", "amongst": "among",
    "enrolment": "enrollment", "fulfil": "fulfill", "fulfilment": "fulfillment",
    "mediaeval": "medieval", "aeroplane": "airplane", "aeroplanes": "airplanes",
}  # fmt: skip
# Classical digraphs of British spelling: "haemoglobin", "anaemia", "oesophagus", "foetal",
# "paediatric", "aetiology", "diarrhoea", "gynaecology", "anaesthesia", "palaeo-", "coeliac".
_DIGRAPHS = re.compile(
    r"haem|aemi|oesoph|oestr|oedem|foet|paed|aetio|rrhoe|gynaec|anaest|palaeo|faec|coeli|amoeb|"
    r"caesar|leukaem|ischaem"
)
_DIGRAPH_FOR = {
    "haem": "hem", "aemi": "emi", "oesoph": "esoph", "oestr": "estr", "oedem": "edem",
    "foet": "fet", "paed": "ped", "aetio": "etio", "rrhoe": "rrhe", "gynaec": "gynec",
    "anaest": "anest", "palaeo": "paleo", "faec": "fec", "coeli": "celi", "amoeb": "ameb",
    "caesar": "cesar", "leukaem": "leukem", "ischaem": "ischem",
}  # fmt: skip
# -our after three letters or more ("colour", "behaviour", "tumour"; not "four", "flour").
_OUR = re.compile(r"^([a-z]{3,})our(s|ed|ing|ite|ites|able|ably|al|ful|less|er|ers|hood)?$")
_OUR_KEPT = frozenset({"contour", "detour", "devour", "troubadour", "paramour", "velour"})
# -ise, -isation, -yse after three letters or more ("optimise", "organisation", "analyse").
_ISE = re.compile(r"^([a-z]{3,}[^aeiou\W])is(e|es|ed|ing|er|ers|ation|ations|ational|able)$")
_YSE = re.compile(r"^([a-z]{2,})ys(e|es|ed|ing|er|ers)$")
_OGUE = re.compile(r"^([a-z]{3,})ogue(s|d)?$")  # "catalogue", "analogue"; not "vogue"
_RE = re.compile(r"^([a-z]{2,}[bgt])re(s|d)?$")  # "centre", "fibre", "litre", "metre"
_JUDGEMENT = re.compile(r"dgement(s)?$")


@functools.lru_cache(maxsize=100_000)
def american(word: str) -> str:
    """The American spelling of a lower-case word where British spelling differs by a
    regular rule or a known exception; the word itself otherwise. Mapping a word no one
    spells otherwise ("exercise" -> "exercize") does no harm: both sides are mapped."""
    if word in _WORDS:
        return _WORDS[word]
    if len(word) < 5 or not word.isascii():
        return word
    if _DIGRAPHS.search(word):
        word = _DIGRAPHS.sub(lambda m: _DIGRAPH_FOR[m[0]], word)
    if (m := _OUR.match(word)) and f"{m[1]}our" not in _OUR_KEPT:
        return f"{m[1]}or{m[2] or ''}"
    if m := _ISE.match(word):
        return f"{m[1]}iz{m[2]}"
    if m := _YSE.match(word):
        return f"{m[1]}yz{m[2]}"
    if m := _OGUE.match(word):
        return f"{m[1]}og{m[2] or ''}"
    if m := _RE.match(word):
        return f"{m[1]}er{'ed' if m[2] == 'd' else m[2] or ''}"
    return _JUDGEMENT.sub(r"dgment\1", word)


def plain_text(text: str) -> str:
    """``text`` with Greek letters written out ("TGF-β" -> "TGF-beta", "Hα" -> "H alpha"),
    TeX markup gone ("H$\\alpha$" -> "H alpha", "$z\\sim 2$" -> "z sim 2") and its sub- and
    superscripts glued to their name ("La$_2$CoIrO$_6$" -> "La2CoIrO6"), Unicode folded
    ("Sr₂" -> "Sr2", "Müller" -> "Muller", "N‐doped" -> "N-doped") and a dash between two
    words read as a hyphen, for matching words; never for what is shown."""
    if not text.isascii():
        text = _LATIN_ACCENT.sub("", unicodedata.normalize("NFKD", text))
        text = unicodedata.normalize("NFC", text).translate(_HYPHENS)
    if "--" in text or "\u2013" in text:
        text = _JOINED.sub("-", text)
    if "\\" in text:
        text = _TEX_FORMAT.sub("", text)
    if "_" in text or "^" in text:
        text = _TEX_SCRIPT.sub(r"\1", text)
    if "\\" in text or "$" in text:
        text = _TEX_MARKS.sub(" ", _MATH_HYPHEN.sub("", text))
    if _GREEK_CHAR.search(text):
        # "Hα" is H-alpha, "TGF-β1" TGF-beta1, "α-helix" alpha-helix.
        text = _GREEK_CHAR.sub(lambda m: f"{m[1]} {_GREEK[m[2]]}" if m[1] else _GREEK[m[2]], text)
    return text

"""How a person's name is written: the particles inside it ("van", "de", "van 't"), the
titles and degrees around it, a name printed in capitals written as people write it, a
family name in capitals put last, and a name shortened from another ("A. Gelman")."""

from __future__ import annotations

import re
import unicodedata

__all__ = [
    "APOSTROPHE_T",
    "DEGREES",
    "FAMILY_CAPS",
    "FIELD_DEGREES",
    "GENERATIONS",
    "HONORIFICS",
    "MC_RAISED",
    "PARTICLES",
    "accented_letter",
    "case_name",
    "family_in_capitals",
    "shortened",
    "unfinished",
]

# (Dutch "van 't", "van’t", "ter", "ten" among them: "Mascha van’t Wout")
APOSTROPHE_T = ("'t", "’t")
PARTICLES = frozenset(
    "van von der den de del della di da dos das du le la y bin al el ter ten van't van’t".split()  # noqa: SIM905
) | set(APOSTROPHE_T)
# The particles that open a surname capitalised too ("Edward Van" / "Keuren").
_OPENING_PARTICLES = frozenset("van von der den de del della ter ten bin van't van’t".split())  # noqa: SIM905
FAMILY_CAPS = re.compile(r"(?=[A-Z]*[AEIOUY])[A-Z]{2,}(?:-[A-Z]{2,})?")  # not initials ("DJ")
HONORIFICS = frozenset("dr prof professor mr mrs ms sir by".split())  # noqa: SIM905
# Degrees printed after a name ("Charlotte Hulme, PhD Jessica Fisher-Stokes, MRes ..."): the
# next name's first word when commas part the names, never a part of it.
DEGREES = frozenset(
    "phd ph.d md m.d mres msc m.sc bsc b.sc mbchb mbbs mph dphil frcs frcp frcpc facs mba drph "  # noqa: SIM905
    "scd pharmd dvm dds mpp mpa llm jd m.tech b.tech mtech btech".split()
)
FIELD_DEGREES = frozenset("phd ph.d mres msc m.sc bsc b.sc dphil mphil".split())  # noqa: SIM905
_GROUPS = frozenset("collaboration consortium group team initiative investigators project".split())  # noqa: SIM905


def case_name(name: str) -> str:
    """A name printed in capitals, as people write it ("MOHAMMAD A. NEMATBAKHSH" ->
    "Mohammad A. Nematbakhsh")."""
    if not any(c.islower() for c in name):
        tokens = name.split()
        return " ".join(
            t.lower()
            if 0 < i < len(tokens) - 1 and t.lower() in PARTICLES  # "DANIEL DE KADT"
            else t
            if len(t) <= 2
            else _capitalised(t)
            for i, t in enumerate(tokens)
        )
    return name


def _capitalised(token: str) -> str:
    """Each part of a hyphenated name capitalised ("GOMEZ-URIBE" -> "Gomez-Uribe"), "Mc"
    as such names are written ("MCKAY" -> "McKay")."""
    return "-".join(
        f"Mc{part[2:].capitalize()}" if part[:2] == "MC" and len(part) > 3 else part.capitalize()
        for part in token.split("-")
    )


def family_in_capitals(tokens: list[str], shortest: int = 4) -> list[str]:
    """A family name printed in capitals before or after whole given names ("LI Kanglan",
    "Wanjuan PENG"): last, in the name's case ("Kanglan Li"). Not initials after a name
    ("Alhadainy HA", Vancouver style) nor a group ("ALEPH Collaboration")."""
    given = [re.fullmatch(r"[A-Z][a-zà-ÿ'’]+(?:-[A-Za-zà-ÿ]+)*", t) for t in tokens]
    if len(tokens) < 2 or any(t.casefold() in _GROUPS for t in tokens):
        return tokens
    if FAMILY_CAPS.fullmatch(tokens[0]) and all(given[1:]):
        return [*tokens[1:], tokens[0].capitalize()]
    if len(tokens[-1]) >= shortest and FAMILY_CAPS.fullmatch(tokens[-1]) and all(given[:-1]):
        return [*tokens[:-1], tokens[-1].capitalize()]
    return tokens


def unfinished(name: str) -> bool:
    """A first name alone, a name ending in a particle ("Edward Van") or an initial ("Joel
    J."): its line broke inside it."""
    tokens = name.split()
    lone = len(tokens) == 1 and re.fullmatch(r"[A-Z][a-zà-ÿ]+(?:-[A-Z][a-zà-ÿ]+)?", tokens[0])
    initial = len(tokens) >= 2 and re.fullmatch(r"[A-Z]\.", tokens[-1])  # "Joel J." / "Adamson"
    last = tokens[-1]
    # (capitalised, "Das", "Du", "Le", "Da" end names as surnames: "Ranendra K. Das")
    particle = last in PARTICLES or last.casefold() in _OPENING_PARTICLES
    return bool(lone or initial or particle)


def accented_letter(token: str) -> bool:
    """One small letter with an accent ("ó", "ć"): one a text layer sets apart from its name
    ("Vučkovi ć")."""
    return len(token) == 1 and token.islower() and bool(unicodedata.decomposition(token))


MC_RAISED = re.compile(r"\bM ?(c|ac) ([A-Z]{2,}|[A-Z][a-z]+)\b")  # a small raised "c": "M c KAY"
# A name's generation, printed after it ("Jonathan J. Foley IV"): not Vancouver initials.
GENERATIONS = frozenset({"II", "III", "IV"})


def shortened(name: str, full: str) -> bool:
    """Whether ``name`` is ``full`` shortened: given names as initials ("A. Gelman", "J.-Y.
    Nief" of "Jean-Yves Nief") or some left out ("André Silva" of "André Filipe Silva"), or
    ``full`` again in capitals or inverted ("Gelman A.")."""
    tokens, whole = name.split(), full.split()
    if len(tokens) < 2 or len(whole) < 2 or tokens == whole:
        return False
    if [t.casefold() for t in tokens] == [w.casefold() for w in whole]:
        return True  # the same name again in capitals ("Michel JOURNÉE" of "Michel Journée")
    firsts = [part[0] for w in whole[:-1] for part in w.split("-") if part]  # given initials
    if (
        len(tokens) == 2
        and tokens[0] == whole[-1]
        and re.fullmatch(r"(?:[A-Za-z]\.-?)+|(?:[A-Z]-?){1,3}", tokens[1])  # "M.", "H-E", "DH"
    ):
        # inverted, its initials after it, as a citation line sets it ("Crowe M.", "Gagan M.j."
        # of "Mary Jo Gagan", "Ryu H-E" of "Ha-Eun Ryu")
        return re.findall(r"[A-Za-z]", tokens[1].upper()) == [f.upper() for f in firsts]
    if tokens[-1] != whole[-1]:
        return False
    if tokens[0] == whole[0] and set(tokens) < set(whole):
        return True
    letters = re.findall(r"[A-Z]", "".join(tokens[:-1]))
    return (
        not whole[0].endswith(".")  # the full name's first given name spelt out
        and all(re.fullmatch(r"(?:[A-Z]\.-?)+|[A-Z]{1,3}", t) for t in tokens[:-1])  # "DH Jung"
        and letters == firsts[: len(letters)]
    )

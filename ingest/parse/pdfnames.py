"""Authors' names from the lines under a PDF paper's title: affiliations, addresses, e-mails
and footnote marks left out, names broken across lines joined, Vancouver-style names
("Alhadainy HA") turned round, names printed in capitals written as people write them.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from rag.words import common_words

from .namecase import (
    APOSTROPHE_T,
    DEGREES,
    FAMILY_CAPS,
    FIELD_DEGREES,
    GENERATIONS,
    HONORIFICS,
    MC_RAISED,
    PARTICLES,
    accented_letter,
    case_name,
    family_in_capitals,
    shortened,
    unfinished,
)
from .pdfaffiliation import (
    AFFILIATION,
    GROUP,
    LABEL_LINE,
    NOT_A_PERSON,
    NOT_AUTHORS,
    SUPERVISED,
    SUPERVISOR,
    byline_text,
    group_name,
    under_label,
)
from .pdflayout import Line
from .typeset import HYPHEN_MARK

__all__ = ["AFFILIATION", "EMAIL", "VENUE", "authors", "full_name", "line_names"]

VENUE = re.compile(
    # (in the singular: a title may be on "journals"; a volume's number: not "finite volume")
    r"proceedings|conference\b|journal\b|transactions|workshop\b|symposium\b|vol\.|"
    r"volume\s*(?:\d|(?-i:[IVXLC]+)\b)|"
    r"issn|arxiv|preprint\b|©|copyright|\bdoi\b|https?://|www\.|submitted|accepted|received|"
    r"published|(?:^\W*|(?:author|accepted|draft)\W+)manuscript\b|manuscript\s+(?:id|type|no)\b|"
    r"pages?\s+\d|pp\.|\bno\.\s*\d|"  # a series' "DP No. 5"; (not "Literary manuscript text")
    # pages closing the line, not a period of years ("J.H. Prynne in Context, 1955–1975")
    r"\b(?!(?:1[6-9]|20)\d\d\s*[-–]\s*(?:1[6-9]|20)\d\d\s*$)\d+\s*[-–]\s*\d+\s*$",
    re.I,
)
_INSIDE = frozenset("of the for with from into via".split())  # noqa: SIM905 (never in a name)
_FUNCTION_WORDS = frozenset("a an the of with for in on to from by at as or via into".split())  # noqa: SIM905
_DOT_LEADERS = re.compile(r"(?:\s?\.){4,}")  # a table of contents' entry, no byline
_NUMBERED = re.compile(r"^\s*#*\s*\[\d+\]\s")  # a reference's, R's output ("## [1] FALSE")
# A reference's authors, family name first and initials after ("Benincà, E., Huisman, J.,
# Heerkloss, R., ..."): a cited work's, set beside the byline in a side box.
_CITED = re.compile(r"(?:[A-Z][^\s,]+,\s*(?:[A-Z]\.-?\s?){1,3},\s*(?:&\s*)?){3,}")
# A name closed by a full stop, then its position and e-mail or its institution on the same
# line (SSRN's "Pablo Fernández. Professor of Corporate Finance. e-mail: ...").
_NAME_THEN_CONTACT = re.compile(r"^\s*([^.,;:@]{3,60}?[^\W\d_]{2})\.\s+(.+)$")  # not "Radford M."
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_CONTACT = re.compile(r"(?:^|(?<=\d)|(?<=\d\s))\s*\([\w.+-]+@[\w.-]+\)")  # "Sushma 2 (s@pes.edu)"
_OWN_CONTACT = re.compile(r"^([^,(@]+?)\s*\([\w.+-]+@[\w.-]+\)\s*,?\s*$")  # "Ann Li (a@c.edu)"
_THANKS = re.compile(r"\b(?:thank|thanks|grateful|acknowledge)\b", re.I)  # a note's thanks
_NOT_NAMES = frozenset(["abstract", "citation", "editor", "keywords", "introduction", "authors"])
# Words that begin a heading or a phrase, never a person's name ("The Site"); not "A", an
# initial written without its point ("A Kumar").
_NOT_FIRST = frozenset(
    "the an of in on for with to at from our this these its how why what".split()  # noqa: SIM905
)
# The ORCID iD badge, read as text beside a name ("ID Qaisar Maqbool", "Peter NickID").
_ORCID = re.compile(r"^(?:ID|iD)$|(?<=[a-zß-öø-ÿ])(?:ID|iD)$")  # (ß-ö: "SalathéID")
# A name's word: capitalised, hyphenated parts too ("Lars-Göran", not "Fifth-order"), "d’Onofrio".
_CAPITAL = "A-Z" + "".join(c for c in map(chr, range(0xC0, 0x17F)) if c.isupper())  # "Łukasz"
_NAME_WORD = re.compile(
    rf"^(?:[{_CAPITAL}][\w'’.]*(?:-[{_CAPITAL}][\w'’.]*)*|[{_CAPITAL}]\.(?:-?[{_CAPITAL}]\.)*"
    rf"|[{_CAPITAL}][a-z]{{1,3}}-[a-z]{{2,4}}|(?:d|l|dell|dall)['’][{_CAPITAL}][\w'’.]*)$"
)
# (and PDFium's hyphen mark inside a line: a raised mark some fonts give as one)
_MARK_CHARS = "*†‡§¶∗⋆⁎♯#$+&∥‖♭♮⊥✝✉•·?0123456789,;:()[]{}'\"″′‘’“”„\x02"


def authors(
    lines: Sequence[Line], words: frozenset[str], *, under_title: bool = True
) -> tuple[str, ...]:
    """Names from the lines under the title (``under_title=False``: a byline read elsewhere),
    no affiliation, address or mark; a name broken across lines ("Van" / "Keuren") joined."""
    texts: list[str] = []
    sizes: list[float] = []  # each text's type size
    spans: list[tuple[float, float]] = []  # and its left and right edges
    for line in lines:  # a name hyphenated across lines ("Paulo Ro-" / "cha") joined
        # Names in a row parted by wide gaps only ("Sergey Levine   Pieter Abbeel").
        text = byline_text(", ".join(line.parts) if _apart_only(line) else line.text)
        if len(line.parts) == 2 and AFFILIATION.search(line.parts[1]) and _apart_only(line):
            text = line.parts[0]  # a name, its affiliation set apart beside it (AJPS's)
        if texts and texts[-1].endswith((HYPHEN_MARK, "-")):  # (kept before a capital)
            texts[-1] = texts[-1][:-1] + ("-" if text[:1].isupper() else "") + text
        else:
            texts.append(text)
            sizes.append(line.size)
            spans.append((line.x0, line.x1))
    names: list[str] = []
    found_in: list[float] = []  # the type size of the line each name was read from
    found_at: list[int] = []  # and that line's place
    carry = ""  # a name the line ended before finishing
    held = True  # the line before held names (not an affiliation, an address)
    # An "Edited by" label's edges, to the next line under it that is no names (a side
    # panel's names, whatever lines of another column come between), and its line's place.
    editors: tuple[float, float] | None = None
    label_at = -2
    bracketed = False  # in lines in square brackets, a title's translation: "[Comparative ..."
    for i, text in enumerate(texts):
        if bracketed or (text.lstrip().startswith("[") and "]" not in text):
            bracketed = "]" not in text
            continue
        if NOT_AUTHORS.match(text):
            editors, label_at = spans[i], i
            continue
        if SUPERVISOR.match(text):  # "Thesis Advisor: Patrick Cozzi"
            continue
        text = SUPERVISED.sub("", text)  # "Oishani Bandopadhyay, supervised by Professor ..."
        found = line_names(text, first=not names and not carry)
        beside = label_at == i - 1  # right after its label's line ("Supervisor:" / "Dr. ...")
        panel = editors is not None and under_label(spans[i], editors, beside)
        if panel and found:
            continue
        if panel and not beside:  # (a line beside a label that is no names leaves it be)
            editors = None
        first_line = under_title and i == 0 and ":" not in text  # no label ("SUBJECT AREAS:")
        over_affiliation = i + 1 < len(texts) and bool(AFFILIATION.search(texts[i + 1]))
        # names in capitals, one to a line (not a title's words: "INTERACTIONS WITH ...")
        caps_run = (
            bool(names) and text.isupper() and not _FUNCTION_WORDS & set(text.lower().split())
        )
        if found == [] and (first_line or over_affiliation or caps_run):
            # Words common enough to be a heading's ("MICHAEL WALKER", "EDWARD MIGUEL") are
            # a name on a line of its own over an affiliation (Econometrica's bylines), right
            # under the title (the AMS's "RAYMOND CHENG"), or after names in capitals (JMCB's
            # "BRETT A. MCCULLY" / "KAREN M. PENCE" / "DANIEL J. VINE").
            found = line_names(text, byline=True)
        if found is None:
            if _THANKS.search(text):
                break  # an author note's thanks ("I am grateful to Bart de Langhe, ...")
            held = False
            continue
        if carry:
            heading = found and found[0].isupper() and not carry.isupper()  # "HIGHLIGHTS"
            if found and (len(found[0].split()) == 1 or unfinished(carry)) and not heading:
                found[0] = f"{carry} {found[0]}"
            else:
                found = [carry, *found]  # a whole name after all ("Bob Lee" / "Ann Wu 2")
            carry = ""
        # A lone first name ends a line broken inside a name, and so does a name without the
        # mark every other name of its line has; a lone word under an affiliation is its last
        # line's tail ("... University of California," "Berkeley").
        if found and (unfinished(found[-1]) or _unmarked_last(text)) and (held or len(found) > 1):
            carry = found.pop()
        held = bool(found)
        names.extend(found)
        found_in.extend([sizes[i]] * len(found))
        found_at.extend([i] * len(found))
    if carry:
        names.append(carry)
        found_in.append(sizes[-1])
        found_at.append(len(texts) - 1)
    names = _byline_type(names, found_in, found_at)
    kept: list[str] = []
    for name in dict.fromkeys(case_name(n) for n in names if full_name(n)):
        if not any(shortened(name, k) for k in kept):
            kept.append(name)  # not "A. Gelman" again after "Andrew Gelman" (a footnote's)
    return tuple(kept)


def _byline_type(names: list[str], sizes: list[float], at: list[int]) -> list[str]:
    """A byline is set in one type: words read as names on the lines just above it, in
    smaller type, are a subtitle's (Quarto's, between the title and a larger author line:
    "Probabilities Across Ethnic Groups" / "Akshat Aneja")."""
    whole = [i for i, name in enumerate(names) if full_name(name)]
    if not whole:
        return names
    top = max(sizes[i] for i in whole)
    first = next(i for i in whole if sizes[i] >= top / 1.1)
    if first and at[first] == at[first - 1] + 1 and sizes[first - 1] < top / 1.1:
        return names[first:]
    return names


_CAPS_BEFORE = re.compile(r"\s*((?:[A-Z][A-Z'’.-]*\s+){1,4}[A-Z][A-Z'’-]+)\s+(?=[A-Z][a-z])")


def line_names(text: str, *, first: bool = False, byline: bool = False) -> list[str] | None:
    """The names on an author line, None for a line that is not one (an affiliation, an
    address, prose). The ``first`` author line may close with its affiliation."""
    text = MC_RAISED.sub(lambda m: f"M{m[1].upper() if m[2].isupper() else m[1]}{m[2]}", text)
    text = _CONTACT.sub(" ", text)  # a name's e-mail after its mark: no affiliation
    text = _OWN_CONTACT.sub(r"\1", text)  # or after the one name on its line (CogSci's)
    if len(text) > 250 or VENUE.search(text) or LABEL_LINE.match(text) or _DOT_LEADERS.search(text):
        return None
    if _NUMBERED.match(text) or _CITED.search(text) or text.count("]") > text.count("["):
        return None  # a reference, or the close of a list the line before opened ("...’]")
    contact = _NAME_THEN_CONTACT.match(text)  # "Pablo Fernández. Professor of ... e-mail:"
    if (
        contact
        and not AFFILIATION.search(contact[1])  # "Universidad de Chile. Dr. Carlos Lorca ..."
        and (EMAIL.search(contact[2]) or AFFILIATION.search(contact[2]))
    ):
        name = _name(contact[1], byline=True)
        return [name] if full_name(name) else None
    if AFFILIATION.search(GROUP.sub(" ", text)):  # (a group's "UK" is its name's)
        # "Radford M. Neal, University of Toronto", "YAXIONG XIE and KYLE JAMIESON, Princeton
        # University, USA": the names before the affiliation that closes the first line (a
        # later line so made is an address: "Royal Holloway, University of London"; not a
        # name in capitals, one a line as Wiley sets them: "STEWART W. BRECK, United ...").
        parts = text.split(",")
        lead = next((i for i, part in enumerate(parts) if AFFILIATION.search(part)), 0)
        capitals = lead == 1 and parts[0].strip().isupper() and len(parts[0].split()) >= 2
        if not first and not capitals:
            return None
        # (a byline by its place: common words in capitals are names here, "NEIL HUNT")
        names = line_names(",".join(parts[:lead]), byline=True) if lead else None
        # "DANIEL DE KADT London School of Economics": a name in capitals, an affiliation after
        run_on = None if lead else _CAPS_BEFORE.match(parts[0])
        if run_on:
            names = line_names(run_on[1], byline=True)
        return names or None
    # "Authors: A. Smith, ...", "By PAUL GOLDSMITH-PINKHAM, KAREN JIANG, ...", the IMF's
    # "Prepared by ..." (after a manuscript's line number: "2 Authors: Luna L. Sánchez-Reyes")
    text = re.sub(
        r"^\s*(?:\d{1,3}\s+(?=authors?\b))?"
        r"(?:authors?\b\s*:?|(?:(?:prepared|written)\s+)?by\s+(?=(?-i:[A-Z])))",
        "",
        text,
        flags=re.I,
    )
    plain = GROUP.sub(" ", text)  # a group's own words ("the COVID-19 ... consortium")
    lower = [w for w in plain.split() if w[:1].islower() and w not in PARTICLES and w != "and"]
    if sum(1 for w in lower if not re.fullmatch(r"[a-z](?:[,;](?:[a-z]|\d{1,2}))*[,;*)]*", w)) > 1:
        return None  # prose or an address, not names ("and", raised marks "b,c", "a,b,1" aside)
    # Names are parted by commas, "and", or the marks after each ("Cohan† ∗ Feldman†",
    # "Jonas Fritzsch 1 Justus Bogner 1": an affiliation's number set apart).
    # (or a raised letter set apart, "S. Haneuse a, b J. Schildcrout g P. Crane", AIP's "a)";
    # not Italian, Portuguese or Spanish "e", "y": "Dipartimento di Matematica e Fisica")
    parts = re.split(
        r",|\band\b|;|(?<!\w)&|&(?!\w)|·|•|\s{3,}|\||[*†‡§¶∗⋆⁎♯✉]+|(?<!\S)\d{1,2}(?!\S)|(?<!\S)(?-i:[a-df-xz])\)?(?!\S)"
        r"|(?<!\S)Æ(?!\S)",  # Springer's bullet between names, read as "Æ"
        text,
        flags=re.I,
    )
    # Family names in capitals after the given ones, some of three letters or more ("Kanglan
    # LI, Shouchao WEI, Zhou LIU"): then the two-letter ones are family names too, not a
    # Vancouver list's initials ("Alhadainy HA, Darrag AM").
    last = [p.split()[-1] for p in parts if len(p.split()) >= 2]
    caps = sum(1 for t in last if len(t) >= 3 and FAMILY_CAPS.fullmatch(t)) >= 2
    # A family name and one initial ("Suburaaj R") is Vancouver's only in a list of them.
    listed = sum(len(p.split()) >= 2 for p in parts) >= 2
    names = [n for n in (group_name(p) or _name(p, byline=byline, caps=caps, listed=listed)
                         for p in parts) if n]  # fmt: skip
    vancouver = any(re.fullmatch(r"\s*[A-Z][a-z]+\s+[A-Z]{1,3}\s*", p) for p in parts[:-1])
    broken = re.search(r"\s[A-Z]$", text.rstrip()) and len(parts[-1].split()) == 2
    if names and broken and not vancouver:
        # a name the line breaks after its initial ("Patrick D" / "Schloss"), in a list
        # that is not Vancouver's ("Alhadainy H, Darrag A")
        names[-1] = _name(parts[-1], byline=byline, caps=caps, listed=False) or names[-1]
    if (
        names
        and not byline
        and not any(c.islower() for part in parts if not _RAISED.fullmatch(part) for c in part)
    ):
        # A byline in capitals: one name makes it one, its common words names too ("JOHN
        # COPAS and JIAN QING SHI").
        names = [n for n in (_name(p, byline=True, caps=caps, listed=listed) for p in parts) if n]
    return names


def _apart_only(line: Line) -> bool:
    """A line of pieces set apart by wide gaps, with no comma or "and" between them."""
    return len(line.parts) > 1 and not re.search(r",|\band\b|&", line.text)


# A name's mark before the next name: numbers (with LNCS's envelope, "1 ( )"), symbols or a
# letter set apart ("Coletti 3 ,", "Pargeter 1, 2 ·", "Eduardo a ,").
_MARKED = re.compile(
    r"[^\W\d_]\.?\s*(?:\d+(?:\s*,\s*\d+)*(?:\s*\(\s*\))?\s*,?\s*\*?|[*∗†‡§¶]+"
    r"|\s[a-z](?:\s*,\s*[a-z])*\s*\*?)"
    r"\s*(?:,|·|and\b|&|$)"
)


def _unmarked_last(text: str) -> bool:
    """Whether a line of names that each carry a mark ("Pietro Coletti 3 , W. John") ends on
    a name without one: the line broke inside that name ("W. John" / "Edmunds 4"). A mark on
    one name only ("Henri Kauhanen ∗ , Sarah Einhaus & George Walkden") is no such line."""
    ends_marked = re.search(r"(?:\d|[*∗†‡§¶·]|\s[a-z])\s*,?$", text.rstrip())
    if ends_marked or text.rstrip().endswith(","):
        return False
    names = len(line_names(text) or ())
    return names >= 2 and len(_MARKED.findall(text)) >= names - 1


def _fused_initials(token: str) -> bool:
    return bool(re.fullmatch(r"(?:[A-Z][a-z]?\.)+-?[A-Z][\w'’-]+", token))  # "Yu.A.Pusep"


def full_name(name: str) -> bool:
    tokens = name.split()
    return len(tokens) >= 2 or (len(tokens) == 1 and _fused_initials(tokens[0]))


_ROMAN = re.compile(  # a Roman numeral of four letters or more (a generation: "II" to "IV")
    r"(?=[MDCLXVI]{4,}$)M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})"
)
_RAISED = re.compile(r"\s*[a-z]{1,2}\s*")  # raised letters after a name ("DING1,a , ...")


def _name(part: str, *, byline: bool = False, caps: bool = False, listed: bool = True) -> str:
    """A person's name from a piece of an author line, its marks stripped; "" if it is
    not one."""
    if re.search(r"(?<!\S)\d{3,}(?!\S)", part):
        return ""  # a course's or a room's number ("HIS 492 Sec 02"), a mark is shorter
    tokens: list[str] = []
    for raw in part.split():
        token = raw if raw in APOSTROPHE_T else raw.strip(_MARK_CHARS)  # "van ’t Wout"
        # a mark drawn from a symbol font ("☯": these authors contributed equally; AEA's
        # "⃝r", a circle drawn round an r: the authors' order is random)
        token = "".join(c for c in token if unicodedata.category(c)[0] != "S" and c != "\u20dd")
        token = re.sub(r"(?<=[^\W\d_])\d+[a-z]?$|[*∗†‡§¶⋆¹²³\u2070-\u2079]+", "", token)
        token = _ORCID.sub("", token)
        if tokens and accented_letter(token) and tokens[-1][-1:].isalpha():
            tokens[-1] += token  # an accented letter the text layer set apart ("Jeric ó")
        elif token:
            tokens.append(token)
    if any(t.casefold().rstrip(".,;:") in NOT_A_PERSON for t in tokens):
        return ""
    if any(re.search(r"\w&\w", t) for t in part.split()):  # a firm's "R&D", "AT&T"
        return ""
    if tokens:  # "Dr.Sriadhibhatla Sridevi": the title glued to the name
        tokens[0] = re.sub(r"^(?:Dr|Prof)\.(?=[A-Z][a-z])", "", tokens[0])
    while tokens and tokens[0].casefold().rstrip(".") in HONORIFICS:
        tokens.pop(0)
    # (a degree printed before its field goes before a single word too: "PhD Mathematics";
    # not "Md Amiruzzaman", a given name's short form)
    while (
        tokens
        and tokens[0].casefold().rstrip(".,") in DEGREES
        and (len(tokens) > 2 or tokens[0].casefold().rstrip(".,") in FIELD_DEGREES)
        and tokens[0].rstrip(".,") != "Md"  # Bangladesh's "Md Abdullah Al Maruf": his name
    ):
        tokens.pop(0)
    while len(tokens) > 2 and tokens[-1].casefold().rstrip(".,") in DEGREES:
        tokens.pop()  # a degree after the name ("Thomas P Spargo MSc", "Mina Ryten PhD")
    while tokens and re.fullmatch(r"[a-z]", tokens[-1]):
        tokens.pop()  # an affiliation mark set apart ("Lane a"): the layout raised it
    if len(tokens) > 2 and re.fullmatch(r"[A-Z]", tokens[-1]) and "." in "".join(tokens[:-1]):
        tokens.pop()  # one in capitals, in the name's type (CSIRO's "A. Meats A"): initials
        # have their points ("Senthil Rajan S", with none, keeps his)
    while tokens and re.fullmatch(r"[a-z]|st|nd|rd|th", tokens[0]):
        tokens.pop(0)  # the same mark after the name before ("Hulse,[ a ] Mohammadali ..."),
        # or an ordinal's raised letters (IEEE's "1 st Zhitong LI", its number a part apart)
    if not tokens or len(tokens) > 5 or any(t.casefold() in _NOT_NAMES for t in tokens):
        return ""
    if any(_ROMAN.fullmatch(t.rstrip(".,:")) for t in tokens):
        return ""  # a numeral of four letters or more: a PhD cycle's ("Cycle: XXXVIII")
    if all(re.fullmatch(r"[A-Z]\.?(?:-[A-Z]\.?)?", t) for t in tokens):
        return ""  # initials alone ("A. R.", a corrigendum's): a name's short form, no name
    if any(re.fullmatch(r"[^\W\d_]{4,}\.", t) for t in tokens[:-1]):
        return ""  # a sentence's end inside it ("Government Works. Distributed under ...")
    if any(re.search(r"[^\W\d_]\d+[^\W\d_]|[’']s$", t) for t in tokens):
        return ""  # a digit inside a word: a postcode's ("WC1H 0NN"), a formula's, no name's;
        # a possessive: a subtitle's ("On Livengood and Sytsma’s Revolver Case")
    if tokens[0].casefold() in _NOT_FIRST or any(t.casefold() in _INSIDE for t in tokens[1:]):
        return ""  # "COMBINATORICS OF PARKING FUNCTIONS": a title's words, no name's
    if not all(_NAME_WORD.match(t) or t.casefold() in PARTICLES for t in tokens):
        return ""
    if len(tokens) >= 4 and all(len(t) > 4 and t.casefold() in common_words() for t in tokens):
        return ""  # "Future European Parliamentary Elections": a title's line, no name's
    if tokens[0].casefold() in PARTICLES and len(tokens) == 1:
        return ""
    if (
        not byline
        and not any(c.islower() for c in "".join(tokens))
        and all(t.casefold() in common_words() for t in tokens if len(t) > 2)
    ):
        return ""  # "OVERVIEW OF THE": a heading in capitals, not a name
    # (alone on its line, a name's two capitals are its family's: IEEE's "Zhitong LI")
    tokens = family_in_capitals(tokens, 2 if caps or not listed else 4)
    if (  # (one initial after two words is a given name's: "Senthil Rajan S")
        ((len(tokens) == 2 and listed) or re.fullmatch(r"[A-Z]{2,3}", tokens[-1]))
        and re.fullmatch(r"[A-Z]{1,3}", tokens[-1])
        and tokens[-1] not in GENERATIONS
        and tokens[0][1:].islower()
        and not any(re.fullmatch(r"[A-Z]\.", t) for t in tokens)
    ):
        tokens = [tokens[-1], *tokens[:-1]]  # "Alhadainy HA" (Vancouver style): "HA Alhadainy"
    return " ".join(tokens)

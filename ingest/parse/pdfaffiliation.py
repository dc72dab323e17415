"""What is no person's name on a PDF's first page: a line's marks of an affiliation or an
address (a university, an institute, a department, an e-mail, a street, a postcode, a
country or a place an address closes with, an institution known by its capitals: "ETH
Zürich"), and the words of a group, a place of work, a rank or a document."""

from __future__ import annotations

import re

__all__ = [
    "AFFILIATION",
    "DEGREE",
    "GROUP",
    "INSTITUTION",
    "INSTITUTION_NAME",
    "LABEL_LINE",
    "NOT_AUTHORS",
    "NOT_A_PERSON",
    "SUPERVISED",
    "SUPERVISOR",
    "byline_text",
    "group_name",
    "under_label",
]

# Countries and places an address closes with ("Abu Dhabi, United Arab Emirates").
_PLACES = """usa u.s.a uk china japan germany france italy spain canada mexico brazil russia india
    pakistan korea netherlands denmark sweden switzerland australia new_zealand ireland scotland
    england wales belgium austria norway finland poland portugal greece israel turkey iran egypt
    singapore taiwan hong_kong chile argentina colombia south_africa nigeria kenya saudi_arabia
    malaysia thailand vietnam indonesia czech_republic hungary romania ukraine united_states
    united_kingdom united_arab_emirates abu_dhabi qatar lebanon bangladesh nepal sri_lanka
    philippines peru ecuador uruguay venezuela ethiopia ghana uganda tanzania morocco tunisia
    algeria iceland luxembourg estonia latvia lithuania slovenia slovakia croatia serbia bulgaria
    cyprus madagascar mozambique zimbabwe zambia malawi botswana namibia cameroon senegal rwanda
    burundi somalia sudan libya gabon congo burkina_faso mauritania mauritius eritrea
    liberia sierra_leone gambia lesotho afghanistan iraq syria yemen kuwait bahrain armenia
    azerbaijan kazakhstan uzbekistan kyrgyzstan tajikistan mongolia myanmar cambodia laos bhutan
    maldives brunei papua_new_guinea fiji belarus moldova albania bosnia kosovo
    bolivia paraguay guatemala honduras nicaragua panama costa_rica el_salvador haiti
    puerto_rico
    campus""".split()  # noqa: SIM905 (a name's words spaced by "_"; not the countries that are
# also people's names: Jordan, Chad, Georgia, Montenegro, Angola)
AFFILIATION = re.compile(
    r"@|universit|universidad|institut|department|dept\.|laborator|school|college|academy|"
    r"dipartiment|departament|d[ée]partement|facolt[àa]|fakult|"  # "Dipartimento di ..."
    r"\binc\b|facultad|faculdade|escuela|[ée]cole\b|polytechni|centro\b|"
    r"corporation|research|centre|center|hospital|faculty|\bgmbh\b|\bltd\b|\bllc\b|"
    # ("Gower Street", not the name "Nathaniel R Street": an initial before it)
    r"\bemail\b|e-mail|https?://|www\.|\d{4,}|(?<!\b(?-i:[A-Z])\s)(?<!\b(?-i:[A-Z])\.\s)\bstreet\b|"
    r"\bavenue\b|\broad\b|\bcedex\b|"
    r"\b(?:rua|calle|rue|avenida|stra(?:ss|ß)e|voie|chemin|boulevard)\b|"  # "Rua Dr. ..."
    r"\b(?-i:ETH|EPFL|CNRS|INRIA|INSERM|CSIC|RIKEN|KAIST|KTH|CERN|MIT|UCL|UCLA|CNR|UMR)\b|"
    r"\b(?-i:KU Leuven|UC Berkeley|UC Davis|UC Irvine)\b|"
    r"\b(?-i:[A-Z]{1,2}\d[A-Z\d]?\s\d[A-Z]{2})\b|\bkingdom\b|"  # "WA4 4AD", "United Kingdom"
    rf"\b(?:{'|'.join(re.escape(p).replace('_', ' ') for p in _PLACES)})\b",
    re.I,
)
# Words of a group, a place of work, a rank or a document, never of a person's name
# ("Embedded Systems", "LIT CPS Lab", "Federal Reserve Board", "Senior Member" of IEEE,
# "Software Review", "Find the latest version here", a publisher's "Article
# Recommendations" or "Read Online" links, "Risk Analytics Division", a company's lab set
# under its authors' names: "Google Brain", "Google AI Language"; "JEL No. C"; a position set
# on its own line under a name: "Student", "Scientist", "Assistant Professor"; a German
# research centre; a keyword or a heading set in a byline's place: "Theoretical Framework",
# "Text Mining", "Key Points", "Lead Contact"; a country in its address: "Russian
# Federation"; a form's label: "Project Title"; a licence: "CC BY-NC"; a rank in French:
# "Aspirant F.N.R.S.", "Ingénieur Civil"; a submission's "Blinded Manuscript").
NOT_A_PERSON = frozenset(
    """lab labs laboratory system systems archive repository software review version group
    unit foundation council ministry agency society association data technology values
    control network networks science sciences engineering studies press team board bank
    bureau commission committee office federal national member fellow article articles
    online recommendations download metrics division affairs profile jel rights reserved commons
    google microsoft facebook deepmind openai ibm nvidia amazon baidu alibaba tencent huawei
    intel samsung adobe paper seminar approval frequency language artificial intelligence
    electronic computational structure structures properties methods
    student students scientist researcher lecturer postdoctoral assistant associate emeritus
    thesis dissertation capstone program programme director chair advisor adviser supervisor design
    please type insert doctor doktor fakultät engineer academic year date submission
    specialization specialisation township capital physics chemistry mathematics biology
    economics philosophy psychology sociology linguistics report laboratoire laboratorio
    forschungszentrum zentrum
    framework equation equations learning mining points inference progression analysis
    randomisation randomization contact award supplement differential theoretical sequential
    stochastic gender health corresponding building environment resources investigator
    supporting federation republic kingdom emirates title cc licence license aspirant
    ingénieur ingenieur electrical blinded manuscript government name
    conceptualization methodology investigation validation visualization supervision curation
    """.split()  # noqa: SIM905 (the last line: CRediT's roles, set beside the names)
)


# An institution's name: a university or an institute anywhere in it; a college, school,
# academy or laboratory as its head word ("School of Medicine", "Jet Propulsion
# Laboratory"), not a title's word ("Laboratory Test Volumes Using ...", "Institutional").
INSTITUTION = re.compile(
    r"universit|\binstitut(?:e|o|et)?\b|"
    r"\b(?:college|school|academy|laborator(?:y|ies))\b(?=\s+(?:of|for)\b|\s*,|\s*$)",
    re.I,
)


# A line that is an institution's name and nothing else: the author's, under a title, no
# subtitle ("Johns Hopkins University", "University of Virginia", "Institute for Fiscal
# Studies", "Universidade de São Paulo", "Instituto de Física", "THE ... LAW SCHOOL").
INSTITUTION_NAME = re.compile(
    r"^(?:(?:[A-Z][\w'’.&-]*|of|the|and|for)\s+){0,6}"
    r"(?i:Universit\w*|Institute?|College|School|Laborator(?:y|ies)|Academy|"  # or in capitals
    r"Research\s+Cent(?:er|re))"  # "PACIFIC EARTHQUAKE ENGINEERING RESEARCH CENTER"
    r"(?:\s+(?:of|for)(?:\s+(?:[A-Z][\w'’.&-]*|and|the)){1,4})?$"  # "... University of Technology"
    r"|^(?:Universi\w*|Institut\w*|College|School|Academy|Escola|Faculdade|Facultad)"
    r"\s+(?:of|for|de|di|da|do|del|della|des|du|für)\s+[A-ZÀ-Ý][^:;.?!]*$"
    r"|^(?:[ÉE]cole|Politecnico|Polytechnique)\s[^:;.?!]*$"  # "École polytechnique fédérale ..."
)


# A thesis's statement of its degree, in the languages theses are printed in ("for the degree
# of Doctor", "in partial fulfilment", German "zur Erlangung des akademischen Grades",
# "vorgelegt von"): front matter, never a title's words.
DEGREE = re.compile(
    r"\bdegree of (?:doctor|master|bachelor)|\bpartial fulfil+ment\b|\bmembres du jury\b"
    r"|\bexamination committee\b|\bbanca examinadora\b|\bt[íi]tulo de (?:doutor|mestre)"
    r"|\bzur erlangung de[rs]\b|\bakademischen grades\b|\bvorgelegt (?:von|bei)\b",
    re.I,
)


# A thesis's roles for the people its title page names, who are no authors ("First
# Examiner and Supervisor:", "Committee:", Portuguese "Orientador:", German "Betreuer:",
# "Gutachter:", Italian "Relatore:"; a "Co-supervisor:" too).
_ROLE = (
    r"(?:co-?)?(?:supervisor|advisor|adviser|director|mentor|referee|examiner|reader|chair|committee"
    r"(?: members?)?|orientadora?|betreuer(?:in)?|relatore|gutachter(?:in)?)s?"
)
_ROLES = (
    rf"(?:thesis |dissertation |doctoral |examining |advisory |faculty |research |first |second "
    rf"|reading |supervisory "
    rf"|third |outside |external )?{_ROLE}"
    rf"(?:\s+and\s+{_ROLE})?"
)
# A side panel's label for the names under it, who are no authors ("Edited by" / "Karthik
# Ram", "Reviewed by" / "Leah Wang"), and a thesis's for its supervisors ("supervised by").
NOT_AUTHORS = re.compile(
    r"^\s*(?:edited|reviewed|handled|communicated|accepted|recommended|supervised|advised|"
    r"directed) by\b|^(?:[\w ]{0,30}\b(?:carried out|prepared|written|conducted|done)\s+)?"
    r"under (?:the )?(?:guidance|supervision|direction) of\b"  # "Work project carried out ..."
    r"|^\s*(?:academic |handling |section |associate )?editors?\s*:?\s*$|"
    rf"^\s*(?:reviewers?|{_ROLES})\s*:?\s*$|^\s*betreut (?:durch|von)\b"
    r"|^\s*(?:\w+\s+)?orientad[ao]\s+por\b",  # Portuguese "(Dissertação) orientada por:"
    re.I,
)
# A thesis's supervisor on the author's line or a labelled line of their own, no author
# ("Thesis Advisor: Patrick Cozzi").
SUPERVISOR = re.compile(rf"^\s*{_ROLES}\s*:", re.I)
SUPERVISED = re.compile(
    r",?\s+(?:(?:supervised|advised|mentored) by|under the supervision of)\b.*$"
    rf"|\s*\((?:co-?)?{_ROLES}\)",  # "Edward A. Miguel (Outside Reader)"
    re.I,
)


# A group that is an author, named in the byline ("the COVID-19 Genomics UK (COG-UK)
# consortium†", "ALEPH Collaboration"): one author, as printed.
GROUP = re.compile(
    r"(?:\bthe\s+)?(?:[^\s,;]+\s+){0,6}?(?:consortium|collaboration|study group|working group"
    r"|investigators)\b[^\s,;]*",
    re.I,
)


def group_name(part: str) -> str:
    """The group a piece of a byline names, as printed without its marks; "" if none."""
    found = GROUP.fullmatch(part.strip())
    return (
        found.group().rstrip(_GROUP_MARKS + " ") if found and len(found.group().split()) > 1 else ""
    )


_GROUP_MARKS = "*†‡§¶∗⋆⁎♯,;:0123456789"


# A labelled line of the title page's margin or footer, not a list of authors; nor a line
# opening with a position held, after its affiliation's number ("2 Director of Hematopoietic
# Stem Cell Transplantation and Cellular Therapy, Hematology").
LABEL_LINE = re.compile(
    r"^\s*(?:\d{1,2}\s*)?(?:(?:associate|assistant|full|senior|deputy|vice|adjunct|clinical|"
    r"research)\s+)*(?:professor|director|head|chair|dean|lecturer|president|chief)\s+of\b|"
    r"^\s*(?:citation|academic editor|editors?|handling editor|received|accepted|published|"
    r"copyright|correspondence|corresponding|funding|competing|data availability|open access|"
    r"key\s?words?|abstract|how to cite|running (?:title|head)|short title|affiliations?|"
    r"licen[cs]e)\b"
    r"|^\s*(?:table of )?contents\s*$"
    # a title page's field and its figure ("Word Count: 701", "Phone: 650.736.9477")
    r"|^\s*[A-Z][A-Za-z ]{0,30}:\s*[\d.,/() +-]+$",
    re.I,
)


def under_label(span: tuple[float, float], label: tuple[float, float], beside: bool) -> bool:
    """Whether a line (``span``: its left and right edges) is under a label's ("Edited by" /
    "Karthik Ram") or, ``beside`` one that ends the line before, right of it
    ("Supervisor:" / "Prof. Dr. Stefan Klumpp")."""
    return (span[0] < label[1] and span[1] > label[0]) or (beside and span[0] >= label[1])


# What a byline sets beside its names: an ORCID iD in brackets (Springer's "Ambroise
# Lafont[0000-0002-9299-641X]"), an institution in brackets ("SHAHRYAR MINHAS (MICHIGAN STATE
# UNIVERSITY)"), a note on the author in brackets ("Sebastian Hörl (joint first co-author)"),
# an institution after a name in capitals ("MARKO KLAŠNJA Georgetown University");
# and initials glued to the family name ("F.S.Amaral") parted from it.
_ORCID_ID = re.compile(r"\[\s*\d{4}(?:\s*[-−‐–]\s*\d{3}[\dX]){3}\s*\]")
_INITIALS_GLUED = re.compile(r"\b((?:[A-Z]\.){1,3})(?=[A-Z][a-z]{2,}(?![\w.]))")  # not "B.Sc."
_BRACKETED = re.compile(r"\s*\([^()]*\)")
_QUOTED = re.compile(r"^\s*[“\"«„][^“”\"«»]+[”\"»]\s*,?\s*$")
_OPENED, _CLOSED = re.compile(r"\s*\([^()]*$"), re.compile(r"^[^()]*\w{2}\)\s*$")  # (no "a)")
_ROLE_NOTE = re.compile(r"\b(?:co-?)?authors?\b|\bcontribut", re.I)  # "(joint first co-author)"
_CAPS_THEN = re.compile(r"^((?:[^\W\d_a-z]+[.’']?\s+)+?[^\W\d_a-z]{2,})\s+(?=[^\W\d_][^\W\d_A-Z])")


def byline_text(text: str) -> str:
    """A byline's line without what is set beside its names (see above)."""
    text = _ORCID_ID.sub("", _INITIALS_GLUED.sub(r"\1 ", text))
    text = _BRACKETED.sub(
        lambda m: (
            "" if INSTITUTION.search(m.group()) or _ROLE_NOTE.search(m.group()) else m.group()
        ),
        text,
    )
    # An institution in brackets broken over the line's end ("Jacobus A Naudé (University of
    # the Free State, Bloemfontein, South" / "Africa)"): its two pieces.
    if _QUOTED.match(text):  # a department's namesake in quotes ("“G. L. Lagrange”")
        return ""
    opened = _OPENED.search(text)
    text = text[: opened.start()] if opened and INSTITUTION.search(opened.group()) else text
    text = _CLOSED.sub("", text)
    caps = _CAPS_THEN.match(text)
    if caps and INSTITUTION.search(text[caps.end() :]) and "," not in text:
        return caps.group(1)  # "MARKO KLAŠNJA" of "MARKO KLAŠNJA Georgetown University"
    roles = _NAME_ROLES_MAIL.match(text)
    return roles.group(1) if roles else text


# A name, then its degrees and positions, then its address, one author a line as society
# meeting papers print them ("Hongwei Xin, PhD, Professor, Director of the Egg Industry
# Center, hxin@iastate.edu").
_NAME_ROLES_MAIL = re.compile(
    r"^\s*([^,@\d]{3,60}?),(?:\s*(?:ph\.?\s?d|m\.?\s?sc?|b\.?\s?sc?|m\.?\s?d|p\.?\s?e)\.?,)*"
    r"(?:[^,@]*\b(?:professor|assistant|associate|director|student|scientist|engineer|"
    r"researcher|lecturer|fellow|manager|specialist|candidate)\b[^,@]*,)+\s*\S+@\S+\s*$",
    re.I,
)

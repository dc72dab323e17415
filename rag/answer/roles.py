"""What part an abstract sentence plays: background, aim, method, result or conclusion.

A structured abstract says it with headings ("BACKGROUND:", "Methods:", "RESULTS" at the
start of a sentence; "DESIGN, SETTING, AND PATIENTS" takes its first name's role); where two
headings or more are printed, every sentence up to the next heading has that heading's role
(a lone heading labels its own sentence only), but under one joining methods and results
("METHODS AND FINDINGS") the sentences are methods until the first result cue. An
unstructured one is read by cues found in the prose of any field: "The aim of this study was
...", "To determine whether ...", "We propose ..." (aim); "were randomised", "we collected",
"a retrospective cohort" (method); a p-value, a confidence interval, "was significantly
higher", "outperforms" (result); "These findings suggest ...", "In conclusion" (conclusion),
unless the sentence states a measured share, p-value or confidence interval without saying
what it means ("Overall, 79% of participants had ...": a result); a question before the
results states the aim. Sentences before the first cue are background; after the first
result, every sentence is a result but a conclusion. The answerer prefers a result to an aim
or background sentence when the question asks what was found (:mod:`rag.answer.rank`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

__all__ = ["ROLES", "heading", "inline_heading", "roles", "structured"]

ROLES = ("background", "aim", "method", "result", "conclusion")

_HEADINGS = {
    "background": "background|introduction|context|rationale|importance|problem",
    "aim": "objectives?|aims?|purposes?|goals?|hypothes[ie]s|study question",
    "method": "methods?|materials? and methods|materials?|methodology|design|setting|settings|"
    "participants|patients|subjects|population|interventions?|exposures?|measurements?|"
    "main outcome measures?|main outcomes? and measures?|outcome measures?|study design|"
    "data sources?|study selection|data extraction|procedures?|approach",
    "result": "results?|findings|main results|key results|observations?",
    "conclusion": "conclusions?|interpretation|discussion|implications?|significance|"
    "summary|relevance|conclusions and relevance|clinical relevance",
}
_ANY_HEADING = "(?:" + "|".join(_HEADINGS.values()) + ")"
# "Methods:", "Materials and methods.", JAMA's "Design, Setting, and Participants:" (a list
# of heading names, the first one deciding the role), or one in capitals without a colon
# ("DESIGN, SETTING, AND PATIENTS A phase 1/2 trial ...").
_HEADING = re.compile(
    rf"^\s*(?P<name>{_ANY_HEADING}(?:\s*,\s*(?:and\s+|&\s*)?{_ANY_HEADING})*)"
    r"(?:\s*(?:and|&)\s*\w+)?\s*[:.]\s*"
    r"|^\s*(?-i:(?P<caps>[A-Z][A-Z ,&/]{3,40}[A-Z])\s*:?\s+(?=[A-Z0-9(]))"
    r"|^\s*(?-i:(?P<lower>[A-Z][A-Z ,&/]{3,40}[A-Z])\s*:?\s+(?=[a-z]))",  # "RESULTS miR-375 ..."
    re.IGNORECASE,
)
# A heading printed in bold at a line's start with no colon ("Aim To test ...").
_NAMES = "|".join(_HEADINGS.values())
# A heading printed inline, two names joined by a slash too ("Aims/hypothesis The ...").
_INLINE = re.compile(
    rf"^\s*(?P<name>(?:{_NAMES})(?:/(?:{_NAMES}))?)\s+(?=(?-i:[A-Z]))", re.IGNORECASE
)
# A heading standing alone as a sentence of an abstract: one run into its text, which
# rag.sentences splits off ("...adolescents.MethodsA total of" -> "Methods", "A total of").
_ALONE = re.compile(rf"(?=(?-i:[A-Z])){_ANY_HEADING}", re.IGNORECASE)
_ROLE_OF = [(role, re.compile(f"(?:{names})", re.IGNORECASE)) for role, names in _HEADINGS.items()]
_FINDINGS = re.compile(r"\b(?:results?|findings)\b", re.IGNORECASE)

_AIM = re.compile(
    r"^(?:the\s+)?(?:main\s+|primary\s+)?(?:aims?|objectives?|purposes?|goals?)\b|"
    r"^(?:to|in order to)\s+(?:determine|assess|evaluate|investigate|examine|compare|"
    r"explore|identify|describe|test|estimate|measure|analy[sz]e|characteri[sz]e|quantify|"
    r"establish|review|clarify|define|validate|develop)\b|"
    r"\bwe\s+(?:sought|aimed|set out|wanted|hypothesi[sz]ed|asked|wished)\b|"
    r"\b(?:this|the present|the current|our)\s+(?:study|trial|work|paper|analysis|review)\s+"
    r"(?:aims?|aimed|was designed|is designed|sought|seeks|investigat\w+|examin\w+|"
    r"evaluat\w+|assess\w+|address\w+|explor\w+)\b|"
    r"\bin this (?:paper|work|study|article),?\s+we\s+(?:propose|present|introduce|study|"
    r"investigate|examine|develop|describe)\b|"
    r"^(?:here|herein),?\s+we\s+(?:propose|present|introduce|describe|develop)\b|"
    r"^we\s+(?:propose|present|introduce)\b",
    re.IGNORECASE,
)
_METHOD = re.compile(
    r"\b(?:randomi[sz]ed|randomly (?:assigned|allocated|selected)|retrospective(?:ly)?|"
    r"prospective(?:ly)?|cross-sectional|case-control|cohort of|enrolled|recruited|"
    r"were (?:included|assigned|allocated|collected|measured|analy[sz]ed|performed|"
    r"reviewed|divided|followed|obtained|recorded|evaluated|assessed|interviewed|treated|"
    r"given|studied|screened|compared|used|identified|selected|surveyed|exposed|tested)|"
    r"was (?:performed|measured|used|collected|assessed|conducted|calculated|defined|"
    r"administered|recorded|obtained|evaluated)|"
    r"we (?:used|performed|conducted|analy[sz]ed|collected|reviewed|measured|enrolled|"
    r"recruited|studied|surveyed|interviewed|compared|examined|assessed|evaluated|"
    r"designed|implemented|trained|built|constructed|developed|adopt|leverage|employ|use|"
    r"devise)|data (?:were|was) (?:obtained|collected|extracted|analy[sz]ed)|"
    r"questionnaires?|multivariate|regression (?:model|analysis)|inclusion criteria|"
    r"medical records|chart review|(?:a|an) (?:total of )?\d+ (?:patients|subjects|"
    r"participants|women|men|children|adults))\b",
    re.IGNORECASE,
)
# A measured figure: a share, a p-value, a confidence interval.
_MEASURED = re.compile(
    r"\b\d+(?:\.\d+)?\s*(?:%|percent)|\bp\s*[<=>≤≥]\s*0?\.\d|\b(?:95|99)\s*%\s*(?:ci|confidence)",
    re.IGNORECASE,
)
_RESULT = re.compile(
    _MEASURED.pattern + r"|\bconfidence interval|"
    r"\b(?:odds|hazard|risk|rate) ratios?\b|\b(?:OR|HR|RR|AUC)\b\s*[=:,(]?\s*\d|"
    r"\bsignificant(?:ly)?\b|\bnot significant|\b(?:was|were|is|are) (?:associated|higher|"
    r"lower|greater|more|less|increased|decreased|reduced|improved|similar|comparable|"
    r"found|observed|detected|identified|correlated)\b|\b(?:showed|revealed|demonstrated|"
    r"yielded|resulted in|achieved|achieves|outperform\w*|surpass\w*|improves?|reduces?|"
    r"increases?|decreases?|speeds? up)\b|\b\d+(?:\.\d+)?\s*(?:%|percent|-fold|fold|x\b|×)|"
    r"\b(?:results|experiments|evaluations?) (?:show|showed|demonstrate|indicate|reveal)|"
    r"^\W*\d+ (?:of|out of) (?:the )?\d+\b|"  # a count of what was found: "4 of 90 pterygia"
    r"\bwe (?:show|find|found|report|demonstrate|observe|observed|identify|identified|"
    r"uncover|uncovered|reveal) (?:that|a|an|the|here)\b",
    re.IGNORECASE,
)
_CONCLUSION = re.compile(
    r"^(?:in conclusion|in summary|to conclude|overall|taken together|collectively|"
    r"together|thus|therefore|hence|these (?:results|findings|data|observations)|"
    r"our (?:results|findings|data|study)|this study (?:shows|suggests|demonstrates|"
    r"indicates|provides)|we conclude)\b|\b(?:suggest|suggests|indicate|indicates|"
    r"support|supports) that\b",
    re.IGNORECASE,
)


# A measured figure makes a sentence a result whatever it opens with ("Overall, 79% of
# participants had at least one risk factor"), unless it says what the findings mean.
_INFERS = re.compile(
    r"\b(?:suggest|suggests|indicate|indicates|support|supports|imply|implies) that\b|"
    r"\b(?:we conclude|in conclusion|to conclude)\b",
    re.IGNORECASE,
)


def heading(sentence: str) -> tuple[str, str]:
    """(role, the sentence without its heading) when the sentence opens with a structured
    abstract's heading, else ("", sentence)."""
    role, rest, _ = _heading(sentence)
    return role, rest


def _heading(sentence: str) -> tuple[str, str, bool]:
    """heading(), and whether the heading joins methods and results ("METHODS AND
    FINDINGS", PLoS Medicine's): its sentences are read by their cues."""
    match = _HEADING.match(sentence)
    if not match:
        return "", sentence, False
    name = " ".join(
        (match.group("name") or match.group("caps") or match.group("lower") or "").split()
    )
    role = next((r for r, names in _ROLE_OF if names.fullmatch(name)), "")
    if not role and not match.group("lower"):
        # "MAIN OUTCOME MEASURES AND RESULTS", "Design, setting, and patients" (capitals
        # before a lower-case word are a heading only when they are one whole name:
        # "RESULTS miR-375 was ...", not "DESIGNER drugs")
        role = next((r for r, names in _ROLE_OF if names.match(name)), "")
    if not role:  # "MATERIALS/METHODS", "BACKGROUND/OBJECTIVES": the first name decides
        first = re.split(r"\s*(?:/|,|&|\band\b)\s*", name, flags=re.IGNORECASE)[0]
        role = next((r for r, names in _ROLE_OF if names.fullmatch(first)), "")
    if not role:
        return "", sentence, False
    mixed = role == "method" and bool(_FINDINGS.search(match.group(0)))
    return role, sentence[match.end() :], mixed


def inline_heading(line: str) -> tuple[str, str]:
    """(role, heading as printed) of the heading a printed line opens with, without a colon
    ("aim", "Aim" of "Aim To test the ..."); ("", "") when it opens with none. A line of
    running text may open with such a word too ("Results A ..." is rare, "Design Patterns"
    is not): callers take it for a heading only where several lines of one abstract open
    with one."""
    match = _INLINE.match(line)
    name = match.group("name") if match else ""
    if not name[:1].isupper():
        return "", ""
    first = name.split("/")[0]  # "Aims/hypothesis": the first name decides
    role = next((r for r, names in _ROLE_OF if names.fullmatch(first)), "")
    return (role, name) if role else ("", "")


def _sentence_heading(sentence: str) -> tuple[str, str, bool]:
    """_heading() of an abstract's sentence, which may be a heading alone."""
    if _ALONE.fullmatch(sentence.strip()):
        return _heading(sentence.strip() + ":")[0], "", False
    return _heading(sentence)


@functools.lru_cache(maxsize=8192)
def structured(sentences: tuple[str, ...]) -> bool:
    """Whether the abstract prints two headings or more: its sentences' roles are its own,
    not read from cues."""
    return sum(bool(_sentence_heading(s)[0]) for s in sentences) >= 2


def roles(sentences: Sequence[str]) -> tuple[str, ...]:
    """Each sentence's role (one of ROLES), by the module doc's rules."""
    return _roles(tuple(sentences))


@functools.lru_cache(maxsize=8192)
def _roles(sentences: tuple[str, ...]) -> tuple[str, ...]:
    out: list[str] = []
    current = ""  # the role a heading set, for the sentences under it
    under_headings = False
    # Read as structured when two headings or more are printed; a lone one ("AIM:" left in
    # running text) gives its own sentence its role and the cues read the rest.
    headed = [_sentence_heading(s) for s in sentences]
    sectioned = structured(sentences)
    seen_aim = seen_result = mixed = False
    for role, text, joins in headed:
        if role:
            current, under_headings, mixed = role, sectioned, joins and sectioned
            if not mixed:
                out.append(role)
                seen_aim = seen_aim or role == "aim"
                seen_result = seen_result or role == "result"
                continue
        if under_headings and mixed:  # "METHODS AND FINDINGS": methods until the first result
            seen_result = seen_result or bool(_RESULT.search(text))
            out.append("result" if seen_result else "method")
            continue
        if under_headings and current:
            out.append(current)
            continue
        if (
            _CONCLUSION.search(text)
            and (seen_result or len(out) >= 2)
            and (_INFERS.search(text) or not _MEASURED.search(text))
        ):
            role = "conclusion"
        elif (_AIM.search(text) or text.rstrip().endswith("?")) and not seen_result:
            role = "aim"
        elif _RESULT.search(text) or seen_result:
            role = "result"
        elif _METHOD.search(text) or seen_aim:
            role = "method"
        else:
            role = "background"
        seen_aim = seen_aim or role == "aim"
        seen_result = seen_result or role == "result"
        out.append(role)
    return tuple(out)

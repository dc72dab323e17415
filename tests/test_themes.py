"""Themes as an overview answer and the library's picture show them (rag.answer.themes):
clusters of vectors, the same every time, and names read from the papers' own words."""

from __future__ import annotations

import numpy as np

from rag.answer.themes import theme_names, themes_of


def _blobs(sizes: list[int], dim: int = 32, noise: float = 0.15) -> tuple[np.ndarray, list[int]]:
    """Unit vectors scattered about len(sizes) orthogonal directions, and each one's blob."""
    rng = np.random.default_rng(3)
    vectors, blob = [], []
    for b, size in enumerate(sizes):
        for _ in range(size):
            v = np.eye(dim)[b] + noise * rng.standard_normal(dim)
            vectors.append(v / np.linalg.norm(v))
            blob.append(b)
    return np.stack(vectors), blob


def test_clusters_keep_to_the_blobs_and_are_the_same_every_time() -> None:
    vectors, blob = _blobs([12, 9, 6])
    groups = themes_of(vectors)
    assert sorted(i for g in groups for i in g) == list(range(len(vectors)))  # each once
    assert all(len({blob[i] for i in g}) == 1 for g in groups)  # no group spans two blobs
    assert [len(g) for g in groups] == sorted((len(g) for g in groups), reverse=True)
    assert themes_of(vectors) == groups and themes_of(vectors[::-1].copy()) != []
    assert len(themes_of(_blobs([40, 40])[0])) <= 6  # at most six themes


def test_few_papers_make_one_theme() -> None:
    assert themes_of(_blobs([3])[0]) == [[0, 1, 2]]
    assert themes_of(np.zeros((0, 8))) == [[]]


HEART = [
    "Heart failure in older patients. Patients were assessed and heart failure was treated; "
    "results improved markedly with diuretics.",
    "Diuretics for heart failure. We assessed 120 patients with heart failure; results show "
    "markedly fewer admissions. OUTCOME: admissions.",
    "Admissions after heart failure. Patients were assessed; heart failure readmission fell "
    "markedly with diuretics.",
    "Heart failure and kidneys. Results in patients assessed for heart failure and renal function.",
]
GPU = [
    "KERNEL FUSION FOR GPU KERNELS. Results: patients are not involved; GPU kernels were "
    "assessed for LATENCY and memory traffic.",
    "Scheduling GPU kernels. We assessed LATENCY of GPU kernels under contention; results "
    "show lower latency.",
    "A compiler for GPU kernels. Results significantly cut latency of GPU kernels assessed "
    "on four models.",
    "KERNEL FUSION ON THE GPU. Results: GPU kernels fused, latency assessed.",
]
ALONE = ["Bird song dialects. Results on finches assessed in the wild."]


def test_names_are_what_sets_a_theme_apart_never_words_every_paper_uses() -> None:
    texts = HEART + GPU + ALONE
    groups = [[0, 1, 2, 3], [4, 5, 6, 7], [8]]
    heart, gpu, alone = theme_names(texts, groups)
    assert "heart failure" in heart and "diuretics" in heart
    assert "GPU" in gpu or "GPU kernels" in gpu  # an acronym as written
    assert "fusion" in gpu or "kernel fusion" in gpu  # a title set in capitals has no acronyms
    assert "latency" in gpu  # in lower case: some paper writes it so (a heading shouts it)
    everywhere = {"results", "assessed", "markedly"}  # in every paper, or an adverb
    assert not everywhere & {w for name in (heart, gpu) for w in " ".join(name).split()}
    assert alone == []  # a paper alone names no theme
    heart_words = {w for name in heart for w in name.casefold().split()}
    assert not heart_words & {w for name in gpu for w in name.casefold().split()}
    assert all(len(name) <= 3 for name in (heart, gpu))


def test_a_word_of_a_larger_theme_does_not_name_a_smaller_one() -> None:
    texts = [
        "Sleep and memory in mice.",
        "Sleep spindles and memory.",
        "Sleep loss and memory.",
        "Memory of sleep in flies, with sleep scored.",
        "Sleep in flies.",
    ]
    big, small = theme_names(texts, [[0, 1, 2], [3, 4]])
    assert "sleep" not in big or "sleep" not in small
    assert theme_names(texts, [[0, 1, 2], [3, 4]]) == [big, small]

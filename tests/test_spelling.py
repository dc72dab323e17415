"""One spelling for words people write several ways (rag/spelling.py), in the BM25 index
and in the answer's content words."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.index.lexical import Analyzer, Bm25Params, LexicalIndex
from rag.records import PaperRow
from rag.spelling import american, plain_text
from rag.terms import terms

VARIANTS = [
    ("catalogue", "catalog"), ("artefacts", "artifacts"), ("behaviour", "behavior"),
    ("analysed", "analyzed"), ("optimisation", "optimization"), ("organisations", "organizations"),
    ("colour", "color"), ("centre", "center"), ("centred", "centered"), ("fibres", "fibers"),
    ("haemoglobin", "hemoglobin"), ("oesophageal", "esophageal"), ("paediatric", "pediatric"),
    ("tumours", "tumors"), ("programme", "program"), ("defence", "defense"),
    ("aluminium", "aluminum"), ("sulphur", "sulfur"), ("grey", "gray"), ("litres", "liters"),
    ("anaemia", "anemia"), ("oestrogen", "estrogen"), ("foetal", "fetal"),
    ("characterise", "characterize"), ("dialogue", "dialog"), ("analogues", "analogs"),
    ("neighbouring", "neighboring"), ("favourable", "favorable"), ("randomised", "randomized"),
    ("licence", "license"), ("judgement", "judgment"), ("leukaemia", "leukemia"),
    ("modelling", "modeling"), ("labelled", "labeled"),
]  # fmt: skip


@pytest.mark.parametrize(("british", "us"), VARIANTS)
def test_british_and_american_spellings_are_one_word(british: str, us: str) -> None:
    analyze = Analyzer(Bm25Params())
    assert analyze(british) == analyze(us) != []
    assert terms(british) == terms(us)


@pytest.mark.parametrize("word", ["four", "hours", "flour", "contour", "vogue", "genre", "acre",
                                  "analysis", "this", "basis", "crisis"])  # fmt: skip
def test_words_no_one_spells_otherwise_are_left_alone(word: str) -> None:
    assert american(word) == word


def test_greek_letters_and_tex_read_as_their_names() -> None:
    assert plain_text("TGF-β1 and Hα emission") == "TGF-beta1 and H alpha emission"
    assert plain_text("the α-helix") == "the alpha-helix"
    assert " ".join(plain_text(r"H$\alpha$ line at $z\sim 2$").split()) == "H alpha line at z sim 2"
    assert " ".join(plain_text(r"\textit{in situ} M$_\odot$").split()) == "in situ M odot"
    analyze = Analyzer(Bm25Params())
    assert analyze("TGF-β signalling") == analyze("TGF-beta signaling")
    assert "alpha" in analyze("H-alpha") and "alpha" in analyze(r"H$\alpha$ emission")
    assert terms("the Hα line") == terms("the H-alpha line")


def test_tex_scripts_join_their_name_as_people_type_it() -> None:
    """arXiv abstracts write formulas in TeX; a question types them plainly."""
    assert plain_text("La$_2$CoIrO$_6$ and") == "La2CoIrO6 and"
    assert plain_text("the C$_{70}$ cage") == "the C70 cage"
    assert plain_text(r"T$_{\rm c}$ of 1T-SiTe$_2$") == "Tc of 1T-SiTe2"
    assert plain_text("x_i and y^2 z") == "xi and y2 z"  # a space after a script stays
    analyze = Analyzer(Bm25Params())
    assert analyze("Pr3Ni2O7 films") == analyze("Pr$_3$Ni$_2$O$_7$ films")
    assert "tc" in analyze(r"a T$_{\rm c}$ of 80 K")
    assert terms("k$_B$T$_c$ ratio") == terms("kBTc ratio")


def test_unicode_forms_accents_and_hyphens_fold() -> None:
    assert plain_text("Sr₂IrO₄ ﬁlms") == "Sr2IrO4 films"
    assert plain_text("Müller-Plathe's naïve model") == "Muller-Plathe's naive model"
    assert plain_text("한국어") == "한국어"  # other scripts keep their marks
    assert plain_text("Gross--Pitaevskii and Gross–Pitaevskii") == (
        "Gross-Pitaevskii and Gross-Pitaevskii"
    )
    assert plain_text("298–1573 K") == "298–1573 K"  # a range of numbers stays
    assert plain_text("an $L$-Lipschitz gradient").split() == ["an", "L-Lipschitz", "gradient"]
    assert plain_text("N\u2010doped Ti\u20116Al\u20114V") == "N-doped Ti-6Al-4V"
    analyze = Analyzer(Bm25Params())
    assert analyze("N\u2010doped graphene") == analyze("N-doped graphene")


def test_possessives_and_hyphenated_compounds_match() -> None:
    analyze = Analyzer(Bm25Params())
    assert analyze("the galaxy's wind") == analyze("the galaxy wind")
    assert analyze("the firm’s costs") == analyze("firm costs")
    assert set(analyze("selfsupervised")) <= set(analyze("self-supervised"))
    assert set(analyze("non-linear")) >= set(analyze("nonlinear"))


def test_a_question_in_british_spelling_finds_the_american_abstract(tmp_path: Path) -> None:
    papers = [
        ("cat", "A catalog of artifacts", "We build a catalog of imaging artifacts and model "
         "their behavior with optimized fibers."),
        ("other", "Something else", "We study the color of tumors in pediatric patients."),
    ]  # fmt: skip
    rows = [
        PaperRow(id=pid, label="", title=t, authors=(), year=None, source="s", position=i,
                 n_chunks=1, abstract=a)
        for i, (pid, t, a) in enumerate(papers)
    ]  # fmt: skip
    index = LexicalIndex.build(rows, params=Bm25Params(), generation="g",
                               directory=tmp_path / "lex")  # fmt: skip
    assert [p for p, _ in index.search("catalogue of artefacts", k=2)] == ["cat"]
    assert [p for p, _ in index.search("modelling the behaviour", k=2)] == ["cat"]
    assert index.search("colour of paediatric tumours", k=2)[0][0] == "other"

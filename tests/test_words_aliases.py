"""Telling a paper's names from words: distinctive names and dates (rag.words), the acronyms
an abstract defines and the name it introduces (rag.aliases)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rag.aliases import (
    MAX_ALIASES,
    acronyms,
    aliases,
    introduced_name,
    spelled_out,
    with_names,
)
from rag.records import PaperRow
from rag.words import (
    common_words,
    distinctive,
    distinctive_word,
    is_date,
    name_core,
    written_in,
)

CODED = ["KCache", "ERNIE", "Nebula-I", "Paddle-HeterPS", "C4", "RAD52", "Llumnix", "telomerase"]


@pytest.mark.parametrize("word", CODED)
def test_coined_names_are_distinctive(word: str) -> None:
    assert distinctive_word(word)
    assert distinctive(word)


@pytest.mark.parametrize("word", ["From", "December", "Titan", "2009", "3.0", "Self-supervised"])
def test_ordinary_words_and_numbers_are_not_distinctive_words(word: str) -> None:
    assert not distinctive_word(word)


@pytest.mark.parametrize(
    "name",
    [
        "From",
        "December",
        "Titan",
        "Big Models",
        "December 2009",
        "2009",
        "3.0",
        "Self-supervised",
        "Spring 2010-2011",
        "",
        "Literature review on the progressive…",
    ],
)
def test_ordinary_words_dates_and_cut_phrases_are_not_distinctive_names(name: str) -> None:
    assert not distinctive(name)


def test_a_name_is_distinctive_by_one_word_or_as_a_long_phrase() -> None:
    assert distinctive("ERNIE 3.0 Titan")  # "ERNIE" makes it a name, "Titan" alone would not
    assert distinctive("Nebula-I: a general framework")
    # four ordinary words read like a title: a name; three are a topic
    assert distinctive("A Distributed Serving System")
    assert not distinctive("Distributed serving system")


def test_a_hyphen_adding_a_plain_word_leaves_the_name() -> None:
    assert name_core("LOF-filtered") == "LOF" and name_core("CRISPR-based") == "CRISPR"
    assert name_core("N-doped") == "N"
    assert name_core("YOLO-World") == "YOLO-World" and name_core("Fe-N-C") == "Fe-N-C"
    assert name_core("ADE20K-847") == "ADE20K-847" and name_core("vLLM") == "vLLM"


def test_the_lexicon_knows_english_and_not_coined_words() -> None:
    words = common_words()
    assert {"titan", "december", "from"} <= words
    assert not {"llumnix", "kcache", "telomerase"} & words


@pytest.mark.parametrize(
    "text",
    ["Spring 2010-2011", "December 2009", "2009", "Dec. 2009", "June/July 2015", "2010–2011"],
)
def test_dates(text: str) -> None:
    assert is_date(text)


@pytest.mark.parametrize("text", ["", "From December 2009", "KCache", "Titan", "C4", "3.0 Titan"])
def test_not_dates(text: str) -> None:
    assert not is_date(text)


# --- acronyms -----------------------------------------------------------------------------


def test_acronyms_are_found_with_their_long_forms() -> None:
    text = (
        "Programmed cell death (PCD) is the regulated death of cells. We used an objective "
        "structured clinical examination (OSCE) with total knee arthroplasty (TKA; n = 40)."
    )
    assert acronyms(text) == [
        ("PCD", "Programmed cell death"),
        ("OSCE", "objective structured clinical examination"),
        ("TKA", "total knee arthroplasty"),
    ]


def test_years_counts_and_words_in_parentheses_are_no_acronyms() -> None:
    text = "The trial began in May (1998) with 50 adults (n = 50) who (often) smoked (daily)."
    assert acronyms(text) == []


def test_a_short_form_whose_letters_the_words_before_lack_is_no_acronym() -> None:
    # "XYZ" cannot be spelt from "the lace plant": Schwartz-Hearst finds no long form
    assert acronyms("Leaves of the lace plant (XYZ) have holes.") == []


def test_each_acronym_once_with_its_first_long_form() -> None:
    text = (
        "Programmed cell death (PCD) shapes leaves. The role of mitochondria in PCD is less "
        "known. Again, programmed cell death (PCD) occurs at the areole centre."
    )
    assert acronyms(text) == [("PCD", "Programmed cell death")]


@pytest.mark.parametrize(
    ("short", "text"),
    [
        ("UCST", "the upper critical solution temperature of guaiacol"),
        ("HBsAg", "hepatitis B surface antigen seroprevalence"),  # small letters in a word
        ("BEERs", "the behavioural equilibrium exchange rates"),  # a plural acronym
        ("WENO", "a weighted essentially non-oscillatory scheme"),
        ("LVIS", "on large vocabulary instance segmentation"),
        ("JGB", "yields of Japanese government bonds fell"),
        ("BoE", "after the Bank of England gained independence"),  # a small letter: "of"
        ("DLPFC", "rTMS of the dorsolateral prefrontal cortex"),  # capitals inside words
        ("HRXRD", "by high-resolution x-ray diffraction"),  # a hyphenated word is one
    ],
)
def test_an_acronym_the_text_spells_out_without_defining(short: str, text: str) -> None:
    assert spelled_out(short, text)


@pytest.mark.parametrize(
    ("short", "text"),
    [
        ("LVIS", "large variations in size"),  # a joining word is never a letter
        ("MPs", "members of parliament"),  # two letters begin too many pairs of words
        ("Ti64", "titanium 64"),  # letters only
        ("UCST", "upper critical temperature"),  # a letter missing
        ("GPS", "the positioning of global satellites"),  # out of order
        ("Gps", "global positioning system"),  # one capital: a word, no acronym
        ("DLPFC", "the dorsolateral cortex"),  # under half its capitals begin a word
        ("LVISR", "large variations in size ranges"),  # a joining word breaks the run
        ("CART", "a cartography"),  # capitals inside words only for five capitals or more
    ],
)
def test_no_acronym_is_read_into_words_that_do_not_spell_it(short: str, text: str) -> None:
    assert not spelled_out(short, text)


# --- the names an abstract gives its paper -------------------------------------------------


def test_aliases_keep_only_distinctive_short_forms() -> None:
    abstract = (
        "The lipoprotein (Lp) level and the time energy allowance (Tea) rose, and "
        "programmed cell death (PCD) rose with them in emergency medicine (EM)."
    )
    # all four are acronyms, but "Lp" is too short to mark a name and "Tea" is a word
    assert [s for s, _ in acronyms(abstract)] == ["Lp", "Tea", "PCD", "EM"]
    assert aliases(abstract) == ("PCD", "EM")


def test_aliases_read_the_title_too_and_are_capped() -> None:
    assert aliases("It works.", title="Mobile Neural Network (MNN)") == ("MNN",)
    letters = [chr(ord("c") + i) for i in range(MAX_ALIASES + 3)]
    many = " ".join(f"Alpha beta {c}ray (AB{c.upper()})." for c in letters)
    found = aliases(many)
    assert len(acronyms(many)) == MAX_ALIASES + 3
    assert found == tuple(f"AB{c.upper()}" for c in letters[:MAX_ALIASES])


@pytest.mark.parametrize(
    ("abstract", "name"),
    [
        (
            "Diffusion models are slow at inference. We propose ERTACache, a caching framework "
            "that reuses features across timesteps.",
            "ERTACache",
        ),
        (
            "Pre-trained models keep growing. We present a system called ERNIE 3.0 Titan, "
            "with 260B parameters.",
            "ERNIE 3.0 Titan",
        ),
        (
            "Mobile devices need fast inference. We present Mobile Neural Network (MNN), a "
            "universal inference engine.",
            "MNN",
        ),
        (
            # a plain capitalised word counts once the abstract uses it again
            "Serving LLMs is costly. We present Llumnix, a system that reschedules requests. "
            "Llumnix improves tail latency.",
            "Llumnix",
        ),
    ],
)
def test_the_introduced_name(abstract: str, name: str) -> None:
    assert introduced_name(abstract) == name


@pytest.mark.parametrize(
    "abstract",
    [
        "We evaluated the usefulness of a short stay ward in a pediatric unit of a large "
        "teaching hospital. Records of 465 patients were reviewed from December 2009.",
        # a capitalised ordinary word after "we present" is no name
        "Serving LLMs is costly. We present Scheduler, a system that reschedules requests.",
        # nor a date
        "We present December 2009 data from the registry. The registry grew.",
        "",
    ],
)
def test_no_introduced_name(abstract: str) -> None:
    assert introduced_name(abstract) == ""


def _row(abstract: str, title: str = "") -> PaperRow:
    return PaperRow(
        id="p1",
        label="x",
        title=title,
        authors=(),
        year=None,
        source="s",
        position=1,
        n_chunks=1,
        abstract=abstract,
    )


def test_with_names_fills_coined_and_acronyms_from_the_abstract() -> None:
    row = _row(
        "Caching keys and values costs memory. We propose KCache, which keeps the "
        "key-value cache (KV) on the host and uses a graphics processing unit (GPU)."
    )
    named = with_names(row)
    assert named.coined == "KCache"
    assert named.acronyms == ("KV", "GPU")
    assert replace(named, coined="", acronyms=()) == row  # nothing else changes


def test_with_names_leaves_a_row_without_abstract_as_it_is() -> None:
    row = replace(_row(""), coined="Kept", acronyms=("K",))
    assert with_names(row) is row


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("Delta-SCF", "neglected in ``$\\Delta$SCF'' approaches"),
        ("Delta-UCCSD-VQE", "the state-specific $\\Delta$UCCSD-VQE (unitary coupled cluster)"),
        ("Li7NbO6", "the fastest conductors, including $Li_7NbO_6$, which"),
        ("3nu3", "118 probe transitions in the 3$\\nu$$_3$ band"),
        ("Muller-Plathe", "following the M\u00fcller Plathe approach"),
        ("ConvNeXt", "an ensemble of ConvNeXtBase models was trained"),
        ("ResNet", "a ResNet50 backbone"),
        ("ADE20K", "results on ADE-20K and Cityscapes"),
    ],
)
def test_a_name_written_apart_or_going_on_is_written(name: str, text: str) -> None:
    assert written_in(name, text)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("Waymo", "the same way mobile robots do"),  # pieces across words, not the name
        ("ResNet", "several ResNets"),  # a small letter goes on: another word
        ("BERT", "a berth for ships"),
        ("Bi2212", "films of Bi-2201 grown"),
        ("WorldClim", "under the world climate of 2050"),
        ("MTB", "from TB cases"),  # under four characters: never
        ("", "anything"),
    ],
)
def test_a_name_not_written_in_any_way_is_not_written(name: str, text: str) -> None:
    assert not written_in(name, text)

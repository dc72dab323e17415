"""Review tables: columns, figures and formats (unit), then real tables over a real embedded
index with the shipped embedder and reader (the engine, the chat's table request, saving),
the CLI, and the API over a real socket."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
import pytest

from rag.answer import tablefmt
from rag.answer.table import Cell, Row, columns, has_count, number_of
from rag.errors import NotFoundError, QueryError
from rag.tablechat import table_request
from tests.conftest import SAMPLE
from ui.cli.main import main

# -- units ------------------------------------------------------------------------------------


def test_columns_are_presets_by_any_usual_name_or_questions_of_their_own() -> None:
    cols = columns(["method", "Dataset", " Findings ", "N", "Which species?", "Method", ""])
    assert [c.name for c in cols] == ["Method", "Data set", "Main result", "Sample size",
                                      "Which species?"]  # fmt: skip
    assert cols[3].count and cols[0].cue is not None
    assert cols[4].question == "Which species?" and columns(["Country"])[0].question == "Country?"
    with pytest.raises(QueryError, match=r"no columns.*presets: Method"):
        columns([" ", ""])
    with pytest.raises(QueryError, match="13 columns: a table has at most 12"):
        columns([f"Question {i}" for i in range(13)])


def test_a_cell_figure_skips_years_and_reads_thousands() -> None:
    assert number_of("In 2019 we enrolled n = 1,099 women") == 1099
    assert number_of("Accuracy rose to 92.5% (from 88.1%)") == 92.5
    assert number_of("Ten hospitals took part in 2020.") is None


@pytest.mark.parametrize(
    ("text", "counts"),
    [
        ("We enrolled 1,204 adults aged 40 or more.", True),
        ("Out of 6318 potentially relevant articles, 27 met the criteria.", True),
        ("a sample of 16,625 U.S. debt and equity offerings", True),
        ("n = 153 patients", True),
        ("Twelve countries were compared.", True),
        ("Mortality fell by 40% over 5 years.", False),
        ("Data from 2010 to 2015 were used.", False),
        ("The Bill C-32 restricted flavours.", False),
    ],
)
def test_a_count_of_what_was_studied(text: str, counts: bool) -> None:
    assert has_count(text) is counts


def test_formats_keep_cells_whole() -> None:
    row = Row("p1", "A | B", "Title", 2021, (), (
        Cell("Method", "We used a\nsurvey | weighted.", 7, "Methods"),
        Cell("Sample size"),
    ))  # fmt: skip
    md = tablefmt.markdown(["Method", "Sample size"], [row])
    assert md.splitlines()[0] == "| Paper | Method | Sample size |"
    assert md.splitlines()[2] == (
        "| A \\| B (2021) | We used a survey \\| weighted. (p. 7, Methods) | not stated |"
    )
    parsed = list(csv.reader(io.StringIO(tablefmt.csv_header(["Method", "Sample size"])
                                         + tablefmt.csv_row(row))))  # fmt: skip
    assert parsed[1] == ["p1", "A | B", "Title", "2021",
                         "We used a\nsurvey | weighted. (p. 7, Methods)", "not stated"]  # fmt: skip
    assert row.to_json()["cells"][1] == {
        "column": "Sample size", "text": "not stated", "quote": "", "page": None,
        "section": "", "stated": False, "number": None,
        "context": {"before": "", "after": ""},
    }  # fmt: skip


def test_a_table_request_in_the_chat() -> None:
    assert table_request("make a table of method and main result for these papers") == (
        ["method", "main result"], "these papers")  # fmt: skip
    assert table_request("Create a comparison table of Method, Data set & the sample size") == (
        ["Method", "Data set", "sample size"], "")  # fmt: skip
    assert table_request("Make a table of methods for the papers on malaria vaccines") == (
        ["methods"], "the papers on malaria vaccines")  # fmt: skip
    assert table_request("What does the table in the KCache paper show?") is None


# -- real tables ------------------------------------------------------------------------------

TRIAL = (
    "Background: Hypertension is common in rural clinics. Methods: We conducted a "
    "cluster-randomised trial in which nurses titrated drugs by a fixed protocol. We "
    "enrolled 1,204 adults from 36 villages. Results: Systolic pressure fell by 11 mmHg more "
    "in the intervention arm than under usual care. Conclusions: Nurse-led titration lowers "
    "blood pressure at low cost."
)
PAPERS = [
    {"id": "trial", "title": "Nurse-led titration of blood pressure drugs", "year": 2021,
     "abstract": TRIAL, "authors": ["Ada Okafor"]},
    {"id": "survey", "title": "Household water treatment in Peru", "year": 2019,
     "authors": ["Luis Quispe"],
     "abstract": "Household water treatment is promoted widely. We analysed the national "
                 "Demographic and Health Survey of 2016 with logistic regression. Boiling was "
                 "reported by 58% of households and was more common in the highlands. The "
                 "cross-sectional design cannot show that treatment caused fewer "
                 "diarrhoeal episodes."},
]  # fmt: skip
BIB = "@article{refonly,\n  title = {A reference without an abstract},\n  year = {2020}\n}\n"


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("table-index")
    files = tmp_path_factory.mktemp("table-files")
    (files / "papers.jsonl").write_text("".join(json.dumps(p) + "\n" for p in PAPERS))
    (files / "refs.bib").write_text(BIB)
    assert main(["ingest", str(files), "--collection", "review", "--data-dir", str(data)]) == 0
    assert main(["ingest", str(SAMPLE), "--data-dir", str(data)]) == 0
    return data


@pytest.fixture
def engine(library: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    from rag.engine import Engine
    from rag.settings import load_settings

    monkeypatch.setenv("PAPERCHAT_DATA_DIR", str(library))
    return Engine.from_settings(load_settings())


COLUMNS = ["Method", "Sample size", "Main result", "Limitations"]


def test_a_table_over_a_collection_quotes_each_paper_verbatim(engine) -> None:  # type: ignore[no-untyped-def]
    table = engine.table(COLUMNS, collection="review")
    assert [p.id for p in table.papers] == ["trial", "survey", "bib:refonly"]
    rows = table.rows()
    first = next(rows)  # a stream: the first row comes before the others are read
    assert first.paper_id == "trial" and [c.column for c in first.cells] == COLUMNS
    rest = list(rows)
    by_id = {r.paper_id: r for r in [first, *rest]}
    abstracts = {p["id"]: p["abstract"] for p in PAPERS}
    for pid, row in by_id.items():
        for cell in row.cells:
            assert not cell.stated or cell.quote in abstracts[pid], (pid, cell)
            assert cell.stated or (cell.quote == "" and cell.shown == "not stated")
    assert not any(c.stated for c in by_id["bib:refonly"].cells)  # nothing to quote
    method = by_id["trial"].cells[0]
    assert method.stated and "cluster-randomised trial" in method.quote
    result = by_id["trial"].cells[2].quote  # the result, or the conclusion drawn from it
    assert result.startswith(("Results: Systolic pressure fell", "Conclusions: Nurse-led"))
    # the quote in its context: the sentences around it in the abstract
    assert method.before.startswith("Background:") and method.after.startswith("We enrolled")
    # whether it is stated or not, the sentence counting the people is the best candidate
    from rag.answer.table import TableReader

    reader = TableReader(table.columns, engine.answer_embedder)
    source, passages = next(engine.table(COLUMNS, paper_ids=("trial",)).sources())
    pool = reader.pools(source, passages)[1]
    best = int(reader.scores(1, reader.features(1, pool)).argmax())
    assert pool[best].text == "We enrolled 1,204 adults from 36 villages."


def test_the_reader_alone_decides_a_cell_when_the_parameters_say_so(engine) -> None:  # type: ignore[no-untyped-def]
    """With ``alone`` in params.table the table reader's log-odds score the sentences (a
    cell stated from -1), the fitted weights only choosing what it reads; without, the
    second stage's weights and the column's bias score them."""
    from dataclasses import replace

    import numpy as np

    from rag.answer import params
    from rag.answer.table import TableReader

    x = np.array([[-2.0, 0.0, 0.0, 1.0, 0.0],   # no reader support, the column's cue words
                  [-0.5, 0.0, 0.0, 0.0, 0.0],   # the reader's best, just past the threshold
                  [-1.5, 0.0, 0.0, 0.0, 0.0]], dtype=np.float32)  # fmt: skip
    shipped = params.current()
    second = {"read": 3.0, "bias.method": 0.0, "w_reader": 0.1, "w_cue": 3.0}
    try:
        params.use(replace(shipped, table=second))
        reader = TableReader(columns(["Method"]), engine.answer_embedder)
        assert int(reader.scores(0, x).argmax()) == 0  # the cue words win
        params.use(replace(shipped, table=second | {"alone": 1.0}))
        reader = TableReader(columns(["Method"]), engine.answer_embedder)
        assert reader.scores(0, x).tolist() == [-1.0, 0.5, -0.5]
        assert int(reader.scores(0, x).argmax()) == 1
    finally:
        params.use(shipped)


def test_a_cell_is_read_until_one_sentence_is_sure(engine, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """With ``sure`` in params.table the table reader reads each column's sentences in their
    order until it has read ``read_first`` and one has reached that log-odds: fewer pairs
    read, each with the log-odds a full reading gives it, the rest under the least read."""
    from dataclasses import replace

    from rag.answer import params
    from rag.answer import reader as reader_module
    from rag.answer.table import TableReader

    table_reader = reader_module.table_reader()
    assert table_reader is not None
    read: list[int] = []
    score_pairs = table_reader.score_pairs

    def counted(asked):  # type: ignore[no-untyped-def]
        read.append(len(asked))
        return score_pairs(asked)

    monkeypatch.setattr(table_reader, "score_pairs", counted)
    shipped = params.current()
    names = ["Method", "Sample size", "Main result", "Limitations", "Data set"]
    cols = columns(names)
    source, passages = next(engine.table(names, paper_ids=("trial",)).sources())
    try:
        every = {k: v for k, v in shipped.table.items() if k not in ("read_first", "sure")}
        params.use(replace(shipped, table={**every, "read": 5.0}))
        full_reader = TableReader(cols, engine.answer_embedder)
        pools = full_reader.pools(source, passages)
        full = full_reader.features_all(pools)
        full_pairs = sum(read)
        tops = [full_reader.order(x) for x in full]
        sure = float(np.median([x[top, 0].max() for x, top in zip(full, tops, strict=True)]))
        params.use(replace(shipped, table={**every, "read": 5.0, "read_first": 1.0,
                                           "sure": sure}))  # fmt: skip
        read.clear()
        stopped = TableReader(cols, engine.answer_embedder).features_all(pools)
    finally:
        params.use(shipped)
    assert full_pairs == sum(len(top) for top in tops)  # every one of the five read at once
    assert sum(read) < full_pairs and len(read) > 1  # read in rounds, and fewer
    for x, y, top in zip(full, stopped, tops, strict=True):
        odds = x[top, 0]
        n = next((m for m in range(1, len(top) + 1) if odds[:m].max() >= sure), len(top))
        assert np.array_equal(y[top[:n], 0], odds[:n])  # the same log-odds, read alone
        assert (y[top[n:], 0] < odds[:n].min()).all()  # the unread under the least read
        if n < len(top):
            assert odds[:n].max() >= sure


def test_rows_filled_together_come_in_order_as_one_at_a_time_and_stop_with_the_table(
    engine, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """Rows are filled WORKERS at a time: the same rows, in the same order, as one at a
    time; a table stopped after its first row has read at most WORKERS rows more."""
    from rag import tables
    from rag.answer.table import TableReader

    ids = [p.id for p in engine.table(COLUMNS, query="KV cache memory", k=12).papers]
    monkeypatch.setattr(tables, "WORKERS", 1)
    alone = [r.to_json() for r in engine.table(COLUMNS, paper_ids=ids).rows()]
    monkeypatch.setattr(tables, "WORKERS", 2)
    together = [r.to_json() for r in engine.table(COLUMNS, paper_ids=ids).rows()]
    assert [r["paper_id"] for r in together] == ids and together == alone
    filled: list[str] = []
    row = TableReader.row
    monkeypatch.setattr(TableReader, "row", lambda self, source, passages=None: (
        filled.append(source.paper.id), row(self, source, passages))[1])  # fmt: skip
    rows = engine.table(COLUMNS, paper_ids=ids).rows()
    assert next(rows).paper_id == ids[0]
    rows.close()  # the user stopped it
    assert len(filled) <= 1 + tables.WORKERS + 1 < len(ids)


def test_papers_by_query_ids_and_conversation_and_the_errors_that_say_what_to_do(
    engine, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    found = engine.table(["Method"], query="KV cache memory in LLM inference", k=3)
    assert len(found.papers) == 3
    both = engine.table(["Method"], paper_ids=("survey",), collection="review")
    assert [p.id for p in both.papers] == ["survey", "trial", "bib:refonly"]  # union, each once
    with pytest.raises(NotFoundError, match="no paper with id 'nope', 'gone'"):
        engine.table(["Method"], paper_ids=("trial", "nope", "gone"))
    with pytest.raises(NotFoundError, match="no paper is in a collection named 'elsewhere'"):
        engine.table(["Method"], collection="elsewhere")
    with pytest.raises(QueryError, match="no papers chosen"):
        engine.table(["Method"])
    with pytest.raises(QueryError, match="no columns"):
        engine.table([], paper_ids=("trial",))
    monkeypatch.setattr("rag.tables.MAX_PAPERS", 2)
    with pytest.raises(QueryError, match="3 papers: a table has at most 2 rows"):
        engine.table(["Method"], collection="review")


def test_asked_in_the_chat_it_answers_with_the_table_and_saves_it(engine) -> None:  # type: ignore[no-untyped-def]
    from rag.answer.followup import Turn

    history = [Turn("user", "How was blood pressure lowered?"),
               Turn("assistant", "By nurse-led titration [1].", ("trial", "survey"))]  # fmt: skip
    answer = engine.ask("Make a table of method and sample size for these papers",
                        history=history)  # fmt: skip
    lines = answer.final.answer.splitlines()
    assert lines[0] == "| Paper | Method | Sample size |"
    assert lines[2].startswith("| Nurse-led titration of blood pressure drugs (2021) [1] |")
    assert [c.source.paper_id for c in answer.final.citations] == ["trial", "survey"]
    assert all(c.quote in abstract for c, abstract in
               zip(answer.final.citations, [PAPERS[0]["abstract"], PAPERS[1]["abstract"]],
                   strict=True))  # fmt: skip
    with pytest.raises(QueryError, match="which papers"):
        engine.ask("make a table of method")  # no conversation, no papers picked

    from ui.app import App
    from ui.web.table_tab import TableView

    view = TableView(App.around(engine))
    *_, (progress, html, state, _) = view.fill("Collection", "", 10, "review", "", "",
                                               ["Method", "Sample size"], "Country?")  # fmt: skip
    assert progress == "3 papers, 3 columns." and html.count("<tr>") == 4
    assert "<mark>" in html and "not stated" in html
    assert view.sorted(state, "Sample size", True, 1e12).count("<tr>") == 1  # none that big
    by_paper = view.sorted(state, "Paper", True, None)
    assert by_paper.index("Nurse-led") < by_paper.index("Household")
    assert view.save(state).startswith("Saved with the conversations")
    listed = engine.conversations.listing()[1]
    assert listed[0].title.startswith("Table: Method, Sample size, Country?")
    bib = Path(view.export(state, "bibtex")["value"]).read_text()
    assert bib.count("@") == 3 and "refonly" in bib


def test_the_cli_prints_rows_as_markdown_csv_or_json(library: Path, capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    base = ["table", "--collection", "review", "--columns", "Method,Sample size",
            "--data-dir", str(library)]  # fmt: skip
    assert main(base) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "| Paper | Method | Sample size |" and len(out) == 5
    assert main([*base, "--format", "csv", "--bibtex", str(tmp_path / "t.bib")]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert rows[0] == ["paper_id", "paper", "title", "year", "Method", "Sample size"]
    assert rows[1][0] == "trial" and rows[1][4] in PAPERS[0]["abstract"]
    assert (tmp_path / "t.bib").read_text().count("@") == 3
    assert main([*base, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["columns"] == ["Method", "Sample size"] and len(data["rows"]) == 3
    assert main(["table", "--paper-id", "nope", "--columns", "Method", "--data-dir",
                 str(library)]) == 1  # fmt: skip
    assert "no paper with id 'nope'" in capsys.readouterr().err


# -- the API over a real socket -----------------------------------------------------------------


@pytest.fixture(scope="module")
def server(library: Path) -> Iterator[str]:
    from tests.test_api import Server

    with Server(library, ui=False) as running:
        yield running.url


@pytest.mark.integration
def test_post_api_table(server: str) -> None:
    body = {"columns": ["Method", "Sample size"], "collection": "review"}
    data = httpx.post(f"{server}/api/table", json=body, timeout=60).json()
    assert data["columns"] == ["Method", "Sample size"]
    assert [r["paper_id"] for r in data["rows"]] == ["trial", "survey", "bib:refonly"]
    cell = data["rows"][0]["cells"][0]
    assert cell["stated"] and cell["quote"] in PAPERS[0]["abstract"] and cell["text"]
    assert set(cell) >= {"column", "text", "quote", "page", "section", "number"}

    streamed = httpx.post(f"{server}/api/table", json=body | {"stream": True}, timeout=60)
    kinds = [b.split("\n")[0] for b in streamed.text.strip().split("\n\n")]
    assert kinds == ["event: columns", "event: row", "event: row", "event: row", "event: done"]

    text = httpx.post(f"{server}/api/table", json=body | {"format": "csv"}, timeout=60)
    assert text.headers["content-type"].startswith("text/csv")
    assert text.text.splitlines()[0] == "paper_id,paper,title,year,Method,Sample size"

    missing = httpx.post(f"{server}/api/table", json={"columns": ["Method"],
                                                      "paper_ids": ["nope"]})  # fmt: skip
    assert missing.status_code == 404 and "nope" in missing.json()["error"]["message"]
    none = httpx.post(f"{server}/api/table", json={"columns": [], "collection": "review"})
    assert none.status_code == 400 and "no columns" in none.json()["error"]["message"]
    thirteen = {"columns": [f"Q{i}" for i in range(13)], "collection": "review"}
    many = httpx.post(f"{server}/api/table", json=thirteen)
    assert many.status_code == 400 and "at most 12" in many.json()["error"]["message"]


# -- cells a language model phrases ----------------------------------------------------------


def test_a_model_phrase_is_kept_only_when_the_papers_text_supports_it(engine) -> None:  # type: ignore[no-untyped-def]
    from rag.answer.tablellm import phrased
    from rag.errors import LLMError
    from tests.fakes import ScriptedChat

    table = engine.table(["Method", "Main result"], paper_ids=("trial",))
    source, row = next(table.filled())
    assert all(c.stated for c in row.cells)
    cases = [
        (("cluster-randomised trial; nurses titrated drugs by protocol",
          "nurse-led titration lowers blood pressure"),
         ["cluster-randomised trial", "nurse-led titration lowers"]),
        (("cluster-randomised trial", "systolic pressure fell by 25 mmHg"),
         ["cluster-randomised trial", None]),  # a figure the paper does not state
        (("not stated", LLMError("the model is down", kind="server")), [None, None]),
        ((" ".join(["word"] * 30), "  \"nurse-led titration lowers blood pressure\"  "),
         [None, "nurse-led titration lowers"]),
    ]  # fmt: skip
    for replies, expected in cases:
        chat = ScriptedChat(*replies)
        out = phrased(row, list(table.columns), source, chat)
        for cell, before, want in zip(out.cells, row.cells, expected, strict=True):
            assert cell.quote == before.quote  # the evidence stays, whatever the model says
            if want is None:
                assert cell.shown == before.quote  # the quote stands in
            else:
                assert cell.shown.startswith(want), (replies, cell.shown)
        assert "Methods: We conducted a cluster-randomised" in chat.calls[0][1]["content"]


@pytest.mark.integration
@pytest.mark.slow
def test_a_real_model_writes_cells_that_are_checked(
    library: Path, llama_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rag.answer.attribute import Evidence, judge
    from rag.engine import Engine
    from rag.settings import load_settings
    from tests.conftest import LLAMA_KEY

    monkeypatch.setenv("OPENAI_BASE_URL", llama_server)
    monkeypatch.setenv("OPENAI_API_KEY", LLAMA_KEY)
    monkeypatch.setenv("PAPERCHAT_LLM_MODEL", "smollm2")
    engine = Engine.from_settings(load_settings(data_dir=library))
    table = engine.table(["Method", "Main result"], collection="review", llm="openai")
    assert table.chat is not None
    phrased = 0
    for source, row in table.filled():
        for cell in row.cells:
            if not cell.stated:
                continue
            assert cell.quote in source.paper.abstract
            if cell.shown != cell.quote:  # a phrase the model wrote: supported by the paper
                phrased += 1
                assert len(cell.shown.split()) <= 20
                assert judge(cell.shown, [source.n], Evidence([source])).supported
    assert table.chat.name == "smollm2"
    print(f"{phrased} cells phrased by the model")


def test_a_full_text_papers_cell_may_come_from_its_body_with_page_and_section(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rag.engine import Engine
    from rag.settings import load_settings
    from tests.pdfgen import make_paper

    abstract = ("Sleep is thought to help memory. We ask whether one night of sleep changes "
                "how many word pairs adults recall the next morning.")  # fmt: skip
    body = ("We recruited 48 healthy volunteers for a randomised crossover design with two "
            "nights of polysomnography in the laboratory. Recall of 120 word pairs was tested "
            "each morning by a blinded assessor. ") * 6  # fmt: skip
    made = make_paper(tmp_path / "sleep.pdf", layout="one-column",
                      title="Sleep and the recall of word pairs", authors=("Ana Lima",),
                      abstract=abstract, body=body, year=2023, body_pages=1)  # fmt: skip
    data = tmp_path / "data"
    assert main(["ingest", str(made.path), "--data-dir", str(data)]) == 0
    monkeypatch.setenv("PAPERCHAT_DATA_DIR", str(data))
    engine = Engine.from_settings(load_settings())
    (pid,) = engine.retriever.index.catalogue
    table = engine.table(["Method", "Sample size"], paper_ids=(pid,))
    source, passages = next(table.sources())
    assert all(p.page and p.page >= 1 for s in passages.values() for p in s.passages)
    from rag.answer.table import TableReader

    pools = TableReader(table.columns, engine.answer_embedder).pools(source, passages)
    assert any(s.passage >= 0 for s in pools[0])  # body sentences are candidates
    (row,) = table.rows()
    for cell in row.cells:
        if cell.stated and cell.quote not in source.paper.abstract:  # from the body
            assert cell.page is not None and cell.quote in body
            assert f"(p. {cell.page}" in tablefmt.cell_text(cell)
    assert any(c.stated and c.page is not None for c in row.cells), row

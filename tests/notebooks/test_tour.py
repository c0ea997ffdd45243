"""The example notebook (tour.ipynb), executed as Jupyter executes it: a real IPython kernel
(ipykernel) driven by nbclient, cell by cell, from the notebook's own folder. A cell that raises
fails the test; the outputs must hold what each cell draws (the HTML of the trainer, the merge,
the table and the chips), and GPT-2's table where ../shared has it (the cell itself checks).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import GPT2_DIR

nbformat = pytest.importorskip("nbformat", reason="the test extra installs nbformat, nbclient and ipykernel")
nbclient = pytest.importorskip("nbclient", reason="the test extra installs nbformat, nbclient and ipykernel")
pytest.importorskip("ipykernel", reason="the test extra installs nbformat, nbclient and ipykernel")

NOTEBOOK = Path(__file__).with_name("tour.ipynb")

#: What a chip looks like in the HTML (a hover text with the token's id, its id under it).
CHIP = 'title="id '


def html_of(cell) -> str:
    return "".join(o.get("data", {}).get("text/html", "") for o in cell.get("outputs", []))


def text_of(cell) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")


@pytest.fixture(scope="module")
def executed():
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOK.parent)}})
    client.execute()
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


def cell_with(executed, source: str):
    [cell] = [c for c in executed if source in c.source]
    return cell


def test_the_notebook_was_stored_without_outputs():
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not c.get("outputs") for c in notebook.cells if c.cell_type == "code")


def test_training_stepping_and_the_table_draw_themselves(executed):
    assert "<b>Trainer</b> · demo.txt" in html_of(cell_with(executed, "Trainer.from_files"))
    assert "<b>merge 1</b>" in html_of(cell_with(executed, "event = trainer.step()"))
    assert "step 100/" in html_of(cell_with(executed, "trainer.goto(100)"))
    table = html_of(cell_with(executed, "table = trainer.table"))
    assert "<b>MergeTable</b>" in table and "100 merges" in table and CHIP in table


def test_a_sentence_shows_as_chips_with_ids(executed):
    html = html_of(cell_with(executed, "sentence = "))
    assert CHIP in html and "hover a token for its id, merge and bytes" in html
    assert "&#x27;" in html  # the apostrophe, escaped
    assert html.count(CHIP) == int(html.split(" tokens · ")[0].rsplit(">", 1)[1])  # a chip per token


def test_gpt2s_table_is_opened_where_shared_has_it(executed):
    cell = cell_with(executed, "gpt2_dir = Path")
    if GPT2_DIR.exists():
        html = html_of(cell)
        assert "<b>MergeTable</b>" in html and "50,257 tokens, 50,000 merges" in html
        assert "id 464 · " in html  # 'The' is GPT-2's token 464, as tiktoken has it
    else:
        assert "skipped:" in text_of(cell)


def test_two_tables_are_compared_on_the_sentence(executed):
    cell = cell_with(executed, "format_comparison")
    report = text_of(cell)
    assert report.startswith("ours ") and "characters per token" in report
    assert html_of(cell).count("hover a token") == 2

"""What a notebook shows: a layout as its picture (SVG) with Triton's view as its plain text,
a conversion's cost and a pair's bank conflicts as tables with the shared layout's bank map,
and the example notebook executed from top to bottom."""

import pathlib
import re

import pytest

import linear_layout as ll
from linear_layout import LinearLayout

from conftest import REPO

BLOCKED = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 16], warpsPerCTA = [2, 2], order = [1, 0]}>"
MFMA = "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>"
NOTEBOOK = REPO / "python" / "examples" / "layouts.ipynb"


class Printer:
    """IPython's pretty printer, as far as `_repr_pretty_` uses it."""

    def __init__(self):
        self.out = []

    def text(self, s):
        self.out.append(s)


def test_a_layout_shows_as_its_picture_and_its_view():
    layout = ll.to_linear_layout(BLOCKED, [8, 128])  # one element a thread: invertible
    svg = layout._repr_svg_()
    assert svg.startswith("<?xml") and svg.rstrip().endswith("</svg>")
    cells = re.findall(r'<g class="cell" data-coord="(\d+), (\d+)" data-warp="(\d+)" data-lane="(\d+)" data-reg="(\d+)"', svg)
    assert len(cells) == 8 * 128
    inverse = layout.invert()
    for row, col, warp, lane, reg in cells:
        held = inverse.apply({"dim0": int(row), "dim1": int(col)})
        assert (held["warp"], held["lane"], held["register"]) == (int(warp), int(lane), int(reg))
    assert layout.to_svg() == svg
    assert layout.to_html(title="blocked").startswith("<!DOCTYPE html>")
    printer = Printer()
    layout._repr_pretty_(printer, False)
    assert printer.out == [layout.get_distributed_view()]


def test_a_layout_without_a_picture_shows_as_text():
    layout = LinearLayout({"x": [[1]]}, {"y": 2})
    assert layout._repr_svg_() is None
    with pytest.raises(ll.LinearLayoutError):
        layout.to_svg()
    printer = Printer()
    layout._repr_pretty_(printer, False)
    assert printer.out == [str(layout)]


def test_a_shared_layout_shows_offsets_and_banks():
    shared = LinearLayout.identity_1d(64, "offset", "dim0")
    svg = shared.to_svg(bits=32, banks=64)
    banks = re.findall(r'data-offset="(\d+)" data-bank="(\d+)"', svg)
    assert [(int(o), int(b)) for o, b in banks] == [(o, o % 64) for o in range(64)]
    printer = Printer()
    shared._repr_pretty_(printer, False)
    assert printer.out == [shared.get_shared_view()]


def test_a_conversion_cost_shows_as_a_table_and_its_bank_map():
    blocked = ll.to_linear_layout(BLOCKED, [32, 32])
    mfma = ll.to_linear_layout(MFMA, [32, 32])
    cost = ll.convert_cost(blocked, mfma, element_bits=16, target="gfx942")
    assert cost.kind == "lds"
    page = cost._repr_html_()
    assert page.startswith("<table><caption>conversion cost</caption>")
    assert f"<td style=\"text-align:left\">{cost.cycles}</td>" in page
    for op, n in cost.instructions.items():
        assert f"{op} × {n}" in page
    # The bank map: every element once, with its offset and its bank of 32.
    banks = re.findall(r'data-offset="(\d+)" data-bank="(\d+)"', page)
    assert len(banks) == 32 * 32 and all(int(b) == int(o) * 16 // 32 % 32 for o, b in banks)
    noop = ll.convert_cost(blocked, blocked, element_bits=16, target="gfx942")
    assert noop.kind == "noop" and "<svg" not in noop._repr_html_()


def test_bank_conflicts_show_as_a_table():
    dist = LinearLayout.identity_1d(4, "register", "dim0") * LinearLayout.identity_1d(64, "lane", "dim0")
    smem = LinearLayout.identity_1d(256, "offset", "dim0")
    page = ll.bank_conflicts(dist, smem, element_bits=32, target="gfx950")._repr_html_()
    assert page.startswith("<table><caption>bank conflicts</caption>")
    assert "<td style=\"text-align:left\">128</td>" in page  # bits a lane moves
    # The shared layout's bank map: 32-bit elements over gfx950's 64 banks.
    banks = re.findall(r'data-offset="(\d+)" data-bank="(\d+)"', page)
    assert [(int(o), int(b)) for o, b in banks] == [(o, o % 64) for o in range(256)]
    assert "—" in ll.bank_conflicts(dist, smem, element_bits=32)._repr_html_()  # generic: no split


def test_the_example_notebook_runs_and_shows_pictures_and_tables():
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3").execute()
    kinds = [set(out.get("data", {})) for cell in notebook.cells if cell.cell_type == "code" for out in cell.outputs]
    assert not any(out.get("output_type") == "error" for cell in notebook.cells for out in cell.get("outputs", []))
    assert sum("image/svg+xml" in k for k in kinds) >= 2, kinds
    assert sum("text/html" in k for k in kinds) >= 2, kinds

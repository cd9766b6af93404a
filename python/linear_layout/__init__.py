"""GPU tensor layouts as linear maps over GF(2), exact with Triton 3.6.0.

The linear-layout crate from Python: :class:`LinearLayout` with the names of Triton's own
binding (``from_bases``, ``apply``, ``compose``, ``invert_and_compose``, ``bases``,
``out_dims``, ...), Triton's encodings as layouts (:func:`to_linear_layout`), Triton's text
views, LDS bank conflicts and conversion costs on AMD targets, Triton's AMD layout passes
(:func:`heuristics`), and AMDGPU code generated from layouts (``lower_*``).

Where Triton aborts the process, this package raises :class:`LinearLayoutError` (a
``ValueError``) or one of its subclasses, with the crate's message.

>>> from linear_layout import LinearLayout
>>> blocked = (LinearLayout.identity_1d(2, "register", "dim0")
...            * LinearLayout.identity_1d(32, "lane", "dim0")
...            * LinearLayout.identity_1d(2, "warp", "dim0"))
>>> blocked.apply({"register": 1, "lane": 3, "warp": 1})
{'dim0': 71}
>>> blocked.invert().apply({"dim0": 71})
{'register': 1, 'lane': 3, 'warp': 1}
"""

from ._native import (
    TARGETS,
    BankConflicts,
    ConvertCost,
    ConvertError,
    EncodingError,
    HeuristicError,
    HeuristicsReport,
    LayoutError,
    LinearLayout,
    LinearLayoutError,
    LowerError,
    TtgirError,
    ViewError,
    __version__,
    bank_conflicts,
    convert_cost,
    divide_left,
    divide_right,
    hardware_view,
    heuristics,
    lower_convert,
    lower_copy,
    lower_lds_copy,
    lower_matmul,
    lower_ttgir,
    tensor_view,
    to_linear_layout,
)

__all__ = [
    "TARGETS",
    "BankConflicts",
    "ConvertCost",
    "ConvertError",
    "EncodingError",
    "HeuristicError",
    "HeuristicsReport",
    "LayoutError",
    "LinearLayout",
    "LinearLayoutError",
    "LowerError",
    "TtgirError",
    "ViewError",
    "__version__",
    "bank_conflicts",
    "convert_cost",
    "divide_left",
    "divide_right",
    "hardware_view",
    "heuristics",
    "lower_convert",
    "lower_copy",
    "lower_lds_copy",
    "lower_matmul",
    "lower_ttgir",
    "tensor_view",
    "to_linear_layout",
]

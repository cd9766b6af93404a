"""Type stubs of the extension module ``linear_layout._native`` (re-exported by ``linear_layout``)."""

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

__version__: str
#: The names of the targets the cost model and the lowering know (``gfx942``, ..., ``generic32``).
TARGETS: List[str]

Bases = Union[Mapping[str, Sequence[Sequence[int]]], Sequence[Tuple[str, Sequence[Sequence[int]]]]]
OutDims = Union[Mapping[str, int], Sequence[Tuple[str, int]], Sequence[str]]
#: A layout argument: a LinearLayout, Triton attribute text (``#ttg.blocked<{...}>``), a tensor
#: type (``tensor<128x64xf16, #ttg...>``), an encoding dict (``{"kind": "blocked", ...}``) or a
#: layout dict (``{"in_dims": ..., "out_dims": ...}``).
LayoutLike = Union["LinearLayout", str, Mapping[str, Any]]
Shape = Sequence[int]

class LinearLayoutError(ValueError):
    """Base of every error of linear_layout: an input the crate rejects, with its message."""

    #: None, or (name, max, got) when a limit of the crate was exceeded.
    limit: Optional[Tuple[str, int, int]]

class LayoutError(LinearLayoutError):
    """A layout operation failed: a malformed layout, mismatched dims, a non-invertible layout, ..."""

class EncodingError(LinearLayoutError):
    """An encoding (Triton attribute text or JSON) is malformed or has no layout at the shape."""

class ViewError(LinearLayoutError):
    """A text view cannot be made of the layout."""

class ConvertError(LinearLayoutError):
    """A conversion or a bank-conflict count cannot be priced."""

class TtgirError(LinearLayoutError):
    """TTGIR text cannot be read; ``line`` and ``column`` say where."""

    line: int
    column: int

class HeuristicError(LinearLayoutError):
    """A layout pass cannot run on the module."""

class LowerError(LinearLayoutError):
    """A kernel cannot be generated."""

class LinearLayout:
    """A linear map over GF(2) from named input dims (register, lane, warp, block, offset, ...)
    to named output dims (dim0, dim1, ...), each of a power-of-two size, given by one basis per
    input bit. Immutable and hashable; ``==`` compares dims in order and every basis.

    ``LinearLayout(bases, out_dims)``: ``bases`` maps each in-dim to its bases (one list of
    out-dim components per input bit 1, 2, 4, ...); ``out_dims`` maps each out-dim to its size,
    or is a list of out-dim names whose sizes are inferred (the layout must then be
    surjective). ``LinearLayout()`` is the empty layout.
    """

    def __init__(
        self,
        bases: Optional[Bases] = None,
        out_dims: Optional[OutDims] = None,
        *,
        require_surjective: bool = False,
    ) -> None: ...
    @staticmethod
    def from_bases(
        bases: Bases,
        out_dim_names: Sequence[str],
        out_dim_sizes: Optional[Sequence[int]] = None,
        require_surjective: bool = True,
    ) -> "LinearLayout":
        """Triton's binding's constructor (sizes inferred when None; the layout then surjective)."""
    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> "LinearLayout":
        """The layout of a protocol dict ``{"in_dims": {name: [basis, ...]}, "out_dims": {name: size}}``."""
    def to_dict(self) -> Dict[str, Any]:
        """The protocol dict ``{"in_dims": {name: [basis, ...]}, "out_dims": {name: size}}``."""
    @staticmethod
    def empty() -> "LinearLayout":
        """The layout with no dims: the unit of ``*``."""
    @staticmethod
    def identity_1d(size: int, in_dim: str, out_dim: str) -> "LinearLayout":
        """x -> x from ``in_dim`` to ``out_dim``, both of ``size``."""
    @staticmethod
    def strided_1d(size: int, stride: int, in_dim: str, out_dim: str) -> "LinearLayout":
        """x -> stride * x; ``out_dim`` has size stride * size."""
    @staticmethod
    def zeros_1d(size: int, in_dim: str, out_dim: str, out_dim_size: Optional[int] = None) -> "LinearLayout":
        """Every input of ``in_dim`` to 0 of ``out_dim`` (of ``out_dim_size``, default 1)."""
    @property
    def bases(self) -> List[Tuple[str, List[List[int]]]]:
        """The in-dims' bases: [(in_dim, [[component per out-dim], ...]), ...]."""
    @property
    def out_dims(self) -> List[Tuple[str, int]]:
        """The out-dims and their sizes, in order."""
    @property
    def in_dims(self) -> List[Tuple[str, int]]:
        """The in-dims and their sizes, in order."""
    @property
    def num_in_dims(self) -> int:
        """The number of in-dims."""
    @property
    def num_out_dims(self) -> int:
        """The number of out-dims."""
    def get_in_dim_names(self) -> List[str]:
        """The in-dim names, in order."""
    def get_out_dim_names(self) -> List[str]:
        """The out-dim names, in order."""
    def has_in_dim(self, name: str) -> bool:
        """Whether ``name`` is an in-dim."""
    def has_out_dim(self, name: str) -> bool:
        """Whether ``name`` is an out-dim."""
    def in_dim_size(self, name: str) -> int:
        """The size of an in-dim."""
    def in_dim_size_log2(self, name: str) -> int:
        """log2 of the size of an in-dim."""
    def out_dim_size(self, name: str) -> int:
        """The size of an out-dim."""
    def out_dim_size_log2(self, name: str) -> int:
        """log2 of the size of an out-dim."""
    def total_in_bits(self) -> int:
        """Input bits in all."""
    def total_out_bits(self) -> int:
        """Output bits in all."""
    def total_in_size(self) -> int:
        """The product of the in-dim sizes."""
    def total_out_size(self) -> int:
        """The product of the out-dim sizes."""
    def rank(self) -> int:
        """The rank of the matrix over GF(2)."""
    def is_surjective(self) -> bool:
        """Whether every output value is reached."""
    def is_injective(self) -> bool:
        """Whether no two inputs give the same output."""
    def is_invertible(self) -> bool:
        """Whether the layout is a bijection."""
    def bases_of(self, in_dim: str) -> List[List[int]]:
        """The bases of one in-dim."""
    def basis(self, in_dim: str, index: int) -> List[int]:
        """The basis of input bit ``index`` of ``in_dim``."""
    def get_matrix_view(self) -> List[List[int]]:
        """The matrix as rows of 0/1 (Triton's ``get_matrix_view``)."""
    def free_variable_masks(self) -> List[Tuple[str, int]]:
        """For each in-dim, the mask of its free input bits."""
    def apply(self, inputs: Mapping[str, int]) -> Dict[str, int]:
        """The layout applied to {in_dim: value} (every in-dim once): {out_dim: value}."""
    def compose(self, outer: "LinearLayout") -> "LinearLayout":
        """outer ∘ self: apply self, then ``outer``."""
    def invert_and_compose(self, outer: "LinearLayout") -> "LinearLayout":
        """The layout C with outer(C(x)) = self(x) (Triton's choice of preimage)."""
    def invert(self) -> "LinearLayout":
        """The inverse of a bijective layout."""
    def pseudoinvert(self) -> "LinearLayout":
        """A generalised inverse P with L ∘ P ∘ L = L."""
    def get_num_consecutive_in_out(self) -> int:
        """The vector width: consecutive values of the first in-dim to consecutive values of the first out-dim."""
    def sublayout(self, in_dims: Sequence[str], out_dims: Sequence[str]) -> "LinearLayout":
        """The sublayout on some in-dims and out-dims."""
    def sublayout_is_zero(self, in_dims: Sequence[str], out_dims: Sequence[str]) -> bool:
        """Whether the sublayout on these dims maps everything to zero."""
    def square_sublayout_is_identity(self, dims: Sequence[str]) -> bool:
        """Whether the square sublayout on ``dims`` is the identity."""
    def is_trivial_over(self, dims: Sequence[str]) -> bool:
        """Whether the layout acts on ``dims`` as an independent identity block."""
    def quotient(self, dims: Sequence[str]) -> Optional["LinearLayout"]:
        """The layout with the identity block on ``dims`` divided out, or None."""
    def transpose_ins(self, order: Sequence[str]) -> "LinearLayout":
        """The in-dims reordered."""
    def transpose_outs(self, order: Sequence[str]) -> "LinearLayout":
        """The out-dims reordered."""
    def reshape_ins(self, new_dims: Union[Mapping[str, int], Sequence[Tuple[str, int]]]) -> "LinearLayout":
        """The input space cut into new in-dims (same total size)."""
    def reshape_outs(self, new_dims: Union[Mapping[str, int], Sequence[Tuple[str, int]]]) -> "LinearLayout":
        """The output space cut into new out-dims (same total size)."""
    def flatten_ins(self) -> "LinearLayout":
        """One in-dim (named like the first) of the total input size."""
    def flatten_outs(self) -> "LinearLayout":
        """One out-dim (named like the first) of the total output size."""
    def resize_in_dim(self, dim: str, size: int) -> "LinearLayout":
        """An in-dim resized (shrinking keeps the low bases, growing appends zero bases)."""
    def resize_out_dim(self, dim: str, size: int) -> "LinearLayout":
        """An out-dim shrunk; components that do not fit become 0."""
    def concat_ins(self, other: "LinearLayout") -> "LinearLayout":
        """The in-dims of ``other`` appended (same out-dims)."""
    def concat_outs(self, other: "LinearLayout") -> "LinearLayout":
        """The out-dims of ``other`` appended (same in-dims)."""
    def squeeze_in(self, dim: str) -> "LinearLayout":
        """A size-1 in-dim removed."""
    def squeeze_out(self, dim: str) -> "LinearLayout":
        """A size-1 out-dim removed."""
    def remove_zero_bases_along_dim(self, dim: str) -> "LinearLayout":
        """The zero bases of an in-dim removed."""
    def rename_in_dim(self, old: str, new: str) -> "LinearLayout":
        """An in-dim renamed."""
    def rename_out_dim(self, old: str, new: str) -> "LinearLayout":
        """An out-dim renamed."""
    def equal_ignoring_out_dim_sizes(self, other: "LinearLayout") -> bool:
        """Equal but for the out-dim sizes."""
    def get_distributed_view(self, hw: bool = False) -> str:
        """Triton's distributed view (tensor view, or hardware view with ``hw``)."""
    def get_shared_view(self, hw: bool = False) -> str:
        """Triton's shared view (offset of each element, or element at each offset with ``hw``)."""
    def to_svg(self, title: str = "", bits: int = 16, banks: int = 32) -> str:
        """The layout's picture as an SVG document (shared layouts: offset and bank per element)."""
    def to_html(self, title: str = "", bits: int = 16, banks: int = 32) -> str:
        """The same picture in a self-contained HTML page."""
    def _repr_svg_(self) -> Optional[str]:
        """Jupyter's picture of the layout, or None where it has none."""
    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """IPython's plain text: Triton's distributed or shared view."""
    def __mul__(self, other: "LinearLayout") -> "LinearLayout":
        """The product (Triton's ``operator*``)."""
    def __eq__(self, other: object) -> bool: ...
    def __ne__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class BankConflicts:
    """The bank conflicts of a distributed/shared pair."""

    @property
    def value(self) -> int:
        """Excess wavefronts per LDS instruction (Triton's figure on generic32, the read side elsewhere)."""
    @property
    def write(self) -> Optional[int]:
        """Excess wavefronts per write instruction (None on generic32)."""
    @property
    def read(self) -> Optional[int]:
        """Excess wavefronts per read instruction (None on generic32)."""
    @property
    def access_bits(self) -> Optional[int]:
        """Bits each lane moves per instruction (None on generic32)."""
    def to_dict(self) -> Dict[str, int]:
        """The protocol's answer members."""
    def _repr_html_(self) -> str:
        """Jupyter's display: the figures as a table, and the shared layout's bank map."""

class ConvertCost:
    """What converting a tensor between two layouts costs, and why."""

    @property
    def kind(self) -> str:
        """"noop", "register", "shuffle" or "lds"."""
    @property
    def instructions(self) -> Dict[str, int]:
        """Instruction mnemonic -> count per thread."""
    @property
    def lds_bytes(self) -> int:
        """LDS bytes of one round trip."""
    @property
    def bank_conflicts(self) -> int:
        """Excess wavefronts per write plus per read instruction."""
    @property
    def write_conflicts(self) -> int:
        """Excess wavefronts per write instruction."""
    @property
    def read_conflicts(self) -> int:
        """Excess wavefronts per read instruction."""
    @property
    def cycles(self) -> int:
        """Estimated cycles."""
    @property
    def shared_layout(self) -> Optional[LinearLayout]:
        """The chosen shared layout of an LDS round trip, else None."""
    @property
    def explanation(self) -> str:
        """Why, in words."""
    def lds_instructions(self) -> int:
        """LDS data instructions per thread."""
    def to_dict(self) -> Dict[str, Any]:
        """The protocol's answer members."""
    def _repr_html_(self) -> str:
        """Jupyter's display: the figures as a table, and the shared layout's bank map."""

class HeuristicsReport:
    """What one of Triton's AMD layout passes chose in one module."""

    @property
    def module_line(self) -> int:
        """The line the module starts on."""
    @property
    def arch(self) -> str:
        """The arch the pass ran for."""
    @property
    def num_warps(self) -> int:
        """The module's warps per CTA."""
    @property
    def threads_per_warp(self) -> int:
        """The module's lanes per warp."""
    @property
    def text(self) -> str:
        """Every decision in Triton's syntax with its reason."""
    def to_dict(self) -> Dict[str, Any]:
        """The decisions as ``linear-layout heuristics --json`` prints them."""

def divide_left(a: LinearLayout, b: LinearLayout) -> Optional[LinearLayout]:
    """The layout C with a = b * C, or None."""

def divide_right(a: LinearLayout, b: LinearLayout) -> Optional[LinearLayout]:
    """The layout C with a = C * b, or None."""

def to_linear_layout(encoding: LayoutLike, shape: Optional[Shape] = None) -> LinearLayout:
    """The layout of an encoding at a tensor shape (Triton 3.6's ``toLinearLayout``)."""

def tensor_view(layout: LayoutLike, shape: Optional[Shape] = None) -> str:
    """Triton's tensor view, byte for byte."""

def hardware_view(layout: LayoutLike, shape: Optional[Shape] = None) -> str:
    """Triton's hardware view, byte for byte."""

def bank_conflicts(
    distributed: LayoutLike,
    shared: LayoutLike,
    shape: Optional[Shape] = None,
    element_bits: int = 16,
    target: str = "generic32",
) -> BankConflicts:
    """The LDS bank conflicts of writing ``distributed`` to ``shared`` and reading it back."""

def convert_cost(
    src: LayoutLike,
    dst: LayoutLike,
    shape: Optional[Shape] = None,
    element_bits: int = 16,
    target: str = "gfx942",
) -> ConvertCost:
    """What converting a tensor from ``src`` to ``dst`` costs on ``target``, and why."""

def heuristics(
    ttgir: str,
    pass_: str,
    arch: Optional[str] = None,
    *,
    kpack: int = 1,
    nonkdim: int = 0,
) -> List[HeuristicsReport]:
    """Triton 3.6's AMD layout decisions on TTGIR text, one report per module."""

def lower_copy(layout: LayoutLike, shape: Shape, dtype: str = "f16", arch: str = "gfx942") -> str:
    """LLVM IR of ``@copy(in, out)`` through the registers of ``layout``."""

def lower_convert(
    src: LayoutLike, dst: LayoutLike, shape: Shape, dtype: str = "f16", arch: str = "gfx942"
) -> str:
    """LLVM IR of ``@convert(in, out, regs)``: load through ``src``, convert, store through ``dst``."""

def lower_lds_copy(
    src: LayoutLike,
    shared: LayoutLike,
    dst: LayoutLike,
    shape: Shape,
    dtype: str = "f16",
    arch: str = "gfx942",
) -> str:
    """LLVM IR of ``@lds_copy(in, out, regs)``: direct-to-LDS loads, read back into ``dst``."""

def lower_matmul(
    m: int,
    n: int,
    k: int,
    dtype: str = "f16",
    acc: Optional[str] = None,
    warps: int = 4,
    arch: str = "gfx942",
    nonkdim: int = 0,
    kpack: int = 1,
) -> str:
    """LLVM IR of ``@matmul(a, b, c)``: C = A · B with the matrix instructions Triton picks."""

def lower_ttgir(ttgir: str, arch: Optional[str] = None) -> str:
    """LLVM IR of the kernel of Triton's final TTGIR."""

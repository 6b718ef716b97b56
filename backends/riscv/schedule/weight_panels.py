"""Constant operands of a register-tiled nest re-laid out at compile time in the order the nest
reads them ("panels", as packed GEMM kernels do).

For a constant operand X of a nest (`loop_nest_plan.NestPlan`), let V be the loops that move X's
pointer (outer to inner, trip counts t_k) and O the sorted distinct byte offsets one body copy
reads X at. The panel is

    panel[l_V..., j] = X at byte  sum_k l_k * advance_k + O[j]        (row-major over V, then j)

so X's pointer advances by |O| * prod(t_k', k' inner to k) elements per iteration of loop k and
one body copy reads X at immediates j * element_bytes: small, whatever X's strides were (a 4x4
tile of a convolution reads its 4 output channels' weights next to each other instead of
C*KH*KW elements apart). The panel holds exactly X's elements when the nest reads each element
once per walk of V; otherwise (a sliding window) X keeps its layout.

Sub-byte constants (i1/i2/i4) stay packed, 8 / bits elements a byte, the first in the low bits;
each panel row (the |O| elements of one body copy) starts on a byte. The nest loads a byte once
and extracts each element in registers (`slli`/`srai`, or `srli`/`andi` where every use is
`arith.extui`).
"""

from dataclasses import dataclass
from math import prod

import numpy as np
from xdsl.dialects import memref
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IntegerType, MemRefType, ModuleOp, StringAttr, UnitAttr, i8
from xdsl.dialects.linalg import ops as linalg
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from bitfold.dialects.evaluation import numpy_dtype_of
from bitfold.dialects.onnx.constant import dense_attr

BITS_PER_BYTE = 8


@dataclass(frozen=True)
class Panel:
    """Where a re-laid-out operand's elements are: per loop level, the bytes its pointer
    advances per iteration; per original immediate, the panel's byte immediate and, for
    packed sub-byte elements, the element's slot in that byte (`bits` wide)."""

    advances: dict[int, int]
    immediates: dict[int, int]
    slots: dict[int, int]
    bits: int


class ModuleGlobals:
    """The module's globals by name and the `memref.get_global`s of each at the top level of the
    functions' bodies (where `bufferize` and the panels put them), indexed once per pass and kept
    current by the panels' edits: lookups cost O(1) instead of a walk of the module each."""

    def __init__(self, module: ModuleOp):
        self.module = module
        self.by_name: dict[str, memref.GlobalOp] = {}
        self.gets: dict[str, list[memref.GetGlobalOp]] = {}
        for op in module.ops:
            if isinstance(op, memref.GlobalOp):
                self.by_name.setdefault(op.sym_name.data, op)
            for region in op.regions:
                for block in region.blocks:
                    for get in block.ops:
                        if isinstance(get, memref.GetGlobalOp):
                            self.gets.setdefault(get.name_.root_reference.data, []).append(get)

    def constant_source(self, value) -> tuple[memref.GetGlobalOp, memref.GlobalOp] | None:
        """The `memref.get_global` producing `value` and its constant global, if it is one."""
        get = value.owner
        if not isinstance(get, memref.GetGlobalOp):
            return None
        op = self.by_name.get(get.name_.root_reference.data)
        if op is not None and op.constant is not None and isinstance(op.initial_value, DenseIntOrFPElementsAttr):
            return get, op
        return None

    def constant_global(self, value) -> memref.GlobalOp | None:
        """The constant global `value` reads (`bufferize.constant_global` without a walk of the module)."""
        found = self.constant_source(value)
        return None if found is None else found[1]

    def references(self, name: str) -> int:
        """`memref.get_global`s of `name` at the top level of the functions' bodies (not a walk
        of the nests already emitted)."""
        return sum(1 for get in self.gets.get(name, ()) if self._at_top_level(get))

    def _at_top_level(self, get: memref.GetGlobalOp) -> bool:
        function = get.parent_op()
        return function is not None and function.parent_op() is self.module

    def fresh_name(self, name: str, suffix: str) -> str:
        """`<name>_<suffix><k>` for the first k no global of the module has."""
        k = 0
        while f"{name}_{suffix}{k}" in self.by_name:
            k += 1
        return f"{name}_{suffix}{k}"

    def insert_global(self, global_op: memref.GlobalOp, after: memref.GlobalOp, rewriter: PatternRewriter) -> None:
        rewriter.insert(global_op, InsertPoint.after(after))
        self.register_global(global_op)

    def register_global(self, global_op: memref.GlobalOp) -> None:
        """Index a global just inserted into the module (by whatever rewriter inserted it)."""
        self.by_name.setdefault(global_op.sym_name.data, global_op)

    def insert_get(self, get: memref.GetGlobalOp, before: linalg.GenericOp, rewriter: PatternRewriter) -> None:
        rewriter.insert(get, InsertPoint.before(before))
        self.gets.setdefault(get.name_.root_reference.data, []).append(get)

    def erase_global(self, global_op: memref.GlobalOp, rewriter: PatternRewriter) -> None:
        rewriter.erase(global_op)
        if self.by_name.get(name := global_op.sym_name.data) is global_op:
            del self.by_name[name]


def element_values(global_op: memref.GlobalOp) -> np.ndarray:
    """The global's elements as int64 (f32 elements as their IEEE bit patterns, what `.word`
    stores), read from its bytes where they are one element each (splats and i1 through
    `get_values`)."""
    count = prod(global_op.type.get_shape())
    value = global_op.initial_value
    dtype = numpy_dtype_of(value.type)
    storage = value.data.data
    if dtype != np.bool_ and len(storage) == dtype.itemsize * count:
        return np.frombuffer(storage, dtype=_bits_dtype(dtype)).astype(np.int64)
    if dtype.kind == "f":
        values = np.array(value.get_values(), dtype=dtype).view(_bits_dtype(dtype)).astype(np.int64)
    else:
        values = np.array([int(v) for v in value.get_values()], dtype=np.int64)
    return np.broadcast_to(values, (count,)) if values.size == 1 else values


def _bits_dtype(dtype: np.dtype) -> np.dtype:
    """Little-endian integers reading `dtype`'s bytes as they are (unsigned for floats)."""
    return np.dtype(f"<{'u' if dtype.kind == 'f' else dtype.kind}{dtype.itemsize}") if dtype != np.bool_ else dtype


@dataclass
class _Candidate:
    """One constant input's panel rows before they are written."""

    operand: int
    get: memref.GetGlobalOp
    global_op: memref.GlobalOp
    bits: int
    moving: list[int]
    trips: list[int]
    offsets: list[int]
    rows: np.ndarray
    """[rows, len(offsets)] element values"""

    @property
    def shape_key(self) -> tuple:
        return (tuple(self.moving), tuple(self.trips), len(self.offsets), self.bits)


def relayout_constant_operands(
    op: linalg.GenericOp, emitter_view, rewriter: PatternRewriter, globals_: ModuleGlobals
) -> dict[int, Panel]:
    """Panels for the generic's constant inputs (module docstring); the generic's operands are
    replaced by the panels' globals. Whole-byte constants whose panels have the same shape
    (per-channel requantization tables: multiplier, shift, bounds) share one global, rows
    interleaved, so that one pointer walks them all. `emitter_view` answers `loop_levels()`,
    `trips(level)`, `advance(operand, level)` and `immediates(operand)` on the original layout;
    `globals_` indexes the module's globals (and is kept current)."""
    candidates = [c for k in range(len(op.inputs)) if (c := _candidate(op, k, emitter_view, globals_)) is not None]
    groups: dict[tuple, list[_Candidate]] = {}
    for candidate in candidates:
        key = candidate.shape_key if candidate.bits >= BITS_PER_BYTE else ("alone", candidate.operand)
        groups.setdefault(key, []).append(candidate)
    panels: dict[int, Panel] = {}
    for members in groups.values():
        panels.update(_write_panel(op, members, globals_, rewriter))
    return panels


def _candidate(op: linalg.GenericOp, operand: int, view, globals_: ModuleGlobals) -> _Candidate | None:
    value = op.inputs[operand]
    found = globals_.constant_source(value)
    if found is None:
        return None
    get, global_op = found
    element = global_op.type.get_element_type()
    assert isinstance(element, IntegerType)
    bits = element.width.data
    sub_byte = bits < BITS_PER_BYTE
    shared = len(list(value.uses)) > 1 or globals_.references(global_op.sym_name.data) > 1
    if shared and not sub_byte:
        return None
    element_size = 1 if sub_byte else bits // BITS_PER_BYTE  # the nest's view: a byte each
    moving = [k for k in view.loop_levels() if view.advance(operand, k)]
    offsets = sorted(set(view.immediates(operand)))
    trips = [view.trips(k) for k in moving]
    # address of (index, offset), index in row-major order over `trips`, offset innermost
    indices = np.indices(trips, dtype=np.int64).reshape(len(trips), prod(trips)).T
    steps = np.array([view.advance(operand, k) for k in moving], dtype=np.int64)
    addresses = (indices @ steps)[:, None] + np.array(offsets, dtype=np.int64)[None, :]
    if addresses.size != prod(global_op.type.get_shape()) and not sub_byte:
        return None  # a sliding window: the panel would repeat elements
    values = element_values(global_op)[addresses.reshape(-1) // element_size]
    return _Candidate(operand, get, global_op, bits, moving, trips, offsets, values.reshape(-1, len(offsets)))


def _write_panel(
    op: linalg.GenericOp, members: list[_Candidate], globals_: ModuleGlobals, rewriter
) -> dict[int, Panel]:
    """One global for `members` (rows interleaved), read by all of them through one value."""
    first = members[0]
    sub_byte = first.bits < BITS_PER_BYTE
    element = first.global_op.type.get_element_type()
    element_size = 1 if sub_byte else first.bits // BITS_PER_BYTE
    per_byte = BITS_PER_BYTE // first.bits if sub_byte else 1
    row = len(first.offsets)
    row_bytes = -(-row // per_byte) * element_size
    if sub_byte:
        values = pack_rows(first.rows.reshape(-1), row, first.bits)
    else:
        values = np.concatenate([m.rows for m in members], axis=1).reshape(-1)
    panel_type = i8 if sub_byte else element
    name = globals_.fresh_name(first.global_op.sym_name.data, "panel")
    memref_type = MemRefType(panel_type, [len(values)])
    data = dense_attr(np.asarray(values), panel_type)
    globals_.insert_global(
        memref.GlobalOp.get(StringAttr(name), memref_type, data, StringAttr("private"), UnitAttr()),
        first.global_op,
        rewriter,
    )
    panel_get = memref.GetGlobalOp(name, memref_type)
    globals_.insert_get(panel_get, op, rewriter)
    inner_counts = [prod(first.trips[i + 1 :]) for i in range(len(first.trips))]
    advances = {k: row_bytes * len(members) * inner for k, inner in zip(first.moving, inner_counts)}
    panels = {}
    for position, member in enumerate(members):
        op.operands[member.operand] = panel_get.memref
        if not member.get.memref.uses:
            rewriter.erase(member.get)
            if not globals_.references(member.global_op.sym_name.data):
                globals_.erase_global(member.global_op, rewriter)
        base = position * row_bytes
        panels[member.operand] = Panel(
            advances=advances,
            immediates={o: base + (j // per_byte) * element_size for j, o in enumerate(member.offsets)},
            slots={o: j % per_byte for j, o in enumerate(member.offsets)},
            bits=member.bits,
        )
    return panels


def pack_rows(values: np.ndarray, row: int, bits: int) -> np.ndarray:
    """Rows of `row` `bits`-bit values packed into bytes (first element in the low bits, each
    row padded to whole bytes), as signed bytes."""
    per_byte = BITS_PER_BYTE // bits
    row_bytes = -(-row // per_byte)
    slots = np.zeros((len(values) // row, row_bytes * per_byte), dtype=np.int64)
    slots[:, :row] = values.reshape(-1, row) & ((1 << bits) - 1)
    slots = slots.reshape(-1, per_byte)
    packed = sum(slots[:, k] << (k * bits) for k in range(per_byte))
    return np.where(packed >= 128, packed - 256, packed)

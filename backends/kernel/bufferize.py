"""`bufferize`: the backend's tensor IR (docs/integer-ir.md, "After onnx-data-movement-to-linalg")
to memrefs, in destination-passing style, every intermediate in one caller-provided workspace.

What the pass guarantees, for a module whose public functions use only `arith.constant`,
`tensor.empty`, `linalg.generic`, `tensor.extract` (inside generic bodies or outside),
`tensor.collapse_shape`, `tensor.expand_shape` and `func.return` on statically shaped tensors:

- Signature: every tensor argument becomes a memref argument of the same shape and element
  type; every result becomes an extra memref argument (an output buffer the caller owns); a
  last argument `memref<Nxi8>` marked `{bitfold.workspace}` is the workspace (N bytes, N may
  be 0), and the function records N as `bitfold.workspace_size = N : i64` (`workspace_size`
  reads it; the backends' code generators hand it to the C header); the function returns
  nothing. In C (docs/riscv-abi.md):
  `void f(const int8_t *in0, ..., int32_t *out0, ..., void *workspace)`.
  The original result attributes move to the output arguments' attributes.
- Inputs are only read, never written.
- A dense `arith.constant` tensor becomes a constant `memref.global` (read-only data) read
  through `memref.get_global`. No other global is created: the function keeps no state
  between calls and is reentrant (two calls with two workspaces may run at the same time).
- Every intermediate buffer is `memref.view %workspace[%offset][]` at a constant byte offset.
  Its lifetime runs from the top-level op that first writes it to the last top-level op that
  reads it or a reshape view of it (inclusive: an op's inputs and outputs never share bytes).
  An input of a reduction generic whose result only an elementwise generic reads (its
  requantization) lives through that generic too, where that leaves the workspace's size as it
  is: a code generator may then fuse the two into one loop nest that writes the elementwise
  output while the reduction still reads its inputs (backends/riscv/schedule/fused_epilogue.py).
  Offsets come from `plan_workspace`: buffers whose lifetimes overlap never overlap in bytes,
  buffers of any element types share bytes otherwise, each is aligned to its element size
  (at least `MIN_BUFFER_ALIGNMENT`), and N is the end of the highest buffer.
- A `linalg.generic` on tensors becomes a `linalg.generic` on memrefs writing its destination
  buffer: the output argument when its result is returned (once; a second return of the same
  value is a copy), else an intermediate buffer. When the body reads the output's block
  argument (a reduction, an accumulation into a bias) or the init is not a `tensor.empty`, the
  init is first copied into the destination by a copy `linalg.generic`, unless the init is an
  intermediate read by nobody afterwards: then the generic updates the init's buffer in place.
  An init that is a `tensor.empty` read by nobody costs nothing.
- `tensor.extract` becomes `memref.load`; the two reshapes become `memref.collapse_shape` /
  `memref.expand_shape` views of the same buffer (identity layouts only, so they are plain
  pointer casts for the backend).
- A returned value that no generic wrote into the output argument (a reshape view, an input,
  a constant, an init) is copied into the output argument with a copy `linalg.generic`.

Anything else on tensors fails with one line naming the op.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field
from math import prod

import numpy as np
from xdsl.context import Context
from xdsl.dialects import arith, func, memref, tensor
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    Float32Type,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
    UnitAttr,
    i8,
    i64,
)
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import GenericOp, YieldOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import PassFailedException

PARALLEL = IteratorTypeAttr.parallel()
WORKSPACE_ATTRIBUTE = "bitfold.workspace"
"""the unit argument attribute marking the workspace argument"""
WORKSPACE_SIZE_ATTRIBUTE = "bitfold.workspace_size"
"""the function attribute holding the bytes of its workspace"""
MIN_BUFFER_ALIGNMENT = 4
"""bytes: a buffer starts at a multiple of max(its element size, this) in the workspace"""
BITS_PER_BYTE = 8


def memref_type_of(tensor_type: Attribute) -> MemRefType:
    """The identity-layout memref of a statically shaped tensor type."""
    if not isinstance(tensor_type, TensorType):
        raise PassFailedException(f"bufferize: expected a tensor type, got {tensor_type}")
    shape = tensor_type.get_shape()
    if any(d < 0 for d in shape):
        raise PassFailedException(f"bufferize: dynamic shapes are not supported ({tensor_type})")
    return MemRefType(tensor_type.get_element_type(), shape)


def element_bytes(element_type: Attribute) -> int:
    """Bytes of one element in memory, for buffers, views and globals alike: ceil(bits / 8), so
    i1..i8 one (sub-byte values one a byte), i16 two, i32 and f32 (a float island's) four (packed
    sub-byte constants are the RISC-V backend's `bitfold-riscv-memref-to-addresses`)."""
    if isinstance(element_type, Float32Type):
        return 4
    if not isinstance(element_type, IntegerType):
        raise PassFailedException(f"bufferize: buffers of {element_type} are not supported")
    return max(1, -(-element_type.width.data // BITS_PER_BYTE))


def copy_generic(source: SSAValue, destination: SSAValue) -> GenericOp:
    """A `linalg.generic` copying `source` into `destination` (same shape)."""
    rank = len(destination.type.get_shape())
    element_type = destination.type.get_element_type()
    identity = AffineMapAttr(AffineMap.identity(rank))
    body = Block(arg_types=(element_type, element_type))
    body.add_op(YieldOp(body.args[0]))
    return GenericOp((source,), (destination,), Region(body), (identity, identity), (PARALLEL,) * rank)


def insert_before(ops: Operation | Sequence[Operation], op: Operation) -> None:
    block = op.parent
    assert block is not None
    block.insert_ops_before([ops] if isinstance(ops, Operation) else list(ops), op)


def replace(op: Operation, new: Operation) -> None:
    """`new` before `op`, `op`'s results replaced by `new`'s, `op` erased."""
    insert_before(new, op)
    for old, value in zip(op.results, new.results, strict=True):
        old.replace_all_uses_with(value)
    Rewriter.erase_op(op)


# --- the workspace plan ------------------------------------------------------------------

@dataclass
class WorkspaceBuffer:
    """One intermediate buffer: its bytes, alignment and lifetime (positions of the function's
    top-level ops, both ends included); `offset` is set by `plan_workspace`."""

    size: int
    alignment: int
    first: int
    last: int
    offset: int = 0

    def lives_with(self, other: "WorkspaceBuffer") -> bool:
        return self.first <= other.last and other.first <= self.last


def _align_up(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment


def _lowest_fit(buffer: WorkspaceBuffer, spans: Sequence[tuple[int, int]]) -> int:
    """The lowest aligned offset at which `buffer` overlaps none of the byte `spans` ((offset,
    end) of the buffers that live at the same time, by offset)."""
    offset = 0
    for start, end in spans:
        if offset + buffer.size <= start:
            break
        offset = max(offset, _align_up(end, buffer.alignment))
    return offset


def _first_fit(buffer: WorkspaceBuffer, placed: Sequence[WorkspaceBuffer]) -> int:
    """The lowest aligned offset at which `buffer` overlaps none of the `placed` buffers that
    live at the same time."""
    live = sorted((p for p in placed if p.lives_with(buffer)), key=lambda p: p.offset)
    return _lowest_fit(buffer, [(p.offset, p.offset + p.size) for p in live])


def _last_fit(buffer: WorkspaceBuffer, placed: Sequence[WorkspaceBuffer], bound: int) -> int | None:
    """The highest aligned offset below `bound` at which `buffer` overlaps none of the `placed`
    buffers that live at the same time, or None."""
    live = [p for p in placed if p.lives_with(buffer)]
    offset = (bound - buffer.size) // buffer.alignment * buffer.alignment
    while offset >= 0:
        clash = next((p for p in live if p.offset < offset + buffer.size and offset < p.offset + p.size), None)
        if clash is None:
            return offset
        offset = (clash.offset - buffer.size) // buffer.alignment * buffer.alignment
    return None


GREEDY_ORDERS = (
    lambda b: (-b.size, b.first, b.last),  # largest first (TensorFlow Lite Micro's greedy planner)
    lambda b: (b.first - b.last, -b.size, b.first),  # longest lifetime first
)
SEARCH_BUDGET = 20_000
"""placements the bounded search tries before it gives up (it rarely needs more than n)"""
MAX_SEARCHED_BUFFERS = 400
"""the search recurses once a buffer: beyond this many, greedy placement only"""


def _greedy(buffers: Sequence[WorkspaceBuffer], order) -> list[int]:
    """Each buffer in `order` at its lowest fit (`_first_fit`) among those placed before it: the
    placed lifetimes and bytes held in arrays, so each placement filters them in numpy (a
    hundred-layer model has hundreds of buffers, and the plan is made once per fused epilogue:
    n interpreted overlap tests a placement made it cubic in Python steps)."""
    ordered = sorted(buffers, key=order)
    first = np.array([b.first for b in ordered], dtype=np.int64)
    last = np.array([b.last for b in ordered], dtype=np.int64)
    size = np.array([b.size for b in ordered], dtype=np.int64)
    offsets = np.zeros(len(ordered), dtype=np.int64)
    for k, buffer in enumerate(ordered):
        live = np.flatnonzero((first[:k] <= buffer.last) & (buffer.first <= last[:k]))
        live = live[np.argsort(offsets[live], kind="stable")]
        buffer.offset = _lowest_fit(buffer, list(zip(offsets[live].tolist(), (offsets[live] + size[live]).tolist())))
        offsets[k] = buffer.offset
    return [b.offset for b in buffers]


def _bounded_search(buffers: Sequence[WorkspaceBuffer], bound: int) -> list[int] | None:
    """Offsets keeping every buffer below `bound`, or None: the buffers in the order they
    start, each at its lowest or else its highest fit below the bound, backtracking (within
    SEARCH_BUDGET placements). Where lifetimes form a chain (each buffer overlapping the one
    before and the one after), alternating sides reaches the peak that largest-first misses."""
    chronological = sorted(buffers, key=lambda b: (b.first, -b.size))
    placed: list[WorkspaceBuffer] = []
    budget = SEARCH_BUDGET

    def place(k: int) -> bool:
        nonlocal budget
        if k == len(chronological):
            return True
        buffer = chronological[k]
        low = _first_fit(buffer, placed)
        high = _last_fit(buffer, placed, bound)
        for offset in dict.fromkeys(o for o in (low, high) if o is not None and o + buffer.size <= bound):
            budget -= 1
            if budget < 0:
                return False
            buffer.offset = offset
            placed.append(buffer)
            if place(k + 1):
                return True
            placed.pop()
        return False

    return [b.offset for b in buffers] if place(0) else None


def plan_workspace(buffers: Sequence[WorkspaceBuffer]) -> int:
    """Give each buffer an offset; return the workspace's size in bytes.

    Buffers whose lifetimes overlap never overlap in bytes; buffers that never live together may
    share bytes whatever their element types. Offsets are multiples of each buffer's alignment.
    The plan is the smaller of greedy first-fit placements (largest buffer first, as TensorFlow
    Lite Micro's greedy memory planner, and longest lifetime first: each buffer at the lowest
    offset where it overlaps no buffer already placed that lives at the same time) and, when
    those exceed the peak of live bytes (`peak_live_bytes`, the lower bound), a bounded search
    for a plan within the peak (then 5 % above it). The size is the end of the highest buffer."""
    def size_of(offsets: list[int]) -> int:
        return max((o + b.size for o, b in zip(offsets, buffers)), default=0)

    best = min((_greedy(buffers, order) for order in GREEDY_ORDERS), key=size_of, default=[])
    peak = peak_live_bytes(buffers)
    for bound in (peak, peak + peak // 20):
        if size_of(best) <= bound or len(buffers) > MAX_SEARCHED_BUFFERS:
            break
        found = _bounded_search(buffers, bound)
        if found is not None:
            best = found
            break
    for buffer, offset in zip(buffers, best, strict=True):
        buffer.offset = offset
    return size_of(best)


def peak_live_bytes(buffers: Sequence[WorkspaceBuffer]) -> int:
    """The most bytes of buffers alive at one top-level op: no workspace can be smaller."""
    if not buffers:
        return 0
    firsts = sorted(b.first for b in buffers)
    starts = np.cumsum([b.size for b in sorted(buffers, key=lambda b: b.first)])
    ends = np.concatenate([[0], np.cumsum([b.size for b in sorted(buffers, key=lambda b: b.last)])])
    lasts = sorted(b.last for b in buffers)
    # live at p: the sizes of the buffers begun at or before p less those ended before p
    begun = starts[np.searchsorted(firsts, firsts, side="right") - 1]
    ended = ends[np.searchsorted(lasts, firsts, side="left")]
    return int((begun - ended).max())


def constant_global(value: SSAValue) -> memref.GlobalOp | None:
    """The constant `memref.global` that `value` reads through `memref.get_global` (what a dense
    constant tensor becomes), looked up in the closest symbol table; None for any other value."""
    get = value.owner
    if not isinstance(get, memref.GetGlobalOp):
        return None
    found = SymbolTable.lookup_symbol(get, get.name_)
    return found if isinstance(found, memref.GlobalOp) and found.constant is not None else None


def workspace_argument(function: func.FuncOp) -> BlockArgument | None:
    """The bufferized function's workspace argument (marked `{bitfold.workspace}`)."""
    if not function.body.blocks or function.arg_attrs is None:
        return None
    for arg, attrs in zip(function.body.block.args, function.arg_attrs.data):
        if WORKSPACE_ATTRIBUTE in attrs.data:
            return arg
    return None


def workspace_size(function: func.FuncOp) -> int:
    """Bytes of the workspace a bufferized function takes (its last argument), as bufferize
    recorded them on the function."""
    size = function.attributes.get(WORKSPACE_SIZE_ATTRIBUTE)
    if not isinstance(size, IntegerAttr):
        raise PassFailedException(f"bufferize: @{function.sym_name.data} has no {WORKSPACE_SIZE_ATTRIBUTE}")
    return size.value.data


# --- bufferization -------------------------------------------------------------------------

@dataclass
class _Workspace:
    """The function's workspace argument and the views of it handed out so far."""

    argument: SSAValue
    buffers: list[WorkspaceBuffer] = field(default_factory=list)
    offsets: list[arith.ConstantOp] = field(default_factory=list)
    """the byte offset of each buffer's view, set once the plan is made"""

    def view(self, memref_type: MemRefType, position: int, before: Operation) -> tuple[SSAValue, WorkspaceBuffer]:
        """A new buffer of `memref_type` first written at top-level op `position`."""
        size = element_bytes(memref_type.get_element_type())
        buffer = WorkspaceBuffer(prod(memref_type.get_shape()) * size, max(size, MIN_BUFFER_ALIGNMENT), position, position)
        offset = arith.ConstantOp(IntegerAttr(0, IndexType()))
        view = memref.ViewOp(self.argument, offset, [], memref_type)
        offset.result.name_hint, view.result.name_hint = "offset", "buffer"
        insert_before([offset, view], before)
        self.buffers.append(buffer)
        self.offsets.append(offset)
        return view.result, buffer

    def lay_out(self) -> int:
        """Plan the offsets, write them into the views, return the workspace's size."""
        size = plan_workspace(self.buffers)
        for buffer, offset in zip(self.buffers, self.offsets, strict=True):
            offset.value = IntegerAttr(buffer.offset, IndexType())
        return size


class _FunctionBufferizer:
    """Bufferizes one function body (a single block)."""

    def __init__(self, module: ModuleOp, function: func.FuncOp, constant_names: dict[Attribute, str]):
        self.module = module
        self.function = function
        self.name = function.sym_name.data
        self.constant_names = constant_names
        self.buffers: dict[SSAValue, SSAValue] = {}
        """tensor value -> memref value holding it"""
        self.owned: dict[SSAValue, WorkspaceBuffer] = {}
        """memref value -> the workspace buffer it is (intermediate buffers still alive)"""
        self.last_use: dict[SSAValue, int] = {}
        self.in_place: dict[SSAValue, SSAValue] = {}
        """init tensor -> the result written into its buffer in place"""
        self.position = 0
        self.reduction_inputs: dict[SSAValue, list[WorkspaceBuffer]] = {}
        """result of a reduction generic -> the workspace buffers it reads"""
        self.epilogue_extensions: list[tuple[list[WorkspaceBuffer], int]] = []
        """(a reduction's input buffers, the position of the elementwise generic reading its result)"""

    def run(self) -> None:
        block = self.function.body.block
        return_op = block.last_op
        if not isinstance(return_op, func.ReturnOp):
            raise PassFailedException(f"bufferize: @{self.name} does not end with func.return")
        outputs = self._rewrite_signature(block, return_op)
        self._compute_last_uses(block)
        self._plan_output_destinations(return_op, outputs)
        ops = list(block.ops)
        for position, op in enumerate(ops[:-1]):
            self.position = position
            self._bufferize(op)
            self._release_dead(position)
        self.position = len(ops) - 1
        for value, out in zip(return_op.arguments, outputs, strict=True):
            source = self._buffer(value, return_op)
            if source is not out:
                insert_before(copy_generic(source, out), return_op)
        replace(return_op, func.ReturnOp())
        for op in reversed(ops[:-1]):
            if any(isinstance(r.type, TensorType) for r in op.results):
                Rewriter.erase_op(op)
        for buffer in self.owned.values():
            buffer.last = self.position  # read by the return's copies
        size = self._lay_out_through_epilogues()
        Rewriter.replace_value_with_new_type(self.workspace.argument, MemRefType(i8, [size]))
        self.function.attributes[WORKSPACE_SIZE_ATTRIBUTE] = IntegerAttr(size, i64)
        self.function.function_type = FunctionType.from_lists([a.type for a in block.args], [])

    def _lay_out_through_epilogues(self) -> int:
        """The workspace laid out with the reduction inputs living through their epilogues (module
        docstring) one by one where the peak of live bytes stays; all of them dropped again if
        the plan then comes out larger than that peak."""
        buffers = self.workspace.buffers
        peak = peak_live_bytes(buffers)
        original = [b.last for b in buffers]
        for inputs, position in self.epilogue_extensions:
            before = [b.last for b in inputs]
            for buffer in inputs:
                buffer.last = max(buffer.last, position)
            if peak_live_bytes(buffers) > peak:
                for buffer, last in zip(inputs, before, strict=True):
                    buffer.last = last
        if original == [b.last for b in buffers]:
            return self.workspace.lay_out()
        size = self.workspace.lay_out()
        if size <= peak:
            return size
        for buffer, last in zip(buffers, original, strict=True):
            buffer.last = last
        return self.workspace.lay_out()

    def _rewrite_signature(self, block: Block, return_op: func.ReturnOp) -> list[SSAValue]:
        function = self.function
        output_types = [memref_type_of(v.type) for v in return_op.arguments]  # before an argument returned is retyped
        for arg in block.args:
            if isinstance(arg.type, TensorType):
                new_arg = Rewriter.replace_value_with_new_type(arg, memref_type_of(arg.type))
                self.buffers[arg] = new_arg
        # `replace_value_with_new_type` replaced the uses: keep the map on the new values too
        for arg in block.args:
            if isinstance(arg.type, MemRefType):
                self.buffers[arg] = arg
        n_inputs = len(block.args)
        outputs = [block.insert_arg(t, len(block.args)) for t in output_types]
        for i, out in enumerate(outputs):
            out.name_hint = f"out{i}" if len(outputs) > 1 else "out"
        workspace = block.insert_arg(MemRefType(i8, [0]), len(block.args))  # sized by `lay_out`
        workspace.name_hint = "workspace"
        self.workspace = _Workspace(workspace)
        empty = DictionaryAttr({})
        arg_attrs = list(function.arg_attrs.data) if function.arg_attrs else [empty] * n_inputs
        res_attrs = list(function.res_attrs.data) if function.res_attrs else [empty] * len(outputs)
        function.arg_attrs = ArrayAttr([*arg_attrs, *res_attrs, DictionaryAttr({WORKSPACE_ATTRIBUTE: UnitAttr()})])
        function.res_attrs = None
        return outputs

    def _plan_output_destinations(self, return_op: func.ReturnOp, outputs: Sequence[SSAValue]) -> None:
        """Returned generic results write the output argument; so does the chain of generics
        whose result is only the init of the next one (a fill, then an accumulation)."""
        self.destination_of: dict[SSAValue, SSAValue] = {}
        for value, out in zip(return_op.arguments, outputs, strict=True):
            if value in self.destination_of:
                continue
            self.destination_of[value] = out
            while isinstance(generic := value.owner, GenericOp):
                init = generic.outputs[generic.res.index(value)]
                if not isinstance(init.owner, GenericOp) or init.uses.get_length() != 1 or init in return_op.arguments:
                    break
                self.destination_of[init] = out
                value = init

    def _compute_last_uses(self, block: Block) -> None:
        """The position of the last top-level op reading each tensor, a view's reads counted
        on the tensor it views."""
        self.alias: dict[SSAValue, SSAValue] = {}
        for i, op in enumerate(block.ops):
            if isinstance(op, tensor.CollapseShapeOp | tensor.ExpandShapeOp):
                self.alias[op.result] = self.alias.get(op.src, op.src)
            for value in op.results:
                self.last_use.setdefault(value, i)
            for inner in op.walk():
                for operand in inner.operands:
                    if isinstance(operand.type, TensorType):
                        root = self.alias.get(operand, operand)
                        self.last_use[root] = i

    def _dies_here(self, init: SSAValue) -> bool:
        """Whether `init` is an intermediate buffer (not a view) last read by the current op."""
        return (
            init in self.buffers
            and self.buffers[init] in self.owned
            and init not in self.alias
            and self.last_use.get(init, -1) <= self.position
        )

    def _release_dead(self, position: int) -> None:
        """End the lifetime of the buffers last read by the op at `position`."""
        for value, memref_value in list(self.buffers.items()):
            if value in self.in_place:
                continue  # the buffer lives on as the in-place result
            if memref_value in self.owned and self.last_use.get(value, -1) <= position:
                self.owned.pop(memref_value).last = position

    def _buffer(self, value: SSAValue, before: Operation) -> SSAValue:
        """The memref holding tensor `value`, materialized before `before` if needed."""
        if value in self.buffers:
            return self.buffers[value]
        owner = value.owner
        if isinstance(owner, tensor.EmptyOp):
            return self._fresh(value, before)
        raise PassFailedException(f"bufferize: no buffer for {value} ({owner.name if owner else 'argument'})")

    def _fresh(self, value: SSAValue, before: Operation) -> SSAValue:
        """A new intermediate buffer for tensor `value`, first written by the current op."""
        view, buffer = self.workspace.view(memref_type_of(value.type), self.position, before)
        self.buffers[value] = view
        self.owned[view] = buffer
        return view

    def _bufferize(self, op: Operation) -> None:
        if not any(isinstance(v.type, TensorType) for v in (*op.operands, *op.results)):
            if isinstance(op, GenericOp):
                return
            self._bufferize_nested(op)
            return
        match op:
            case tensor.EmptyOp():
                return  # materialized where a generic or a return needs it
            case arith.ConstantOp():
                self._bufferize_constant(op)
            case GenericOp():
                self._bufferize_generic(op)
            case tensor.CollapseShapeOp() | tensor.ExpandShapeOp():
                self._bufferize_reshape(op)
            case tensor.ExtractOp():
                load = memref.LoadOp.get(self._buffer(op.tensor, op), op.indices)
                insert_before(load, op)
                op.result.replace_all_uses_with(load.res)
            case _:
                raise PassFailedException(f"bufferize: unsupported op on tensors: {op.name}")

    def _bufferize_nested(self, op: Operation) -> None:
        for inner in list(op.walk()):
            if isinstance(inner, tensor.ExtractOp):
                replace(inner, memref.LoadOp.get(self._buffer(inner.tensor, op), inner.indices))

    def _bufferize_constant(self, op: arith.ConstantOp) -> None:
        value = op.value
        if not isinstance(value, DenseIntOrFPElementsAttr):
            raise PassFailedException(f"bufferize: unsupported tensor constant {value}")
        memref_type = memref_type_of(op.result.type)
        key = (memref_type, value)
        name = self.constant_names.get(key)
        if name is None:
            name = f"__constant_{len(self.constant_names)}"
            self.constant_names[key] = name
            self.module.body.block.add_op(
                memref.GlobalOp.get(StringAttr(name), memref_type, value, StringAttr("private"), UnitAttr())
            )
        get = memref.GetGlobalOp(name, memref_type)
        insert_before(get, op)
        self.buffers[op.result] = get.memref

    def _bufferize_reshape(self, op: tensor.CollapseShapeOp | tensor.ExpandShapeOp) -> None:
        source = self._buffer(op.src, op)
        result_type = memref_type_of(op.result.type)
        if isinstance(op, tensor.CollapseShapeOp):
            view = memref.CollapseShapeOp(
                operands=[source], result_types=[result_type], properties={"reassociation": op.reassociation}
            )
        else:
            view = memref.ExpandShapeOp(
                operands=[source, []],
                result_types=[result_type],
                properties={"reassociation": op.reassociation, "static_output_shape": op.static_output_shape},
            )
        insert_before(view, op)
        self.buffers[op.result] = view.result

    def _bufferize_generic(self, op: GenericOp) -> None:
        self._bufferize_nested(op)
        inputs = [self._buffer(v, op) if isinstance(v.type, TensorType) else v for v in op.inputs]
        self._note_epilogue(op, inputs)
        destinations: list[SSAValue] = []
        n_inputs = len(op.inputs)
        for k, (init, result) in enumerate(zip(op.outputs, op.res, strict=True)):
            reads_init = bool(op.body.block.args[n_inputs + k].uses)
            init_is_empty = isinstance(init.owner, tensor.EmptyOp)
            if reads_init and init_is_empty:
                raise PassFailedException("bufferize: a linalg.generic reads an uninitialized tensor.empty")
            destination = self.destination_of.get(result)
            if destination is not None:
                self.buffers[result] = destination
            elif self._dies_here(init):
                # the init's own intermediate buffer, read by nobody after this op: update in place
                destination = self.buffers[init]
                self.buffers[result] = destination
                self.in_place[init] = result
                destinations.append(destination)
                continue
            else:
                destination = self._fresh(result, op)
            if not init_is_empty and self.buffers.get(init) is not destination:
                insert_before(copy_generic(self._buffer(init, op), destination), op)
            destinations.append(destination)
        new = GenericOp(
            inputs,
            destinations,
            op.detach_region(op.body),
            op.indexing_maps,
            op.iterator_types,
            (),
            op.doc,
            op.library_call,
        )
        insert_before(new, op)
        op.add_region(Region())  # the old op stays (erased at the end) with an empty body


    def _note_epilogue(self, op: GenericOp, inputs: Sequence[SSAValue]) -> None:
        """Record the workspace inputs of a reduction generic (by its result), and where an
        elementwise generic's first input is such a result read by nothing else, the extension
        of their lifetimes to it (`_lay_out_through_epilogues`)."""
        if any(it != PARALLEL for it in op.iterator_types.data):
            if len(op.res) == 1:
                self.reduction_inputs[op.res[0]] = [self.owned[m] for m in inputs if m in self.owned]
        elif op.inputs and op.inputs[0] in self.reduction_inputs and op.inputs[0].uses.get_length() == 1:
            self.epilogue_extensions.append((self.reduction_inputs[op.inputs[0]], self.position))


def _bufferize_function(module: ModuleOp, function: func.FuncOp, constant_names: dict) -> None:
    if not function.body.blocks:
        return
    if len(function.body.blocks) != 1:
        raise PassFailedException(f"bufferize: @{function.sym_name.data} has more than one block")
    _FunctionBufferizer(module, function, constant_names).run()


@dataclass(frozen=True)
class BufferizePass(ModulePass):
    """One-shot bufferization of bitfold's backend input in destination-passing style, every
    intermediate in one planned workspace (the module docstring lists what it guarantees)."""

    name = "bufferize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        constant_names: dict = {}
        for function in [f for f in op.ops if isinstance(f, func.FuncOp)]:
            _bufferize_function(op, function, constant_names)

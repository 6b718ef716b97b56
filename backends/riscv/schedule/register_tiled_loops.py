"""`bitfold-riscv-register-tiled-loops`: a `linalg.generic` on memrefs whose indexing maps are linear
becomes a register-tiled nest of `riscv_scf.for` loops over pointers (the plan is
`loop_nest_plan.plan_nest`):

    p_x, p_w, p_out = base addresses                      (one register per operand)
    for p_out in [p_out, p_out + trips * stride) step stride:     parallel loops; the loop
        acc[t] = lw off_t(p_out)          for each tile point t   variable is one operand's
        for ... (reduction loops, iter_args: pointers, acc[...])   pointer, the others are
            a_i = lbu off_i(p_x)          loads shared by tile    iter_args bumped once per
            b_j = lb  off_j(p_w)          points, once each       iteration
            acc[i, j] += a_i * b_j        body copies (tile points x unrolled reduction points)
        sw acc[t], off_t(p_out)

- Addresses: an operand's pointer moves only in the loops of dimensions it varies with; the
  offsets of unrolled and tiled indices are load/store immediates (`lb rd, 12(rs)`).
- Hoisting by construction: a load is placed in the innermost loop whose dimension moves its
  operand (per-channel requantization constants load once per channel), and a body operation
  at the deepest level of its operands.
- Extensions fold into loads: a block argument only read through `arith.extui` (`extsi`) is
  loaded with `lbu`/`lhu` (`lb`/`lh`) straight into the extension's type.
- Constant operands walked in a different order than stored are re-laid out at compile time
  into the order the nest reads them (`weight_panels.py`): a linear walk with small immediates.
- A contraction's bias fill and requantization epilogue fused into its nest (`fused_epilogue.py`):
  the accumulators start as the bias, the epilogue's body runs on the tile after the reduction.
- Constant fills of byte and halfword workspace buffers (a padded input's zero point) store
  words (`wide_fills.py`); a padding written with index arithmetic (an axis padded at its end
  only) is first made a fill and a copy (`padding_copies.py`).

Loop variables are pointers compared with `blt`: no buffer may straddle address 2**(XLEN-1)
(docs/riscv-abi.md). Generics this cannot express (non-linear maps, `linalg.index`, ops that
are not `arith`, dynamic shapes) are left for `bitfold-riscv-linalg-to-loops`.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from math import prod

from xdsl.context import Context
from xdsl.dialects import arith, func, math, memref, riscv, riscv_scf
from xdsl.dialects.builtin import (
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    UnrealizedConversionCastOp,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.riscv import Registers, si12
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import DiagnosticException

from bitfold.backends.kernel.bufferize import constant_global
from bitfold.backends.riscv.lowering.instructions import LOADS, STORES, LdOp
from bitfold.backends.riscv.lowering.registers import (
    ALLOCATABLE_INTEGER_REGISTERS,
    add_constant,
    fits_immediate,
    load_immediate,
    shift_left,
    shift_right_arithmetic,
    shift_right_logical,
    sign_extend,
    zero_extend,
)
from bitfold.backends.riscv.schedule.fused_epilogue import (
    SHORT_REDUCTION,
    Fusion,
    epilogue_operations,
    fuse_epilogues,
    fused_tile_limit,
)
from bitfold.backends.riscv.schedule.group_dimensions import split_group_dimensions
from bitfold.backends.riscv.schedule.loop_nest_plan import (
    BASE_STEP,
    Access,
    CostModel,
    NestPlan,
    access_of,
    base_window,
    generic_dims,
    plan_nest,
)
from bitfold.backends.riscv.schedule.padding_copies import copy_paddings
from bitfold.backends.riscv.schedule.weight_panels import (
    ModuleGlobals,
    Panel,
    element_values,
    relayout_constant_operands,
)
from bitfold.backends.riscv.schedule.wide_fills import widen_fills
from bitfold.backends.riscv.schedule.workspace_replan import replan_workspace, separate_epilogue
from bitfold.dialects.quant import UniformQuantizedType
from bitfold.dialects.quant_type_attribute import recorded_quant_type

TOP = -1
"""The level before the outermost loop."""

NEST_ATTRIBUTE = "bitfold.nest"
"""On a nest's loops and address arithmetic: the nest's number in its module. CSE would otherwise merge
equal bounds of different nests (two loops over one buffer) into one value live from the
first nest to the last, through the hot loops between."""


def register() -> Attribute:
    return Registers.UNALLOCATED_INT


def as_register(value: SSAValue) -> tuple[Operation, SSAValue]:
    cast = UnrealizedConversionCastOp.get((value,), (register(),))
    return cast, cast.results[0]


def as_type(value: SSAValue, type_: Attribute) -> tuple[Operation, SSAValue]:
    cast = UnrealizedConversionCastOp.get((value,), (type_,))
    return cast, cast.results[0]


def supported_body(op: linalg.GenericOp) -> bool:
    """Only `arith` operations without regions and `math.ctpop` (pure, so copies and hoisting
    are exact) and `memref.load`s from constant globals (table lookups at a computed index)."""
    return all(
        isinstance(o, linalg.YieldOp | math.CtPopOp) or (o.name.startswith("arith.") and not o.regions) or reads_constant(o)
        for o in op.body.block.ops
    )


def uniform_constant(buffer: SSAValue, globals_: ModuleGlobals) -> int | None:
    """The one value of every element of a constant global of integers, else None (read from its
    bytes, `element_values`; the global found in the module's index `globals_`)."""
    global_op = globals_.constant_global(buffer)
    if global_op is None or not isinstance(global_op.type.get_element_type(), IntegerType):
        return None
    values = element_values(global_op)
    return int(values[0]) if values.size and bool((values == values[0]).all()) else None


def reads_constant(op: Operation) -> bool:
    """`memref.load` from a `memref.get_global` of a constant global (nothing writes it)."""
    return isinstance(op, memref.LoadOp) and constant_global(op.memref) is not None


def folded_extension(argument: SSAValue) -> type | None:
    """`arith.ExtUIOp`/`ExtSIOp` when every use of `argument` is that extension (not for i1,
    held as 0 or 1 whatever its extension will be)."""
    if isinstance(argument.type, IntegerType) and argument.type.width.data == 1:
        return None
    users = [use.operation for use in argument.uses]
    for kind in (arith.ExtUIOp, arith.ExtSIOp):
        if users and all(isinstance(u, kind) for u in users):
            return kind
    return None


def zero_or_one_bytes(buffer: SSAValue) -> bool:
    """Whether every byte of an i1 buffer is 0 or 1, so that its loads need no `andi` to hold the
    bit as the register convention does (`registers.py`): a view of the workspace (its i1 values
    are stored from registers holding 0 or 1) or a function argument of an unsigned quantized type
    (a bipolar input: the ABI zero-extends a sub-byte value in its byte, docs/riscv-abi.md), through
    reshapes. Not a signed one (-1 is the byte 0xFF) nor one whose type is not recorded."""
    while isinstance(buffer.owner, memref.CollapseShapeOp | memref.ExpandShapeOp):
        buffer = buffer.owner.src
    if isinstance(buffer.owner, memref.ViewOp):
        return True
    function = buffer.owner.parent_op() if isinstance(buffer, BlockArgument) else None
    if not isinstance(function, func.FuncOp) or function.arg_attrs is None:
        return False
    qtype = recorded_quant_type(function.arg_attrs.data[buffer.index])
    return qtype is not None and not (isinstance(qtype, UniformQuantizedType) and qtype.is_signed)


def body_operation_count(block: Block) -> int:
    """Instructions one body copy costs, roughly: every op but constants, folded extensions
    and the terminator."""
    folded = {u.operation for a in block.args for u in a.uses if folded_extension(a)}
    return sum(
        1 for o in block.ops if not isinstance(o, linalg.YieldOp | arith.ConstantOp) and o not in folded
    )


@dataclass
class Level:
    """One level of the nest: its block, the loop inside it, the operands' pointers there."""

    block: Block | None
    pointers: dict[int, SSAValue]
    inner_loop: Operation | None = None


@dataclass
class NestEmitter:
    """Emits the nest of one generic (module docstring)."""

    op: linalg.GenericOp
    plan: NestPlan
    xlen: int
    rewriter: PatternRewriter
    nest: int
    globals_: ModuleGlobals
    """the module's globals, indexed once for the pass"""
    levels: dict[int, Level] = field(default_factory=dict)
    panels: dict[int, Panel] = field(default_factory=dict)
    loads: dict[tuple, tuple[SSAValue, int]] = field(default_factory=dict)
    constants: dict[tuple[Operation, int], SSAValue] = field(default_factory=dict)
    fusion: Fusion | None = None
    """the bias and epilogue fused into this nest (`fused_epilogue.py`)"""

    @property
    def n_inputs(self) -> int:
        return len(self.op.inputs)

    @cached_property
    def zero_or_one_operands(self) -> frozenset[int]:
        """The i1 operands whose bytes are 0 or 1 (`zero_or_one_bytes`)."""
        return frozenset(k for k, v in enumerate(self.op.operands) if isinstance(v.type, MemRefType)
                         and v.type.get_element_type() == IntegerType(1) and zero_or_one_bytes(v))

    @property
    def innermost(self) -> int:
        return len(self.plan.loops) - 1

    @property
    def tile_level(self) -> int:
        parallel_loops = [k for k, d in enumerate(self.plan.loops) if self.plan.dims[d].parallel]
        return parallel_loops[-1] if parallel_loops else TOP

    def access(self, operand: int) -> Access:
        return self.plan.accesses[operand]

    @cached_property
    def owners(self) -> list[int]:
        """Per operand, the operand whose pointer it uses: the first one with the same buffer
        (an interleaved panel, an input read twice) walked the same way. Read once the panels
        are known."""
        walks = [tuple(self.advance(k, level) for level in self.loop_levels()) for k in range(len(self.op.operands))]
        return [
            next(j for j in range(k + 1) if self.op.operands[j] is self.op.operands[k] and walks[j] == walks[k])
            for k in range(len(self.op.operands))
        ]

    def owner(self, operand: int) -> int:
        return self.owners[operand]

    def pointer_owners(self) -> list[int]:
        return [k for k, owner in enumerate(self.owners) if owner == k]

    def loop_levels(self) -> range:
        return range(len(self.plan.loops))

    def advance(self, operand: int, level: int) -> int:
        """Bytes operand's pointer moves per iteration of the loop at `level`."""
        if operand in self.panels:
            return self.panels[operand].advances.get(level, 0)
        d = self.plan.loops[level]
        return self.access(operand).stride[d] * self.plan.steps[d]

    def trips(self, level: int) -> int:
        d = self.plan.loops[level]
        return self.plan.dims[d].bound // self.plan.steps[d]

    @cached_property
    def operand_levels(self) -> list[int]:
        """Per operand, the innermost loop level whose dimension moves its pointer (TOP: none).
        Read once the panels are known."""
        return [
            max((k for k in self.loop_levels() if self.advance(operand, k)), default=TOP)
            for operand in range(len(self.op.operands))
        ]

    def operand_level(self, operand: int) -> int:
        return self.operand_levels[operand]

    def original_offset(self, operand: int, point: Sequence[int]) -> int:
        access = self.access(operand)
        return access.offset + sum(s * i for s, i in zip(access.stride, point))

    def immediate(self, operand: int, point: Sequence[int]) -> int:
        """Bytes from the operand's pointer to its element at the body copy `point`."""
        offset = self.original_offset(operand, point)
        return self.panels[operand].immediates[offset] if operand in self.panels else offset

    def packed_slot(self, operand: int, point: Sequence[int]) -> tuple[int, int] | None:
        """(slot in its byte, bits) of a packed sub-byte element; None for whole bytes."""
        panel = self.panels.get(operand)
        if panel is None or panel.bits >= 8:
            return None
        return panel.slots[self.original_offset(operand, point)], panel.bits

    def immediates(self, operand: int) -> list[int]:
        return [self.immediate(operand, point) for point in self.plan.body_points()]

    # insertion

    def insert(self, ops: Sequence[Operation], level: int) -> None:
        """At the end of `level`'s block so far: before its inner loop once that exists."""
        entry = self.levels[level]
        if entry.inner_loop is not None:
            point = InsertPoint.before(entry.inner_loop)
        elif entry.block is None:
            point = InsertPoint.before(self.op)
        else:
            point = InsertPoint.at_end(entry.block)
        self.rewriter.insert(list(ops), point)

    def append(self, ops: Sequence[Operation], level: int) -> None:
        """After everything of `level` (past its inner loop)."""
        block = self.levels[level].block
        point = InsertPoint.before(self.op) if block is None else InsertPoint.at_end(block)
        self.rewriter.insert(list(ops), point)

    def address(self, pointer: SSAValue, offset: int, level: int) -> tuple[SSAValue, int]:
        """(register, immediate) addressing pointer + offset."""
        if fits_immediate(offset):
            return pointer, offset
        base = base_window(offset) * BASE_STEP
        ops, value = self.add_constant(pointer, base)
        self.insert(ops, level)
        return value, offset - base

    def add_constant(self, value: SSAValue, amount: int) -> tuple[list[Operation], SSAValue]:
        """value + amount (`registers.add_constant`), tagged with the nest (`NEST_ATTRIBUTE`)."""
        ops, result = add_constant(value, amount)
        for op in ops:
            op.attributes[NEST_ATTRIBUTE] = IntAttr(self.nest)
        return ops, result

    # loads and stores

    def load_level(self, operand: int) -> int:
        """Where the operand's loads go: the innermost loop moving it, or the innermost loop
        for an input the plan reloads there; a fused bias that starts the accumulators of a
        reduction loop, at the tile's level (`bias_at_tile`)."""
        if operand in self.plan.reloaded:
            return self.innermost
        if self.bias_at_tile and operand == self.fusion.bias:
            return self.tile_level
        return self.operand_level(operand)

    @cached_property
    def bias_at_tile(self) -> bool:
        """Whether the fused bias is loaded per tile rather than held from the loop that moves it:
        where a reduction loop carries the accumulators, each tile copies the held bias into them
        anyway (one `mv` an accumulator), so a load in its place costs no more and frees the
        registers that held the bias through the tile's loop (a 4 x 4 pointwise tile fits)."""
        if self.fusion is None:
            return False
        inner = self.plan.loops[self.tile_level + 1 :]
        return any(not self.plan.dims[d].parallel for d in inner)

    def load(
        self, operand: int, point: Sequence[int], extension: type | None, result_type: Attribute
    ) -> tuple[SSAValue, int]:
        """The operand's element at `point` (offsets of unrolled indices), typed, and its level."""
        level = self.load_level(operand)
        # loads in the innermost loop are shared by the tile points of one reduction point
        # (and along the plan's window): sharing a sliding window's elements across every
        # reduction point would keep them all live
        sharing = self.plan.sharing_point(point) if level == self.innermost else None
        offset = self.immediate(operand, point)
        packed = self.packed_slot(operand, point)
        key = (operand, offset, packed, extension, sharing)
        if key in self.loads:
            return self.loads[key]
        # i1 is held as 0 or 1 (registers.py), whatever the extension
        unsigned = extension is arith.ExtUIOp or (packed is not None and packed[1] == 1)
        if packed is None:
            element = self.op.operands[operand].type.get_element_type()
            loaded = self.load_register(operand, offset, element.width.data, unsigned, level, sharing)
        else:
            # one load per byte in the loop: its elements are next to each other in the panel,
            # read by consecutive reduction points
            byte = self.load_register(operand, offset, 8, unsigned, level, None)
            ops, loaded = unpack(byte, *packed, unsigned, self.xlen)
            self.insert(ops, level)
        cast, value = as_type(loaded, result_type)
        self.insert([cast], level)
        self.loads[key] = (value, level)
        return value, level

    def load_register(
        self, operand: int, offset: int, width: int, unsigned: bool, level: int, sharing: tuple | None
    ) -> SSAValue:
        """A register holding the `width`-bit integer at pointer + offset, extended as asked
        (sub-byte values stored one per byte re-extended from their width, but i1 bytes known to
        be 0 or 1: `zero_or_one_bytes`)."""
        key = (operand, offset, "register", width, unsigned, sharing)
        if key in self.loads:
            return self.loads[key][0]
        pointer, immediate = self.address(self.levels[level].pointers[self.owner(operand)], offset, level)
        ops: list[Operation] = []
        if width == 64:
            ops.append(load := LdOp(pointer, immediate))
        else:
            memory_width = max(8, width)
            signed = not unsigned or (memory_width == 32 and self.xlen == 32)
            ops.append(load := LOADS[(memory_width, signed)](pointer, immediate))
        loaded = load.rd
        if width < 8 and not (width == 1 and operand in self.zero_or_one_operands):
            extend, loaded = (zero_extend if unsigned else sign_extend)(loaded, width, self.xlen)
            ops += extend
        self.insert(ops, level)
        self.loads[key] = (loaded, level)
        return loaded

    def store(self, operand: int, point: Sequence[int], value: SSAValue, level: int) -> None:
        offset = self.immediate(operand, point)
        pointer, immediate = self.address(self.levels[level].pointers[self.owner(operand)], offset, level)
        cast, register_value = as_register(value)
        width = self.op.operands[operand].type.get_element_type().width.data
        self.append([cast, STORES[max(8, width)](pointer, register_value, immediate)], level)

    # the body

    def constant(self, constant: arith.ConstantOp, level: int) -> SSAValue:
        key = (constant, level)
        if key not in self.constants:
            clone = constant.clone()
            self.insert([clone], level)
            self.constants[key] = clone.results[0]
        return self.constants[key]

    def operand_value(self, value: SSAValue, values: dict, level: int) -> SSAValue:
        """A body operation's operand: a copied value, a constant of the body materialized at
        `level`, or a value defined above the generic (it dominates the nest)."""
        if value in values:
            return values[value][0]
        if isinstance(value.owner, arith.ConstantOp) and value.owner.parent_op() is self.op:
            return self.constant(value.owner, level)
        return value

    def body_copy(self, point: Sequence[int], outputs: list[tuple[SSAValue, int]]) -> list[tuple[SSAValue, int]]:
        """One copy of the body at `point`, the outputs' current values in; the yielded out."""
        block = self.op.body.block
        values: dict[SSAValue, tuple[SSAValue, int]] = {}
        for k, argument in enumerate(block.args[: self.n_inputs]):
            if not argument.uses:
                continue
            extension = folded_extension(argument)
            if extension is None:
                values[argument] = self.load(k, point, None, argument.type)
            else:
                for use in argument.uses:
                    extended = use.operation.results[0]
                    values[extended] = self.load(k, point, extension, extended.type)
        for argument, current in zip(block.args[self.n_inputs :], outputs):
            values[argument] = current
        for body_op in block.ops:
            if isinstance(body_op, linalg.YieldOp):
                return [
                    values[v] if v in values else (self.operand_value(v, values, self.tile_level), self.tile_level)
                    for v in body_op.operands
                ]
            if any(r in values for r in body_op.results):
                continue  # a folded extension
            if isinstance(body_op, arith.ConstantOp):
                continue  # materialized at the level of each user
            level = max((values[o][1] for o in body_op.operands if o in values), default=TOP)
            operands = [self.operand_value(o, values, level) for o in body_op.operands]
            clone = body_op.clone(value_mapper=dict(zip(body_op.operands, operands)))
            self.insert([clone], level)
            for old, new in zip(body_op.results, clone.results):
                values[old] = (new, level)
        raise AssertionError("a linalg.generic body ends with linalg.yield")

    def emit_body(self, accumulators: dict) -> dict:
        for point in self.plan.body_points():
            tile_point = tuple(p if self.plan.dims[d].parallel else 0 for d, p in enumerate(point))
            accumulators[tile_point] = self.body_copy(point, accumulators[tile_point])
        return accumulators

    def initial_values(self, level: int) -> dict:
        """Each tile point's outputs as the body first sees them (loaded where the body reads them;
        a fused bias: the bias)."""
        block = self.op.body.block
        initial = {}
        if self.fusion is not None:
            bias = self.fusion.bias
            value = uniform_constant(self.op.operands[bias], self.globals_)
            if value is not None:  # a constant (a zero fill) that canonicalization folds into the first add
                self.insert([constant := arith.ConstantOp(IntegerAttr(value, block.args[bias].type))], level)
                return {t: [(constant.result, level)] for t in self.plan.tile_points()}
            return {t: [self.load(bias, t, None, block.args[bias].type)] for t in self.plan.tile_points()}
        for tile_point in self.plan.tile_points():
            values = []
            for k, argument in enumerate(block.args[self.n_inputs :]):
                operand = self.n_inputs + k
                if argument.uses:
                    values.append(self.load(operand, tile_point, None, argument.type))
                else:
                    values.append((None, level))
            initial[tile_point] = values
        return initial

    def store_outputs(self, accumulators: dict, level: int) -> None:
        loaded: dict[tuple[int, int], SSAValue] = {}
        for tile_point, values in accumulators.items():
            for k, (value, _) in enumerate(values):
                if self.fusion is not None and self.fusion.epilogue is not None:
                    value = self.apply_epilogue(tile_point, value, level, loaded)
                self.store(self.n_inputs + k, tile_point, value, level)

    def apply_epilogue(self, point: Sequence[int], accumulator: SSAValue, level: int, loaded: dict) -> SSAValue:
        """The fused epilogue's body on one accumulator, after the reduction: its tables loaded
        there (shared by the tile points of one channel through `loaded`), never held through
        the inner loops."""
        fusion = self.fusion
        block = fusion.epilogue.block
        values = {block.args[0]: accumulator}
        for argument, operand in zip(block.args[1:], fusion.tables):
            if argument.uses.get_length():
                offset = self.immediate(operand, point)
                if (operand, offset) not in loaded:
                    width = self.op.operands[operand].type.get_element_type().width.data
                    pointer, immediate = self.address(self.levels[level].pointers[self.owner(operand)], offset, level)
                    load = LOADS[(max(8, width), True)](pointer, immediate)
                    cast, loaded[operand, offset] = as_type(load.rd, argument.type)
                    self.append([load, cast], level)
                values[argument] = loaded[operand, offset]
        for body_op in block.ops:
            if isinstance(body_op, linalg.YieldOp):
                return values[body_op.operands[0]]
            clone = body_op.clone(value_mapper=values)
            self.append([clone], level)
            values.update(zip(body_op.results, clone.results))
        raise AssertionError("a linalg.generic body ends with linalg.yield")

    # loops

    def run(self) -> None:
        pointers = {}
        for k in self.pointer_owners():
            pointers[k] = self.base_address(self.op.operands[k])
        self.levels[TOP] = Level(None, pointers)
        self.emit_level(TOP, None)

    def base_address(self, buffer: SSAValue) -> SSAValue:
        """A register holding the buffer's address, this nest's own. A view of the workspace at
        a constant offset is computed here, for this nest, rather than taken from the view: the
        view's address would stay live from the view to its last use, through every nest between.
        A function argument (or a view at offset 0) is copied (`mv`): the nest's loops take the
        copy as their initial value, which shares their register and is never spilled, while the
        argument itself may then be stored around the nests that do not read it (the allocator's
        `passing_nests`) instead of holding a register through them."""
        view = buffer.owner
        offset = 0
        if isinstance(view, memref.ViewOp) and isinstance(view.byte_shift.owner, arith.ConstantOp):
            offset = view.byte_shift.owner.value.value.data
            buffer = view.source
        cast, address = as_register(buffer)
        ops, address = self.add_constant(address, offset)
        if not ops:
            ops = [copy := riscv.MVOp(address, rd=register())]
            copy.attributes[NEST_ATTRIBUTE] = IntAttr(self.nest)
            address = copy.rd
        self.rewriter.insert([cast, *ops], InsertPoint.before(self.op))
        return address

    def emit_level(self, level: int, accumulators: dict | None) -> tuple[dict[int, SSAValue], dict | None]:
        """Fill `level` (whose block and pointers exist); return the pointers and accumulator
        values at its end."""
        if level == self.tile_level:
            accumulators = self.initial_values(level)
        if level == self.innermost:
            accumulators = self.emit_body(accumulators)
        else:
            accumulators = self.emit_loop(level + 1, accumulators)
        if level == self.tile_level:
            self.store_outputs(accumulators, level)
        return self.levels[level].pointers, accumulators

    def emit_loop(self, level: int, accumulators: dict | None) -> dict | None:
        outer = self.levels[level - 1]
        operands = self.pointer_owners()
        moved = [x for x in operands if self.operand_level(x) >= level]
        stepping = [x for x in moved if 0 < self.advance(x, level) and fits_immediate(self.advance(x, level))]
        # best loop variable: a pointer no inner loop moves (the variable then replaces it)
        stepping.sort(key=lambda x: self.operand_level(x) != level)
        trips = self.trips(level)
        setup: list[Operation] = []
        if stepping:
            induction = stepping[0]
            start = outer.pointers[induction]
            step = self.advance(induction, level)
            ops, stop = self.add_constant(start, trips * step)
            setup += ops
        else:
            induction = None
            setup.append(zero := load_immediate(0, self.xlen))
            setup.append(bound := load_immediate(trips, self.xlen))
            start, stop, step = zero.results[0], bound.results[0], 1
        carried = [x for x in moved if x != induction]
        reduction = not self.plan.dims[self.plan.loops[level]].parallel
        keys = list(accumulators) if reduction else []
        accumulator_inits = []
        for key in keys:
            for value, _ in accumulators[key]:
                cast, value_register = as_register(value)
                setup.append(cast)
                accumulator_inits.append(value_register)
        self.insert(setup, level - 1)

        iter_args = [outer.pointers[x] for x in carried] + accumulator_inits
        block = Block(arg_types=(register(),) * (1 + len(iter_args)))
        loop = riscv_scf.ForOp(start, stop, IntegerAttr(step, si12), iter_args, Region(block))
        loop.attributes[NEST_ATTRIBUTE] = IntAttr(self.nest)
        self.insert([loop], level - 1)
        outer.inner_loop = loop

        pointers = dict(outer.pointers)
        if induction is not None:
            pointers[induction] = block.args[0]
        for x, argument in zip(carried, block.args[1:]):
            pointers[x] = argument
        inner_accumulators = accumulators
        if reduction:
            arguments = iter(block.args[1 + len(carried) :])
            inner_accumulators = {}
            for key in keys:
                values = []
                for value, _ in accumulators[key]:
                    cast, typed = as_type(next(arguments), value.type)
                    self.rewriter.insert(cast, InsertPoint.at_end(block))
                    values.append((typed, level))
                inner_accumulators[key] = values
        self.levels[level] = Level(block, pointers)
        end_pointers, inner_accumulators = self.emit_level(level, inner_accumulators)

        yielded: list[SSAValue] = []
        bumps: list[Operation] = []
        for x in carried:
            ops, value = self.add_constant(end_pointers[x], self.advance(x, level) - self.inner_movement(x, level))
            bumps += ops
            yielded.append(value)
        for key in keys:
            for value, _ in inner_accumulators[key]:
                cast, value_register = as_register(value)
                bumps.append(cast)
                yielded.append(value_register)
        bumps.append(riscv_scf.YieldOp(*yielded))
        self.rewriter.insert(bumps, InsertPoint.at_end(block))

        # past the loop: what follows at the outer level comes after it
        outer.inner_loop = None
        results = iter(loop.results)
        for x in carried:
            outer.pointers[x] = next(results)
        if induction is not None:
            outer.pointers[induction] = stop
        if not reduction:
            return inner_accumulators
        after = {}
        for key in keys:
            values = []
            for value, _ in accumulators[key]:
                cast, typed = as_type(next(results), value.type)
                self.append([cast], level - 1)
                values.append((typed, level - 1))
            after[key] = values
        return after

    def inner_movement(self, operand: int, level: int) -> int:
        """Bytes the loop inside `level` moves the operand's pointer in one iteration of it: each
        of its own iterations nets its advance (deeper loops are undone by its yield)."""
        inner = level + 1
        if inner >= len(self.plan.loops) or self.operand_level(operand) < inner:
            return 0
        return self.trips(inner) * self.advance(operand, inner)


def unpack(byte: SSAValue, slot: int, bits: int, unsigned: bool, xlen: int) -> tuple[list[Operation], SSAValue]:
    """Element `slot` (bits `slot * bits` up) of a loaded byte: from `lbu`, shifted down and
    masked; from `lb` (sign-extended), shifted to the top and arithmetically back down."""
    low, high = slot * bits, (slot + 1) * bits
    ops: list[Operation] = []
    value = byte
    if unsigned:
        if low:
            ops.append(shift := shift_right_logical(value, low, xlen))
            value = shift.results[0]
        if high < 8:
            ops.append(mask := riscv.AndiOp(value, (1 << bits) - 1, rd=register()))
            value = mask.rd
        return ops, value
    if high < 8:
        ops.append(up := shift_left(value, xlen - high, xlen))
        ops.append(down := shift_right_arithmetic(up.results[0], xlen - bits, xlen))
    elif low:
        ops.append(down := shift_right_arithmetic(value, low, xlen))
    else:
        return ops, value
    return ops, down.results[0]


FUSED_SINGLE_REDUCTION_COPIES = 16
"""The largest tile of a fused nest whose reduction is one dimension (a pointwise layer of at most
`fused_epilogue.SHORT_REDUCTION` input channels): each loaded activation and weight serves a 4 x 4
tile rather than 2 x 2 (1 load a MAC down to 0.5) where the epilogue costs as much as the MACs of
an output; the 16 epilogue copies are the `.text` this costs (a depthwise window keeps 4). Other
fused nests take `fused_epilogue.fused_tile_limit`."""
FUSED_SHORT_REDUCTION_COPIES = 8
"""The largest tile of a fused nest whose reduction is short (`fused_epilogue.SHORT_REDUCTION`: a
depthwise 3 x 3 window) over more than one dimension: a row of 5 or 8 output pixels sharing the
window's loads (DS-CNN's 25 x 5 maps: at 4 points its fused depthwise layer cost 44 instructions an
output, more than the separate nests' 37; at up to 8, 34)."""


def nest_plan_for(op: linalg.GenericOp, registers: int, fusion: Fusion | None = None) -> NestPlan | None:
    """The plan of a generic this pass can emit, else None (module docstring); a fused nest's
    bias and epilogue tables are not in its cost (read once per output, after the reduction)."""
    if op.res or not supported_body(op):
        return None
    if any(not isinstance(v.type, MemRefType) or not v.type.has_static_shape() for v in op.operands):
        return None
    if any(not isinstance(v.type.get_element_type(), IntegerType) for v in op.operands):
        return None
    if any(isinstance(o, linalg.IndexOp) for o in op.body.block.ops):
        return None
    dims = generic_dims(op)
    if any(b <= 0 for b in (d.bound for d in dims)):
        return None
    n_parallel = next((i for i, d in enumerate(dims) if not d.parallel), len(dims))
    if any(d.parallel for d in dims[n_parallel:]):
        return None
    grouped = split_group_dimensions(dims, [m.data for m in op.get_indexing_maps().data])
    if grouped is None:
        return None
    dims, maps = grouped
    n_parallel = next((i for i, d in enumerate(dims) if not d.parallel), len(dims))
    accesses = [access_of(v.type, m, len(dims)) for v, m in zip(op.operands, maps, strict=True)]
    if any(a is None for a in accesses):
        return None
    if any(a.stride[d] for a in accesses[len(op.inputs) :] for d in range(n_parallel, len(dims))):
        return None  # an output indexed by a reduction dimension
    if n_parallel < len(dims) and not all(a.uses for a in op.body.block.args[len(op.inputs) :]):
        return None  # a reduction that does not accumulate into its output
    inputs = len(op.inputs) if fusion is None else fusion.bias
    # the bias and the tables walked alike share one interleaved panel (`weight_panels.py`)
    epilogue_walks = [accesses[k].stride for k in range(inputs, len(op.inputs))]
    fused_copies = None
    if fusion is not None and fusion.epilogue is not None:
        reductions = [d for d in dims if not d.parallel and d.bound > 1]
        fused_copies = fused_tile_limit(epilogue_operations(fusion.epilogue.block), fusion.nests)
        if len(reductions) == 1:
            fused_copies = max(fused_copies, FUSED_SINGLE_REDUCTION_COPIES)
        elif prod(d.bound for d in reductions) <= SHORT_REDUCTION * fusion.nests:
            fused_copies = max(fused_copies, FUSED_SHORT_REDUCTION_COPIES)
    cost = CostModel(body_operation_count(op.body.block), len(op.outputs), inputs,
                     len(epilogue_walks) - len(set(epilogue_walks)), fused_copies)
    return plan_nest(dims, accesses, cost, registers)


SEPARATE_EPILOGUE_COST = 5
"""Instructions per output an epilogue in a nest of its own costs beyond its body: the accumulator's
store and reload, its loop's bumps and branch (`fused_epilogue.SHORT_REDUCTION`)."""


def fused_tile(op: linalg.GenericOp, registers: int, fusion: Fusion) -> NestPlan:
    """The plan of the fused generic `op` whose epilogue `fusion` fuses, as `fused_epilogue.fuse`
    weighs it: the tile capped for the epilogue's copies (`nest_plan_for`) where the cap costs
    fewer instructions per output than the epilogue's own nest (`SEPARATE_EPILOGUE_COST`), that is
    the difference of the estimates per body copy (`NestPlan.per_copy`) times an output's body
    copies, its reduction points (a binary 3 x 3 convolution's 2 x 4 window tile: 0.13 above its
    free 4 x 4), else the free tile."""
    free = nest_plan_for(op, registers, replace(fusion, epilogue=None))
    capped = nest_plan_for(op, registers, fusion)
    points = prod(d.bound for d in free.dims if not d.parallel)
    return capped if (capped.per_copy - free.per_copy) * points < SEPARATE_EPILOGUE_COST else free


def nest_number(generic: linalg.GenericOp) -> int:
    return generic.attributes[NEST_ATTRIBUTE].data


@dataclass
class LowerGenericToTiledNest(RewritePattern):
    xlen: int
    globals_: ModuleGlobals
    """the module's globals, indexed once for the pass"""
    registers_of: Callable[[linalg.GenericOp], int]
    """the register budget of a generic's nest"""
    fusions: dict[linalg.GenericOp, Fusion] = field(default_factory=dict)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: linalg.GenericOp, rewriter: PatternRewriter) -> None:
        fusion = self.fusions.get(op)
        plan = nest_plan_for(op, self.registers_of(op), fusion)
        if plan is None:
            assert fusion is None, "fused only where each generic is a nest of its own"
            del op.attributes[NEST_ATTRIBUTE]
            return
        emitter = NestEmitter(op, plan, self.xlen, rewriter, nest_number(op), self.globals_, fusion=fusion)
        emitter.panels = relayout_constant_operands(op, emitter, rewriter, self.globals_)
        emitter.run()
        rewriter.erase(op)


@dataclass(frozen=True)
class BitfoldRiscvRegisterTiledLoopsPass(ModulePass):
    """Linear `linalg.generic`s on memrefs to register-tiled `riscv_scf` nests over pointers
    (module docstring); the others are left as they are. Each nest's loops carry its number
    (`NEST_ATTRIBUTE`: its generic's position among the module's generics, counted from 1, the
    same whatever the budgets; a fused nest has its contraction's); its tile fits `registers`,
    or the budget `nest_registers` gives its number (number, registers, number, registers, ...:
    `pipeline.lower_to_riscv` lowers the budgets of the nests that need spilling)."""

    name = "bitfold-riscv-register-tiled-loops"

    xlen: int = 64
    registers: int = ALLOCATABLE_INTEGER_REGISTERS
    nest_registers: tuple[int, ...] = ()

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        copy_paddings(op)
        generics = [g for g in op.walk() if isinstance(g, linalg.GenericOp)]
        for number, generic in enumerate(generics, 1):
            generic.attributes[NEST_ATTRIBUTE] = IntAttr(number)
        if len(self.nest_registers) % 2:
            raise DiagnosticException(f"riscv: nest_registers={self.nest_registers}: pairs of a nest number and registers")
        overrides = dict(zip(self.nest_registers[::2], self.nest_registers[1::2]))

        def registers_of(generic: linalg.GenericOp) -> int:
            return overrides.get(nest_number(generic), self.registers)

        def tile_points(generic: linalg.GenericOp, fusion: Fusion) -> int:
            return len(fused_tile(generic, registers_of(generic), fusion).tile_points())

        fusions = fuse_epilogues(op, lambda generic: nest_plan_for(generic, registers_of(generic)) is not None,
                                 tile_points, separate_epilogue)
        replan_workspace(op, fusions)
        widen_fills(op)  # after the plan: a word view of a buffer's bytes is a second view of them
        pattern = LowerGenericToTiledNest(self.xlen, ModuleGlobals(op), registers_of, fusions=fusions)
        PatternRewriteWalker(pattern, apply_recursively=False).rewrite_module(op)

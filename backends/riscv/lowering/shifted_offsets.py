"""`bitfold-riscv-fold-shifted-offsets`: in `linalg.generic` bodies, a constant added after an
arithmetic right shift moves before it, into the constant or table added before the shift:

    s = (h + r) >>s k;  y = s + c        ->        y = (h + r') >>s k,   r' = r + c 2^k

exact because c 2^k is a multiple of 2^k: floor((h + r + c 2^k) / 2^k) = floor((h + r) / 2^k) + c,
wherever h + r' cannot wrap (`value_ranges.body_ranges`: the range of h plus the smallest and
largest r'). r and k are each a constant or a table (a block argument of an input reading a
constant global; both tables: read through the same indexing map, element by element); r' is a
new constant or a new global. A requantization rounds this way, `(high + 2^(k-1)) >>s k`, and
adds its output zero point after (`lower_quant/requant.py`, where r' could overflow: it does not
know h's range): one instruction an output less (the zero point and two-sided clamp after the
shift cost 2 instructions, not 3: in range, two branches over moves without Zbb, `max` and `min`
with it).
"""

import numpy as np
from xdsl.context import Context
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IntegerAttr, IntegerType, MemRefType, ModuleOp, StringAttr, UnitAttr
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import BlockArgument, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from bitfold.backends.riscv.lowering.value_ranges import Range, body_ranges, constant_value, type_range
from bitfold.backends.riscv.schedule.weight_panels import ModuleGlobals, element_values
from bitfold.dialects.onnx.constant import dense_attr


def _table(generic: linalg.GenericOp, value: SSAValue, globals_: ModuleGlobals) -> tuple[int, memref.GlobalOp] | None:
    """(input index, constant global) of a block argument reading a constant global."""
    if not isinstance(value, BlockArgument) or value.block is not generic.body.block:
        return None
    if value.index >= len(generic.inputs):
        return None
    global_op = globals_.constant_global(generic.inputs[value.index])
    return None if global_op is None else (value.index, global_op)


def _values(generic: linalg.GenericOp, value: SSAValue, globals_: ModuleGlobals) -> np.ndarray | None:
    """The constant's value (one element) or the table's elements, as int64."""
    constant = constant_value(value)
    if constant is not None:
        return np.array([constant], dtype=np.int64)
    table = _table(generic, value, globals_)
    return None if table is None else element_values(table[1])


def _split(op: arith.AddiOp) -> tuple[SSAValue, int] | None:
    """(s, c) of `s + c` with c a constant, either operand."""
    for s, c in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
        constant = constant_value(c)
        if constant is not None and constant_value(s) is None:
            return s, constant
    return None


def _fits(h: Range, values: np.ndarray, whole: Range) -> bool:
    """Whether h + v stays within `whole` for every h in the range and v among the values."""
    return whole[0] <= h[0] + int(values.min()) and h[1] + int(values.max()) <= whole[1]


def _replace_table(generic: linalg.GenericOp, index: int, global_op: memref.GlobalOp, values: np.ndarray,
                   globals_: ModuleGlobals) -> None:
    """The generic's input `index` reads a new constant global of `values` (the old global's type);
    the old `memref.get_global` is erased where nothing else reads it (the global: by the pass)."""
    element = global_op.type.get_element_type()
    memref_type = MemRefType(element, global_op.type.get_shape())
    name = globals_.fresh_name(global_op.sym_name.data, "offset")
    new_global = memref.GlobalOp.get(StringAttr(name), memref_type, dense_attr(values, element),
                                     StringAttr("private"), UnitAttr())
    Rewriter.insert_op(new_global, InsertPoint.after(global_op))
    globals_.register_global(new_global)
    get = memref.GetGlobalOp(name, memref_type)
    Rewriter.insert_op(get, InsertPoint.before(generic))
    old = generic.inputs[index]
    generic.operands[index] = get.memref
    if not old.uses:
        Rewriter.erase_op(old.owner)


def fold_shifted_offsets(generic: linalg.GenericOp, globals_: ModuleGlobals) -> list[memref.GlobalOp]:
    """Every `((h + r) >>s k) + c` of the body rewritten where it is exact (module docstring);
    the globals of the tables replaced. `globals_`: the module's globals, indexed once."""
    ranges = body_ranges(generic, globals_.constant_global)
    replaced = []
    for op in list(generic.body.block.ops):
        if not isinstance(op, arith.AddiOp) or not isinstance(op.result.type, IntegerType):
            continue
        if (split := _split(op)) is None:
            continue
        s, c = split
        shift = s.owner
        if not isinstance(shift, arith.ShRSIOp) or not s.has_one_use() or not shift.lhs.has_one_use():
            continue
        rounding = shift.lhs.owner
        k = _values(generic, shift.rhs, globals_)
        if not isinstance(rounding, arith.AddiOp) or k is None or k.min() < 0 or k.max() >= op.result.type.width.data:
            continue
        for h, r in ((rounding.lhs, rounding.rhs), (rounding.rhs, rounding.lhs)):
            if h in ranges and (folded := _fold(generic, rounding, h, r, shift.rhs, c, ranges[h], globals_)) is not None:
                replaced += [folded] if isinstance(folded, memref.GlobalOp) else []
                constant = op.rhs if op.lhs is s else op.lhs
                op.result.replace_all_uses_with(s)
                Rewriter.erase_op(op)
                if isinstance(constant.owner, arith.ConstantOp) and not constant.uses:
                    Rewriter.erase_op(constant.owner)
                break
    return replaced


def _paired(generic: linalg.GenericOp, first: SSAValue, second: SSAValue, globals_: ModuleGlobals) -> bool:
    """Whether two tables are read element by element alike: the same indexing map and shape."""
    (i, a), (j, b) = _table(generic, first, globals_), _table(generic, second, globals_)
    return generic.indexing_maps.data[i] == generic.indexing_maps.data[j] and a.type.get_shape() == b.type.get_shape()


def _fold(generic: linalg.GenericOp, rounding: arith.AddiOp, h: SSAValue, r: SSAValue, k: SSAValue, c: int,
          h_range: Range, globals_: ModuleGlobals) -> memref.GlobalOp | bool | None:
    """r replaced by r' = r + c 2^k in `rounding` = h + r, where r is a constant (k one too) or a
    table the rounding alone reads (k a constant or a paired table) and neither r' nor h + r' can
    wrap: the replaced table's global, True for a constant, None where it was not."""
    offsets, shifts = _values(generic, r, globals_), _values(generic, k, globals_)
    table = _table(generic, r, globals_)
    if offsets is None or (table is None and shifts.size > 1) or (table is not None and not r.has_one_use()):
        return None
    if table is not None and _table(generic, k, globals_) is not None and not _paired(generic, r, k, globals_):
        return None
    folded = offsets + (np.int64(c) << shifts)
    whole = type_range(rounding.result)
    if not (_fits(h_range, folded, whole) and _fits((0, 0), folded, whole)):
        return None
    if table is None:
        new = arith.ConstantOp(IntegerAttr(int(folded[0]), rounding.result.type))
        Rewriter.insert_op(new, InsertPoint.before(rounding))
        rounding.operands[1 if rounding.rhs is r else 0] = new.result
        return True
    _replace_table(generic, table[0], table[1], folded, globals_)
    return table[1]


class BitfoldRiscvFoldShiftedOffsetsPass(ModulePass):
    """A constant added after an arithmetic right shift folded into the offset added before it
    (module docstring)."""

    name = "bitfold-riscv-fold-shifted-offsets"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        globals_ = ModuleGlobals(op)
        replaced = [t for g in op.walk() if isinstance(g, linalg.GenericOp) for t in fold_shifted_offsets(g, globals_)]
        if replaced:
            read = {get.name_.root_reference.data for get in op.walk() if isinstance(get, memref.GetGlobalOp)}
            for global_op in set(replaced):
                if global_op.sym_name.data not in read:
                    Rewriter.erase_op(global_op)

"""Signed ranges [low, high] of the integer values of a `linalg.generic` body, by interval arithmetic
forward through its ops (what the backend may assume about a value without knowing it: a sum that
cannot wrap, a sign test that cannot be fooled by overflow).

A block argument of an input that reads a constant global (a requantization table) ranges over the
global's elements; any other argument, and any value of an op not listed here, over its whole type
(signed: an iN holds [-2^(N-1), 2^(N-1) - 1]). Rules, each sound for every value in the operands'
ranges:

    constant c              [c, c]
    extsi / extui x         x's range / [0, 2^N - 1] (x's range where it is not negative)
    addi, subi, muli        the exact result's range where it fits the type, else the whole type
    mulsi_extended x, y     high word: floor(p / 2^N) over the product's range p (the low word: whole type)
    shrsi x, k              k in [0, N): x >> k is monotone in x and moves toward 0 or -1 as k grows,
                            so the extremes are at the corners of the two ranges
    maxsi, minsi            the max / min of the bounds
    memref.load t[i]        t a constant global (a lookup table): its smallest to largest element
"""

from collections.abc import Callable

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IntegerAttr, IntegerType
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation, SSAValue

from bitfold.backends.kernel.bufferize import constant_global
from bitfold.backends.riscv.lowering.registers import canonical_constant
from bitfold.backends.riscv.schedule.weight_panels import element_values

Range = tuple[int, int]


def type_range(value: SSAValue) -> Range | None:
    """The signed range of the value's integer type (None for i1 and non-integers)."""
    if not isinstance(value.type, IntegerType) or value.type.width.data < 2:
        return None
    width = value.type.width.data
    return -(1 << (width - 1)), (1 << (width - 1)) - 1


def _fits(value: SSAValue, bounds: Range) -> Range | None:
    whole = type_range(value)
    if whole is None:
        return None
    return bounds if whole[0] <= bounds[0] and bounds[1] <= whole[1] else whole


def _corners(x: Range, y: Range, combine: Callable[[int, int], int]) -> Range:
    values = [combine(a, b) for a in x for b in y]
    return min(values), max(values)


def _shift_right(x: Range, k: Range, width: int) -> Range | None:
    if not 0 <= k[0] <= k[1] < width:
        return None
    return _corners(x, k, lambda a, b: a >> b)


def constant_value(value: SSAValue) -> int | None:
    """The signed value of an integer `arith.constant` (of two bits or more), else None."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr) and type_range(value):
        return canonical_constant(owner.value.value.data, value.type.width.data)
    return None


def _constant_range(value: SSAValue) -> Range | None:
    """[c, c] for a constant (defined in the body or hoisted out of it), else None."""
    constant = constant_value(value)
    return None if constant is None else (constant, constant)


def _of_op(op: Operation, ranges: dict[SSAValue, Range],
           constant_of: Callable[[SSAValue], memref.GlobalOp | None]) -> dict[SSAValue, Range]:
    """The ranges of `op`'s results that a rule above gives (the others: none)."""
    operands = [ranges.get(v, _constant_range(v)) for v in op.operands]
    match op:
        case arith.ConstantOp() if constant_value(op.result) is not None:
            return {op.result: _constant_range(op.result)}
        case arith.ExtSIOp() if operands[0] is not None:
            return {op.result: operands[0]}
        case arith.ExtUIOp() if isinstance(op.input.type, IntegerType):
            if operands[0] is not None and operands[0][0] >= 0:
                return {op.result: operands[0]}
            return {op.result: (0, (1 << op.input.type.width.data) - 1)}
        case arith.AddiOp() | arith.SubiOp() | arith.MuliOp() if None not in operands:
            combine = {arith.AddiOp: int.__add__, arith.SubiOp: int.__sub__, arith.MuliOp: int.__mul__}[type(op)]
            return {op.result: _fits(op.result, _corners(operands[0], operands[1], combine))}
        case arith.MulSIExtendedOp() if None not in operands:
            width = op.lhs.type.width.data
            low, high = _corners(operands[0], operands[1], int.__mul__)
            return {op.high: (low >> width, high >> width)}
        case arith.ShRSIOp() if None not in operands:
            bounds = _shift_right(operands[0], operands[1], op.lhs.type.width.data)
            return {} if bounds is None else {op.result: bounds}
        case arith.MaxSIOp() | arith.MinSIOp() if None not in operands:
            pick = max if isinstance(op, arith.MaxSIOp) else min
            return {op.result: (pick(operands[0][0], operands[1][0]), pick(operands[0][1], operands[1][1]))}
        case memref.LoadOp() if (table := constant_of(op.memref)) is not None:
            values = element_values(table)
            return {op.res: (int(values.min()), int(values.max()))} if values.size else {}
    return {}


def body_ranges(
    generic: linalg.GenericOp, constant_of: Callable[[SSAValue], memref.GlobalOp | None] = constant_global
) -> dict[SSAValue, Range]:
    """The range of every integer value of the generic's body (module docstring); `constant_of`
    finds the constant global a buffer reads (a pass over many generics gives its module's index,
    `ModuleGlobals.constant_global`: one lookup is then O(1), not a walk of the module)."""
    block = generic.body.block
    ranges: dict[SSAValue, Range] = {}
    for argument, operand in zip(block.args, generic.operands, strict=True):
        whole = type_range(argument)
        if whole is None:
            continue
        global_op = constant_of(operand) if operand in generic.inputs else None
        if global_op is not None:
            values = element_values(global_op)
            ranges[argument] = (int(values.min()), int(values.max())) if values.size else whole
        else:
            ranges[argument] = whole
    for op in block.ops:
        known = _of_op(op, ranges, constant_of)
        for result in op.results:
            whole = type_range(result)
            if whole is not None:
                ranges[result] = known.get(result, whole)
    return ranges

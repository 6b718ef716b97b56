"""`bitfold-riscv-soft-float`: f32 arith on targets without F (rv32im, rv64im): an f32 value is its
IEEE binary32 bits in an integer register (sign-extended on RV64, the register convention of
`registers.py`); each op is integer arith or a call of libgcc's soft-float routine, which rounds to
nearest even as IEEE binary32 does (the caller must link libgcc: the header says so):

    addf subf mulf divf          __addsf3 __subsf3 __mulsf3 __divsf3
    sitofp / uitofp (<= i32)     __floatsisf / __floatunsisf (narrower values extended to i32)
    fptosi / fptoui (<= i32)     __fixsfsi / __fixunssfsi (toward zero), truncated to the width
    cmpf                         oeq: __eqsf2 == 0, une: __nesf2 != 0, olt: __ltsf2 < 0,
                                 ole: __lesf2 <= 0, ogt: __gtsf2 > 0, oge: __gesf2 >= 0,
                                 uno: __unordsf2 != 0; ord, one and the other unordered
                                 predicates are their negations and conjunctions
    negf, absf, copysign         xor / and / or with the sign bit
    select, bitcast, constant    the bits themselves
    maximumf / minimumf          integer compare of the order key k(b) = b ^ ((b >>s 31) & 0x7FFFFFFF)
                                 (monotone in the float's value, -0 below +0); the canonical NaN
                                 0x7FC00000 when an operand is NaN ((b & 0x7FFFFFFF) >u 0x7F800000)
    maxnumf / minnumf            the same compare; a NaN operand gives the other one

NaN results of the libgcc routines carry an operand's payload (where hardware F gives the
canonical NaN): NaN stays NaN, its bits may differ. Each call is an `rvfloat.libcall`, an
instruction to the register allocator; `bitfold-riscv-expand-calls` makes it a call after
allocation (`soft_float_calls.py`). f32 values a loop carries (a float reduction) are carried as
their bits (`carry_bits`); any other op on a float is refused in one line naming it."""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, math, riscv, scf
from xdsl.dialects.builtin import (
    Float32Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    UnrealizedConversionCastOp,
    f32,
    i1,
    i32,
)
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.rewriter import Rewriter
from xdsl.utils.bitwise_casts import convert_f32_to_u32

from bitfold.backends.riscv.lowering.float_instructions import LibcallOp
from bitfold.backends.riscv.lowering.lower_floats import (
    CANONICAL_NAN,
    FLOAT_DIALECTS,
    INFINITY_BITS,
    drop,
    is_float,
    is_number_constant,
    refuse_floats,
)
from bitfold.dialects.op_sequence import OpSequence
from bitfold.backends.riscv.lowering.registers import canonical_constant

SIGN = -(2**31)
"""0x80000000 as an i32"""
MAGNITUDE = 2**31 - 1

ROUTINES = {arith.AddfOp: "__addsf3", arith.SubfOp: "__subsf3", arith.MulfOp: "__mulsf3", arith.DivfOp: "__divsf3"}

# arith.cmpf predicates: (routine, integer predicate on its result against 0) for the direct ones
ORDERED = {
    1: ("__eqsf2", "eq"),  # oeq
    2: ("__gtsf2", "sgt"),  # ogt
    3: ("__gesf2", "sge"),  # oge
    4: ("__ltsf2", "slt"),  # olt
    5: ("__lesf2", "sle"),  # ole
    13: ("__nesf2", "ne"),  # une
    14: ("__unordsf2", "ne"),  # uno
}
NEGATED = {7: 14, 9: 5, 10: 4, 11: 3, 12: 2}
"""ord = !uno, ugt = !ole, uge = !olt, ult = !oge, ule = !ogt"""
ONE, UEQ, FALSE, TRUE = 6, 8, 0, 15


class _Emitter(OpSequence):
    """The pass's ops in emission order, with helpers for integer constants and libcalls."""

    def constant(self, value: int, type_=i32) -> SSAValue:
        return self(arith.ConstantOp(IntegerAttr(value, type_)))

    def bits(self, value: SSAValue) -> SSAValue:
        """An f32 value as its i32 bits (a cast that `reconcile-unrealized-casts` removes)."""
        if isinstance(value.type, Float32Type):
            return self(UnrealizedConversionCastOp.get((value,), (i32,)))
        return value

    def call(self, routine: str, *arguments: SSAValue) -> SSAValue:
        registers = [self(UnrealizedConversionCastOp.get((a,), (riscv.Registers.UNALLOCATED_INT,))) for a in arguments]
        result = self(LibcallOp(routine, registers))
        return self(UnrealizedConversionCastOp.get((result,), (i32,)))

    def compare(self, predicate: int, a: SSAValue, b: SSAValue) -> SSAValue:
        """The i1 of `cmpf predicate a, b` on bits."""
        if predicate in (FALSE, TRUE):
            return self.constant(int(predicate == TRUE), i1)
        if predicate in NEGATED or predicate in (ONE, UEQ):
            if predicate in NEGATED:
                direct = self.compare(NEGATED[predicate], a, b)
            else:
                direct = self(arith.OrIOp(self.compare(4, a, b), self.compare(2, a, b)))  # ueq = !(olt | ogt)
                if predicate == ONE:
                    return direct
            return self(arith.XOrIOp(direct, self.constant(1, i1)))
        routine, integer_predicate = ORDERED[predicate]
        return self(arith.CmpiOp(self.call(routine, a, b), self.constant(0), integer_predicate))

    def is_nan(self, bits: SSAValue) -> SSAValue:
        magnitude = self(arith.AndIOp(bits, self.constant(MAGNITUDE)))
        return self(arith.CmpiOp(magnitude, self.constant(INFINITY_BITS), "ugt"))

    def order_key(self, bits: SSAValue) -> SSAValue:
        sign = self(arith.ShRSIOp(bits, self.constant(31)))
        return self(arith.XOrIOp(bits, self(arith.AndIOp(sign, self.constant(MAGNITUDE)))))

    def ordered_pick(self, x: list[SSAValue], larger: bool) -> SSAValue:
        """The larger (or smaller) of two f32 bit patterns by their order keys (-0 below +0)."""
        above = self(arith.CmpiOp(self.order_key(x[0]), self.order_key(x[1]), "sgt"))
        return self(arith.SelectOp(above, x[0], x[1]) if larger else arith.SelectOp(above, x[1], x[0]))


@dataclass
class LowerSoftFloat(RewritePattern):
    """The f32 ops of the module docstring, as i32 arith and libcalls."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op.dialect_name() not in FLOAT_DIALECTS or not any(is_float(v.type) for v in (*op.operands, *op.results)):
            return
        emit = _Emitter()
        result = self._lower(op, emit)
        if result is None:
            drop(emit.ops)
            return
        if isinstance(op.results[0].type, Float32Type):
            result = emit(UnrealizedConversionCastOp.get((result,), (op.results[0].type,)))
        rewriter.replace(op, emit.ops, [result])

    @staticmethod
    def _lower(op: Operation, emit: _Emitter) -> SSAValue | None:
        x = [emit.bits(v) for v in op.operands]
        match op:
            case arith.ConstantOp(value=FloatAttr() as value) if isinstance(op.result.type, Float32Type):
                return emit.constant(canonical_constant(convert_f32_to_u32(value.value.data), 32))
            case arith.AddfOp() | arith.SubfOp() | arith.MulfOp() | arith.DivfOp():
                return emit.call(ROUTINES[type(op)], x[0], x[1])
            case arith.NegfOp():
                return emit(arith.XOrIOp(x[0], emit.constant(SIGN)))
            case math.AbsFOp():
                return emit(arith.AndIOp(x[0], emit.constant(MAGNITUDE)))
            case math.CopySignOp():
                magnitude = emit(arith.AndIOp(x[0], emit.constant(MAGNITUDE)))
                return emit(arith.OrIOp(magnitude, emit(arith.AndIOp(x[1], emit.constant(SIGN)))))
            case arith.SelectOp():
                return emit(arith.SelectOp(x[0], x[1], x[2]))
            case arith.BitcastOp():
                return x[0]
            case arith.CmpfOp():
                return emit.compare(op.predicate.value.data, x[0], x[1])
            case arith.MaximumfOp() | arith.MinimumfOp():
                picked = emit.ordered_pick(x, larger=isinstance(op, arith.MaximumfOp))
                tests = [emit.is_nan(bits) for bits, v in zip(x, op.operands) if not is_number_constant(v)]
                if not tests:
                    return picked
                nan = tests[0] if len(tests) == 1 else emit(arith.OrIOp(*tests))
                return emit(arith.SelectOp(nan, emit.constant(CANONICAL_NAN), picked))
            case arith.MaxnumfOp() | arith.MinnumfOp():
                picked = emit.ordered_pick(x, larger=isinstance(op, arith.MaxnumfOp))
                for k in (0, 1):  # a NaN operand gives the other one
                    if not is_number_constant(op.operands[k]):
                        picked = emit(arith.SelectOp(emit.is_nan(x[k]), x[1 - k], picked))
                return picked
            case arith.SIToFPOp() | arith.UIToFPOp() if isinstance(op.result.type, Float32Type):
                width = op.operands[0].type.width.data if isinstance(op.operands[0].type, IntegerType) else 64
                if width > 32:
                    return None
                signed = isinstance(op, arith.SIToFPOp)
                value = x[0] if width == 32 else emit((arith.ExtSIOp if signed else arith.ExtUIOp)(x[0], i32))
                return emit.call("__floatsisf" if signed or width < 32 else "__floatunsisf", value)
            case arith.FPToSIOp() | arith.FPToUIOp() if isinstance(op.operands[0].type, Float32Type):
                result_type = op.results[0].type
                width = result_type.width.data if isinstance(result_type, IntegerType) else 64
                if width > 32:
                    return None
                value = emit.call("__fixsfsi" if isinstance(op, arith.FPToSIOp) else "__fixunssfsi", x[0])
                return value if width == 32 else emit(arith.TruncIOp(value, result_type))
        return None


def _cast(value: SSAValue, type_) -> UnrealizedConversionCastOp:
    return UnrealizedConversionCastOp.get((value,), (type_,))


def carry_bits(module: ModuleOp) -> None:
    """f32 values carried by `scf.for` loops (float reductions) carried as their i32 bits, with
    casts at the loop's edges: the integer registers the soft-float code keeps f32 in."""
    for loop in [op for op in module.walk() if isinstance(op, scf.ForOp)]:
        block = loop.body.block
        yield_op = block.last_op
        for k, init in enumerate(loop.iter_args):
            if not isinstance(init.type, Float32Type):
                continue
            into = _cast(init, i32)
            loop.parent_block().insert_op_before(into, loop)
            loop.operands[len(loop.operands) - len(loop.iter_args) + k] = into.results[0]
            argument = Rewriter.replace_value_with_new_type(block.args[1 + k], i32)
            as_float = _cast(argument, f32)
            block.insert_op_before(as_float, block.first_op)
            argument.replace_uses_with_if(as_float.results[0], lambda use: use.operation is not as_float)
            out = _cast(yield_op.operands[k], i32)
            block.insert_op_before(out, yield_op)
            yield_op.operands[k] = out.results[0]
            result = Rewriter.replace_value_with_new_type(loop.results[k], i32)
            back = _cast(result, f32)
            loop.parent_block().insert_op_after(back, loop)
            result.replace_uses_with_if(back.results[0], lambda use: use.operation is not back)


@dataclass(frozen=True)
class BitfoldRiscvSoftFloatPass(ModulePass):
    """f32 arith as integer arith and libgcc calls (module docstring); any float op left is an error."""

    name = "bitfold-riscv-soft-float"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        refuse_floats(op, allowed=(Float32Type,))
        carry_bits(op)
        PatternRewriteWalker(LowerSoftFloat(), apply_recursively=False).rewrite_module(op)
        refuse_floats(op)

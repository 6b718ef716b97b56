"""Upstream MLIR vector ops that xDSL 0.74 lacks, defined with upstream's syntax so that bitfold can
build them and `mlir-opt-22` reads them: `vector.vscale`, `vector.step`, `vector.gather`,
`vector.scatter`, and the LLVM dialect's `llvm.intr.stepvector` (`vector.step` on i32 lanes, which
`vector.step` cannot give: its lanes are `index`) and `llvm.mlir.poison` (no lowering pass needed)."""

from xdsl.dialects.builtin import IndexType, MemRefType, VectorType
from xdsl.ir import SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def, traits_def, var_operand_def
from xdsl.traits import Pure


class NullaryOp(IRDLOperation):
    """A pure op of no operands and one result."""

    result = result_def()
    traits = traits_def(Pure())

    def __init__(self, result_type: IndexType | VectorType):
        super().__init__(result_types=[result_type])


@irdl_op_definition
class VectorScaleOp(NullaryOp):
    """`vector.vscale : index`: the runtime multiple of a scalable vector's lanes (VLEN / 64 on RVV)."""

    name = "vector.vscale"
    result = result_def(IndexType)
    assembly_format = "attr-dict"


@irdl_op_definition
class StepOp(NullaryOp):
    """`vector.step : vector<[N]xindex>`: the lanes' indices 0, 1, 2, ..."""

    name = "vector.step"
    result = result_def(VectorType)
    assembly_format = "attr-dict `:` type($result)"


@irdl_op_definition
class PoisonOp(NullaryOp):
    """`llvm.mlir.poison : T`: a value no lane of which is ever observed (a masked load's pass-through where the
    masked-off lanes are never stored): LLVM leaves those lanes as they are."""

    name = "llvm.mlir.poison"
    result = result_def(VectorType)
    assembly_format = "attr-dict `:` type($result)"


@irdl_op_definition
class LlvmStepVectorOp(NullaryOp):
    """`llvm.intr.stepvector : vector<[N]xi32>`: the lanes' indices 0, 1, 2, ... as integers."""

    name = "llvm.intr.stepvector"
    result = result_def(VectorType)
    assembly_format = "attr-dict `:` type($result)"


@irdl_op_definition
class GatherOp(IRDLOperation):
    """`vector.gather`: lane k reads base[i0, ..., in + index_vec[k]]
    where its mask bit is set, else takes pass_thru's lane k."""

    name = "vector.gather"
    base = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    index_vec = operand_def(VectorType)
    mask = operand_def(VectorType)
    pass_thru = operand_def(VectorType)
    result = result_def(VectorType)
    assembly_format = ("$base `[` $indices `]` `[` $index_vec `]` `,` $mask `,` $pass_thru attr-dict `:` type($base) "
                       "`,` type($index_vec) `,` type($mask) `,` type($pass_thru) `into` type($result)")

    def __init__(self, base: SSAValue, indices: list[SSAValue], index_vec: SSAValue, mask: SSAValue,
                 pass_thru: SSAValue):
        super().__init__(operands=[base, indices, index_vec, mask, pass_thru], result_types=[pass_thru.type])


@irdl_op_definition
class ScatterOp(IRDLOperation):
    """`vector.scatter`: base[i0, ..., in + index_vec[k]] = value's lane k where its mask bit is set."""

    name = "vector.scatter"
    base = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    index_vec = operand_def(VectorType)
    mask = operand_def(VectorType)
    value = operand_def(VectorType)
    assembly_format = ("$base `[` $indices `]` `[` $index_vec `]` `,` $mask `,` $value attr-dict `:` type($base) "
                       "`,` type($index_vec) `,` type($mask) `,` type($value)")

    def __init__(self, base: SSAValue, indices: list[SSAValue], index_vec: SSAValue, mask: SSAValue, value: SSAValue):
        super().__init__(operands=[base, indices, index_vec, mask, value])

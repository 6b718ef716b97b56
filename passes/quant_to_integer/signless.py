"""Storage integers are signless after quant-to-integer (docs/integer-ir.md). IR imported
from ONNX carries uint8 data as `ui8` between a `quant.scast` and the ONNX ops that move it
(a QOp model's MaxPool or Flatten between QLinear ops):

- `SinkStorageCast`: `op(scast(q : T -> iN))` -> `scast(op(q) : T -> iN)` for a per-tensor T
  and a data-movement op or MaxPool (their result holds the same stored values, so the type
  carries over): MaxPool then becomes integer like any other, and the scast pairs fold.
- `make_storage_signless`: what remains `uiN` / `siN` on scasts and data-movement ops (not
  on constants, whose attribute fixes their type, and not on ops whose result depends on the
  signedness) becomes `iN`, the same bits. A value the function returns keeps the model's
  `uiN` / `siN`: the signature stays the model's (`integer_io` makes it signless)."""

from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerType, ModuleOp, Signedness, TensorType
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import Rewriter

from bitfold.dialects.onnx.elementwise import WhereOp
from bitfold.dialects.onnx.nn import MaxPoolOp
from bitfold.dialects.onnx.replication import ExpandOp, TileOp
from bitfold.dialects.onnx.shape import ConcatOp, FlattenOp, PadOp, ReshapeOp, SqueezeOp, TransposeOp, UnsqueezeOp
from bitfold.dialects.quant import Granularity, QuantizedType, StorageCastOp, element_type

RESHAPES = (FlattenOp, ReshapeOp, SqueezeOp, UnsqueezeOp, TransposeOp, ExpandOp, TileOp)
"""Single-input ops whose result holds the input's values rearranged (or repeated)."""
MOVES_DATA = (*RESHAPES, ConcatOp, PadOp, WhereOp)
"""Ops whose result holds their data operands' values, whatever their signedness."""


def _signed_storage(value_type) -> bool:
    return (
        isinstance(value_type, TensorType)
        and isinstance(element := value_type.element_type, IntegerType)
        and element.signedness.data != Signedness.SIGNLESS
    )


class SinkStorageCast(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, (*RESHAPES, MaxPoolOp)) or len(op.results) != 1:
            return
        cast = op.operands[0].owner
        result_type = op.results[0].type
        if not isinstance(cast, StorageCastOp) or not isinstance(result_type, TensorType):
            return
        qtype = element_type(cast.input.type)
        if not isinstance(qtype, QuantizedType) or getattr(qtype, "kind", None) != Granularity.PER_TENSOR:
            return
        moved = op.clone()
        moved.operands[0] = cast.input
        Rewriter.replace_value_with_new_type(moved.results[0], TensorType(qtype, result_type.get_shape()))
        rewriter.replace(op, [moved, back := StorageCastOp(moved.results[0], result_type)], [back.result])


def make_storage_signless(module: ModuleOp) -> None:
    """Retype the `uiN` / `siN` tensor results of scasts and `MOVES_DATA` ops to `iN`, but not
    a result the function returns."""
    for op in list(module.walk()):
        if not isinstance(op, (StorageCastOp, *MOVES_DATA)):
            continue
        for result in op.results:
            returned = any(isinstance(u.operation, func.ReturnOp) for u in result.uses)
            if _signed_storage(result.type) and not returned:
                signless = TensorType(IntegerType(result.type.element_type.width), result.type.get_shape())
                Rewriter.replace_value_with_new_type(result, signless)

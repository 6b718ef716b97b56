"""Named pipelines: the main paths through bitfold's passes, each one pass name for `-p`.

    onnx-to-quant-form    onnx-conv-transpose-to-conv, onnx-to-quant,  (the canonical quant form)
                          canonicalize-quant
    onnx-to-integer       ... then quant-to-integer, lower-quant,     (integer arith + linalg, and
                          onnx-float-to-linalg, expand-float-math    f32 arith in float islands)
    onnx-to-backend-input   ... then onnx-data-movement-to-linalg      (what the RISC-V backend reads)

`integer-io` and `integer-only` (on the last two) pass through to `quant-to-integer`: the
function then takes and returns storage integers; any float island fails the pipeline. Each is a `ModulePass` running its stages in order, so
`bitfold-opt model.onnx -p onnx-to-integer{integer-io=true}` equals the spelled-out list."""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from bitfold.passes.canonicalize_quant import CanonicalizeQuantPass
from bitfold.passes.lower_quant import LowerQuantPass
from bitfold.passes.onnx_to_quant import OnnxToQuantPass
from bitfold.passes.quant_to_integer import QuantToIntegerPass


def quant_form_stages() -> list[ModulePass]:
    from bitfold.passes.onnx_conv_transpose_to_conv import OnnxConvTransposeToConvPass

    return [OnnxConvTransposeToConvPass(), OnnxToQuantPass(), CanonicalizeQuantPass()]


def integer_stages(integer_io: bool, integer_only: bool = False) -> list[ModulePass]:
    from bitfold.passes.expand_float_math import ExpandFloatMathPass
    from bitfold.passes.onnx_float_to_linalg import OnnxFloatToLinalgPass

    return [
        *quant_form_stages(),
        QuantToIntegerPass(integer_io=integer_io, integer_only=integer_only),
        LowerQuantPass(),
        OnnxFloatToLinalgPass(),
        ExpandFloatMathPass(),
    ]


def backend_input_stages(integer_io: bool, integer_only: bool = False) -> list[ModulePass]:
    from bitfold.passes.onnx_data_movement_to_linalg import OnnxDataMovementToLinalgPass

    return [*integer_stages(integer_io, integer_only), OnnxDataMovementToLinalgPass()]


def _run(stages: list[ModulePass], ctx: Context, op: ModuleOp) -> None:
    for stage in stages:
        stage.apply(ctx, op)


@dataclass(frozen=True)
class OnnxToQuantFormPipeline(ModulePass):
    """onnx-conv-transpose-to-conv, onnx-to-quant, canonicalize-quant."""

    name = "onnx-to-quant-form"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _run(quant_form_stages(), ctx, op)


@dataclass(frozen=True)
class OnnxToIntegerPipeline(ModulePass):
    """onnx-conv-transpose-to-conv, onnx-to-quant, canonicalize-quant,
    quant-to-integer{integer-io integer-only},
    lower-quant, onnx-float-to-linalg, expand-float-math."""

    name = "onnx-to-integer"

    integer_io: bool = False
    integer_only: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _run(integer_stages(self.integer_io, self.integer_only), ctx, op)


@dataclass(frozen=True)
class OnnxToBackendInputPipeline(ModulePass):
    """onnx-to-integer{integer-io integer-only}, then onnx-data-movement-to-linalg."""

    name = "onnx-to-backend-input"

    integer_io: bool = True
    integer_only: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _run(backend_input_stages(self.integer_io, self.integer_only), ctx, op)

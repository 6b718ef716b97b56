"""The names of bitfold's dialects, passes and targets, with factories that import lazily
(so that `xdsl-opt` start-up does not pay for what a run does not use)."""

from collections.abc import Callable
from importlib import import_module

from xdsl.ir import Dialect
from xdsl.passes import ModulePass
from xdsl.utils.target import Target


def _quant() -> Dialect:
    from bitfold.dialects.quant import Quant

    return Quant


def _onnx() -> Dialect:
    from bitfold.dialects.onnx import Onnx

    return Onnx


def _qonnx() -> Dialect:
    from bitfold.dialects.qonnx import QOnnx

    return QOnnx


def _rvfloat() -> Dialect:
    from bitfold.backends.riscv.float_instructions import RvFloat

    return RvFloat


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    """bitfold's dialects by name (`rvfloat`: the RISC-V code generator's float instructions and
    libgcc calls, so that IR between its passes parses)."""
    return {"quant": _quant, "onnx": _onnx, "qonnx": _qonnx, "rvfloat": _rvfloat}


def _lazy(module: str, name: str) -> Callable[[], type]:
    """A factory importing `name` from `bitfold.<module>` when first called."""

    def load() -> type:
        return getattr(import_module(f"bitfold.{module}"), name)

    return load


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """bitfold's passes by name (`canonicalize` also applies the quant dialect's patterns)."""
    return {
        "onnx-to-quant": _lazy("passes.onnx_to_quant", "OnnxToQuantPass"),
        "canonicalize-quant": _lazy("passes.canonicalize_quant", "CanonicalizeQuantPass"),
        "verify-quant": _lazy("passes.verify_quant", "VerifyQuantPass"),
        "quant-to-integer": _lazy("passes.quant_to_integer", "QuantToIntegerPass"),
        "lower-quant": _lazy("passes.lower_quant", "LowerQuantPass"),
        "quant-requant-to-upstream": _lazy("passes.quant_requant_to_upstream", "QuantRequantToUpstreamPass"),
        "calibrated-to-uniform": _lazy("passes.calibration.calibrated_to_uniform", "CalibratedToUniformPass"),
        "onnx-to-quant-form": _lazy("passes.pipelines", "OnnxToQuantFormPipeline"),
        "onnx-to-integer": _lazy("passes.pipelines", "OnnxToIntegerPipeline"),
        "onnx-to-backend-input": _lazy("passes.pipelines", "OnnxToBackendInputPipeline"),
        "onnx-data-movement-to-linalg": _lazy("passes.onnx_data_movement_to_linalg", "OnnxDataMovementToLinalgPass"),
        "bufferize": _lazy("passes.bufferize", "BufferizePass"),
        "bitfold-vector-contraction": _lazy("backends.llvm.vector_contraction", "VectorContractionPass"),
        "bitfold-register-tiled-loops": _lazy("backends.riscv.register_tiled_loops", "BitfoldRegisterTiledLoopsPass"),
        "bitfold-linalg-to-loops": _lazy("backends.riscv.linalg_to_loops", "BitfoldLinalgToLoopsPass"),
        "bitfold-riscv-copy-loop-values": _lazy("backends.riscv.loop_value_copies", "CopyLoopValuesPass"),
        "bitfold-riscv-sink-constants": _lazy("backends.riscv.constant_sinking", "SinkConstantsPass"),
        "bitfold-expand-float-rounding": _lazy("backends.riscv.float_rounding", "ExpandFloatRoundingPass"),
        "bitfold-float-to-riscv": _lazy("backends.riscv.lower_floats", "FloatToRiscvPass"),
        "bitfold-soft-float": _lazy("backends.riscv.soft_float", "SoftFloatPass"),
        "bitfold-riscv-expand-calls": _lazy("backends.riscv.soft_float_calls", "ExpandCallsPass"),
        "bitfold-riscv-allocate-registers": _lazy("backends.riscv.register_allocation", "BitfoldAllocateRegistersPass"),
        "bitfold-riscv-prologue-epilogue": _lazy("backends.riscv.prologue", "BitfoldPrologueEpiloguePass"),
    }


def get_onnx_targets() -> dict[str, Callable[[], type[Target]]]:
    """The ONNX exporters, one a quantization form. Their output is binary, which only bitfold-opt's
    driver can write (xdsl-opt hands a target a text buffer), so the xdsl-opt plugin leaves them out."""
    return {
        f"onnx-{form}": _lazy("backends.onnx.targets", f"Onnx{form.capitalize()}Target")
        for form in ("qdq", "qcdq", "qonnx", "qop")
    }


def get_text_targets() -> dict[str, Callable[[], type[Target]]]:
    """bitfold's text output targets: RISC-V assembly."""
    return {"bitfold-riscv-asm": _lazy("backends.riscv.target", "RiscvAsmTarget")}


def get_all_targets() -> dict[str, Callable[[], type[Target]]]:
    """bitfold's output targets by name: ONNX in each quantization form, RISC-V assembly."""
    return {**get_onnx_targets(), **get_text_targets()}

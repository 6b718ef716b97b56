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


def _rvmem() -> Dialect:
    from bitfold.backends.riscv.lowering.instructions import RvMem

    return RvMem


def _rvfloat() -> Dialect:
    from bitfold.backends.riscv.lowering.float_instructions import RvFloat

    return RvFloat


def _rvbound() -> Dialect:
    from bitfold.backends.riscv.lowering.branch_bounds import RvBound

    return RvBound


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    """bitfold's dialects by name (`rvmem`: the RISC-V backend's loads, stores and `la`;
    `rvfloat`: its float instructions and libgcc calls; `rvbound`: its min / max as a branch over
    a move; so that IR between its passes parses)."""
    return {
        "quant": _quant, "onnx": _onnx, "qonnx": _qonnx, "rvmem": _rvmem, "rvfloat": _rvfloat, "rvbound": _rvbound,
    }


def _lazy(module: str, name: str) -> Callable[[], type]:
    """A factory importing `name` from `bitfold.<module>` when first called."""

    def load() -> type:
        return getattr(import_module(f"bitfold.{module}"), name)

    return load


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """bitfold's passes by name, each runnable alone with `bitfold-opt -p NAME` (docs/design.md,
    "Pass names"). The kernel ABI's (`bufferize`, `widen-sub-byte-outputs`) come before both code
generators'; the RISC-V backend's are listed in `riscv_passes` order, then their named pipeline."""
    return {
        "onnx-to-quant": _lazy("passes.onnx_to_quant", "OnnxToQuantPass"),
        "onnx-conv-transpose-to-conv": _lazy("passes.onnx_conv_transpose_to_conv", "OnnxConvTransposeToConvPass"),
        "canonicalize-quant": _lazy("passes.canonicalize_quant", "CanonicalizeQuantPass"),
        "verify-quant": _lazy("passes.verify_quant", "VerifyQuantPass"),
        "quant-to-integer": _lazy("passes.quant_to_integer", "QuantToIntegerPass"),
        "lower-quant": _lazy("passes.lower_quant", "LowerQuantPass"),
        "quant-requant-to-upstream": _lazy("passes.quant_requant_to_upstream", "QuantRequantToUpstreamPass"),
        "calibrated-to-uniform": _lazy("passes.calibration.calibrated_to_uniform", "CalibratedToUniformPass"),
        "onnx-to-quant-form": _lazy("passes.pipelines", "OnnxToQuantFormPipeline"),
        "onnx-to-integer": _lazy("passes.pipelines", "OnnxToIntegerPipeline"),
        "onnx-to-backend-input": _lazy("passes.pipelines", "OnnxToBackendInputPipeline"),
        "onnx-float-to-linalg": _lazy("passes.onnx_float_to_linalg", "OnnxFloatToLinalgPass"),
        "expand-float-math": _lazy("passes.expand_float_math", "ExpandFloatMathPass"),
        "onnx-data-movement-to-linalg": _lazy("passes.onnx_data_movement_to_linalg", "OnnxDataMovementToLinalgPass"),
        "bufferize": _lazy("backends.kernel.bufferize", "BufferizePass"),
        "widen-sub-byte-outputs": _lazy("backends.kernel.sub_byte_outputs", "WidenSubByteOutputsPass"),
        "bitfold-llvm-vector-contraction": _lazy(
            "backends.llvm.vector_contraction", "BitfoldLlvmVectorContractionPass"
        ),
        "bitfold-llvm-merge-elementwise-rows": _lazy(
            "backends.llvm.elementwise_rows", "BitfoldLlvmMergeElementwiseRowsPass"
        ),
        "bitfold-llvm-vector-copy": _lazy("backends.llvm.vector_copy", "BitfoldLlvmVectorCopyPass"),
        "bitfold-llvm-index-to-i32": _lazy("backends.llvm.index_to_i32", "BitfoldLlvmIndexToI32Pass"),
        "bitfold-llvm-fptosi-by-bits": _lazy("backends.llvm.truncation_by_bits", "BitfoldLlvmFptosiByBitsPass"),
        "bitfold-riscv-expand-ctpop": _lazy("backends.riscv.lowering.population_count", "BitfoldRiscvExpandCtpopPass"),
        "bitfold-riscv-narrow-lanes": _lazy("backends.riscv.schedule.narrow_lanes", "BitfoldRiscvNarrowLanesPass"),
        "bitfold-riscv-pair-lanes": _lazy("backends.riscv.schedule.lane_pairs", "BitfoldRiscvPairLanesPass"),
        "bitfold-riscv-wide-binary-words": _lazy("backends.riscv.schedule.binary_words", "BitfoldRiscvWideBinaryWordsPass"),
        "bitfold-riscv-fuse-elementwise": _lazy("backends.riscv.schedule.fused_elementwise", "BitfoldRiscvFuseElementwisePass"),
        "bitfold-riscv-tabulate-elementwise": _lazy(
            "backends.riscv.schedule.tabulated_elementwise", "BitfoldRiscvTabulateElementwisePass"
        ),
        "bitfold-riscv-count-thresholds": _lazy("backends.riscv.schedule.count_thresholds", "BitfoldRiscvCountThresholdsPass"),
        "bitfold-riscv-noop-clamps": _lazy("backends.riscv.lowering.noop_clamps", "BitfoldRiscvNoopClampsPass"),
        "bitfold-riscv-fold-shifted-offsets": _lazy("backends.riscv.lowering.shifted_offsets",
                                                    "BitfoldRiscvFoldShiftedOffsetsPass"),
        "bitfold-riscv-register-tiled-loops": _lazy(
            "backends.riscv.schedule.register_tiled_loops", "BitfoldRiscvRegisterTiledLoopsPass"
        ),
        "bitfold-riscv-linalg-to-loops": _lazy("backends.riscv.lowering.linalg_to_loops", "BitfoldRiscvLinalgToLoopsPass"),
        "bitfold-riscv-memref-to-addresses": _lazy("backends.riscv.lowering.lower_memory", "BitfoldRiscvMemrefToAddressesPass"),
        "bitfold-riscv-canonicalize": _lazy("backends.riscv.lowering.canonicalize", "BitfoldRiscvCanonicalizePass"),
        "bitfold-riscv-multiply-to-shift": _lazy(
            "backends.riscv.lowering.multiply_to_shift", "BitfoldRiscvMultiplyToShiftPass"
        ),
        "bitfold-riscv-lower-ptr": _lazy("backends.riscv.lowering.lower_memory", "BitfoldRiscvLowerPtrPass"),
        "bitfold-riscv-lower-arith": _lazy("backends.riscv.lowering.lower_integers", "BitfoldRiscvLowerArithPass"),
        "bitfold-riscv-expand-float-rounding": _lazy(
            "backends.riscv.lowering.float_rounding", "BitfoldRiscvExpandFloatRoundingPass"
        ),
        "bitfold-riscv-lower-float": _lazy("backends.riscv.lowering.lower_floats", "BitfoldRiscvLowerFloatPass"),
        "bitfold-riscv-soft-float": _lazy("backends.riscv.lowering.soft_float", "BitfoldRiscvSoftFloatPass"),
        "bitfold-riscv-expand-calls": _lazy("backends.riscv.lowering.soft_float_calls", "BitfoldRiscvExpandCallsPass"),
        "bitfold-riscv-immediates": _lazy("backends.riscv.lowering.immediates", "BitfoldRiscvImmediatesPass"),
        "bitfold-riscv-hoist-constants": _lazy("backends.riscv.regalloc.constant_hoisting",
                                               "BitfoldRiscvHoistConstantsPass"),
        "bitfold-riscv-sink-constants": _lazy("backends.riscv.regalloc.constant_sinking", "BitfoldRiscvSinkConstantsPass"),
        "bitfold-riscv-copy-loop-values": _lazy("backends.riscv.regalloc.loop_value_copies", "BitfoldRiscvCopyLoopValuesPass"),
        "bitfold-riscv-allocate-registers": _lazy(
            "backends.riscv.regalloc.register_allocation", "BitfoldRiscvAllocateRegistersPass"
        ),
        "bitfold-riscv-loops-to-branches": _lazy(
            "backends.riscv.lowering.loops_to_branches", "BitfoldRiscvLoopsToBranchesPass"
        ),
        "bitfold-riscv-prologue-epilogue": _lazy("backends.riscv.emission.prologue", "BitfoldRiscvPrologueEpiloguePass"),
        "bitfold-lower-to-riscv": _lazy("backends.riscv.pipeline", "BitfoldLowerToRiscvPipeline"),
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
    return {"bitfold-riscv-asm": _lazy("backends.riscv.emission.target", "RiscvAsmTarget")}


def get_all_targets() -> dict[str, Callable[[], type[Target]]]:
    """bitfold's output targets by name: ONNX in each quantization form, RISC-V assembly."""
    return {**get_onnx_targets(), **get_text_targets()}

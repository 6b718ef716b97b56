"""Spilling in `bitfold-riscv-allocate-registers` and the frame of `bitfold-riscv-prologue-epilogue`.

Kernels and test models compiled with the allocatable registers cut (the pass option `registers`)
so that values must live in stack slots, and a small ONNX convolution network that needs more
than the 27 registers, run under qemu on RV32IM and RV64IM: outputs equal bit for bit to bitfold's
interpreter on the same IR. Kernels are compiled with the fewest registers their loop nests allow
(most spilling).
"""

import dataclasses
import re

import numpy as np
import pytest
from test_codegen_execution import (  # noqa: F401 (riscv_toolchain: the fixture needs_qemu uses)
    MATMUL,
    MAX_POOL,
    REQUANT,
    conv_ir,
    needs_qemu,
    parse,
    riscv_toolchain,
    run_kernel,
)
from xdsl.context import Context
from xdsl.dialects import riscv, riscv_func, rv32
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.riscv import Registers
from xdsl.ir import Block, Region

from bitfold.backends.riscv import compile_to_assembly
from bitfold.backends.riscv.emission.prologue import BitfoldRiscvPrologueEpiloguePass
from bitfold.backends.riscv.lowering.instructions import LdOp, LwOp, SdOp, SwOp
from bitfold.backends.riscv.regalloc.register_allocation import (
    BitfoldRiscvAllocateRegistersPass,
    RegisterAllocationError,
)
from bitfold.compile import compile_model
from bitfold.interpreter import run
from bitfold.load import load_module

TARGETS = ["rv32im", "rv64im"]


@pytest.fixture
def allocatable(monkeypatch):
    """`allocatable(n)`: every compile in the test allocates from the first n of t0..t6, a0..a7, s0..s11."""
    apply = BitfoldRiscvAllocateRegistersPass.apply

    def restrict(registers: int) -> None:
        monkeypatch.setattr(
            BitfoldRiscvAllocateRegistersPass,
            "apply",
            lambda self, ctx, op: apply(dataclasses.replace(self, registers=registers), ctx, op),
        )

    return restrict


REQUANT_KEPT = REQUANT.replace(
    "%sum = arith.addi %b, %flag : i32", "%kept = arith.xori %b, %f : i32\n    %sum = arith.addi %kept, %flag : i32"
)
"""`REQUANT` with its clamp's operand read again after the clamp: one value more live across it, so that
six registers spill (the clamp's branches need no temporaries, `branch_bounds.py`)."""

KERNELS = {
    "matmul": (MATMUL, lambda rng: [rng.integers(-128, 128, size=(5, 7), dtype=np.int8)]),
    "depthwise_conv": (conv_ir(), lambda rng: [rng.integers(-128, 128, size=(1, 4, 9, 9), dtype=np.int8)]),
    "max_pool": (MAX_POOL, lambda rng: [rng.integers(-128, 128, size=(2, 7, 7), dtype=np.int8)]),
    "requant": (REQUANT_KEPT, lambda rng: [rng.integers(-(2**31), 2**31, size=(3, 5), dtype=np.int64).astype(np.int32)]),
}
"""name -> (tensor IR of `test_codegen_execution`, its inputs)"""

SPILL = re.compile(r"^\s*(?:lw|ld|sw|sd) (?!s\d)[a-z0-9]+, \d+\(sp\)$", re.MULTILINE)
"""a load or store of a stack slot (not the save or restore of an s register)"""


def fewest_registers(compile_, allocatable, counts: tuple[int, ...]):
    """The first of `counts` (ascending) with which `compile_()` succeeds, and its result: the
    loop control of the deepest nest decides (two registers a loop at least)."""
    for registers in counts:
        allocatable(registers)
        try:
            return registers, compile_()
        except RegisterAllocationError:
            continue
    pytest.fail(f"does not compile with {counts[-1]} registers")


@needs_qemu
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("kernel", KERNELS)
def test_kernel_with_fewest_registers_equals_interpreter(kernel, target, allocatable, tmp_path):
    ir, make_inputs = KERNELS[kernel]
    inputs = make_inputs(np.random.default_rng(0))
    _, assembly = fewest_registers(lambda: compile_to_assembly(parse(ir), target, "kernel"), allocatable,
                                   (4, 6, 8, 10, 12, 14, 16, 20, 24))
    assert SPILL.search(assembly)
    expected = run(parse(ir), inputs).values()
    for got, want in zip(run_kernel(ir, inputs, target, tmp_path), expected, strict=True):
        np.testing.assert_array_equal(got, want)


MODELS = [
    pytest.param("cnn_depthwise-qdq-u8s4-perchannel", 20, target, id=f"cnn_depthwise-qdq-u8s4-perchannel-{target}")
    for target in TARGETS
]
"""(test model, registers, target): a count a little above what the register-tiled nests need, so
that they spill (the tiles are sized for 19 to 27 registers). Models whose deepest nest holds
more loop variables and bounds than such a count (the spiller does not spill those) refuse
instead: the MLP and the residual network spill at no count."""


@needs_qemu
@pytest.mark.parametrize(("name", "registers", "target"), MODELS)
def test_model_with_few_registers_equals_interpreter(name, registers, target, allocatable, model_catalogue, tmp_path):
    allocatable(registers)
    compiled = compile_model(load_module(str(model_catalogue.path(name))), target)
    assert SPILL.search(compiled.assembly), f"no spill with {registers} registers: choose fewer"
    stored = compiled.quantize(model_catalogue.inputs(name, seed=0))
    for got, want in zip(compiled.run_qemu(stored, tmp_path), compiled.run_reference(stored), strict=True):
        np.testing.assert_array_equal(got, want)


def conv_net(directory) -> str:
    """A 3x3 stride-2 convolution (8 -> 16 channels, 1x8x16x16 input) and a Relu, quantized by
    onnxruntime (QDQ, u8 activations, s8 weights per channel): refused for needing more than 27
    registers before values could be spilled."""
    onnx = pytest.importorskip("onnx")
    quantization = pytest.importorskip("onnxruntime.quantization")
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    weights = numpy_helper.from_array(rng.normal(0, 0.2, size=(16, 8, 3, 3)).astype(np.float32), "w")
    bias = numpy_helper.from_array(rng.normal(0, 0.1, size=(16,)).astype(np.float32), "b")
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "convnet", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 16, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16, 8, 8])], [weights, bias],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    float_path, quantized_path = str(directory / "float.onnx"), str(directory / "convnet.onnx")
    onnx.save(model, float_path)

    class Calibration(quantization.CalibrationDataReader):
        def __init__(self):
            self.samples = iter([{"x": rng.normal(0, 1, size=(1, 8, 16, 16)).astype(np.float32)} for _ in range(8)])

        def get_next(self):
            return next(self.samples, None)

    quantization.quantize_static(
        float_path, quantized_path, Calibration(), quant_format=quantization.QuantFormat.QDQ, per_channel=True,
        activation_type=quantization.QuantType.QUInt8, weight_type=quantization.QuantType.QInt8,
    )
    return quantized_path


@needs_qemu
@pytest.mark.parametrize("target", TARGETS)
def test_quantized_conv_net_beyond_27_registers_equals_interpreter(target, tmp_path):
    compiled = compile_model(load_module(conv_net(tmp_path)), target)
    stored = compiled.quantize({"x": np.random.default_rng(1).normal(0, 1, size=(1, 8, 16, 16)).astype(np.float32)})
    for got, want in zip(compiled.run_qemu(stored, tmp_path), compiled.run_reference(stored), strict=True):
        np.testing.assert_array_equal(got, want)


def test_loop_control_that_does_not_fit_is_one_line(allocatable):
    # the outer loops' state is stored around the inner loop (loop_state_spilling.py): the matmul
    # compiles with as few as 2 registers; 1 holds no loop's variable and bound
    allocatable(1)
    message = (r"^riscv: @kernel: a nest of \d+ loops holds \d+ values in registers \(induction variables, bounds, "
               r"loop-carried values, an instruction's operands\), 1 allocatable$")
    with pytest.raises(RegisterAllocationError, match=message):
        compile_to_assembly(parse(MATMUL), "rv32im", "kernel")


def test_register_count_out_of_range_is_refused():
    with pytest.raises(RegisterAllocationError, match="registers=0"):
        BitfoldRiscvAllocateRegistersPass(registers=0).apply(Context(), ModuleOp([]))


@pytest.mark.parametrize(
    ("xlen", "store", "load", "frame", "saved_at"), [(32, SwOp, LwOp, 16, 12), (64, SdOp, LdOp, 32, 16)]
)
def test_frame_holds_spill_slots_below_the_saved_registers(xlen, store, load, frame, saved_at):
    """A spill slot at 8(sp) and s0 written: the frame is the slots (12 or 16 bytes), s0 above
    them, rounded up to 16 bytes; s0 restored and the frame closed before the return."""
    sp = rv32.GetRegisterOp(Registers.SP)
    spilled = rv32.LiOp(7, rd=Registers.T0)
    body = [sp, spilled, store(sp, spilled, 8), rv32.LiOp(1, rd=Registers.S0), riscv_func.ReturnOp()]
    function = riscv_func.FuncOp("f", Region(Block(body)), ((), ()))
    BitfoldRiscvPrologueEpiloguePass(xlen=xlen).apply(Context(), ModuleOp([function]))
    ops = list(function.body.block.ops)
    adjustments = [op.immediate.value.data for op in ops if isinstance(op, riscv.AddiOp) and op.rd.type == Registers.SP]
    assert adjustments == [-frame, frame]
    saves = [op for op in ops if isinstance(op, store) and op.rs2.type == Registers.S0]
    restores = [op for op in ops if isinstance(op, load) and op.rd.type == Registers.S0]
    assert [op.immediate.value.data for op in saves + restores] == [saved_at, saved_at]
    assert ops.index(restores[0]) < len(ops) - 2 and isinstance(ops[-2], riscv.AddiOp)

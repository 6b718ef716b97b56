"""The planned workspace (docs/riscv-abi.md): intermediates live in one caller-provided buffer,
laid out by liveness; the function has no .data or .bss and is reentrant.

Oracles: the lifetimes and the peak of live bytes are read from the bufferized IR here, not
from the planner; the outputs of two calls on two workspaces holding different garbage are
compared with each other and with bitfold's interpreter on the same integer IR."""

import math
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import require_tools
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import IntegerType

from bitfold.backends.kernel.bufferize import WORKSPACE_ATTRIBUTE, BufferizePass
from bitfold.backends.kernel.harness import TARGETS, build_program
from bitfold.backends.kernel.harness.execution import input_bytes, split_outputs
from bitfold.interpreter import entry_function
from bitfold.load import full_context, load_module
from bitfold.passes.pipelines import backend_input_stages

MLPERF_TINY = Path(__file__).resolve().parents[2] / "models" / "mlperf_tiny"
CATALOGUE_MODELS = ["mlp-qdq-u8s8", "cnn_depthwise-qdq-u8s8-perchannel", "residual-qdq-s8s8", "pooling-qdq-u8u8",
                    "residual-qop-u8s8", "cnn_depthwise-qonnx-w4a6"]
MLPERF_MODELS = ["resnet8-qdq-u8s8", "dscnn-qdq-u8s8", "mobilenet_v1-qdq-u8s8", "autoencoder-qdq-u8s8"]
PLANNER_SLACK = 1.1
"""the workspace may exceed the peak of simultaneously live bytes by this factor (alignment,
greedy placement)"""
READELF = "riscv64-unknown-elf-readelf"
MULTI_LAYER_MODEL = "mlp-qdq-s8s8"
"""Gemm, Relu, Gemm: intermediates of two element types"""


def bufferized(module) -> func.FuncOp:
    """The backend's input of `module` (integer inputs and outputs), bufferized."""
    ctx = full_context()
    for stage in backend_input_stages(integer_io=True):
        stage.apply(ctx, module)
    BufferizePass().apply(ctx, module)
    return entry_function(module)


def element_bytes(memref_type) -> int:
    element = memref_type.get_element_type()
    assert isinstance(element, IntegerType)
    return max(1, -(-element.width.data // 8))


def buffers_of(function: func.FuncOp) -> tuple[int, list[tuple[int, int, int, int]]]:
    """The workspace size, and (first, last, offset, bytes) of each view of the workspace: first
    and last are the positions of the first and last top-level ops that use the view or a
    reshape of it (in a nested body too)."""
    block = function.body.block
    (workspace,) = [arg for arg, attrs in zip(block.args, function.arg_attrs.data) if WORKSPACE_ATTRIBUTE in attrs.data]
    assert workspace is block.args[-1]
    position = {op: i for i, op in enumerate(block.ops)}

    def top_level(op):
        while op.parent_op() is not function:
            op = op.parent_op()
        return op

    buffers = []
    for view in [op for op in block.ops if isinstance(op, memref.ViewOp)]:
        assert view.source is workspace and not view.sizes
        values, uses = [view.result], []
        while values:
            value = values.pop()
            for use in value.uses:
                user = use.operation
                if isinstance(user, memref.CollapseShapeOp | memref.ExpandShapeOp):
                    values.append(user.result)
                else:
                    uses.append(position[top_level(user)])
        size = math.prod(view.result.type.get_shape()) * element_bytes(view.result.type)
        offset = view.byte_shift.owner.value.value.data
        assert offset % element_bytes(view.result.type) == 0, "a buffer is aligned to its element size"
        buffers.append((min(uses), max(uses), offset, size))
    return workspace.type.get_shape()[0], buffers


def check_layout(function: func.FuncOp) -> tuple[int, int]:
    """Asserts that buffers live at once never share bytes and that the workspace is within
    PLANNER_SLACK of the peak of live bytes; returns (workspace size, peak)."""
    size, buffers = buffers_of(function)
    for i, (first, last, offset, nbytes) in enumerate(buffers):
        assert 0 <= offset and offset + nbytes <= size
        for other_first, other_last, other_offset, other_bytes in buffers[i + 1:]:
            if first <= other_last and other_first <= last:
                assert offset + nbytes <= other_offset or other_offset + other_bytes <= offset, (
                    f"buffers live together overlap: [{offset}, {offset + nbytes}) and "
                    f"[{other_offset}, {other_offset + other_bytes})")
    points = {first for first, _, _, _ in buffers}
    peak = max((sum(b for f, l, _, b in buffers if f <= p <= l) for p in points), default=0)
    assert peak <= size <= PLANNER_SLACK * peak, (size, peak)
    return size, peak


@pytest.mark.parametrize("name", CATALOGUE_MODELS)
def test_catalogue_workspace_is_near_the_peak_of_live_bytes(name, model_catalogue):
    size, peak = check_layout(bufferized(load_module(str(model_catalogue.path(name)))))
    assert peak > 0


@pytest.mark.parametrize("name", MLPERF_MODELS)
def test_mlperf_tiny_workspace_is_near_the_peak_of_live_bytes(name):
    path = MLPERF_TINY / f"{name}.onnx"
    if not path.is_file():
        pytest.skip(f"{path.name} is not in tests/models/mlperf_tiny")
    size, peak = check_layout(bufferized(load_module(str(path))))
    assert peak > 0


@pytest.fixture(scope="module")
def compiled_mlp(catalogue_compilations):
    return catalogue_compilations(MULTI_LAYER_MODEL, "rv32im")


def test_object_has_no_data_or_bss(compiled_mlp, tmp_path):
    """GNU as gives every object empty .data and .bss sections: they must stay empty, and no
    symbol may live in them."""
    require_tools(TARGETS["rv32im"].compiler, READELF)
    assert compiled_mlp.workspace_size > 0
    source = tmp_path / "kernel.S"
    source.write_text(compiled_mlp.assembly)
    obj = tmp_path / "kernel.o"
    target = TARGETS["rv32im"]
    subprocess.run([target.compiler, *target.machine_flags, "-c", str(source), "-o", str(obj)], check=True)
    sections = subprocess.run([READELF, "-SW", str(obj)], capture_output=True, text=True, check=True).stdout
    writable = {}  # section number -> (name, size) of the data and bss sections
    for line in sections.splitlines():
        fields = line.replace("[ ", "[").split()
        if len(fields) > 6 and fields[0].startswith("[") and fields[1].split(".")[1:2] in (["data"], ["bss"], ["sdata"],
                                                                                            ["sbss"]):
            writable[fields[0].strip("[]")] = (fields[1], int(fields[5], 16))
    assert {".data", ".bss"} <= {name for name, _ in writable.values()}, sections
    assert all(size == 0 for _, size in writable.values()), writable
    symbols = subprocess.run([READELF, "-sW", str(obj)], capture_output=True, text=True, check=True).stdout
    in_writable = [line for line in symbols.splitlines()
                   if len(line.split()) == 8 and line.split()[6] in writable and line.split()[3] != "SECTION"]
    assert not in_writable, in_writable


@pytest.mark.parametrize("target", ["rv32im", "rv64im"])
def test_two_calls_on_different_garbage_give_the_interpreters_outputs(target, model_catalogue, catalogue_compilations,
                                                                      tmp_path):
    """The harness's CALLS = 2: a second call on a second workspace holding other garbage must
    give the outputs of the first (the program fails otherwise); both equal bitfold-run's."""
    spec = TARGETS[target]
    require_tools(spec.compiler, spec.qemu)
    name = MULTI_LAYER_MODEL
    compiled = catalogue_compilations(name, target)
    assert f"#define {compiled.symbol.upper()}_WORKSPACE_SIZE {compiled.workspace_size}\n" in compiled.header
    stored = compiled.quantize(model_catalogue.inputs(name, seed=1))
    kernel = tmp_path / "kernel.S"
    kernel.write_text(compiled.assembly)
    layouts = [(p.shape, p.dtype) for p in compiled.outputs]
    program = build_program([kernel], target, compiled.symbol, [(a.shape, a.dtype) for a in stored], layouts, tmp_path)
    (tmp_path / "in.bin").write_bytes(input_bytes(stored))
    done = subprocess.run([spec.qemu, "-cpu", spec.cpu, str(program), str(tmp_path / "in.bin"), str(tmp_path / "out.bin"),
                           "2"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    actual = split_outputs((tmp_path / "out.bin").read_bytes(), layouts)
    for got, want in zip(actual, compiled.run_reference(stored), strict=True):
        np.testing.assert_array_equal(got, want)


def test_the_harness_catches_a_kernel_that_reads_stale_workspace(tmp_path):
    """A kernel whose output depends on what the workspace held before the call: two calls on
    different garbage differ, and the harness says so."""
    spec = TARGETS["rv64im"]
    require_tools(spec.compiler, spec.qemu)
    kernel = tmp_path / "stale.S"
    kernel.write_text("# workspace: 4 bytes, the last argument\n    .text\n    .globl stale\n    .type stale, @function\n"
                      "stale:\n    lbu t0, 0(a1)\n    sb t0, 0(a0)\n    ret\n    .size stale, . - stale\n")
    program = build_program([kernel], "rv64im", "stale", [], [((1,), np.dtype(np.uint8))], tmp_path)
    (tmp_path / "in.bin").write_bytes(b"")
    once = subprocess.run([spec.qemu, "-cpu", spec.cpu, str(program), str(tmp_path / "in.bin"), str(tmp_path / "o")],
                          capture_output=True, text=True)
    assert once.returncode == 0, once.stderr
    twice = subprocess.run([spec.qemu, "-cpu", spec.cpu, str(program), str(tmp_path / "in.bin"), str(tmp_path / "o"),
                            "2"], capture_output=True, text=True)
    assert twice.returncode == 1 and "gave other outputs on a second call" in twice.stderr


@pytest.mark.parametrize("offset", [-1, 4])
def test_a_write_outside_the_workspace_is_an_error(offset, tmp_path):
    spec = TARGETS["rv32im"]
    require_tools(spec.compiler, spec.qemu)
    kernel = tmp_path / "spill.S"
    kernel.write_text("# workspace: 4 bytes, the last argument\n    .text\n    .globl spill\n    .type spill, @function\n"
                      f"spill:\n    sb zero, {offset}(a1)\n    sb zero, 0(a0)\n    ret\n    .size spill, . - spill\n")
    program = build_program([kernel], "rv32im", "spill", [], [((1,), np.dtype(np.uint8))], tmp_path)
    done = subprocess.run([spec.qemu, "-cpu", spec.cpu, str(program), "/dev/null", str(tmp_path / "o")],
                          capture_output=True, text=True)
    assert done.returncode == 1 and "spill wrote outside the workspace" in done.stderr

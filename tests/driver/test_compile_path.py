"""The compile path from `bitfold-compile` to the `.S` touches each folder once, in order (docs/design.md,
"The data path"): the driver hands the model to the frontend, the result to the passes, that to the
backends, and every call from one folder into another goes down the layers

    driver -> frontends, passes, backends;   backends/riscv, backends/llvm -> backends/kernel;
    passes, backends/* -> interpreters

(any folder may use `dialects/`; tests/test_layering.py checks the imports). Recorded with `sys.setprofile` during one compile of a small QDQ
convolution for each code generator: a call is attributed to the nearest bitfold frame that made it
(through xDSL's walkers and pass machinery), and a method of an IR class (an op, attribute or op trait, even
one a backend defines, such as `rvmem`'s) counts as the dialect's, since xDSL calls those while it walks."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from conftest import require_tools
from onnx import TensorProto, helper, numpy_helper
from xdsl.ir import Attribute, Operation
from xdsl.traits import OpTrait

from bitfold.compile_main import main

LAYERS = ("frontends", "passes", "backends", "dialects", "interpreters")
"""The packages `bitfold.<layer>`; every other `bitfold.*` module is the driver's (`driver/`)."""
DOWNWARD = {
    ("driver", "frontends"),
    ("driver", "passes"),
    ("driver", "backends/kernel"),
    ("driver", "backends/riscv"),
    ("driver", "backends/llvm"),
    ("backends/riscv", "backends/kernel"),
    ("backends/llvm", "backends/kernel"),
    ("passes", "interpreters"),
    ("backends/kernel", "interpreters"),
    ("backends/riscv", "interpreters"),
    ("backends/llvm", "interpreters"),
}
SETTINGS = {"time_limit"}
"""Calls that set something up rather than make a step of the path: the external tools' time limit (a
context variable of the harness's toolchain), which the driver enters before it compiles."""


def tiny_qdq_convolution(path: Path) -> None:
    """x (1x2x6x6, u8 QDQ) -> Conv 3x3 (i8 weights, pads 1) -> Relu -> QDQ u8."""
    weights = np.random.default_rng(0).integers(-5, 5, (4, 2, 3, 3)).astype(np.int8)
    initializers = [
        numpy_helper.from_array(np.array(0.05, np.float32), "xs"), numpy_helper.from_array(np.array(3, np.uint8), "xz"),
        numpy_helper.from_array(weights, "wq"), numpy_helper.from_array(np.array(0.02, np.float32), "ws"),
        numpy_helper.from_array(np.array(0, np.int8), "wz"), numpy_helper.from_array(np.array(0.1, np.float32), "ys"),
        numpy_helper.from_array(np.array(0, np.uint8), "yz"),
    ]  # fmt: skip
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
        helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]),
        helper.make_node("DequantizeLinear", ["wq", "ws", "wz"], ["wd"]),
        helper.make_node("Conv", ["xd", "wd"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("QuantizeLinear", ["r", "ys", "yz"], ["rq"]),
        helper.make_node("DequantizeLinear", ["rq", "ys", "yz"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "tiny", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 6, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 6, 6])], initializers,
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 9
    onnx.save(model, path)


IR_CLASSES = (Operation, Attribute, OpTrait)


def is_ir_method(frame) -> bool:
    """Whether the frame runs a method or classmethod of an op, attribute or op trait."""
    owner = frame.f_locals.get("self", frame.f_locals.get("cls"))
    return isinstance(owner, IR_CLASSES) or (isinstance(owner, type) and issubclass(owner, IR_CLASSES))


class PathRecorder:
    """The folders the driver enters (consecutive entries into one merged) and the cross-folder calls."""

    def __init__(self):
        self.folders: dict[str, str | None] = {}
        self.entered: list[str] = []
        self.calls: dict[tuple[str, str], str] = {}

    def folder(self, module: str) -> str | None:
        """The folder of the module named `module`, by name, so the same in an editable install and an
        installed wheel (where driver/ is the `bitfold` package's top level); None outside bitfold."""
        if module not in self.folders:
            parts = module.split(".")
            layer = None if parts[0] != "bitfold" else parts[1] if len(parts) > 1 and parts[1] in LAYERS else "driver"
            self.folders[module] = f"backends/{parts[2]}" if layer == "backends" and len(parts) > 2 else layer
        return self.folders[module]

    def bitfold_folder(self, frame) -> str | None:
        """The frame's folder; None for code outside bitfold and for module-level code (imports)."""
        return None if frame.f_code.co_name == "<module>" else self.folder(frame.f_globals.get("__name__", ""))

    def __call__(self, frame, event, arg) -> None:
        if event != "call" or (callee := self.bitfold_folder(frame)) in (None, "dialects"):
            return
        caller_frame = frame.f_back
        while caller_frame is not None and self.bitfold_folder(caller_frame) is None:
            caller_frame = caller_frame.f_back
        caller = None if caller_frame is None else self.bitfold_folder(caller_frame)
        if caller in (None, "dialects", callee) or is_ir_method(frame):
            return  # within one folder, or the dialect's (module docstring)
        self.calls.setdefault((caller, callee), f"{caller_frame.f_code.co_name} -> {frame.f_code.co_qualname}")
        layer = callee.split("/")[0]
        if caller == "driver" and frame.f_code.co_name not in SETTINGS and self.entered[-1:] != [layer]:
            self.entered.append(layer)


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("compile_path") / "tiny.onnx"
    tiny_qdq_convolution(path)
    return path


@pytest.mark.parametrize("target", ["rv32im", "rv32imv"])
def test_compile_touches_each_folder_once_in_order(model, tmp_path, target):
    if target == "rv32imv":
        require_tools("mlir-opt-22", "mlir-translate-22", "clang-22")
    recorder = PathRecorder()
    sys.setprofile(recorder)
    try:
        main([str(model), "--target", target, "-o", str(tmp_path)])
    finally:
        sys.setprofile(None)
    assert (tmp_path / "tiny.S").exists()
    assert recorder.entered == ["frontends", "passes", "backends"]
    upward = {edge: where for edge, where in recorder.calls.items() if edge not in DOWNWARD}
    assert not upward, f"calls against the layers: {upward}"
    generator = "backends/llvm" if target == "rv32imv" else "backends/riscv"
    assert {("driver", generator), (generator, "backends/kernel")} <= set(recorder.calls)


def test_scalar_targets_start_without_the_llvm_code_generator():
    """`bitfold-compile` imports the LLVM code generator (`compile_kernel`, `NativeKernel`) only
    when a target needs it (`backends/llvm/__init__.py`); its names stay importable."""
    probe = (
        "import sys, bitfold.compile_main\n"
        "assert 'bitfold.backends.llvm.emit' not in sys.modules\n"
        "assert 'bitfold.backends.llvm.native' not in sys.modules\n"
        "from bitfold.backends.llvm import NativeKernel, compile_kernel\n"
        "from bitfold.backends.llvm.emit import compile_kernel as defined\n"
        "assert compile_kernel is defined and NativeKernel.__module__ == 'bitfold.backends.llvm.native'\n"
    )
    subprocess.run([sys.executable, "-c", probe], check=True)

"""`compile_model` and `bitfold-opt MODEL -p onnx-to-backend-input` run the same stages with the same
verification (`bitfold.backend_input`): on every bench model (bench/riscv_kernels.py) they print the
same IR, and a model outside ONNX's type constraints (an int32 QuantizeLinear, which onnx's checker
and onnxruntime reject) is refused by both with the same one-line error."""

import subprocess
from io import StringIO
from pathlib import Path

import numpy as np
import onnx
import pytest
from bench_scripts import bench_module
from onnx import helper, numpy_helper
from xdsl.printer import Printer

from bitfold.backend_input import lower_to_backend_input
from bitfold.frontends import FrontendError
from bitfold.load import full_context, import_onnx

BENCH_KERNELS = bench_module("riscv_kernels")


def bitfold_opt_backend_input(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["bitfold-opt", str(path), "-p", "onnx-to-backend-input"], check=False, capture_output=True,
                          text=True)


@pytest.mark.parametrize("kernel", sorted(BENCH_KERNELS.KERNELS))
def test_api_and_driver_print_the_same_backend_input(kernel, tmp_path):
    model, _, _ = BENCH_KERNELS.bitfold_model(BENCH_KERNELS.KERNELS[kernel]())
    path = tmp_path / f"{kernel}.onnx"
    path.write_bytes(model.SerializeToString())
    driver = bitfold_opt_backend_input(path)
    assert driver.returncode == 0, driver.stderr
    module = import_onnx(path.read_bytes(), tmp_path, str(path))
    lower_to_backend_input(full_context(), module)
    printed = StringIO()
    Printer(printed).print_op(module)
    assert printed.getvalue().strip() == driver.stdout.strip()


def int32_quantize_linear_model() -> onnx.ModelProto:
    node = helper.make_node("QuantizeLinear", ["x", "scale", "zero_point"], ["y"], name="to_int32")
    graph = helper.make_graph(
        [node], "int32_quantize", [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.INT32, [4])],
        [numpy_helper.from_array(np.array(0.5, np.float32), "scale"),
         numpy_helper.from_array(np.array(0, np.int32), "zero_point")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


def test_both_refuse_an_int32_quantize_linear(tmp_path):
    model = int32_quantize_linear_model()
    with pytest.raises(onnx.shape_inference.InferenceError, match="unsupported type: tensor\\(int32\\)"):
        onnx.checker.check_model(model, full_check=True)  # the oracle: ONNX's own type constraints
    path = tmp_path / "int32.onnx"
    path.write_bytes(model.SerializeToString())
    driver = bitfold_opt_backend_input(path)
    assert driver.returncode == 1
    assert driver.stderr.strip().splitlines() == [
        (f"error: {path}: shape inference failed: [ShapeInferenceError] (op_type:QuantizeLinear, node name: to_int32): "
         "y_zero_point typestr: T2, has unsupported type: tensor(int32)")]
    with pytest.raises(FrontendError, match="unsupported type: tensor\\(int32\\)"):
        import_onnx(path.read_bytes(), tmp_path, str(path))

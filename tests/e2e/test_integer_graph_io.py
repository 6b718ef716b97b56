"""Models whose graph inputs or outputs are the quantized integers themselves (a QuantizeLinear,
QCDQ's QuantizeLinear -> Clip, or a QLinear op last, a uint8 / int8 input read by DequantizeLinear, a lone Q -> DQ): through
`quant-to-integer` (both integer-io settings), `onnx-to-integer`, `onnx-to-backend-input`, and
compiled for RV32IM / RV64IM under qemu. Oracle: onnxruntime (ORT_DISABLE_ALL) on the same
file. Scales are powers of two, so onnxruntime's float32 arithmetic is exact and every integer
output must equal it bit for bit."""

import numpy as np
import onnx
import pytest
from models.float_models import IR_VERSION
from models.runners import run_onnxruntime
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects.builtin import AnyFloat
from xdsl.parser import Parser

import bitfold
from bitfold.compile import compile_model
from bitfold.compile_main import main as compile_main
from bitfold.dialects.quant_semantics import dequantize, from_storage, quantize
from bitfold.interpreter import entry_function
from bitfold.load import full_context, load_module
from bitfold.passes.pipelines import backend_input_stages, integer_stages
from bitfold.dialects.quant_type_attribute import QUANT_TYPE

SHAPE = (2, 16)
WIDTH = 12
RNG_SEED = 7


def _constant(name: str, value) -> onnx.TensorProto:
    return numpy_helper.from_array(np.asarray(value), name)


def _model(nodes, inputs, outputs, initializers, opset: int = 13, domains=()) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "integer_io", inputs, outputs, initializers)
    imports = [helper.make_opsetid("", opset), *(helper.make_opsetid(d, 1) for d in domains)]
    model = helper.make_model(graph, opset_imports=imports)
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model)
    return model


def _weights() -> np.ndarray:
    return np.random.default_rng(RNG_SEED).integers(-127, 128, size=(SHAPE[1], WIDTH)).astype(np.int8)


def _scales(zero_point_type) -> list[onnx.TensorProto]:
    return [
        _constant("xs", np.float32(2**-4)), _constant("xz", zero_point_type(3)),
        _constant("w", _weights()), _constant("ws", np.float32(2**-6)), _constant("wz", np.int8(0)),
        _constant("ys", np.float32(2**-1)), _constant("yz", zero_point_type(-5 if zero_point_type is np.int8 else 100)),
    ]


def matmul_quantized_output(storage: int, clip: tuple[int, int] | None = None) -> onnx.ModelProto:
    """float x -> Q -> DQ -> MatMul(DQ(w)) -> Relu -> QuantizeLinear: the output is uint8 / int8;
    `clip`: then QCDQ's integer Clip to 4 bits, as Brevitas exports a narrow integer output."""
    zero_point = np.uint8 if storage == TensorProto.UINT8 else np.int8
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
        helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]),
        helper.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wd"]),
        helper.make_node("MatMul", ["xd", "wd"], ["m"]),
        helper.make_node("Relu", ["m"], ["r"]),
        helper.make_node("QuantizeLinear", ["r", "ys", "yz"], ["yq" if clip else "y"]),
    ]
    initializers = _scales(zero_point)
    if clip:
        nodes.append(helper.make_node("Clip", ["yq", "lo", "hi"], ["y"]))
        initializers += [_constant("lo", zero_point(clip[0])), _constant("hi", zero_point(clip[1]))]
    return _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, SHAPE)],
                  [helper.make_tensor_value_info("y", storage, (SHAPE[0], WIDTH))], initializers)


def matmul_integer_input(storage: int) -> onnx.ModelProto:
    """uint8 / int8 x -> DequantizeLinear -> MatMul -> QuantizeLinear: integers in and out."""
    zero_point = np.uint8 if storage == TensorProto.UINT8 else np.int8
    nodes = [
        helper.make_node("DequantizeLinear", ["x", "xs", "xz"], ["xd"]),
        helper.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wd"]),
        helper.make_node("MatMul", ["xd", "wd"], ["m"]),
        helper.make_node("QuantizeLinear", ["m", "ys", "yz"], ["y"]),
    ]
    return _model(nodes, [helper.make_tensor_value_info("x", storage, SHAPE)],
                  [helper.make_tensor_value_info("y", storage, (SHAPE[0], WIDTH))], _scales(zero_point))


def integer_input_float_output() -> onnx.ModelProto:
    """uint8 x -> DequantizeLinear -> Reshape: integers in, floats out."""
    nodes = [
        helper.make_node("DequantizeLinear", ["x", "xs", "xz"], ["xd"]),
        helper.make_node("Reshape", ["xd", "shape"], ["y"]),
    ]
    initializers = [_constant("xs", np.float32(2**-3)), _constant("xz", np.uint8(130)),
                    _constant("shape", np.array([4, 8], np.int64))]
    return _model(nodes, [helper.make_tensor_value_info("x", TensorProto.UINT8, SHAPE)],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, (4, 8))], initializers)


def quantize_dequantize(storage: int, reshape: bool) -> onnx.ModelProto:
    """float x -> QuantizeLinear [-> Reshape] -> DequantizeLinear, nothing else."""
    zero_point = np.uint8(128) if storage == TensorProto.UINT8 else np.int8(-2)
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"])]
    if reshape:
        nodes.append(helper.make_node("Reshape", ["q", "shape"], ["r"]))
    nodes.append(helper.make_node("DequantizeLinear", ["r" if reshape else "q", "s", "z"], ["y"]))
    initializers = [_constant("s", np.float32(2**-3)), _constant("z", zero_point),
                    _constant("shape", np.array([4, 8], np.int64))]
    out_shape = (4, 8) if reshape else SHAPE
    return _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, SHAPE)],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)], initializers)


def qlinear_matmul_output() -> onnx.ModelProto:
    """QOp: float x -> QuantizeLinear -> QLinearMatMul, whose uint8 result is the output."""
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
        helper.make_node("QLinearMatMul", ["xq", "xs", "xz", "w", "ws", "wz", "ys", "yz"], ["y"]),
    ]
    return _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, SHAPE)],
                  [helper.make_tensor_value_info("y", TensorProto.UINT8, (SHAPE[0], WIDTH))], _scales(np.uint8))


MODELS = {
    "matmul-u8-output": lambda: matmul_quantized_output(TensorProto.UINT8),
    "matmul-i8-output": lambda: matmul_quantized_output(TensorProto.INT8),
    "matmul-i8-clipped-output": lambda: matmul_quantized_output(TensorProto.INT8, clip=(-8, 7)),
    "matmul-u8-clipped-output": lambda: matmul_quantized_output(TensorProto.UINT8, clip=(90, 105)),
    "matmul-u8-input-output": lambda: matmul_integer_input(TensorProto.UINT8),
    "matmul-i8-input-output": lambda: matmul_integer_input(TensorProto.INT8),
    "u8-input-float-output": integer_input_float_output,
    "q-dq-u8": lambda: quantize_dequantize(TensorProto.UINT8, reshape=False),
    "q-reshape-dq-i8": lambda: quantize_dequantize(TensorProto.INT8, reshape=True),
    "qlinear-matmul-u8-output": qlinear_matmul_output,
}


def _inputs(model: onnx.ModelProto) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(1)
    (graph_input,) = model.graph.input
    dtype = helper.tensor_dtype_to_np_dtype(graph_input.type.tensor_type.elem_type)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return {"x": rng.integers(info.min, info.max + 1, SHAPE).astype(dtype)}
    return {"x": (rng.standard_normal(SHAPE) * 4).astype(np.float32)}


@pytest.fixture(params=sorted(MODELS))
def case(request, tmp_path):
    model = MODELS[request.param]()
    path = tmp_path / f"{request.param}.onnx"
    onnx.save(model, path)
    inputs = _inputs(model)
    return path, inputs, run_onnxruntime(path, inputs)["y"]


def _quant_type(attrs, index: int):
    return Parser(full_context(), attrs.data[index].data[QUANT_TYPE].data).parse_attribute()


def _run(module, inputs: dict[str, np.ndarray]) -> np.ndarray:
    """The function's one output for `inputs`, in the model's terms: where integer-io made a
    float input or output storage integers, the input is quantized and the output dequantized
    by the recorded `quant.type`; integers the model itself takes and returns pass as they are."""
    function = entry_function(module)
    x = inputs["x"]
    if np.issubdtype(x.dtype, np.floating) and not isinstance(function.function_type.inputs.data[0].element_type, AnyFloat):
        x = quantize(x, _quant_type(function.arg_attrs, 0))
    (got,) = bitfold.run(module, [x]).values()
    qtype = _quant_type(function.res_attrs, 0) if function.res_attrs and QUANT_TYPE in function.res_attrs.data[0].data else None
    return got if qtype is None else from_storage(got, qtype)


@pytest.mark.parametrize("integer_io", [False, True])
def test_integer_pipeline_equals_onnxruntime(case, integer_io):
    path, inputs, expected = case
    for stages in (integer_stages(integer_io), backend_input_stages(integer_io)):
        module = load_module(str(path))
        source_type = entry_function(module).function_type
        for stage in stages:
            stage.apply(full_context(), module)
        module.verify()
        if not integer_io:
            assert entry_function(module).function_type == source_type  # the model's own signature
        got = _run(module, inputs)
        if np.issubdtype(expected.dtype, np.floating):
            got = dequantize(got, _quant_type(entry_function(module).res_attrs, 0)) if integer_io else got
        else:
            got = got.astype(expected.dtype)  # the same integers, as ONNX's uint8 / int8
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("target", ["rv32im", "rv64im"])
def test_riscv_equals_onnxruntime(case, target, tmp_path):
    path, inputs, expected = case
    compiled = compile_model(load_module(str(path)), target)
    stored = compiled.quantize(inputs)
    got = compiled.run_qemu(stored, tmp_path / "run")
    np.testing.assert_array_equal(got[0], compiled.run_reference(stored)[0])
    (port,) = compiled.outputs
    if np.issubdtype(expected.dtype, np.integer):
        assert port.model_integers and got[0].dtype == expected.dtype
        np.testing.assert_array_equal(got[0], expected)
    else:
        np.testing.assert_array_equal(compiled.dequantize(got)[0], expected)
    c_types = {np.dtype(np.uint8): "uint8_t", np.dtype(np.int8): "int8_t"}
    for port, values in ((compiled.inputs[0], inputs["x"]), (port, expected)):
        if np.issubdtype(values.dtype, np.integer):
            assert port.c_type == c_types[values.dtype]
            assert f"{port.c_type} {port.name}[" in compiled.header


def test_compile_run_prints_integer_outputs_beside_the_model(tmp_path, capsys):
    model = matmul_integer_input(TensorProto.UINT8)
    path = tmp_path / "model.onnx"
    onnx.save(model, path)
    inputs = _inputs(model)
    np.save(tmp_path / "x.npy", inputs["x"])
    expected = run_onnxruntime(path, inputs)["y"]
    compile_main([str(path), "--target", "rv32im", "-o", str(tmp_path / "out"), "--run", str(tmp_path / "x.npy")])
    printed = capsys.readouterr().out
    assert "y: uint8_t[2, 12], qemu vs bitfold-run: bit-exact" in printed
    assert "source model (y, uint8), qemu vs source model: bit-exact" in printed
    saved = np.load(tmp_path / "out" / "integer_io.outputs.npz")["y"]
    assert saved.dtype == np.uint8
    np.testing.assert_array_equal(saved, expected)
    header = (tmp_path / "out" / "integer_io.h").read_text()
    assert "void integer_io(const uint8_t *x, uint8_t *y, void *workspace);" in header


def test_compile_run_refuses_floats_for_an_integer_input(tmp_path, capsys):
    path = tmp_path / "model.onnx"
    onnx.save(matmul_integer_input(TensorProto.INT8), path)
    np.save(tmp_path / "x.npy", np.zeros(SHAPE, np.float32))
    with pytest.raises(SystemExit) as exit_info:
        compile_main([str(path), "--target", "rv32im", "-o", str(tmp_path / "out"), "--run", str(tmp_path / "x.npy")])
    assert exit_info.value.code == 1
    assert capsys.readouterr().err.strip() == (
        "error: input 'x': the model takes int8_t integers, got float32 values that are not all int8_t")

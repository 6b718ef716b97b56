"""onnx's node test suite for the quantization ops: every case imports, and bitfold.run
reproduces onnx's expected outputs bit for bit, dtype included.

Values of ONNX's 4- and 2-bit types are compared as the numpy integers bitfold holds them in
(`bitfold.dialects.evaluation.numpy_dtype`: int4/int2 as int8, uint4/uint2 as uint8)."""

import importlib
import warnings

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

import bitfold
from bitfold.frontends.onnx import import_model

OPS = {"QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear", "QLinearConv", "QLinearMatMul",
       "ConvInteger", "MatMulInteger"}



CASES = {
    "test_convinteger_with_padding": None,
    "test_convinteger_without_padding": None,
    "test_dequantizelinear": None,
    "test_dequantizelinear_axis": None,
    "test_dequantizelinear_blocked": None,
    "test_dequantizelinear_e4m3fn": None,
    "test_dequantizelinear_e4m3fn_float16": None,
    "test_dequantizelinear_e4m3fn_zero_point": None,
    "test_dequantizelinear_e5m2": None,
    "test_dequantizelinear_float4e2m1": None,
    "test_dequantizelinear_int16": None,
    "test_dequantizelinear_int2": None,
    "test_dequantizelinear_int4": None,
    "test_dequantizelinear_uint16": None,
    "test_dequantizelinear_uint2": None,
    "test_dequantizelinear_uint4": None,
    "test_dynamicquantizelinear": None,
    "test_dynamicquantizelinear_expanded": None,
    "test_dynamicquantizelinear_max_adjusted": None,
    "test_dynamicquantizelinear_max_adjusted_expanded": None,
    "test_dynamicquantizelinear_min_adjusted": None,
    "test_dynamicquantizelinear_min_adjusted_expanded": None,
    "test_matmulinteger": None,
    "test_qlinearconv": None,
    "test_qlinearmatmul_2D_int8_float16": None,
    "test_qlinearmatmul_2D_int8_float32": None,
    "test_qlinearmatmul_2D_uint8_float16": None,
    "test_qlinearmatmul_2D_uint8_float32": None,
    "test_qlinearmatmul_3D_int8_float16": None,
    "test_qlinearmatmul_3D_int8_float32": None,
    "test_qlinearmatmul_3D_uint8_float16": None,
    "test_qlinearmatmul_3D_uint8_float32": None,
    "test_quantizelinear": None,
    "test_quantizelinear_axis": None,
    "test_quantizelinear_blocked_asymmetric": None,
    "test_quantizelinear_blocked_symmetric": None,
    "test_quantizelinear_e4m3fn": None,
    "test_quantizelinear_e5m2": None,
    "test_quantizelinear_float4e2m1": None,
    "test_quantizelinear_int16": None,
    "test_quantizelinear_int2": None,
    "test_quantizelinear_int4": None,
    "test_quantizelinear_uint16": None,
    "test_quantizelinear_uint2": None,
    "test_quantizelinear_uint4": None,
}
"""Every node test case with one of OPS, with the reason where it is skipped."""

NARROW_INTEGERS = {"int4": np.int8, "int2": np.int8, "uint4": np.uint8, "uint2": np.uint8}


@pytest.fixture(scope="session")
def node_cases():
    """The node test cases using OPS, by name: those onnx's modules of OPS generate
    (`onnx.backend.test.case.node.<op type in lower case>`; the whole node suite, whose cases
    with an OPS node are the same 45, takes 10 s and more to generate)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for op_type in OPS:
            importlib.import_module(f"onnx.backend.test.case.node.{op_type.lower()}")
    from onnx.backend.test.case.node import _NodeTestCases

    return {c.name: c for c in _NodeTestCases if OPS & {n.op_type for n in c.model.graph.node}}


def as_bitfold_array(value) -> np.ndarray:
    """A node test value as bitfold holds it: TensorProtos decoded, 4/2-bit as 8-bit."""
    array = numpy_helper.to_array(value) if isinstance(value, onnx.TensorProto) else np.asarray(value)
    narrow = NARROW_INTEGERS.get(array.dtype.name)
    return array.astype(narrow) if narrow else array


def test_every_case_is_listed(node_cases):
    assert sorted(node_cases) == sorted(CASES)


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=[pytest.mark.skip(reason=r)] if r else []) for n, r in CASES.items()]
)
def test_node_case(node_cases, name):
    case = node_cases[name]
    module = import_model(case.model.SerializeToString())
    for inputs, expected in case.data_sets:
        outputs = bitfold.run(module, [as_bitfold_array(v) for v in inputs])
        assert len(outputs) == len(expected)
        for (output_name, got), want in zip(outputs.items(), expected):
            want = as_bitfold_array(want)
            assert got.dtype == want.dtype, output_name
            assert got.shape == want.shape, output_name
            np.testing.assert_array_equal(got, want, err_msg=output_name)
            assert np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(want).tobytes(), output_name

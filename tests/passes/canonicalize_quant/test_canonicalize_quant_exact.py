"""canonicalize-quant is exact: every case runs before and after the pass on random inputs
with bit-identical outputs, and the rewrite it tests did (or did not) happen."""

import numpy as np
import pytest
from quant_ir import bits, parse, random_inputs

import bitfold
from bitfold.passes.canonicalize_quant import CanonicalizeQuantPass

I8 = "!quant.uniform<i8:f32, 0.1:-3>"
U8 = "!quant.uniform<u8:f32, 2.500000e-01:1>"
AXIS1 = "!quant.uniform<i8:f32:1, {0.1:-3, 0.2, 0.3:5}>"


def fake_quant_op(in_shape: str, in_type: str, op: str, out_shape: str, out_type: str, constants: str = "") -> str:
    """x -> qcast -> dcast -> op -> qcast -> dcast -> return; `op` reads %d into %r."""
    return f"""
func.func @f(%x: tensor<{in_shape}xf32>) -> tensor<{out_shape}xf32> {{
  {constants}
  %q = quant.qcast %x : tensor<{in_shape}xf32> to tensor<{in_shape}x{in_type}>
  %d = quant.dcast %q : tensor<{in_shape}x{in_type}> to tensor<{in_shape}xf32>
  {op}
  %q2 = quant.qcast %r : tensor<{out_shape}xf32> to tensor<{out_shape}x{out_type}>
  %d2 = quant.dcast %q2 : tensor<{out_shape}x{out_type}> to tensor<{out_shape}xf32>
  func.return %d2 : tensor<{out_shape}xf32>
}}"""


def quantized_input_op(in_shape: str, op: str, out_shape: str, out_type: str, constants: str = "", rounding=""):
    """x -> op -> qcast -> dcast -> return; `op` reads %x into %r (data movement before the
    graph input's quantizer, which `hoist_quantize` moves up)."""
    attributes = f' {{rounding = "{rounding}"}}' if rounding else ""
    return f"""
func.func @f(%x: tensor<{in_shape}xf32>) -> tensor<{out_shape}xf32> {{
  {constants}
  {op}
  %q2 = quant.qcast %r{attributes} : tensor<{out_shape}xf32> to tensor<{out_shape}x{out_type}>
  %d2 = quant.dcast %q2 : tensor<{out_shape}x{out_type}> to tensor<{out_shape}xf32>
  func.return %d2 : tensor<{out_shape}xf32>
}}"""


def shape_constant(name: str, values: list[int]) -> str:
    return (
        f'%{name} = "onnx.Constant"() {{value = dense<{values}> : tensor<{len(values)}xi64>}} '
        f": () -> tensor<{len(values)}xi64>"
    )


AXIS0 = AXIS1.replace("f32:1", "f32:0")
AXIS2 = AXIS1.replace("f32:1", "f32:2")
MAXPOOL_ATTRS = (
    'auto_pad = "NOTSET", ceil_mode = 1 : i64, kernel_shape = array<i64: 3, 3>, '
    "pads = array<i64: 1, 1, 1, 1>, storage_order = 0 : i64, strides = array<i64: 2, 2>"
)
RESIZE_ATTRS = (
    'antialias = 0 : i64, coordinate_transformation_mode = "half_pixel", cubic_coeff_a = -7.500000e-01 : f32, '
    "exclude_outside = 0 : i64, extrapolation_value = 0.000000e+00 : f32, "
    'keep_aspect_ratio_policy = "stretch", mode = "nearest", nearest_mode = "round_prefer_floor"'
)


def pad(mode: str, value: str | None, qtype: str) -> str:
    constants = shape_constant("pads", [0, 0, 1, 2, 0, 0, 2, 1])
    segments = "1, 1, 0, 0"
    operands = "%d, %pads"
    if value is not None:
        constants += f'\n  %c = "onnx.Constant"() {{value = dense<{value}> : tensor<f32>}} : () -> tensor<f32>'
        segments, operands = "1, 1, 1, 0", "%d, %pads, %c"
    types = "tensor<1x3x3x3xf32>, tensor<8xi64>" + (", tensor<f32>" if value is not None else "")
    op = (
        f'%r = "onnx.Pad"({operands}) <{{operandSegmentSizes = array<i32: {segments}>}}> {{mode = "{mode}"}} '
        f": ({types}) -> tensor<1x3x6x6xf32>"
    )
    return fake_quant_op("1x3x3x3", qtype, op, "1x3x6x6", qtype, constants)


CASES = {
    "reshape_per_tensor": (
        fake_quant_op("2x3x4", I8, '%r = "onnx.Reshape"(%d, %s) {allowzero = 0 : i64} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>', "6x4", I8, shape_constant("s", [6, 4])),
        '"onnx.Reshape"(%q, %s)',
    ),
    "reshape_per_axis_kept": (
        fake_quant_op("2x3x4", AXIS1, '%r = "onnx.Reshape"(%d, %s) {allowzero = 0 : i64} : (tensor<2x3x4xf32>, tensor<4xi64>) -> tensor<2x3x2x2xf32>', "2x3x2x2", AXIS1, shape_constant("s", [2, 3, 2, 2])),
        '"onnx.Reshape"(%q, %s)',
    ),
    "reshape_per_axis_merged_refused": (
        fake_quant_op("2x3x4", AXIS1, '%r = "onnx.Reshape"(%d, %s) {allowzero = 0 : i64} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>', "6x4", I8, shape_constant("s", [6, 4])),
        '"onnx.Reshape"(%d, %s)',
    ),
    "flatten": (
        fake_quant_op("2x3x4", I8, '%r = "onnx.Flatten"(%d) {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>', "2x12", I8),
        '"onnx.Flatten"(%q)',
    ),
    "squeeze_per_axis": (
        fake_quant_op("1x3x4", AXIS1, '%r = "onnx.Squeeze"(%d, %a) <{operandSegmentSizes = array<i32: 1, 1>}> : (tensor<1x3x4xf32>, tensor<1xi64>) -> tensor<3x4xf32>', "3x4", AXIS0, shape_constant("a", [0])),
        '"onnx.Squeeze"(%q, %a)',
    ),
    "unsqueeze_per_axis": (
        fake_quant_op("3x4", AXIS0, '%r = "onnx.Unsqueeze"(%d, %a) : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<1x3x4xf32>', "1x3x4", AXIS1, shape_constant("a", [0])),
        '"onnx.Unsqueeze"(%q, %a)',
    ),
    "transpose_per_axis": (
        fake_quant_op("2x3x4", AXIS1, '%r = "onnx.Transpose"(%d) {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>', "4x2x3", AXIS2),
        '"onnx.Transpose"(%q)',
    ),
    "maxpool_per_axis": (
        fake_quant_op("1x3x5x5", AXIS1, f'%r = "onnx.MaxPool"(%d) <{{resultSegmentSizes = array<i32: 1, 0>}}> {{{MAXPOOL_ATTRS}}} : (tensor<1x3x5x5xf32>) -> tensor<1x3x3x3xf32>', "1x3x3x3", AXIS1),
        '"onnx.MaxPool"(%q)',
    ),
    "pad_absent_value_is_zero_point": (pad("constant", None, U8), '"onnx.Pad"(%q, %pads, %pad_value)'),
    "pad_representable_value": (pad("constant", "1.250000e+00", U8), '"onnx.Pad"(%q, %pads, %pad_value)'),
    "pad_unrepresentable_value_refused": (pad("constant", "3.000000e-01", U8), '"onnx.Pad"(%d, %pads, %c)'),
    "pad_negative_zero_refused": (pad("constant", "-0.000000e+00", U8), '"onnx.Pad"(%d, %pads, %c)'),
    "pad_reflect_per_axis": (pad("reflect", None, AXIS1), '"onnx.Pad"(%q, %pads)'),
    "resize_nearest": (
        fake_quant_op("1x2x2x3", U8, f'%r = "onnx.Resize"(%d, %s) <{{operandSegmentSizes = array<i32: 1, 0, 1, 0>}}> {{{RESIZE_ATTRS}}} : (tensor<1x2x2x3xf32>, tensor<4xf32>) -> tensor<1x2x5x4xf32>', "1x2x5x4", U8, '%s = "onnx.Constant"() {value = dense<[1.0, 1.0, 2.5, 1.5]> : tensor<4xf32>} : () -> tensor<4xf32>'),
        '"onnx.Resize"(%q, %s)',
    ),
    "depth_to_space": (
        fake_quant_op("1x8x2x3", I8, '%r = "onnx.DepthToSpace"(%d) {blocksize = 2 : i64, mode = "CRD"} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>', "1x2x4x6", I8),
        '"onnx.DepthToSpace"(%q)',
    ),
    "concat_per_axis": (
        fake_quant_op("2x3x4", AXIS1, '%r = "onnx.Concat"(%d, %d) {axis = -1 : i64} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x8xf32>', "2x3x8", AXIS1),
        '"onnx.Concat"(%q, %q)',
    ),
    "concat_on_quantized_axis_refused": (
        fake_quant_op("2x3x4", AXIS1, '%r = "onnx.Concat"(%d, %d) {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x6x4xf32>', "2x6x4", I8),
        '"onnx.Concat"(%d, %d)',
    ),
    "slice_per_axis": (
        fake_quant_op("2x3x5", AXIS1, '%r = "onnx.Slice"(%d, %b, %e, %a, %st) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>}> : (tensor<2x3x5xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x3x2xf32>', "2x3x2", AXIS1, "\n".join([shape_constant("b", [4]), shape_constant("e", [0]), shape_constant("a", [2]), shape_constant("st", [-2])])),
        '"onnx.Slice"(%q, %b, %e, %a, %st)',
    ),
    "gather_per_axis": (
        fake_quant_op("4x3x2", AXIS1, '%r = "onnx.Gather"(%d, %i) {axis = 0 : i64} : (tensor<4x3x2xf32>, tensor<2x2xi64>) -> tensor<2x2x3x2xf32>', "2x2x3x2", AXIS2, '%i = "onnx.Constant"() {value = dense<[[3, 0], [-1, 1]]> : tensor<2x2xi64>} : () -> tensor<2x2xi64>'),
        '"onnx.Gather"(%q, %i)',
    ),
    "space_to_depth": (
        fake_quant_op("1x2x4x6", I8, '%r = "onnx.SpaceToDepth"(%d) {blocksize = 2 : i64} : (tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32>', "1x8x2x3", I8),
        '"onnx.SpaceToDepth"(%q)',
    ),
    "split_per_axis": (
        fake_quant_op("2x3x4", AXIS1, '%r, %unused = "onnx.Split"(%d, %s) {axis = 2 : i64} : (tensor<2x3x4xf32>, tensor<2xi64>) -> (tensor<2x3x1xf32>, tensor<2x3x3xf32>)', "2x3x1", AXIS1, shape_constant("s", [1, 3])),
        '"onnx.Split"(%q, %s)',
    ),
    "input_transpose_per_axis_floor": (
        quantized_input_op("2x3x4", '%r = "onnx.Transpose"(%x) {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>', "4x2x3", AXIS2, rounding="floor"),
        '"onnx.Transpose"(%q2)',
    ),
    "input_reshape": (
        quantized_input_op("2x12", '%r = "onnx.Reshape"(%x, %s) {allowzero = 0 : i64} : (tensor<2x12xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>', "2x3x4", U8, shape_constant("s", [2, 3, 4])),
        '"onnx.Reshape"(%q2, %s)',
    ),
    "input_pad_representable_value": (
        quantized_input_op("1x3x3x3", '%r = "onnx.Pad"(%x, %pads, %c) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> {mode = "constant"} : (tensor<1x3x3x3xf32>, tensor<8xi64>, tensor<f32>) -> tensor<1x3x6x6xf32>', "1x3x6x6", U8, shape_constant("pads", [0, 0, 1, 2, 0, 0, 2, 1]) + '\n  %c = "onnx.Constant"() {value = dense<1.25> : tensor<f32>} : () -> tensor<f32>'),
        '"onnx.Pad"(%q2, %pads, %pad_value)',
    ),
    "input_maxpool_per_axis": (
        quantized_input_op("1x3x5x5", f'%r = "onnx.MaxPool"(%x) <{{resultSegmentSizes = array<i32: 1, 0>}}> {{{MAXPOOL_ATTRS}}} : (tensor<1x3x5x5xf32>) -> tensor<1x3x3x3xf32>', "1x3x3x3", AXIS1),
        '"onnx.MaxPool"(%q2)',
    ),
    "input_gather": (
        quantized_input_op("4x3", '%r = "onnx.Gather"(%x, %i) {axis = 1 : i64} : (tensor<4x3xf32>, tensor<2xi64>) -> tensor<4x2xf32>', "4x2", I8, shape_constant("i", [2, 0])),
        '"onnx.Gather"(%q2, %i)',
    ),
    "input_concat": (
        quantized_input_op("2x3", '%r = "onnx.Concat"(%x, %x) {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>', "4x3", I8),
        '"onnx.Concat"(%q2, %q2_1)',
    ),
    "repeated_fake_quantization": (
        fake_quant_op("2x3", I8, "%r = quant.dcast %q : tensor<2x3x" + I8 + "> to tensor<2x3xf32>", "2x3", I8).replace(
            '%r = quant.dcast', '%r_unused = quant.dcast'
        ).replace("%q2 = quant.qcast %r", "%q2 = quant.qcast %d"),
        "%d2 = quant.dcast %q :",
    ),
    "ceil_requantization_refused": (
        fake_quant_op("2x3", I8, '%r = "onnx.Identity"(%d) : (tensor<2x3xf32>) -> tensor<2x3xf32>', "2x3", I8)
        .replace("%q2 = quant.qcast %r", "%q2 = quant.qcast %d {rounding = \"ceil\"}"),
        '%q2 = quant.qcast %d {rounding = "ceil"}',
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_rewrite_is_bit_exact(name: str):
    text, expected = CASES[name]
    ctx, module = parse(text)
    rng = np.random.default_rng(sum(map(ord, name)))
    inputs = [random_inputs(module, rng) for _ in range(4)]
    before = [bits(bitfold.run(module, x)) for x in inputs]
    CanonicalizeQuantPass().apply(ctx, module)
    module.verify()
    assert expected in str(module), str(module)
    assert [bits(bitfold.run(module, x)) for x in inputs] == before


def test_chain_between_fake_quantizations_becomes_integer():
    """Q -> DQ -> Reshape -> Transpose -> Q -> DQ of one type: both ops run on integers and
    the inner Q/DQ pair folds, leaving one qcast and one dcast."""
    op = (
        '%s1 = "onnx.Reshape"(%d, %s) {allowzero = 0 : i64} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>\n'
        '  %r = "onnx.Transpose"(%s1) {perm = array<i64: 1, 0>} : (tensor<6x4xf32>) -> tensor<4x6xf32>'
    )
    ctx, module = parse(fake_quant_op("2x3x4", I8, op, "4x6", I8, shape_constant("s", [6, 4])))
    inputs = random_inputs(module, np.random.default_rng(0))
    before = bits(bitfold.run(module, inputs))
    CanonicalizeQuantPass().apply(ctx, module)
    text = str(module)
    assert text.count("quant.qcast") == 1 and text.count("quant.dcast") == 1, text
    assert bits(bitfold.run(module, inputs)) == before

"""quant-to-integer{integer-only} refuses what has no integer form with one line naming the op
and its node, through `bitfold-opt` (exit status 1, no traceback); without `integer-only` the same
ops stay float (float islands, docs/float-islands.md)."""

import pytest

CONV_DYNAMIC_WEIGHT = """
func.func @f(%x: tensor<1x1x3x3xf32>, %w: tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32> {
  %xq = quant.qcast %x : tensor<1x1x3x3xf32> to tensor<1x1x3x3x!quant.uniform<i8:f32, 0.5>>
  %xf = quant.dcast %xq : tensor<1x1x3x3x!quant.uniform<i8:f32, 0.5>> to tensor<1x1x3x3xf32>
  %wq = quant.qcast %w : tensor<1x1x2x2xf32> to tensor<1x1x2x2x!quant.uniform<i8:f32, 0.25>>
  %wf = quant.dcast %wq : tensor<1x1x2x2x!quant.uniform<i8:f32, 0.25>> to tensor<1x1x2x2xf32>
  %y = "onnx.Conv"(%xf, %wf) <{operandSegmentSizes = array<i32: 1, 1, 0>}> {auto_pad = "NOTSET", group = 1 : i64, kernel_shape = array<i64: 2, 2>} : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32> loc("conv_dynamic")
  %yq = quant.qcast %y : tensor<1x1x2x2xf32> to tensor<1x1x2x2x!quant.uniform<i8:f32, 0.5>>
  %yf = quant.dcast %yq : tensor<1x1x2x2x!quant.uniform<i8:f32, 0.5>> to tensor<1x1x2x2xf32>
  func.return %yf : tensor<1x1x2x2xf32>
}
"""

# Conv weights (O, I, kh, kw) = (1, 2, 1, 1) quantized per input channel (axis 1).
CONV_WEIGHT_PER_INPUT_CHANNEL = """
func.func @f(%x: tensor<1x2x2x2xf32>) -> tensor<1x1x2x2xf32> {
  %xq = quant.qcast %x : tensor<1x2x2x2xf32> to tensor<1x2x2x2x!quant.uniform<i8:f32, 0.5>>
  %xf = quant.dcast %xq : tensor<1x2x2x2x!quant.uniform<i8:f32, 0.5>> to tensor<1x2x2x2xf32>
  %c = "onnx.Constant"() {value = dense<[[[[1]], [[2]]]]> : tensor<1x2x1x1xi8>} : () -> tensor<1x2x1x1xi8>
  %wq = quant.scast %c : tensor<1x2x1x1xi8> to tensor<1x2x1x1x!quant.uniform<i8:f32:1, {0.25, 0.5}>>
  %wf = quant.dcast %wq : tensor<1x2x1x1x!quant.uniform<i8:f32:1, {0.25, 0.5}>> to tensor<1x2x1x1xf32>
  %y = "onnx.Conv"(%xf, %wf) <{operandSegmentSizes = array<i32: 1, 1, 0>}> {auto_pad = "NOTSET", group = 1 : i64, kernel_shape = array<i64: 1, 1>} : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x1x2x2xf32> loc("conv_axis1")
  %yq = quant.qcast %y : tensor<1x1x2x2xf32> to tensor<1x1x2x2x!quant.uniform<i8:f32, 0.5>>
  %yf = quant.dcast %yq : tensor<1x1x2x2x!quant.uniform<i8:f32, 0.5>> to tensor<1x1x2x2xf32>
  func.return %yf : tensor<1x1x2x2xf32>
}
"""

# The activation A of a MatMul quantized per axis (its last axis, the reduction).
MATMUL_INPUT_PER_AXIS = """
func.func @f(%a: tensor<1x2xf32>) -> tensor<1x1xf32> {
  %aq = quant.qcast %a : tensor<1x2xf32> to tensor<1x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>
  %af = quant.dcast %aq : tensor<1x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>> to tensor<1x2xf32>
  %c = "onnx.Constant"() {value = dense<[[1], [2]]> : tensor<2x1xi8>} : () -> tensor<2x1xi8>
  %bq = quant.scast %c : tensor<2x1xi8> to tensor<2x1x!quant.uniform<i8:f32, 0.25>>
  %bf = quant.dcast %bq : tensor<2x1x!quant.uniform<i8:f32, 0.25>> to tensor<2x1xf32>
  %y = "onnx.MatMul"(%af, %bf) : (tensor<1x2xf32>, tensor<2x1xf32>) -> tensor<1x1xf32> loc("matmul_per_axis")
  %yq = quant.qcast %y : tensor<1x1xf32> to tensor<1x1x!quant.uniform<i8:f32, 0.5>>
  %yf = quant.dcast %yq : tensor<1x1x!quant.uniform<i8:f32, 0.5>> to tensor<1x1xf32>
  func.return %yf : tensor<1x1xf32>
}
"""

# A Relu on a float argument that no qcast / dcast pair quantizes.
FLOAT_OPERAND = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = "onnx.Relu"(%x) : (tensor<4xf32>) -> tensor<4xf32> loc("relu_float")
  %yq = quant.qcast %y : tensor<4xf32> to tensor<4x!quant.uniform<u8:f32, 0.5>>
  %yf = quant.dcast %yq : tensor<4x!quant.uniform<u8:f32, 0.5>> to tensor<4xf32>
  func.return %yf : tensor<4xf32>
}
"""

# i16 x i16 over K = 64: |acc| <= 32768 * 64 * 32767 = 68717379584 > 2^31 - 1.
MATMUL_I32_OVERFLOW = """
func.func @f(%a: tensor<1x64xf32>) -> tensor<1x1xf32> {
  %aq = quant.qcast %a : tensor<1x64xf32> to tensor<1x64x!quant.uniform<i16:f32, 0.5>>
  %af = quant.dcast %aq : tensor<1x64x!quant.uniform<i16:f32, 0.5>> to tensor<1x64xf32>
  %c = "onnx.Constant"() {value = dense<32767> : tensor<64x1xi16>} : () -> tensor<64x1xi16>
  %bq = quant.scast %c : tensor<64x1xi16> to tensor<64x1x!quant.uniform<i16:f32, 0.25>>
  %bf = quant.dcast %bq : tensor<64x1x!quant.uniform<i16:f32, 0.25>> to tensor<64x1xf32>
  %y = "onnx.MatMul"(%af, %bf) : (tensor<1x64xf32>, tensor<64x1xf32>) -> tensor<1x1xf32> loc("matmul_wide")
  %yq = quant.qcast %y : tensor<1x1xf32> to tensor<1x1x!quant.uniform<i16:f32, 0.5>>
  %yf = quant.dcast %yq : tensor<1x1x!quant.uniform<i16:f32, 0.5>> to tensor<1x1xf32>
  func.return %yf : tensor<1x1xf32>
}
"""

MAXPOOL_WITH_INDICES = """
func.func @f(%x: tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) {
  %xq = quant.qcast %x : tensor<1x1x4x4xf32> to tensor<1x1x4x4x!quant.uniform<i8:f32, 0.5>>
  %xf = quant.dcast %xq : tensor<1x1x4x4x!quant.uniform<i8:f32, 0.5>> to tensor<1x1x4x4xf32>
  %y, %i = "onnx.MaxPool"(%xf) <{resultSegmentSizes = array<i32: 1, 1>}> {storage_order = 0 : i64, auto_pad = "NOTSET", ceil_mode = 0 : i64, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) loc("pool_indices")
  %yq = quant.qcast %y : tensor<1x1x2x2xf32> to tensor<1x1x2x2x!quant.uniform<i8:f32, 0.5>>
  %yf = quant.dcast %yq : tensor<1x1x2x2x!quant.uniform<i8:f32, 0.5>> to tensor<1x1x2x2xf32>
  func.return %yf, %i : tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>
}
"""

CLIP_DYNAMIC_BOUNDS = """
func.func @f(%x: tensor<4xf32>, %lo: tensor<f32>, %hi: tensor<f32>) -> tensor<4xf32> {
  %xq = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<u8:f32, 0.5:10>>
  %xf = quant.dcast %xq : tensor<4x!quant.uniform<u8:f32, 0.5:10>> to tensor<4xf32>
  %y = "onnx.Clip"(%xf, %lo, %hi) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32> loc("clip_dynamic")
  %yq = quant.qcast %y : tensor<4xf32> to tensor<4x!quant.uniform<u8:f32, 0.5:10>>
  %yf = quant.dcast %yq : tensor<4x!quant.uniform<u8:f32, 0.5:10>> to tensor<4xf32>
  func.return %yf : tensor<4xf32>
}
"""

# A bipolar activation with one scale per channel feeding a MatMul of bipolar weights.
MATMUL_BIPOLAR_PER_AXIS = """
func.func @f(%a: tensor<1x2xf32>) -> tensor<1x1xf32> {
  %aq = quant.qcast %a : tensor<1x2xf32> to tensor<1x2x!quant.bipolar<f32:1, {0.5, 0.25}>>
  %af = quant.dcast %aq : tensor<1x2x!quant.bipolar<f32:1, {0.5, 0.25}>> to tensor<1x2xf32>
  %c = "onnx.Constant"() {value = dense<[[true], [false]]> : tensor<2x1xi1>} : () -> tensor<2x1xi1>
  %bq = quant.scast %c : tensor<2x1xi1> to tensor<2x1x!quant.bipolar<f32, 1.0>>
  %bf = quant.dcast %bq : tensor<2x1x!quant.bipolar<f32, 1.0>> to tensor<2x1xf32>
  %y = "onnx.MatMul"(%af, %bf) : (tensor<1x2xf32>, tensor<2x1xf32>) -> tensor<1x1xf32> loc("matmul_bipolar_axis")
  %yq = quant.qcast %y : tensor<1x1xf32> to tensor<1x1x!quant.uniform<i8:f32, 0.5>>
  %yf = quant.dcast %yq : tensor<1x1x!quant.uniform<i8:f32, 0.5>> to tensor<1x1xf32>
  func.return %yf : tensor<1x1xf32>
}
"""


@pytest.mark.parametrize(("source", "where", "message"), [
    pytest.param(CONV_DYNAMIC_WEIGHT, "'onnx.Conv' (conv_dynamic)",
                 "the weight operand must be a constant", id="conv-dynamic-weight"),
    pytest.param(CONV_WEIGHT_PER_INPUT_CHANNEL, "'onnx.Conv' (conv_axis1)",
                 "weights must be quantized per tensor or per output channel (axis 0)", id="conv-weight-axis-1"),
    pytest.param(MATMUL_INPUT_PER_AXIS, "'onnx.MatMul' (matmul_per_axis)",
                 "input A must be quantized per tensor (uniform)", id="input-per-axis"),
    pytest.param(FLOAT_OPERAND, "'onnx.Relu' (relu_float)",
                 "operand 0 is float, not dequantized", id="float-operand"),
    pytest.param(MATMUL_I32_OVERFLOW, "'onnx.MatMul' (matmul_wide)",
                 "the accumulator can reach 68717379584, beyond an i32 accumulator", id="i32-overflow"),
    pytest.param(MAXPOOL_WITH_INDICES, "'onnx.MaxPool' (pool_indices)",
                 "no integer form for this op here", id="maxpool-indices"),
    pytest.param(CLIP_DYNAMIC_BOUNDS, "'onnx.Clip' (clip_dynamic)",
                 "Clip bounds must be constants", id="clip-dynamic-bounds"),
    pytest.param(MATMUL_BIPOLAR_PER_AXIS, "'onnx.MatMul' (matmul_bipolar_axis)",
                 "a bipolar input must have one scale", id="bipolar-input-per-axis"),
])
def test_refusal_is_one_line_naming_the_node(bitfold_opt, source, where, message):
    done = bitfold_opt(source, "-p", "quant-to-integer{integer-only=true}")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: ") and f"quant-to-integer: {where}: " in lines[0], lines[0]
    assert message in lines[0], lines[0]


# %x feeds a qcast and is also used as a float: returned next to the quantized result.
INTEGER_IO_FLOAT_USE = """
func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %xq = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<u8:f32, 0.5:10>>
  %xf = quant.dcast %xq : tensor<4x!quant.uniform<u8:f32, 0.5:10>> to tensor<4xf32>
  func.return %xf, %x : tensor<4xf32>, tensor<4xf32>
}
"""


def test_integer_io_refuses_an_argument_with_a_float_use(bitfold_opt):
    done = bitfold_opt(INTEGER_IO_FLOAT_USE, "-p", "quant-to-integer{integer-io=true}")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "quant-to-integer: integer-io: argument 0 of @f is not read by qcasts to one type" in lines[0]


@pytest.mark.parametrize("source", [CONV_DYNAMIC_WEIGHT, CONV_WEIGHT_PER_INPUT_CHANNEL, MATMUL_INPUT_PER_AXIS,
                                    FLOAT_OPERAND, MATMUL_I32_OVERFLOW, CLIP_DYNAMIC_BOUNDS])
def test_without_integer_only_the_op_stays_a_float_island(bitfold_opt, source):
    done = bitfold_opt(source, "-p", "quant-to-integer")
    assert done.returncode == 0, done.stderr
    assert "onnx." in done.stdout and "quant.qcast" in done.stdout


def test_a_float_op_without_lowering_is_named_in_one_line(bitfold_opt):
    done = bitfold_opt(MAXPOOL_WITH_INDICES, "-p", "quant-to-integer,lower-quant,onnx-float-to-linalg")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "onnx-float-to-linalg: 'onnx.MaxPool' (pool_indices): no float lowering for MaxPool's indices" in lines[0]

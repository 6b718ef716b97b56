// RUN: not bitfold-opt %s -p onnx-data-movement-to-linalg 2>&1 | filecheck %s

// Mode reflect has no lowering: one line naming the op and the node.

func.func @reflect(%x: tensor<4xi8>) -> tensor<6xi8> {
  %pads = "onnx.Constant"() {value = dense<[1, 1]> : tensor<2xi64>} : () -> tensor<2xi64>
  %r = "onnx.Pad"(%x, %pads) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>}> {mode = "reflect"} : (tensor<4xi8>, tensor<2xi64>) -> tensor<6xi8> loc("pad0")
  func.return %r : tensor<6xi8>
}
// CHECK: onnx-data-movement-to-linalg: 'onnx.Pad' (pad0): mode 'reflect' is not supported (constant and edge only)

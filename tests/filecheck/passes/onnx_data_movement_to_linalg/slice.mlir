// RUN: bitfold-opt %s -p onnx-data-movement-to-linalg | filecheck %s

// Slice reads the source at affine indices per axis: axis 0 whole (the loop index), axis 1
// from 1 (i + 1), axis 2 backwards from 4 in steps of 2 (i * -2 + 4).
func.func @f(%x: tensor<2x3x5xi8>) -> tensor<2x2x2xi8> {
  %starts = "onnx.Constant"() {value = dense<[1, 4]> : tensor<2xi64>} : () -> tensor<2xi64>
  %ends = "onnx.Constant"() {value = dense<[3, 0]> : tensor<2xi64>} : () -> tensor<2xi64>
  %axes = "onnx.Constant"() {value = dense<[1, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %steps = "onnx.Constant"() {value = dense<[1, -2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %s = "onnx.Slice"(%x, %starts, %ends, %axes, %steps) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>}> : (tensor<2x3x5xi8>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x2x2xi8>
  func.return %s : tensor<2x2x2xi8>
}
// CHECK:      %[[E:.*]] = tensor.empty() : tensor<2x2x2xi8>
// CHECK-NEXT: %s = linalg.generic {{.*}} outs(%[[E]] : tensor<2x2x2xi8>) {
// CHECK-NEXT: ^bb0(%{{.*}}: i8):
// CHECK-NEXT:   %[[I0:.*]] = linalg.index 0 : index
// CHECK-NEXT:   %[[I1:.*]] = linalg.index 1 : index
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:   %[[J1:.*]] = arith.addi %[[I1]], %[[ONE]] : index
// CHECK-NEXT:   %[[I2:.*]] = linalg.index 2 : index
// CHECK-NEXT:   %[[STEP:.*]] = arith.constant -2 : index
// CHECK-NEXT:   %[[M2:.*]] = arith.muli %[[I2]], %[[STEP]] : index
// CHECK-NEXT:   %[[FOUR:.*]] = arith.constant 4 : index
// CHECK-NEXT:   %[[J2:.*]] = arith.addi %[[M2]], %[[FOUR]] : index
// CHECK-NEXT:   %[[V:.*]] = tensor.extract %x[%[[I0]], %[[J1]], %[[J2]]] : tensor<2x3x5xi8>
// CHECK-NEXT:   linalg.yield %[[V]] : i8
// CHECK-NEXT: } -> tensor<2x2x2xi8>
// CHECK-NEXT: func.return %s

// RUN: bitfold-opt %s -p onnx-data-movement-to-linalg | filecheck %s

// Gather with constant indices that are no affine sequence reads its axis through an i32
// table (the indices, -1 counted from the end: [2, 0, 2]); the other axis is the loop index.
func.func @f(%x: tensor<3x4xi8>) -> tensor<3x4xi8> {
  %i = "onnx.Constant"() {value = dense<[2, 0, -1]> : tensor<3xi64>} : () -> tensor<3xi64>
  %g = "onnx.Gather"(%x, %i) {axis = 0 : i64} : (tensor<3x4xi8>, tensor<3xi64>) -> tensor<3x4xi8>
  func.return %g : tensor<3x4xi8>
}
// CHECK:      %[[T:.*]] = arith.constant dense<[2, 0, 2]> : tensor<3xi32>
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<3x4xi8>
// CHECK-NEXT: %g = linalg.generic {{.*}} outs(%[[E]] : tensor<3x4xi8>) {
// CHECK-NEXT: ^bb0(%{{.*}}: i8):
// CHECK-NEXT:   %[[I0:.*]] = linalg.index 0 : index
// CHECK-NEXT:   %[[R:.*]] = tensor.extract %[[T]][%[[I0]]] : tensor<3xi32>
// CHECK-NEXT:   %[[J0:.*]] = arith.index_cast %[[R]] : i32 to index
// CHECK-NEXT:   %[[I1:.*]] = linalg.index 1 : index
// CHECK-NEXT:   %[[V:.*]] = tensor.extract %x[%[[J0]], %[[I1]]] : tensor<3x4xi8>
// CHECK-NEXT:   linalg.yield %[[V]] : i8
// CHECK-NEXT: } -> tensor<3x4xi8>
// CHECK-NEXT: func.return %g

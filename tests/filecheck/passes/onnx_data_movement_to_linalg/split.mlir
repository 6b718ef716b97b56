// RUN: bitfold-opt %s -p onnx-data-movement-to-linalg | filecheck %s

// Each piece of a Split is a selection of the input: the first reads channels 0..0 (the
// loop index), the second channels 1..3 (i + 1).
func.func @f(%x: tensor<1x4xi8>) -> (tensor<1x1xi8>, tensor<1x3xi8>) {
  %sizes = "onnx.Constant"() {value = dense<[1, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  %a, %b = "onnx.Split"(%x, %sizes) {axis = 1 : i64} : (tensor<1x4xi8>, tensor<2xi64>) -> (tensor<1x1xi8>, tensor<1x3xi8>)
  func.return %a, %b : tensor<1x1xi8>, tensor<1x3xi8>
}
// CHECK:      %[[EA:.*]] = tensor.empty() : tensor<1x1xi8>
// CHECK-NEXT: %a = linalg.generic
// CHECK:        tensor.extract %x[%{{.*}}, %{{.*}}] : tensor<1x4xi8>
// CHECK:      %[[EB:.*]] = tensor.empty() : tensor<1x3xi8>
// CHECK-NEXT: %b = linalg.generic
// CHECK:        %[[I1:.*]] = linalg.index 1 : index
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:   %[[J1:.*]] = arith.addi %[[I1]], %[[ONE]] : index
// CHECK-NEXT:   tensor.extract %x[%{{.*}}, %[[J1]]] : tensor<1x4xi8>
// CHECK:      func.return %a, %b
// CHECK-NOT:  onnx.Constant

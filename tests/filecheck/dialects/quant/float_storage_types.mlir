// RUN: bitfold-opt --allow-unregistered-dialect %s | filecheck %s
// RUN: bitfold-opt --allow-unregistered-dialect %s | bitfold-opt --allow-unregistered-dialect | filecheck %s
// RUN: bitfold-opt --allow-unregistered-dialect %s --print-op-generic | bitfold-opt --allow-unregistered-dialect | filecheck %s

// Float storage in !quant.uniform (upstream's syntax after LLVM 22; mlir-opt-22 reads none of it,
// tests/dialects/test_mlir_opt_quant_interchange.py): per tensor and per axis, a written zero
// zero point dropped as upstream prints none.

"test.op"() {t0 = !quant.uniform<f8E4M3FN:f32, 0.5>} : () -> ()
"test.op"() {t1 = !quant.uniform<f8E4M3FNUZ:f32, 0.25:0>} : () -> ()
"test.op"() {t2 = !quant.uniform<f8E5M2:f16, 2.0>} : () -> ()
"test.op"() {t3 = !quant.uniform<f8E5M2FNUZ:f32:1, {0.5, 0.25}>} : () -> ()
"test.op"() {t4 = !quant.uniform<f4E2M1FN:f32, 0.125>} : () -> ()

// CHECK: t0 = !quant.uniform<f8E4M3FN:f32, 5.000000e-01>
// CHECK: t1 = !quant.uniform<f8E4M3FNUZ:f32, 2.500000e-01>
// CHECK: t2 = !quant.uniform<f8E5M2:f16, 2.000000e+00>
// CHECK: t3 = !quant.uniform<f8E5M2FNUZ:f32:1, {5.000000e-01,2.500000e-01}>
// CHECK: t4 = !quant.uniform<f4E2M1FN:f32, 1.250000e-01>

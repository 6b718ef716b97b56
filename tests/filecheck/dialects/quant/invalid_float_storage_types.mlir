// RUN: bitfold-opt %s --allow-unregistered-dialect --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s

// Float storage takes no zero point and no blocks.

"test.op"() {t = !quant.uniform<f8E4M3FN:f32, 0.5:3>} : () -> ()
// CHECK: f8E4M3FN storage takes no zero point

// -----

"test.op"() {t = !quant.uniform<f8E5M2:f32:{0:2}, {{0.5}}>} : () -> ()
// CHECK: f8E5M2 storage is per tensor or per axis

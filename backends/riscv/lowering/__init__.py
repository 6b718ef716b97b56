"""Instruction selection for the RISC-V code generator: memrefs to addresses and loads/stores, integer
and float arith to instructions (F or soft float), the ops xDSL 0.74 lacks (`rvmem`, `rvfloat`)."""

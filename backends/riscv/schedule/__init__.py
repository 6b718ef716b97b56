"""Loop scheduling for the RISC-V code generator: the plan of a register-tiled loop nest, the tiled
pointer loops, and constant weights re-laid out in the panels the nest reads."""

"""Register allocation for the RISC-V code generator: xDSL's allocator with bitfold's loop
allocation, copies that keep it sound, constants sunk next to their uses, spilling."""

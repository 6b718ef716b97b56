"""What bitfold checks on every module it reads before anything runs or rewrites it.

`verify_program(module)`:
- xDSL's verifier (every op's `verify_`, hence bitfold's checks of QONNX attributes and ONNX
  quantization parameters);
- dominance, which xDSL 0.74 does not check (`bitfold.dialects.xdsl_compat.dominance`).
Types are not held to the tensor cap here: a type allocates nothing (`mlir-opt` prints a
`tensor<1000000000000x1000000000000xf32>` argument, and so does `bitfold-opt`). The cap is checked
where data is made (`bitfold.dialects.tensor_limits`).
"""

from xdsl.dialects.builtin import ModuleOp

from bitfold.dialects.xdsl_compat.dominance import check_dominance


def verify_program(module: ModuleOp) -> None:
    """The checks of the module docstring."""
    module.verify()
    check_dominance(module)

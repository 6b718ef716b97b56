"""`.mlirbc` input (MLIR bytecode): read through upstream `mlir-opt-22`, which prints the module as
generic text for bitfold's parser; unregistered dialects (bitfold's onnx ops) are allowed in it. Without
mlir-opt-22, or for bytes it cannot read, one error line. Writing bytecode is mlir-opt-22's job:
`bitfold-opt model.mlir | mlir-opt-22 --emit-bytecode -o model.mlirbc`."""

import shutil
import subprocess

from bitfold.frontends import FrontendError

MLIR_OPT = "mlir-opt-22"
"""Debian's `mlir-22-tools`: the upstream reader of MLIR bytecode."""


def bytecode_to_text(data: bytes, name: str) -> str:
    """The module in the bytecode `data` (from the file `name`) as MLIR text in generic form."""
    path = shutil.which(MLIR_OPT)
    if path is None:
        raise FrontendError(f"{name}: MLIR bytecode is read through {MLIR_OPT}, which is not installed "
                            "(apt-get install mlir-22-tools); give the IR as text (.mlir) instead")
    done = subprocess.run([path, "--allow-unregistered-dialect", "--mlir-print-op-generic"],
                          input=data, capture_output=True)
    if done.returncode != 0:
        reason = next((line for line in done.stderr.decode(errors="replace").splitlines() if "error" in line),
                      "unreadable")
        raise FrontendError(f"{name}: {MLIR_OPT} cannot read it as MLIR bytecode: {reason.strip()}")
    return done.stdout.decode()

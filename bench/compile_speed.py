"""How long `bitfold-compile` takes, stage by stage, on the MLPerf Tiny fixtures (QDQ per channel)
and torchvision's EfficientNet-B0 and ResNet-18 at 64x64 (`scripts/make_torchvision_models.py`),
for rv32im (bitfold's code generator) and rv64imv (MLIR 22 + LLVM 22).

    python bench/compile_speed.py [--models DIR] [--targets rv32im rv64imv] [--only NAME ...] [--passes]

The torchvision models are read from DIR (default: a `bitfold-compile-speed` folder in the temporary
directory); when absent they are made there by the script, which needs torch and torchvision (the
benchmark then runs without them if torch is not installed). Stages, in the order `compile_model`
runs them: import (with the program check), each pass of `onnx-to-backend-input` and the module
verification before and after them (as `lower_to_backend_input` verifies), then for rv32im the
passes on tensors (`riscv_tensor_passes`: count thresholds, narrow lanes), the
kernel ABI form (bufferize) and each pass of `riscv_passes` (grouped: tiling and loops, lowering to
riscv, register allocation and what follows; `--passes` prints every pass) and the assembly text;
for rv64imv bufferize (with the vector contraction), the MLIR text, mlir-opt-22,
mlir-translate-22 and clang-22. Prints seconds per stage (elapsed, and CPU seconds of this process
and the tools it ran) and the total per model and target, and first the CPU seconds of this process's start-up
(Python and the imports: part of every `bitfold-compile` run, not of the totals; here with the LLVM
backend's, which a scalar target's run does not import). Prints figures, asserts nothing.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPOSITORY / "tests"))  # the test-model package: models.mlperf_tiny
sys.path.insert(0, str(REPOSITORY / "scripts"))

import make_torchvision_models as torchvision_models  # noqa: E402
from models import mlperf_tiny  # noqa: E402
from xdsl.dialects.builtin import ModuleOp  # noqa: E402
from xdsl.dialects.riscv import riscv_code  # noqa: E402

from bitfold.backends.kernel.kernel import kernel_form  # noqa: E402
from bitfold.backends.llvm.emit import llvm_target  # noqa: E402
from bitfold.backends.llvm.mlir_input import bufferized_kernel, upstream_mlir_text  # noqa: E402
from bitfold.backends.llvm.toolchain import compile_llvm_ir, to_llvm_dialect, to_llvm_ir  # noqa: E402
from bitfold.backends.riscv.emission.emit import data_sections  # noqa: E402
from bitfold.backends.riscv.pipeline import (  # noqa: E402
    check_input,
    isa_of,
    lower_to_riscv,
    riscv_context,
    riscv_tensor_passes,
)
from bitfold.garbage_collection import collect_rarely  # noqa: E402
from bitfold.interpreter import entry_function  # noqa: E402
from bitfold.load import full_context, load_module  # noqa: E402
from bitfold.passes.pipelines import backend_input_stages  # noqa: E402

TARGETS = ("rv32im", "rv64imv")
MLPERF_FORM = "qdq-u8s8-perchannel"
DEFAULT_MODELS = Path(tempfile.gettempdir()) / "bitfold-compile-speed"
RISCV_GROUPS = {
    "bitfold-riscv-register-tiled-loops": "loops", "bitfold-riscv-linalg-to-loops": "loops", "lower-affine": "loops",
    "bitfold-riscv-allocate-registers": "registers", "riscv-lower-parallel-mov": "registers",
    "bitfold-riscv-loops-to-branches": "registers", "bitfold-riscv-prologue-epilogue": "registers",
}
"""rv32im's passes grouped for the table; every other pass is 'to riscv'"""


def cpu_seconds() -> float:
    """CPU seconds of this process and of the tools it ran (clang-22, mlir-opt-22) so far."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


class Clock:
    """Seconds per stage, in the order the stages first ran: elapsed and CPU (on a shared
    machine the CPU seconds are the figure that does not depend on the other processes)."""

    def __init__(self):
        self.seconds: dict[str, float] = defaultdict(float)
        self.cpu: dict[str, float] = defaultdict(float)
        self._last = time.perf_counter()
        self._last_cpu = cpu_seconds()

    def lap(self, stage: str) -> None:
        now, now_cpu = time.perf_counter(), cpu_seconds()
        self.seconds[stage] += now - self._last
        self.cpu[stage] += now_cpu - self._last_cpu
        self._last, self._last_cpu = now, now_cpu


def backend_input(path: Path, clock: Clock) -> ModuleOp:
    module = load_module(str(path))
    clock.lap("import")
    ctx = full_context()
    module.verify()
    clock.lap("verify")
    for stage in backend_input_stages(integer_io=True):
        stage.apply(ctx, module)
        clock.lap(stage.name)
    module.verify()
    clock.lap("verify")
    return module


def rv32im(module: ModuleOp, clock: Clock, passes: bool) -> None:
    isa = isa_of("rv32im")
    module = module.clone()
    function = check_input(module, isa.xlen)
    function.sym_visibility = None
    clock.lap("check")
    ctx = riscv_context()
    for module_pass in riscv_tensor_passes(isa.xlen):
        module_pass.apply(ctx, module)
        clock.lap(module_pass.name if passes else "tensor passes")
    kernel_form(ctx, module, function)
    clock.lap("bufferize")
    lowered = lower_to_riscv(module, isa.xlen, ctx, after=lambda p, _: clock.lap(
        p.name if passes else RISCV_GROUPS.get(p.name, "to riscv")))
    globals_ = [op for op in lowered.ops if op.name == "memref.global"]
    for global_op in globals_:
        global_op.detach()
    riscv_code(lowered) + data_sections(globals_)
    clock.lap("assembly")


def rv64imv(module: ModuleOp, clock: Clock) -> None:
    target = llvm_target("rv64imv")
    symbol = entry_function(module).sym_name.data
    kernel, _ = bufferized_kernel(full_context(), module, symbol, target.vector)
    clock.lap("bufferize")
    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch) / "kernel.mlir"
        source.write_text(upstream_mlir_text(kernel))
        clock.lap("mlir text")
        dialect = to_llvm_dialect(source, target.index_bits)
        clock.lap("mlir-opt-22")
        ir = to_llvm_ir(dialect)
        clock.lap("mlir-translate-22")
        compile_llvm_ir(ir, target, ir.with_suffix(".S"), ["-S"])
        clock.lap("clang-22")


def models(directory: Path, only: list[str]) -> dict[str, Path]:
    found = {network: mlperf_tiny.path(f"{network}-{MLPERF_FORM}") for network in mlperf_tiny.NETWORKS}
    missing = [n for n in torchvision_models.NETWORKS if not torchvision_models.model_path(directory, n).exists()]
    if missing and (not only or set(only) & set(missing)):
        script = REPOSITORY / "scripts" / "make_torchvision_models.py"
        made = subprocess.run([sys.executable, str(script), "--output", str(directory), "--networks", *missing])
        if made.returncode != 0:
            print(f"# {', '.join(missing)} left out: {script.name} needs torch and torchvision")
    for network in torchvision_models.NETWORKS:
        if torchvision_models.model_path(directory, network).exists():
            found[network] = torchvision_models.model_path(directory, network)
    return {name: path for name, path in found.items() if not only or name in only}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=DEFAULT_MODELS, help="default: %(default)s")
    parser.add_argument("--targets", nargs="+", choices=TARGETS, default=list(TARGETS))
    parser.add_argument("--only", nargs="+", default=[], help="model names (network names)")
    parser.add_argument("--passes", action="store_true", help="one row per rv32im pass")
    arguments = parser.parse_args()
    print(f"# start-up (interpreter and imports, which bitfold-compile pays once a run): {cpu_seconds():.2f} CPU s")
    collect_rarely()  # as bitfold-compile does
    for name, path in models(arguments.models, arguments.only).items():
        for target in arguments.targets:
            clock = Clock()
            module = backend_input(path, clock)
            if target == "rv32im":
                rv32im(module, clock, arguments.passes)
            else:
                rv64imv(module, clock)
            print(f"\n{name + ' ' + target:38} {'elapsed':>8}   {'cpu':>8}")
            for stage, seconds in clock.seconds.items():
                print(f"  {stage:36} {seconds:8.2f} s {clock.cpu[stage]:8.2f} s")
            print(f"  {'total':36} {sum(clock.seconds.values()):8.2f} s {sum(clock.cpu.values()):8.2f} s", flush=True)


if __name__ == "__main__":
    main()

"""The targets of the LLVM backend and how a harness program for each runs under qemu.

    rv32im rv64im rv32imc rv64imc     the scalar backend's targets, a second code generator (`--backend llvm`)
    rv32im_zbb rv64im_zbb             the same with Zbb (bit manipulation: `cpop`)
    rv32imv rv64imv                   RVV 1.0 (`v` implies LLVM's and qemu's F and D; the code is integer only)
    rv64gcv                           the application profile: G, C and V, lp64d
    host                              x86-64 (System V), a shared object run through ctypes (`native.py`)

The vector code is VLEN-agnostic (LLVM's scalable vectors, `vsetvli`): qemu's `vlen=N` only changes
how many elements one instruction processes, so one program runs at every VLEN (`harness_target`).
"""

import dataclasses
from dataclasses import dataclass

from bitfold.backends.kernel.harness import TARGETS, Target
from bitfold.backends.kernel.harness.targets import PICOLIBC_LIB, qemu_cpu

DEFAULT_VLEN = 128
"""bits of a vector register when `--vlen` is not given: the Zvl128b minimum of the V extension"""
VLENS = (128, 256, 512, 1024)
"""the VLENs `--vlen` accepts (qemu 7.2 supports 128 to 1024)"""
ELEN = 64
"""bits of the widest vector element (V: 64)"""
HOST = "host"
VECTOR_REGISTER_GROUP = 8
"""LMUL the vectorizer may use: groups of 8 registers (matmul 64^3 on rv64imv at VLEN 128: 175,632
instructions against 477,840 with LLVM's default of 1)"""


@dataclass(frozen=True)
class LlvmTarget:
    """One target of the LLVM backend: what clang is told and how wide `index` is."""

    name: str
    triple: str
    march: str | None
    mabi: str | None
    xlen: int

    @property
    def vector(self) -> bool:
        return self.march is not None and "v" in self.march[len("rv32"):]

    @property
    def index_bits(self) -> int:
        """Width of MLIR's `index` in the lowering: XLEN, except on the vector targets, where it is 64:
        upstream's `convert-vector-to-llvm` has no `index-bitwidth` option and builds its memref
        descriptors with 64-bit indices, which must agree with the other conversions' (RV32 vector code
        keeps 64-bit index arithmetic where LLVM cannot narrow it: its loop counters are made i32 first,
        `narrow_index`)."""
        return 64 if self.vector else self.xlen

    @property
    def narrow_index(self) -> bool:
        """The loop counters become i32 before the lowering (`index_to_i32.py`): RV32 with 64-bit `index`."""
        return self.index_bits > self.xlen

    @property
    def clang_flags(self) -> tuple[str, ...]:
        machine = (f"-march={self.march}", f"-mabi={self.mabi}") if self.march else ()
        grouping = ("-mllvm", f"-riscv-v-register-bit-width-lmul={VECTOR_REGISTER_GROUP}") if self.vector else ()
        return (f"--target={self.triple}", *machine, *grouping)


def _riscv(name: str, mabi: str | None = None) -> LlvmTarget:
    xlen = int(name[2:4])
    return LlvmTarget(name, f"riscv{xlen}-unknown-elf", name, mabi or ("ilp32" if xlen == 32 else "lp64"), xlen)


LLVM_TARGETS: dict[str, LlvmTarget] = {
    target.name: target
    for target in (
        *(_riscv(name) for name in ("rv32im", "rv64im", "rv32imc", "rv64imc", "rv32im_zbb", "rv64im_zbb", "rv32imv", "rv64imv")),
        _riscv("rv64gcv", "lp64d"),
        LlvmTarget(HOST, "x86_64-unknown-linux-gnu", None, None, 64),
    )
}
VECTOR_TARGETS = tuple(name for name, target in LLVM_TARGETS.items() if target.vector)


def vector_qemu_cpu(xlen: int, vlen: int, profile: bool) -> str:
    """qemu's `-cpu` for RVV at `vlen` bits: with the application profile (`profile`) everything qemu's
    generic CPU has, else I, M, F, D (which V implies) and V only."""
    vector = f"rv{xlen},v=true,vlen={vlen},elen={ELEN}"
    if profile:
        return vector
    scalar_off = qemu_cpu("", compressed=False).split(",")[1:]
    return ",".join([vector, *(flag for flag in scalar_off if flag.split("=")[0] not in ("v", "f", "d", "Zicsr"))])


@dataclass(frozen=True)
class VectorTarget(Target):
    """A harness target with RVV: the scalar recipe of its XLEN, `-march` with `v`, qemu with `v=true`;
    the C library and libgcc of the scalar ISA (the harness's C code is scalar)."""

    scalar_march: str = ""

    @property
    def compressed(self) -> bool:
        return "c" in self.march[len("rv32"):]

    @property
    def library_flags(self) -> tuple[str, ...]:
        return (f"-march={self.scalar_march}", f"-mabi={self.mabi}")


def harness_target(name: str, vlen: int = DEFAULT_VLEN) -> Target:
    """The harness's build-and-run recipe for an LLVM RISC-V target, qemu set to `vlen` bits for the
    vector ones (the scalar ones are the scalar backend's own)."""
    if name in TARGETS:
        return TARGETS[name]
    target = LLVM_TARGETS[name]
    if not target.vector:
        raise ValueError(f"{name} does not run under qemu")
    if vlen not in VLENS:
        raise ValueError(f"VLEN {vlen} is not one of {', '.join(map(str, VLENS))}")
    base = TARGETS[f"rv{target.xlen}im"]
    profile = target.name == "rv64gcv"
    library = f"{PICOLIBC_LIB}/rv64imafdc/lp64d" if profile else base.picolibc_dir
    fields = {f.name: getattr(base, f.name) for f in dataclasses.fields(base)}
    fields.update(name=target.name, march=target.march, mabi=target.mabi, cpu=vector_qemu_cpu(target.xlen, vlen, profile),
                  picolibc_dir=library, scalar_march="rv64imafdc" if profile else base.march)
    return VectorTarget(**fields)

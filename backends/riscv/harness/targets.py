"""The RISC-V targets a harness program is built for and run on: RV32IM and RV64IM, and the same
with the compressed-instruction extension C (rv32imc, rv64imc: code size).

Every one is built freestanding (no C library start-up code, no glibc): Debian ships glibc for
riscv64 only as rv64gc/lp64d, whose static start-up code executes compressed and
floating-point instructions, so a program linked with it cannot run on a CPU restricted to
RV64IM. Instead every program is the kernel, the generated C `main`, and this package's start
file and Linux system-call shim (`runtime.py`); picolibc's `libc.a` and the matching `libgcc.a`
of the bare-metal toolchain supply `memcpy`, `memset` and the like if a kernel calls them.
"""

from dataclasses import dataclass

PICOLIBC_LIB = "/usr/lib/picolibc/riscv64-unknown-elf/lib"
BARE_METAL_GCC = "riscv64-unknown-elf-gcc"
"""Its multilib `libgcc.a` matches both ISAs and ABIs (Debian's riscv64-linux-gnu one is lp64d only)."""

# Extensions qemu 7.2's generic `rv32` / `rv64` CPUs enable by default beyond RV{32,64}IM
# (checked against `qemu-riscv64 -cpu rv64,<ext>=false`: each of these, once disabled, makes its
# instructions raise SIGILL). `Zicsr` can only go once F is off; `h` must go before `s`/`u` could,
# and those two (privilege modes) change nothing in user mode.
DISABLED_EXTENSIONS = (
    "c", "a", "f", "d", "v", "h",
    "zba", "zbb", "zbc", "zbs",
    "Zicsr", "Zifencei", "Zihintpause", "Zfh", "Zfhmin",
)


def qemu_cpu(base: str, compressed: bool = False) -> str:
    """The `-cpu` value that makes qemu's `base` CPU execute exactly the I and M extensions (and C
    if `compressed`)."""
    disabled = [extension for extension in DISABLED_EXTENSIONS if not (compressed and extension == "c")]
    return ",".join((base, *(f"{extension}=false" for extension in disabled)))


@dataclass(frozen=True)
class Target:
    """How to compile, link and run a program for one RISC-V ISA and ABI under qemu user mode."""

    name: str
    xlen: int
    march: str
    mabi: str
    compiler: str
    """The C compiler that builds the harness (`main`, start file, shim) and links the program."""
    qemu: str
    cpu: str
    """qemu's `-cpu` option: the ISA of `march` and nothing more."""
    picolibc_dir: str
    """Where picolibc's `libc.a` for this ISA and ABI is."""
    clang_target: str
    """The `--target` triple clang-19 needs for freestanding objects of this target."""

    @property
    def machine_flags(self) -> tuple[str, ...]:
        return (f"-march={self.march}", f"-mabi={self.mabi}")

    @property
    def compressed(self) -> bool:
        """Whether the ISA has the C extension (16-bit encodings of common instructions)."""
        return "c" in self.march[len("rv32"):]


def target(xlen: int, compressed: bool) -> Target:
    """rv{xlen}im[c]: the bare-metal compiler for RV32 (Debian's glibc one has no rv32 multilib),
    picolibc's IM multilib for both (no C-extension multilib is shipped; IM code runs on IMC)."""
    isa = f"rv{xlen}im"
    mabi = "ilp32" if xlen == 32 else "lp64"
    return Target(
        name=isa + ("c" if compressed else ""),
        xlen=xlen,
        march=isa + ("c" if compressed else ""),
        mabi=mabi,
        compiler="riscv64-unknown-elf-gcc" if xlen == 32 else "riscv64-linux-gnu-gcc",
        qemu=f"qemu-riscv{xlen}",
        cpu=qemu_cpu(f"rv{xlen}", compressed),
        picolibc_dir=f"{PICOLIBC_LIB}/{isa}/{mabi}",
        clang_target=f"riscv{xlen}-unknown-elf",
    )


TARGETS: dict[str, Target] = {
    spec.name: spec for spec in (target(xlen, compressed) for compressed in (False, True) for xlen in (32, 64))
}

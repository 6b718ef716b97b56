"""The RISC-V targets a harness program is built for and run on: RV32IM and RV64IM, the same
with the compressed-instruction extension C (rv32imc, rv64imc: code size), with hardware float
(rv32imf on ilp32f, rv64imfd on lp64d), and each of those with Zbb (rv32im_zbb, ...: `cpop`), one
per ISA string of `backends.kernel.isa`.

Every one is built freestanding (no C library start-up code, no glibc): Debian ships glibc for
riscv64 only as rv64gc/lp64d, whose static start-up code executes compressed and
floating-point instructions, so a program linked with it cannot run on a CPU restricted to
RV64IM. Instead every program is the kernel, the generated C `main`, and this package's start
file and Linux system-call shim (`runtime.py`); picolibc's `libc.a` and the matching `libgcc.a`
of the bare-metal toolchain supply `memcpy`, `memset` and the like if a kernel calls them.
"""

from dataclasses import dataclass

from bitfold.backends.kernel.isa import ARCHITECTURES, Isa

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


LIBRARY_MULTILIBS = {"rv64imfd": "rv64ifd"}
"""ISAs whose libraries come from another multilib: neither picolibc nor the bare-metal libgcc
ship rv64imfd/lp64d, and their rv64ifd/lp64d build runs on it (it only lacks `mul`)."""


def qemu_cpu(base: str, compressed: bool = False, zbb: bool = False, float_letters: str = "") -> str:
    """The `-cpu` value that makes qemu's `base` CPU execute exactly the I and M extensions (and C
    if `compressed`, Zbb if `zbb`, F and D as `float_letters` say, with the Zicsr they need)."""
    kept = {"c": compressed, "zbb": zbb, "f": "f" in float_letters, "d": "d" in float_letters,
            "Zicsr": bool(float_letters)}
    disabled = [f"{extension}=false" for extension in DISABLED_EXTENSIONS if not kept.get(extension)]
    return ",".join((base, *disabled, *(["zbb=true"] if zbb else [])))


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
        return Isa.parse(self.march).compressed

    @property
    def library_flags(self) -> tuple[str, ...]:
        """`-march`/`-mabi` of the multilib the libraries come from: the base ISA (gcc 12 finds
        no multilib for rv32im_zbb and would fall back to its rv64 default)."""
        base = Isa.parse(self.march).base
        return (f"-march={LIBRARY_MULTILIBS.get(base, base)}", f"-mabi={self.mabi}")


def target(isa: Isa) -> Target:
    """`isa`: the bare-metal compiler for RV32 (Debian's glibc one has no rv32 multilib),
    picolibc's IM (IMF, IFD) multilib for both (no C-extension multilib is shipped; IM code runs
    on IMC)."""
    xlen = isa.xlen
    mabi = isa.abi
    library = LIBRARY_MULTILIBS.get(isa.base, isa.base)
    return Target(
        name=isa.name,
        xlen=xlen,
        march=isa.name,
        mabi=mabi,
        compiler="riscv64-unknown-elf-gcc" if xlen == 32 else "riscv64-linux-gnu-gcc",
        qemu=f"qemu-riscv{xlen}",
        cpu=qemu_cpu(f"rv{xlen}", isa.compressed, isa.zbb, isa.float_letters),
        picolibc_dir=f"{PICOLIBC_LIB}/{library}/{mabi}",
        clang_target=f"riscv{xlen}-unknown-elf",
    )


TARGETS: dict[str, Target] = {name: target(Isa.parse(name)) for name in ARCHITECTURES}

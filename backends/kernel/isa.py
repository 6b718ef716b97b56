"""RISC-V ISA strings the scalar code generator accepts and the harness builds and runs for, parsed:

    rv32im[f][c][_zbb]     e.g. rv32im, rv32imc, rv32imf, rv32imfc, rv32im_zbb
    rv64im[fd][c][_zbb]    e.g. rv64im, rv64imc, rv64imfd, rv64imfdc_zbb

`rv32`/`rv64` give XLEN; `i` and `m` are required; `f` (RV32) or `fd` (RV64) give hardware
floating point (single precision on RV32; RV64 takes D too because that is what Debian's
riscv64-linux-gnu toolchain and its lp64d ABI are built for); without them float code becomes
calls into libgcc's soft-float routines (`backends/riscv/lowering/soft_float.py`). `c` turns on compressed
instructions; the multi-letter extensions follow, each after `_` (lower case, as GNU as writes
them), and the only one used is Zbb (basic bit manipulation: `cpop`/`cpopw` for `math.ctpop`).

ABIs: ilp32 / lp64 without hardware float, ilp32f on rv32imf, lp64d on rv64imfd. The generated
function passes no float in registers, so only the object's ELF float-ABI flag depends on it."""

import re
from dataclasses import dataclass

ISA_PATTERN = re.compile(
    r"rv(?P<xlen>32|64)im(?P<float>fd?)?(?P<compressed>c?)(?P<extensions>(?:_z[a-z0-9]+)*)"
)
KNOWN_EXTENSIONS = ("zbb",)
HARDWARE_FLOAT = {32: "f", 64: "fd"}
"""The float letters each XLEN takes (module docstring)."""


class IsaError(ValueError):
    """An ISA string outside what the code generator supports."""


@dataclass(frozen=True)
class Isa:
    """A parsed ISA string."""

    xlen: int
    compressed: bool
    extensions: tuple[str, ...]
    float_letters: str = ""
    """"" (soft float), "f" (RV32F) or "fd" (RV64F and D)"""

    @property
    def zbb(self) -> bool:
        return "zbb" in self.extensions

    @property
    def hard_float(self) -> bool:
        """Whether the target has F: f32 values in f registers, F instructions."""
        return bool(self.float_letters)

    @property
    def abi(self) -> str:
        """The psABI name: ilp32 / lp64, ilp32f with F, lp64d with F and D."""
        return ("ilp32" if self.xlen == 32 else "lp64") + self.float_letters[-1:]

    @property
    def base(self) -> str:
        """rv32im, rv64im, rv32imf, rv64imfd: what the ISA's libraries (picolibc, libgcc
        multilibs) are built for."""
        return f"rv{self.xlen}im{self.float_letters}"

    @property
    def name(self) -> str:
        return self.base + ("c" if self.compressed else "") + "".join(f"_{e}" for e in self.extensions)

    @staticmethod
    def parse(text: str) -> "Isa":
        found = ISA_PATTERN.fullmatch(text)
        if found is None:
            raise IsaError(
                f"unknown architecture {text!r} (expected rv32im or rv64im, then f (rv32) or fd (rv64), then c, "
                "then _zbb)"
            )
        xlen, float_letters = int(found["xlen"]), found["float"] or ""
        if float_letters and float_letters != HARDWARE_FLOAT[xlen]:
            raise IsaError(f"{text!r}: hardware float is {HARDWARE_FLOAT[xlen]!r} on rv{xlen}")
        extensions = tuple(found["extensions"].split("_")[1:])
        for extension in extensions:
            if extension not in KNOWN_EXTENSIONS:
                raise IsaError(f"{text!r}: extension {extension!r} is not supported (known: {', '.join(KNOWN_EXTENSIONS)})")
        if len(set(extensions)) != len(extensions):
            raise IsaError(f"{text!r} names an extension twice")
        return Isa(xlen, bool(found["compressed"]), extensions, float_letters)


ARCHITECTURES = tuple(
    Isa(xlen, compressed, extensions, float_letters).name
    for extensions in ((), ("zbb",))
    for hard_float in (False, True)
    for compressed in (False, True)
    for xlen in (32, 64)
    for float_letters in [HARDWARE_FLOAT[xlen] if hard_float else ""]
)
"""Every ISA string the code generator accepts."""

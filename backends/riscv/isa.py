"""RISC-V ISA strings the scalar code generator accepts, parsed:

    rv{32,64}im[c][_zbb]       e.g. rv32im, rv64imc, rv32im_zbb, rv64imc_zbb

`rv32`/`rv64` give XLEN; `i` and `m` are required; `c` turns on compressed instructions; the
multi-letter extensions follow, each after `_` (lower case, as GNU as writes them), and the
only one used is Zbb (basic bit manipulation: `cpop`/`cpopw` for `math.ctpop`)."""

import re
from dataclasses import dataclass

ISA_PATTERN = re.compile(r"rv(?P<xlen>32|64)im(?P<compressed>c?)(?P<extensions>(?:_z[a-z0-9]+)*)")
KNOWN_EXTENSIONS = ("zbb",)


class IsaError(ValueError):
    """An ISA string outside what the code generator supports."""


@dataclass(frozen=True)
class Isa:
    """A parsed ISA string."""

    xlen: int
    compressed: bool
    extensions: tuple[str, ...]

    @property
    def zbb(self) -> bool:
        return "zbb" in self.extensions

    @property
    def base(self) -> str:
        """rv32im or rv64im: what the ISA's libraries (picolibc, libgcc multilibs) are built for."""
        return f"rv{self.xlen}im"

    @property
    def name(self) -> str:
        return self.base + ("c" if self.compressed else "") + "".join(f"_{e}" for e in self.extensions)

    @staticmethod
    def parse(text: str) -> "Isa":
        found = ISA_PATTERN.fullmatch(text)
        if found is None:
            raise IsaError(f"unknown architecture {text!r} (expected rv32im or rv64im, then c, then _zbb)")
        extensions = tuple(found["extensions"].split("_")[1:])
        for extension in extensions:
            if extension not in KNOWN_EXTENSIONS:
                raise IsaError(f"{text!r}: extension {extension!r} is not supported (known: {', '.join(KNOWN_EXTENSIONS)})")
        if len(set(extensions)) != len(extensions):
            raise IsaError(f"{text!r} names an extension twice")
        return Isa(int(found["xlen"]), bool(found["compressed"]), extensions)


ARCHITECTURES = tuple(
    Isa(xlen, compressed, extensions).name
    for extensions in ((), ("zbb",))
    for compressed in (False, True)
    for xlen in (32, 64)
)
"""Every ISA string the code generator accepts."""

"""The fixed part of every harness program: start file, checked call, Linux system-call shim.

Kept as source text (not package data files) so that a non-editable install carries it too.
Both files go through the C preprocessor and serve RV32 and RV64 (`__riscv_xlen`).
"""

from collections.abc import Callable

START_FILE_NAME = "start.S"
SYSCALLS_FILE_NAME = "syscalls.c"

# The values the callee-saved registers s0..s11 hold while the kernel runs: CANARY + i.
CANARY = 0x5EED0000
# Bits of `bitfold_call_checked`'s result: s<i> is bit i, then these.
CLOBBER_BIT_SP = 12
CLOBBER_BIT_GP = 13
CLOBBER_BIT_TP = 14
# The values fs0..fs11 hold while the kernel runs (targets with F): FLOAT_CANARY + i, all FLEN bits.
FLOAT_CANARY = 0x5EED0100
CLOBBER_BIT_FS0 = 15
"""fs<i> is bit 15 + i (checked where the harness is built with F and a hard-float ABI, `CHECK_FS`: under
a soft-float ABI, lp64 on rv64imv with its implied D, fs0..fs11 are caller-saved and the LLVM backend
uses them freely)"""
CLOBBER_NAMES = tuple(f"s{i}" for i in range(12)) + ("sp", "gp", "tp") + tuple(f"fs{i}" for i in range(12))


def _checked_call_frame(store_or_load: str, float_store_or_load: str) -> str:
    """`bitfold_call_checked`'s frame (FRAME bytes at sp), saved or restored with the given
    instructions: ra, s0..s11, gp, tp in slots 0..14 of SZREG bytes, and where the call checks
    them (`CHECK_FS`) fs0..fs11 after 16 such slots, FSZ bytes each."""
    integer_slots = ("ra", *(f"s{i}" for i in range(12)), "gp", "tp")
    return "\n".join([
        *(f"    {store_or_load} {register}, {slot}*SZREG(sp)" for slot, register in enumerate(integer_slots)),
        "#ifdef CHECK_FS",
        *(f"    {float_store_or_load} fs{i}, 16*SZREG+{i}*FSZ(sp)" for i in range(12)),
        "#endif",
    ])


_FRAME_SAVE = _checked_call_frame("REG_S", "FREG_S")
_FRAME_RESTORE = _checked_call_frame("REG_L", "FREG_L")

def _canaries(integer_lines: Callable[[int], str], float_lines: Callable[[int], str]) -> str:
    """The lines `integer_lines(i)` for the callee-saved registers s0..s11, then, where the call
    checks them (`CHECK_FS`), `float_lines(i)` for fs0..fs11."""
    return "\n".join([
        *map(integer_lines, range(12)),
        "#ifdef CHECK_FS",
        *map(float_lines, range(12)),
        "#endif",
    ])


_SET_CANARIES = _canaries(lambda i: f"    li s{i}, {CANARY} + {i}",
                          lambda i: f"    li t2, {FLOAT_CANARY} + {i}\n    FMV_TO fs{i}, t2")
"""s<i> = CANARY + i, fs<i> = FLOAT_CANARY + i in all FLEN bits (`fmv` of the integer)."""
_CHECK_CANARIES = _canaries(
    lambda i: f"    expect s{i}, {CANARY} + {i}, {i}",
    lambda i: f"    FMV_FROM t3, fs{i}\n    expect t3, {FLOAT_CANARY} + {i}, {CLOBBER_BIT_FS0 + i}",
)
"""Each register still holding its canary, else its clobber bit set (`expect`, in the start file)."""

START_FILE = rf"""/* Start file and checked call of the bitfold harness (qemu user mode, Linux ABI). */
#if __riscv_xlen == 64
#define REG_S sd
#define REG_L ld
#define SZREG 8
#else
#define REG_S sw
#define REG_L lw
#define SZREG 4
#endif
#if defined(__riscv_flen) && !defined(__riscv_float_abi_soft)
#define CHECK_FS 1
#endif
#ifdef __riscv_flen
#if __riscv_flen == 64
#define FREG_S fsd
#define FREG_L fld
#define FSZ 8
#define FMV_TO fmv.d.x
#define FMV_FROM fmv.x.d
#else
#define FREG_S fsw
#define FREG_L flw
#define FSZ 4
#define FMV_TO fmv.w.x
#define FMV_FROM fmv.x.w
#endif
#define FFRAME (12 * FSZ)
#else
#define FFRAME 0
#endif
#define FRAME (16 * SZREG + FFRAME)

    .option norelax     /* no gp-relative addressing: the checked call must survive a clobbered gp */

/* _start: the kernel's initial stack holds argc, then argv[]. Calls main(argc, argv) and
   exits with its result through exit_group (system call 94). */
    .text
    .globl _start
    .type _start, @function
_start:
    lla gp, __global_pointer$
    REG_L a0, 0(sp)
    addi a1, sp, SZREG
    andi sp, sp, -16
    call main
    li a7, 94
    ecall
1:  j 1b
    .size _start, . - _start

/* unsigned long bitfold_call_checked(void (*function)(void), void *const *arguments, unsigned long count)
   Calls function(arguments[0], ..., arguments[count - 1]) by the standard calling convention
   (arguments[] has at least eight entries; those past the eighth go on the stack) with s<i> set
   to {CANARY:#x} + i (and fs<i> to {FLOAT_CANARY:#x} + i in all FLEN bits where the target has F), and
   returns a mask of the callee-saved registers the call did not preserve: bit i for s<i>,
   bit {CLOBBER_BIT_SP} sp, bit {CLOBBER_BIT_GP} gp, bit {CLOBBER_BIT_TP} tp, bit {CLOBBER_BIT_FS0} + i for fs<i>. */
    .globl bitfold_call_checked
    .type bitfold_call_checked, @function
bitfold_call_checked:
    addi sp, sp, -FRAME
{_FRAME_SAVE}
    lla t3, saved_frame
    REG_S sp, 0(t3)
    mv t0, a0
    mv t1, a1
    li t3, 8
    bleu a2, t3, 2f
    sub t3, a2, t3              /* stack arguments: arguments[8 .. count) */
    slli t4, t3, (SZREG / 4 + 1)
    addi t4, t4, 15
    andi t4, t4, -16
    sub sp, sp, t4
    addi t5, t1, 8*SZREG
    mv t6, sp
1:  REG_L t4, 0(t5)
    REG_S t4, 0(t6)
    addi t5, t5, SZREG
    addi t6, t6, SZREG
    addi t3, t3, -1
    bnez t3, 1b
2:  lla t3, expected_sp
    REG_S sp, 0(t3)
    REG_L a0, 0*SZREG(t1)
    REG_L a1, 1*SZREG(t1)
    REG_L a2, 2*SZREG(t1)
    REG_L a3, 3*SZREG(t1)
    REG_L a4, 4*SZREG(t1)
    REG_L a5, 5*SZREG(t1)
    REG_L a6, 6*SZREG(t1)
    REG_L a7, 7*SZREG(t1)
{_SET_CANARIES}
    jalr t0

.macro expect_equal register, other, bit
    beq \register, \other, 3f
    li t1, 1 << \bit
    or t0, t0, t1
3:
.endm
.macro expect register, value, bit
    li t2, \value
    expect_equal \register, t2, \bit
.endm
    li t0, 0
{_CHECK_CANARIES}
    lla t3, saved_frame
    REG_L t3, 0(t3)
    lla t4, expected_sp
    REG_L t4, 0(t4)
    expect_equal sp, t4, {CLOBBER_BIT_SP}
    REG_L t4, 13*SZREG(t3)
    expect_equal gp, t4, {CLOBBER_BIT_GP}
    REG_L t4, 14*SZREG(t3)
    expect_equal tp, t4, {CLOBBER_BIT_TP}
    mv a0, t0
    mv sp, t3
{_FRAME_RESTORE}
    addi sp, sp, FRAME
    ret
    .size bitfold_call_checked, . - bitfold_call_checked

    .bss
    .balign SZREG
expected_sp:
    .zero SZREG
saved_frame:
    .zero SZREG
"""

SYSCALLS = r"""/* Linux system calls for the bitfold harness under qemu user mode (RV32 and RV64 share the
   asm-generic numbers). No C library start-up code or stdio is involved. */
#include <stddef.h>

#define SYS_OPENAT 56
#define SYS_READ 63
#define SYS_WRITE 64
#define SYS_EXIT_GROUP 94
#define AT_FDCWD (-100)

static long bitfold_syscall(long number, long first, long second, long third, long fourth) {
    register long a0 __asm__("a0") = first;
    register long a1 __asm__("a1") = second;
    register long a2 __asm__("a2") = third;
    register long a3 __asm__("a3") = fourth;
    register long a7 __asm__("a7") = number;
    __asm__ volatile("ecall" : "+r"(a0) : "r"(a1), "r"(a2), "r"(a3), "r"(a7) : "memory");
    return a0;
}

int bitfold_open(const char *path, int flags, int mode) {
    return (int)bitfold_syscall(SYS_OPENAT, AT_FDCWD, (long)path, flags, mode);
}

long bitfold_read(int fd, void *buffer, size_t size) {
    return bitfold_syscall(SYS_READ, fd, (long)buffer, (long)size, 0);
}

long bitfold_write(int fd, const void *buffer, size_t size) {
    return bitfold_syscall(SYS_WRITE, fd, (long)buffer, (long)size, 0);
}

void bitfold_exit(int status) {
    bitfold_syscall(SYS_EXIT_GROUP, status, 0, 0, 0);
    for (;;) {
    }
}
"""

"""bitfold's loop register allocation against xDSL 0.74's (`backends/riscv/regalloc/loop_allocation.py`):
the loop below carries four accumulators, each updated three times per iteration from one
loaded value. xDSL's allocator reserves the four carried registers for the whole body and
holds every intermediate sum in another register, so it runs out of 8 registers; bitfold's
keeps each chain in its carried register and needs 7 (4 accumulators, the loop variable, its
bound, the loaded value). The code the loop nests of real kernels get is checked by running it
(test_register_tiled_loops.py, test_codegen_execution.py)."""

import pytest
from xdsl.backend.register_stack import OutOfRegisters
from xdsl.backend.riscv.register_allocation import RegisterAllocatorLivenessBlockNaive
from xdsl.backend.riscv.register_stack import RiscvRegisterStack
from xdsl.dialects import riscv, riscv_func, riscv_scf
from xdsl.dialects.riscv import Registers
from xdsl.parser import Parser

from bitfold.backends.riscv.regalloc.loop_allocation import LoopAwareAllocator
from bitfold.load import full_context

CHAINS = """
riscv_func.func @f(%p : !riscv.reg<a0>) {
  %c0 = rv32.li 0 : !riscv.reg
  %c8 = rv32.li 8 : !riscv.reg
  %a0 = rv32.li 1 : !riscv.reg
  %b0 = rv32.li 2 : !riscv.reg
  %c0_ = rv32.li 3 : !riscv.reg
  %d0 = rv32.li 4 : !riscv.reg
  %r:4 = riscv_scf.for %i : !riscv.reg = %c0 : !riscv.reg to %c8 : !riscv.reg step 1 : si12 iter_args(%a = %a0, %b = %b0, %c = %c0_, %d = %d0) -> (!riscv.reg, !riscv.reg, !riscv.reg, !riscv.reg) {
    %v = riscv.lw %p, 0 : (!riscv.reg<a0>) -> !riscv.reg
    %a1 = riscv.add %a, %v : (!riscv.reg, !riscv.reg) -> !riscv.reg
    %b1 = riscv.add %b, %v : (!riscv.reg, !riscv.reg) -> !riscv.reg
    %c1 = riscv.add %c, %v : (!riscv.reg, !riscv.reg) -> !riscv.reg
    %d1 = riscv.add %d, %v : (!riscv.reg, !riscv.reg) -> !riscv.reg
    %a2 = riscv.mul %a1, %v : (!riscv.reg, !riscv.reg) -> !riscv.reg
    %b2 = riscv.mul %b1, %v : (!riscv.reg, !riscv.reg) -> !riscv.reg
    %c2 = riscv.mul %c1, %v : (!riscv.reg, !riscv.reg) -> !riscv.reg
    %d2 = riscv.mul %d1, %v : (!riscv.reg, !riscv.reg) -> !riscv.reg
    %a3 = riscv.add %a2, %v : (!riscv.reg, !riscv.reg) -> !riscv.reg
    %b3 = riscv.add %b2, %v : (!riscv.reg, !riscv.reg) -> !riscv.reg
    %c3 = riscv.add %c2, %v : (!riscv.reg, !riscv.reg) -> !riscv.reg
    %d3 = riscv.add %d2, %v : (!riscv.reg, !riscv.reg) -> !riscv.reg
    riscv_scf.yield %a3, %b3, %c3, %d3 : !riscv.reg, !riscv.reg, !riscv.reg, !riscv.reg
  }
  %s = riscv.add %r#0, %r#3 : (!riscv.reg, !riscv.reg) -> !riscv.reg
  riscv.sw %p, %s, 0 : (!riscv.reg<a0>, !riscv.reg) -> ()
  riscv_func.return
}
"""
REGISTERS = (Registers.T0, Registers.T1, Registers.T2, Registers.T3, Registers.T4, Registers.T5, Registers.T6, Registers.A1)


def allocate(allocator_class, registers):
    module = Parser(full_context(), CHAINS).parse_module()
    function = next(op for op in module.walk() if isinstance(op, riscv_func.FuncOp))
    stack = RiscvRegisterStack.get(allocatable_registers=tuple(reversed(registers)))
    allocator_class(stack).allocate_func(function)
    return function


def test_xdsl_runs_out_of_eight_registers():
    with pytest.raises(OutOfRegisters):
        allocate(RegisterAllocatorLivenessBlockNaive, REGISTERS)


@pytest.mark.parametrize("count", [7, 8])
def test_chains_stay_in_their_loop_registers(count):
    function = allocate(LoopAwareAllocator, REGISTERS[:count])
    loop = next(op for op in function.walk() if isinstance(op, riscv_scf.ForOp))
    carried = [argument.type for argument in loop.body.block.args[1:]]
    assert len(set(carried)) == 4
    for chain_op in loop.body.block.ops:
        if isinstance(chain_op, riscv.AddOp | riscv.MulOp) and chain_op.rs1.type in carried:
            assert chain_op.rd.type == chain_op.rs1.type  # acc_{k+1} = acc_k op v, in place
    yielded = [value.type for value in loop.body.block.last_op.operands]
    assert yielded == carried
    assert {v.type for op in function.walk() for v in op.results} <= {*REGISTERS[:count], Registers.ZERO}


def all_values(function):
    """Results and block arguments in program order."""
    args = (a for op in function.walk() for region in op.regions for block in region.blocks for a in block.args)
    return [*(v for op in function.walk() for v in op.results), *args]


def test_an_allocation_that_runs_out_is_undone():
    """Six registers do not hold the loop (it needs 7); `undo` puts back the function as parsed,
    with the same value objects in their places and uses."""
    module = Parser(full_context(), CHAINS).parse_module()
    function = next(op for op in module.walk() if isinstance(op, riscv_func.FuncOp))
    before = str(function)
    values = all_values(function)
    allocator = LoopAwareAllocator(RiscvRegisterStack.get(allocatable_registers=tuple(reversed(REGISTERS[:6]))))
    with pytest.raises(OutOfRegisters):
        allocator.allocate_func(function)
    assert str(function) != before  # it got some way
    allocator.undo()
    assert str(function) == before
    after = all_values(function)
    assert len(after) == len(values) and all(a is b for a, b in zip(after, values))
    assert all(use.operation.operands[use.index] is v for v in values for use in v.uses)
    module.verify()

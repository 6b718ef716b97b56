"""Per-nest register-tile budgets: the tiler gives each nest the budget its number asks for
(`nest_registers`), and `lower_to_riscv` lowers the budgets of only the nests the allocator
finds crowded (`NeedsSpilling.crowded`, `pipeline.smaller_budgets`)."""

import pytest
from xdsl.backend.register_stack import OutOfRegisters
from xdsl.dialects import riscv_func, riscv_scf
from xdsl.dialects.builtin import IntAttr, ModuleOp
from xdsl.parser import Parser

from bitfold.backends.riscv.lowering.registers import INTEGER_REGISTERS
from bitfold.backends.riscv.pipeline import (
    ALL_NESTS,
    BUDGET_STEP,
    TILE_REGISTER_BUDGETS,
    riscv_context,
    riscv_passes,
    smaller_budgets,
)
from bitfold.backends.riscv.regalloc.register_allocation import (
    BitfoldRiscvAllocateRegistersPass,
    NeedsSpilling,
    _Pressure,
    allocate,
    copy_arguments_at_entry,
    taken_registers,
)
from bitfold.backends.riscv.schedule.register_tiled_loops import NEST_ATTRIBUTE, BitfoldRiscvRegisterTiledLoopsPass

INT8_MAC = """
  ^bb0(%a: i8, %b: i8, %s: i32):
    %ae = arith.extsi %a : i8 to i32
    %be = arith.extsi %b : i8 to i32
    %p = arith.muli %ae, %be : i32
    %t = arith.addi %s, %p : i32
    linalg.yield %t : i32
  }"""
"""The body of an int8 x int8 -> int32 contraction."""

MATMUL = """
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<8x32xi8>, memref<32x8xi8>) outs(%OUT : memref<8x8xi32>) {""" + INT8_MAC

TWO_MATMULS = f"""
func.func @two(%x: memref<8x32xi8>, %w: memref<32x8xi8>, %y: memref<8x8xi32>, %z: memref<8x8xi32>) {{
{MATMUL.replace("%OUT", "%y")}
{MATMUL.replace("%OUT", "%z")}
  func.return
}}
"""


def accumulators_per_nest(nest_registers: tuple[int, ...]) -> dict[int, int]:
    """Nest number -> the loop-carried values of its innermost loop (its register tile)."""
    ctx = riscv_context()
    module = Parser(ctx, TWO_MATMULS).parse_module()
    assert isinstance(module, ModuleOp)
    BitfoldRiscvRegisterTiledLoopsPass(xlen=32, nest_registers=nest_registers).apply(ctx, module)
    carried = {}
    for loop in module.walk():
        if isinstance(loop, riscv_scf.ForOp) and not any(isinstance(o, riscv_scf.ForOp) for o in loop.body.walk()):
            nest = loop.attributes[NEST_ATTRIBUTE]
            assert isinstance(nest, IntAttr)
            carried[nest.data] = len(loop.iter_args)
    return carried


def test_each_nest_gets_its_own_budget():
    alike = accumulators_per_nest(())
    assert set(alike) == {1, 2} and alike[1] == alike[2]
    smaller = accumulators_per_nest((2, 8))
    assert smaller[1] == alike[1]
    assert smaller[2] < alike[2]


def test_the_allocator_names_the_crowded_nests():
    """16 registers: nest 1's tile planned for 27 does not fit, nest 2's planned for 10 does."""
    ctx = riscv_context()
    module = Parser(ctx, TWO_MATMULS).parse_module()
    with pytest.raises(NeedsSpilling) as refused:
        for module_pass in riscv_passes(32, 27, spill=False, registers=16, nest_registers=(2, 10)):
            module_pass.apply(ctx, module)
    assert refused.value.crowded is not None and set(refused.value.crowded) == {1}


def test_only_crowded_nests_get_smaller_budgets():
    steps = len(TILE_REGISTER_BUDGETS)
    step_of, spill = smaller_budgets({}, {3: 1, 5: BUDGET_STEP + 1}, steps)
    assert step_of == {3: 1, 5: 2} and spill  # 5 reached the smallest budget: the next attempt may spill
    step_of, spill = smaller_budgets({}, {3: BUDGET_STEP}, steps)
    assert step_of == {3: 1} and not spill
    step_of, spill = smaller_budgets({3: 1, 4: 1}, {4: 1}, steps)
    assert step_of == {3: 1, 4: 2} and spill


def test_no_crowded_nest_named_lowers_every_nest():
    steps = len(TILE_REGISTER_BUDGETS)
    step_of, spill = smaller_budgets({}, None, steps)
    assert step_of == {ALL_NESTS: 1} and not spill
    step_of, spill = smaller_budgets({ALL_NESTS: 1, 2: 1}, None, steps)
    assert step_of == {ALL_NESTS: 2, 2: 2} and spill
    # a nest named later starts from the step every nest has reached
    step_of, _ = smaller_budgets({ALL_NESTS: 1}, {1: 1}, steps)
    assert step_of == {ALL_NESTS: 1, 1: 2}


def test_budgets_below_the_spilling_one_are_reached_from_it():
    """After a refusal even spilling (`least`: the first budget below `TILE_REGISTER_BUDGETS`),
    a named nest goes at least there, never back, and not beyond the last step."""
    spilling = len(TILE_REGISTER_BUDGETS)
    steps = spilling + 4  # 15, 11, 7, 3
    step_of, _ = smaller_budgets({1: 0, 2: spilling - 1}, {2: 1}, steps, least=spilling)
    assert step_of == {1: 0, 2: spilling}
    step_of, last = smaller_budgets({2: steps - 1}, {2: 1}, steps, least=spilling)
    assert step_of == {2: steps - 1} and last
    step_of, _ = smaller_budgets({2: spilling}, {2: 1}, spilling)
    assert step_of == {2: spilling}  # the no-spilling steps never take a nest back up


@pytest.mark.parametrize(("tiles", "registers", "short"), [(27, 16, True), (27, 27, True), (23, 27, False)])
def test_a_certainly_short_function_does_not_allocate(tiles, registers, short):
    """`_Pressure.certainly_short` (the model's excess beyond the registers loop windows free)
    lets the loop-state rounds skip allocations that cannot fit: where it says short, the
    allocator runs out (tiles planned for 27 registers do not fit 16, nor 27 without spilling);
    tiles planned for 23 fit 27."""
    ctx = riscv_context()
    module = Parser(ctx, TWO_MATMULS).parse_module()
    passes = riscv_passes(32, tiles, spill=False, registers=registers)
    allocation = next(i for i, p in enumerate(passes) if isinstance(p, BitfoldRiscvAllocateRegistersPass))
    for module_pass in passes[:allocation]:
        module_pass.apply(ctx, module)
    function = next(f for f in module.walk() if isinstance(f, riscv_func.FuncOp))
    free = copy_arguments_at_entry(function, 32)
    taken = taken_registers(function, free)
    budget = len(set(INTEGER_REGISTERS[:registers]) - taken)
    assert _Pressure(function, budget).certainly_short() is short
    if short:
        with pytest.raises(OutOfRegisters):
            allocate(function.clone(), registers, taken)
    else:
        allocate(function.clone(), registers, taken)


CONV3X3 = """
func.func @conv(%x: memref<1x16x34x34xi8>, %w: memref<16x16x3x3xi8>, %y: memref<1x16x32x32xi32>) {
  linalg.generic {indexing_maps = [affine_map<(n, c, h, v, k, kh, kw) -> (n, k, h + kh, v + kw)>, affine_map<(n, c, h, v, k, kh, kw) -> (c, k, kh, kw)>, affine_map<(n, c, h, v, k, kh, kw) -> (n, c, h, v)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x16x34x34xi8>, memref<16x16x3x3xi8>) outs(%y : memref<1x16x32x32xi32>) {""" + INT8_MAC + """
  func.return
}
"""

@pytest.mark.parametrize("xlen", [32, 64])
def test_a_window_tile_planned_for_every_register_fits(xlen):
    """A 3x3 convolution's tile planned for every register allocates without spilling
    (`loop_nest_plan.held_row`: the input values a sliding window's column shares are held through
    it, 2 x 10 for a 2 x 8 tile, which does not fit), so `lower_to_riscv` lowers the nest once."""
    ctx = riscv_context()
    module = Parser(ctx, CONV3X3).parse_module()
    for module_pass in riscv_passes(xlen, TILE_REGISTER_BUDGETS[0], spill=False):
        module_pass.apply(ctx, module)

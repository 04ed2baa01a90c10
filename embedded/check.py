#!/usr/bin/env python3
"""Compares a Cortex-M output (the M4F's or the M7's) with the host output and reports sizes
and speed.

Usage: check.py TARGET_OUT HOST_OUT ELF WALL_SECONDS [CPU]

CPU (default "cortex-m4f") names the target in the last line,
`CPU nmpc instructions per period: median N, worst X`.

Every line of src/scenario.rs's runs must be in both outputs, with the same words, and every
number must agree to TOL relative to 1 + |host value|. Lines starting with '#' are reports, not
results: they are read for the timing and the stack, never compared. Exits 1 on any mismatch.
"""

import struct
import sys

TOL = 1e-12
# The lines the scenario prints (src/scenario.rs: STEPS = 1000, EVERY = 100).
RUNS = ("pendulum", "double_pendulum", "cartpole", "chain3d")
STEPS, EVERY = 1000, 100
# The NMPC hold's control periods (src/scenario.rs: NMPC_PERIODS).
NMPC_PERIODS = 100


def results(path):
    """The result lines of an output, keyed by their first three words."""
    lines = {}
    with open(path) as f:
        for raw in f:
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            words = line.split()
            lines[tuple(words[:3])] = words
    return lines


def comments(path):
    with open(path) as f:
        return [l.split() for l in f if l.startswith("#")]


def as_float(word):
    try:
        return float(word)
    except ValueError:
        return None


def compare(target_path, host_path):
    target, host = results(target_path), results(host_path)
    expected = []
    for run in RUNS:
        expected += [(run, "step", str(k)) for k in range(0, STEPS + 1, EVERY)]
        expected.append((run, "done", "steps"))
    # One step of the chain alone (its stack is measured).
    expected.append(("chain3d_one_step", "done", "z"))
    # One step's Jacobian of the controlled cart-pole, six rows.
    expected += [("cartpole_jacobian", "row", str(k)) for k in range(6)]
    # The NMPC hold: the first plan, every control period, the summary.
    expected.append(("cartpole_nmpc", "plan", "iterations"))
    expected += [("cartpole_nmpc", "period", str(k)) for k in range(NMPC_PERIODS)]
    expected.append(("cartpole_nmpc", "done", "periods"))
    ok = True
    worst, worst_at, numbers, identical = 0.0, None, 0, 0
    for key in expected:
        for name, lines in (("target", target), ("host", host)):
            if key not in lines:
                print(f"MISSING in the {name} output: line '{' '.join(key)} ...'")
                ok = False
        if key not in target or key not in host:
            continue
        t, h = target[key], host[key]
        if len(t) != len(h):
            print(f"MISMATCH: different lengths\n  target: {' '.join(t)}\n  host:   {' '.join(h)}")
            ok = False
            continue
        for i, (a, b) in enumerate(zip(t, h)):
            x, y = as_float(a), as_float(b)
            if x is None or y is None:
                if a != b:
                    print(f"MISMATCH: '{a}' vs '{b}' in line '{' '.join(key)}'")
                    ok = False
                continue
            numbers += 1
            identical += a == b
            d = abs(x - y) / (1.0 + abs(y))
            if not d <= TOL:  # also catches NaN
                print(f"MISMATCH: {a} (target) vs {b} (host), {d:.3e} > {TOL:g}, "
                      f"word {i} of line '{' '.join(key)}'")
                ok = False
            if d > worst:
                worst, worst_at = d, f"word {i} of line '{' '.join(key)}'"
    # The hold's requirement, checked here too (the scenario fails the run on it as well): the
    # lean within 0.01 rad of upright over the last second.
    done = target.get(("cartpole_nmpc", "done", "periods"))
    if done is not None:
        lean = as_float(done[done.index("lean_last_second") + 1]) \
            if "lean_last_second" in done else None
        if lean is None or not lean <= 0.01:
            print(f"FAILED: the NMPC hold's lean over the last second is {lean} rad (> 0.01)")
            ok = False
        else:
            print(f"NMPC hold: largest lean over the last second {lean:.3e} rad (at most 0.01)")
    extra = set(target) - set(expected)
    if extra:
        print(f"unexpected lines in the target output: {sorted(extra)}")
        ok = False
    print(f"compared {numbers} numbers in {len(expected)} lines: "
          f"max |target - host| / (1 + |host|) = {worst:.3e} (tolerance {TOL:g}); "
          f"{identical} of {numbers} printed identically")
    if worst_at:
        print(f"largest difference at {worst_at}")
    return ok


def elf_sizes(path):
    """Berkeley-style sizes of a little-endian ELF32: text (code and read-only data), data
    (initialized, writable: stored in flash, copied to RAM), bss (zeroed or uninitialized RAM)."""
    with open(path, "rb") as f:
        elf = f.read()
    if elf[:4] != b"\x7fELF" or elf[4] != 1 or elf[5] != 1:
        raise SystemExit(f"{path}: not a little-endian ELF32 file")
    shoff, = struct.unpack_from("<I", elf, 0x20)
    shentsize, shnum = struct.unpack_from("<HH", elf, 0x2E)
    text = data = bss = 0
    for i in range(shnum):
        _, sh_type, flags, _, _, size = struct.unpack_from("<IIIIII", elf, shoff + i * shentsize)
        if not flags & 0x2:  # SHF_ALLOC: not loaded, e.g. debug info and symbols
            continue
        if sh_type == 8:  # SHT_NOBITS
            bss += size
        elif flags & 0x1:  # SHF_WRITE
            data += size
        else:
            text += size
    return text, data, bss


def magnitude(x):
    return f"{x:.1e}"


def nmpc_report(target_path):
    """The NMPC hold's instructions and stack per control period, from the target's '#' lines.
    Returns False if the instruction counter failed its calibration or a count is missing."""
    ok = True
    periods, plan, workspace, calibration = [], None, None, None
    for w in comments(target_path):
        if w[1:3] == ["icount", "calibration"]:
            calibration = int(w[5]), int(w[7])
        elif w[1:3] == ["nmpc", "workspace"]:
            workspace = int(w[4]), int(w[7])
        elif w[1:3] == ["nmpc", "model"]:
            print(f"one step of the prediction model ({w[3]}): {w[5]} instructions")
        elif w[1:3] == ["nmpc", "plan"]:
            plan = int(w[4]), int(w[6])
        elif w[1:3] == ["nmpc", "period"]:
            periods.append((int(w[3]), int(w[5]), int(w[7]), int(w[9])))
        elif w[1:3] == ["timing", "cartpole_nmpc"]:
            print(f"NMPC hold under emulation: {w[4]} control periods in {int(w[6]) / 100:.2f} s "
                  "of emulator CPU time")
    if calibration is None or not periods or plan is None:
        print("MISSING: the NMPC hold's instruction and stack report")
        return False, None
    expected, counted = calibration
    # The count is to a SysTick tick (1000 instructions).
    if abs(counted - expected) > 1000:
        print(f"FAILED: the instruction counter counted {counted} for a loop of {expected} "
              "instructions (is qemu running with -icount shift=0?)")
        return False, None
    print(f"instruction counter: a loop of {expected} instructions counted as {counted} "
          "(SysTick on the 1 MHz reference clock under -icount shift=0: 1000 instructions a tick)")
    if workspace:
        print(f"NMPC workspace (Ilqr<3, 1, 4, 50> for the first plan and SqpRti<3, 1, 4, 50>): "
              f"{workspace[0]} bytes; "
              f"the rest of the hold (model, plant, costs, state, a reference to the workspace): "
              f"{workspace[1]} bytes")
    print(f"first plan (solved to convergence): {plan[0]} instructions, stack {plan[1]} bytes")
    counts = [p[1] for p in periods]
    if any(c < 0 for c in counts):
        print("FAILED: an instruction count wrapped")
        ok = False
    counts = sorted(c for c in counts if c >= 0)
    steps = sorted(p[3] for p in periods)
    per_step = sorted(p[1] / p[3] for p in periods if p[1] >= 0 and p[3] > 0)
    stacks = [p[2] for p in periods]
    median = counts[len(counts) // 2]
    print(f"NMPC control period ({len(periods)} periods): instructions min {counts[0]}, "
          f"median {median}, max {counts[-1]}; steps with Jacobian min {steps[0]}, "
          f"median {steps[len(steps) // 2]}, max {steps[-1]}; "
          f"instructions per step with Jacobian (the whole period's), median "
          f"{per_step[len(per_step) // 2]:.0f}")
    # The periods of the usual step count (the SQP-RTI linearizes each of the horizon's
    # intervals once a period) apart from any that took another count.
    usual = max(set(steps), key=steps.count)
    typical = sorted(p[1] for p in periods if p[3] == usual and p[1] >= 0)
    others = sorted(p[3] for p in periods if p[3] != usual)
    if typical:
        rest = (f"; the other {len(others)} periods took {', '.join(str(n) for n in others)} steps"
                if others else "")
        print(f"  {len(typical)} periods of {usual} steps: {typical[0]} to {typical[-1]} "
              f"instructions{rest}")
    print(f"NMPC control period stack: {min(stacks)} to {max(stacks)} bytes")
    return ok, (median, counts[-1])


def main():
    target_path, host_path, elf, wall = sys.argv[1:5]
    cpu = sys.argv[5] if len(sys.argv) > 5 else "cortex-m4f"
    wall = float(wall)
    ok = compare(target_path, host_path)
    nmpc_ok, per_period = nmpc_report(target_path)
    ok = nmpc_ok and ok

    text, data, bss = elf_sizes(elf)
    stack = None
    nmpc_depth = None
    print(f"flash: {text + data} bytes (text {text} + data {data}); "
          f"static RAM: {data + bss} bytes (data {data} + bss {bss})")
    for words in comments(target_path):
        if words[1:3] == ["stack", "high-water"]:
            stack = int(words[-1])
        elif words[1:3] == ["stack", "cartpole_nmpc_deepest"]:
            nmpc_depth = int(words[-1])
            print(f"stack of the cartpole_nmpc run at its deepest measured call (the workspace "
                  f"in its caller's frame included): {nmpc_depth} bytes")
        elif words[1] == "stack":
            print(f"stack of the {words[2]} run: {words[-1]} bytes")
        if words[1] == "timing" and words[3] == "steps":
            run, steps, cs = words[2], int(words[4]), int(words[6])
            rate = magnitude(steps * 100 / cs) if cs > 0 else f"> {magnitude(steps * 100)}"
            print(f"steps/s under emulation, {run}: {rate} "
                  f"({steps} steps in {cs / 100:.2f} s of emulator CPU time)")
    if stack is not None:
        print(f"stack high-water mark of the simulation runs: {stack} bytes")
        deepest = max(stack, nmpc_depth or 0)
        print(f"RAM in use at most {data + bss + deepest} bytes (static {data + bss} + stack "
              f"{deepest})")
    print(f"whole emulator run: {wall:.2f} s wall clock (QEMU start-up, printing and the "
          f"NMPC hold included)")
    for words in comments(host_path):
        print("host:", " ".join(words[2:]))
    if per_period:
        print(f"{cpu} nmpc instructions per period: median {per_period[0]}, "
              f"worst {per_period[1]}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

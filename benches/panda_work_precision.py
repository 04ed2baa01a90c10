"""The Panda's work-precision beside Pinocchio (ABA + RK4) and MuJoCo (issue 29,
docs/performance.md): the Panda of tests/models/panda/panda.urdf, passive (zero torque, the
URDF's joint damping 0.003 N m s on every joint), from the two start states of
examples/panda_work_precision.rs (`swing` and `fall`) to T = 2 s; error = max |q(T) - q_ref(T)|
over the joints (and the same for v).

    RUSTFLAGS="-C target-cpu=native" cargo run --profile production -p spark-examples \
        --example panda_work_precision > benches/panda_work_precision_spark.txt
    python3 benches/panda_work_precision.py > benches/panda_work_precision.txt

(`bash benches/panda_work_precision.sh` runs both.) This script
1. builds the two peer drivers into $PANDA_WP_BUILD (default /tmp/spark-panda-wp):
   benches/panda_pinocchio_rk4.cpp (g++ -O3 -march=native, Pinocchio's headers from the pip
   package `pin`, Eigen 3.4's headers from the pip package `casadi`, since `pin` ships none)
   and benches/panda_mujoco.c (gcc -O3 -march=native against the pip package `mujoco`'s
   headers and libmujoco);
2. gives each engine the URDF: Pinocchio `buildModelFromUrdf` (saved with `saveToText` for the
   C++ driver); MuJoCo the URDF without its visual and collision elements (meshes, no
   dynamics), its revolute joints made continuous (MuJoCo would enforce the limits; spark and
   Pinocchio do not) and `<compiler balanceinertia="false" inertiafromgeom="false">`, written to
   a file the C driver loads;
3. checks, before timing anything, that both integrate spark's ODE: their accelerations at the
   six states of spark's output (`Integrator::acceleration`) against spark's;
4. per motion, computes the reference end state (Pinocchio RK4 in C++ at a tiny step, checked
   against twice that step and against spark's GL3 and GL4 at small steps);
5. sweeps the step of Pinocchio RK4 and MuJoCo RK4, Euler and implicitfast (C loops, process CPU
   time, the least of >= 3 repetitions and >= 0.3 s), joins spark's sweep, and prints one table
   and the CPU per simulated second of each method interpolated (log-log) to equal errors;
6. measures the Python overhead of the same calls made from Python (for scale only).
"""

import math
import os
import re
import subprocess
import sys
import time

import mujoco
import numpy as np
import pinocchio as pin

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pinocchio_cxx  # noqa: E402
from pinocchio_cxx import newer  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
URDF = os.path.join(ROOT, "tests", "models", "panda", "panda.urdf")
BUILD = os.environ.get("PANDA_WP_BUILD", "/tmp/spark-panda-wp")
T = 2.0
N = 7


def load_spark(path):
    """spark's output: start state, acceleration checks, reference runs, sweep."""
    out = {"start": {}, "accel": [], "ref": [], "run": []}
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w or w[0].startswith("#"):
                continue
            if w[0] == "start":
                x = np.array([float(t) for t in w[2:]])
                out["start"][w[1]] = (x[:N], x[N:])
            elif w[0] == "accel":
                x = np.array([float(t) for t in w[1:]])
                out["accel"].append((x[:N], x[N:2 * N], x[2 * N:]))
            elif w[0] == "ref":
                x = np.array([float(t) for t in w[4:]])
                out["ref"].append((w[1], w[2], float(w[3]), x[:N], x[N:]))
            elif w[0] == "run":
                if w[4] == "failed":
                    out["run"].append((w[1], w[2], float(w[3]), None, None, None))
                else:
                    x = np.array([float(t) for t in w[5:]])
                    out["run"].append((w[1], w[2], float(w[3]), float(w[4]), x[:N], x[N:]))
    return out


def build():
    os.makedirs(BUILD, exist_ok=True)
    mj_dir = os.path.dirname(mujoco.__file__)
    mj_lib = [f for f in os.listdir(mj_dir) if f.startswith("libmujoco.so")][0]
    mj_src = os.path.join(ROOT, "benches", "panda_mujoco.c")
    mj_bin = os.path.join(BUILD, "panda_mujoco")
    if not newer(mj_bin, mj_src):
        subprocess.run(["gcc", "-O3", "-march=native", "-I", os.path.join(mj_dir, "include"), mj_src,
                        "-o", mj_bin, os.path.join(mj_dir, mj_lib), f"-Wl,-rpath,{mj_dir}", "-lm"],
                       check=True)
    pin_src = os.path.join(ROOT, "benches", "panda_pinocchio_rk4.cpp")
    pin_bin = pinocchio_cxx.build(pin_src, os.path.join(BUILD, "panda_pinocchio_rk4"))
    return mj_bin, pin_bin


def mujoco_model():
    """The URDF as MuJoCo reads it, without meshes and joint limits."""
    with open(URDF) as f:
        text = f.read()
    for tag in ["visual", "collision"]:
        text = re.sub(rf"<{tag}>.*?</{tag}>", "", text, flags=re.S)
    text, n = re.subn(r'type="revolute"', 'type="continuous"', text)
    assert n == N, n
    text, n = re.subn(r"(<robot [^>]*>)", r'\1<mujoco><compiler balanceinertia="false" '
                      r'inertiafromgeom="false" discardvisual="false"/></mujoco>', text, count=1)
    assert n == 1
    # Kept as URDF (MuJoCo's mj_loadXML reads it): mj_saveLastXML would round every number to
    # 6 significant digits.
    path = os.path.join(BUILD, "panda_mujoco.urdf")
    with open(path, "w") as f:
        f.write(text)
    m = mujoco.MjModel.from_xml_path(path)
    return path, m


def words(x):
    """Shortest round-trip decimal strings of the floats in `x`."""
    return [repr(float(t)) for t in x]


def fmt(x):
    return " ".join(words(x))


def relative(a, b):
    return float(np.max(np.abs(a - b)) / max(1.0, np.max(np.abs(b))))


def check(spark, pm, pin_bin, pin_txt, mm):
    pd = pm.createData()
    md = mujoco.MjData(mm)
    lines = "\n".join(fmt(q) + " " + fmt(v) for q, v, _ in spark["accel"]) + "\n"
    cpp = subprocess.run([pin_bin, pin_txt, "check"], input=lines, capture_output=True, text=True,
                         check=True).stdout.split("\n")
    worst = {"pinocchio (Python)": 0.0, "pinocchio (C++ driver)": 0.0, "mujoco mj_forward": 0.0}
    for k, (q, v, a) in enumerate(spark["accel"]):
        a_pin = pin.aba(pm, pd, q, v, -pm.damping * v)
        a_cpp = np.array([float(t) for t in cpp[k].split()])
        md.qpos[:] = q
        md.qvel[:] = v
        mujoco.mj_forward(mm, md)
        for name, x in [("pinocchio (Python)", a_pin), ("pinocchio (C++ driver)", a_cpp),
                        ("mujoco mj_forward", md.qacc.copy())]:
            worst[name] = max(worst[name], relative(x, a))
    print(f"# accelerations at spark's {len(spark['accel'])} states, max |a - a_spark| / max(1, max |a_spark|):")
    for name, w in worst.items():
        print(f"#   {name:<24} {w:.2e}")
    assert all(w < 1e-10 for w in worst.values()), worst


def run_pin(pin_bin, pin_txt, q0, v0, h):
    out = subprocess.run([pin_bin, pin_txt, "run", repr(h), repr(T), *words(q0), *words(v0)],
                         capture_output=True, text=True, check=True).stdout.split()
    x = np.array([float(t) for t in out])
    return x[0], x[1:1 + N], x[1 + N:]


def run_mj(mj_bin, xml, integrator, q0, v0, h):
    out = subprocess.run([mj_bin, xml, integrator, repr(h), repr(T), *words(q0), *words(v0)],
                         capture_output=True, text=True, check=True).stdout.split()
    x = np.array([float(t) for t in out])
    return x[0], x[1:1 + N], x[1 + N:]


def at_error(points, target):
    """CPU per simulated second at `target` error, log-log between the two runs (in order of
    decreasing step) whose errors bracket it; None if the sweep never reaches it."""
    pts = [(h, c, e) for h, c, e in sorted(points, key=lambda p: -p[0]) if c is not None]
    if pts and pts[0][2] <= target:
        return ("<=", pts[0][1])
    for (h1, c1, e1), (h2, c2, e2) in zip(pts, pts[1:]):
        if e1 > target >= e2:
            s = (math.log(target) - math.log(e1)) / (math.log(e2) - math.log(e1))
            return ("", math.exp(math.log(c1) + s * (math.log(c2) - math.log(c1))))
    return None

# Per motion: the steps of the peers' sweeps and of the reference (Pinocchio RK4), and the errors
# at which the methods' costs are compared (the fall's solution is ill-conditioned: references
# computed differently agree to about 1e-8 only, so it is compared at 1e-4 and 1e-6).
PEER_STEPS = {
    "swing": {"rk4": [0.02, 0.01, 0.005, 0.0025, 0.00125, 6.25e-4, 3.125e-4],
              "first": [1e-3, 1e-4, 1e-5], "reference": (1e-5, 2e-5), "targets": [1e-6, 1e-9]},
    "fall": {"rk4": [2e-3, 1e-3, 5e-4, 2.5e-4, 1.25e-4, 6.25e-5, 3.125e-5, 1.5625e-5, 7.8125e-6],
             "first": [1e-3, 1e-4, 1e-5], "reference": (4e-6, 8e-6), "targets": [1e-4, 1e-6]},
}


def compare(spark, motion, pin_bin, pin_txt, mj_bin, xml):
    """Reference, the peers' sweeps, the joined table and the equal-accuracy costs of one motion."""
    q0, v0 = spark["start"][motion]
    steps = PEER_STEPS[motion]
    targets = steps["targets"]
    print()
    print(f"## {motion}: start q = {fmt(q0)}, v = {fmt(v0)}, T = {T} s")
    h_ref, h_check = steps["reference"]
    _, q_ref, v_ref = run_pin(pin_bin, pin_txt, q0, v0, h_ref)
    _, q_half, v_half = run_pin(pin_bin, pin_txt, q0, v0, h_check)
    print(f"# reference: Pinocchio RK4 at h = {h_ref:g}; against h = {h_check:g}: "
          f"|dq| {np.max(np.abs(q_half - q_ref)):.1e}, |dv| {np.max(np.abs(v_half - v_ref)):.1e}")
    for mo, label, h, q, v in spark["ref"]:
        if mo == motion:
            print(f"# reference against spark {label} at h = {h:g}: |dq| {np.max(np.abs(q - q_ref)):.1e}, "
                  f"|dv| {np.max(np.abs(v - v_ref)):.1e}")
    print(f"# q_ref(T) = {fmt(q_ref)}")
    print(f"# v_ref(T) = {fmt(v_ref)} (max |v| {np.max(np.abs(v_ref)):.1f} rad/s)")

    rows = []  # (engine, method, h, cpu, q err, v err)
    for mo, label, h, cpu, q, v in spark["run"]:
        if mo != motion:
            continue
        if cpu is None:
            rows.append(("spark", label, h, None, None, None))
        else:
            rows.append(("spark", label, h, cpu, np.max(np.abs(q - q_ref)), np.max(np.abs(v - v_ref))))
    for h in steps["rk4"]:
        cpu, q, v = run_pin(pin_bin, pin_txt, q0, v0, h)
        rows.append(("Pinocchio", "ABA+RK4", h, cpu, np.max(np.abs(q - q_ref)), np.max(np.abs(v - v_ref))))
    for integ, hs in [("rk4", [h for h in steps["rk4"] if h <= 0.01]), ("euler", steps["first"]),
                      ("implicitfast", steps["first"])]:
        for h in hs:
            cpu, q, v = run_mj(mj_bin, xml, integ, q0, v0, h)
            ok = np.all(np.isfinite(q))
            rows.append(("MuJoCo", integ, h, cpu, np.max(np.abs(q - q_ref)) if ok else math.inf,
                         np.max(np.abs(v - v_ref)) if ok else math.inf))

    print()
    print("| engine | method | h | CPU s per simulated s | max abs q error at T | max abs v error at T |")
    print("|---|---|---|---|---|---|")
    for eng, meth, h, cpu, eq, ev in rows:
        if cpu is None:
            print(f"| {eng} | {meth} | {h:g} | step failed | | |")
        else:
            print(f"| {eng} | {meth} | {h:g} | {cpu:.3e} | {eq:.2e} | {ev:.2e} |")

    methods = []
    for eng, meth, *_ in rows:
        if (eng, meth) not in methods:
            methods.append((eng, meth))
    print()
    print("| engine | method | " + " | ".join(f"CPU s / sim s at q error {t:.0e}" for t in targets) + " |")
    print("|---|---|" + "---|" * len(targets))
    best_spark = {}
    cost = {}
    for eng, meth in methods:
        pts = [(h, cpu, eq) for e, m, h, cpu, eq, _ in rows if (e, m) == (eng, meth)]
        cells = []
        for t in targets:
            r = at_error(pts, t)
            cost[(eng, meth, t)] = r
            if r is None:
                cells.append("not reached")
            else:
                cells.append(f"{r[0]}{r[1]:.3e}" + (" (its largest h is below it)" if r[0] else ""))
                if eng == "spark" and (t not in best_spark or r[1] < best_spark[t][1]):
                    best_spark[t] = (meth, r[1])
        print(f"| {eng} | {meth} | " + " | ".join(cells) + " |")
    print()
    for t in targets:
        if t not in best_spark:
            print(f"# {motion}, q error {t:.0e}: no spark run reaches it")
            continue
        meth, c = best_spark[t]
        ratios = []
        for eng, m in methods:
            r = cost[(eng, m, t)]
            if eng != "spark" and r is not None:
                ratios.append(f"{eng} {m} {r[1] / c:.2f}x")
        print(f"# {motion}, q error {t:.0e}: spark's cheapest is {meth} ({c:.3e} CPU s / sim s); "
              f"peer / spark: {', '.join(ratios) if ratios else 'no peer reaches it'}")


def python_overhead(pm, mm, q0, v0):
    """The same work called from Python, for scale: pin.aba per call, mj_step per call from a
    Python loop, and mujoco.rollout (a C loop) per step; the least of 5 repetitions."""
    pd = pm.createData()
    tau = -pm.damping * v0
    best = math.inf
    for _ in range(5):
        t0 = time.process_time()
        for _ in range(20000):
            pin.aba(pm, pd, q0, v0, tau)
        best = min(best, (time.process_time() - t0) / 20000)
    noop = math.inf
    f = lambda *a: None
    for _ in range(5):
        t0 = time.process_time()
        for _ in range(20000):
            f(pm, pd, q0, v0, tau)
        noop = min(noop, (time.process_time() - t0) / 20000)
    m = mujoco.MjModel.from_xml_path(mm)
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    m.opt.timestep = 1e-3
    m.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT) | int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)
    d = mujoco.MjData(m)
    steps = int(round(T / m.opt.timestep))
    loop = math.inf
    for _ in range(5):
        mujoco.mj_resetData(m, d)
        d.qpos[:] = q0
        d.qvel[:] = v0
        t0 = time.process_time()
        for _ in range(steps):
            mujoco.mj_step(m, d)
        loop = min(loop, (time.process_time() - t0) / steps)
    from mujoco import rollout
    mujoco.mj_resetData(m, d)
    d.qpos[:] = q0
    d.qvel[:] = v0
    state = np.zeros(mujoco.mj_stateSize(m, mujoco.mjtState.mjSTATE_FULLPHYSICS))
    mujoco.mj_getState(m, d, state, mujoco.mjtState.mjSTATE_FULLPHYSICS)
    roll = math.inf
    for _ in range(5):
        t0 = time.process_time()
        rollout.rollout(m, d, state[None, :], nstep=steps)
        roll = min(roll, (time.process_time() - t0) / steps)
    return best, noop, loop, roll


def main():
    spark_path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "benches", "panda_work_precision_spark.txt")
    spark = load_spark(spark_path)
    print("# output of benches/panda_work_precision.py (spark's part read from "
          f"{os.path.relpath(spark_path, ROOT)})")
    print(f"# loadavg at start: {' '.join(open('/proc/loadavg').read().split()[:3])}; "
          f"mujoco {mujoco.__version__}, pin {pin.__version__}")
    mj_bin, pin_bin = build()
    pm = pin.buildModelFromUrdf(URDF)
    assert pm.nq == N and np.allclose(pm.gravity.linear, [0, 0, -9.81])
    pin_txt = os.path.join(BUILD, "panda_pinocchio.txt")
    pm.saveToText(pin_txt)
    xml, mm = mujoco_model()
    print(f"# Pinocchio: {pm.njoints - 1} joints {[j.shortname() for j in pm.joints][1:]}, damping {fmt(pm.damping)}")
    print(f"# MuJoCo: {mm.nbody - 1} bodies, {mm.njnt} joints, limited {[bool(x) for x in mm.jnt_limited]}, damping {fmt(mm.dof_damping)}, "
          f"armature {fmt(mm.dof_armature)}, frictionloss {fmt(mm.dof_frictionloss)}, gravity {fmt(mm.opt.gravity)}, "
          f"{mm.ngeom} geoms")
    check(spark, pm, pin_bin, pin_txt, mm)

    for motion in spark["start"]:
        compare(spark, motion, pin_bin, pin_txt, mj_bin, xml)

    q0, v0 = spark["start"]["swing"]
    aba, noop, loop, roll = python_overhead(pm, xml, q0, v0)
    c_rk4 = run_mj(mj_bin, xml, "rk4", q0, v0, 0.00125)[0]
    p_rk4 = run_pin(pin_bin, pin_txt, q0, v0, 0.00125)[0]
    print()
    print("# from Python, for scale (not used above; process CPU time, least of 5; the swing's start state):")
    print(f"#   pin.aba per call {aba * 1e6:.2f} us (a Python no-op call with the same arguments "
          f"{noop * 1e6:.2f} us); in the C++ driver {p_rk4 * 0.00125 / 4 * 1e6:.2f} us per ABA "
          f"(its RK4 at h = 0.00125: CPU per step / 4, the RK4 arithmetic included)")
    print(f"#   MuJoCo RK4 mj_step from a Python loop {loop * 1e6:.2f} us per step, mujoco.rollout "
          f"{roll * 1e6:.2f} us per step, the C driver {c_rk4 * 0.00125 * 1e6:.2f} us per step")
    print(f"# loadavg at end: {' '.join(open('/proc/loadavg').read().split()[:3])}")


if __name__ == "__main__":
    main()

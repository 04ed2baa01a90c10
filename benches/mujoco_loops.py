"""MuJoCo on the closed loops that spark reads from the same MJCF files (issue 29): the four-bar
of tests/models/four_bar_loop.xml and the Jansen leg of tests/models/jansen_leg.xml, each
conservative (joint damping and motor off), started at qpos0 with the crank turning and the other
rates on the loop's tangent. For each integrator (Euler, implicitfast, RK4), time step and
equality solref (MuJoCo's default 0.02 1, and the stiffest it keeps stable, 2 dt 1):

- the crank angle's error at t = 10 s against spark's tight reference (GL3, printed by
  `cargo run --release -p spark-examples --example closed_loops_bench`, kept in
  benches/closed_loops_spark.txt, which this script reads);
- the CPU time per simulated second of mj_step (median of 3 runs of 10 s);
- over 1000 s (dt = 1e-3 only): the largest loop gap (distance between the two anchors of a
  connect, sampled 1000 times) and the largest relative energy change.

    pip install mujoco numpy
    python3 benches/mujoco_loops.py > benches/mujoco_loops.txt
    python3 benches/mujoco_loops.py start   # only the start states and their energies
"""

import os
import platform
import statistics
import sys
import time

import mujoco
import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
MODELS = {"four_bar": "tests/models/four_bar_loop.xml", "jansen_leg": "tests/models/jansen_leg.xml"}
CRANK = {"four_bar": "crank_joint", "jansen_leg": "crank"}
RATE = {"four_bar": 3.0, "jansen_leg": 8.0}
T_ACCURACY = 10.0
T_LONG = 1000.0
NAMES = {mujoco.mjtIntegrator.mjINT_EULER: "Euler", mujoco.mjtIntegrator.mjINT_IMPLICITFAST: "implicitfast",
         mujoco.mjtIntegrator.mjINT_RK4: "RK4"}


def spark_reference():
    """`name -> crank angle at T_ACCURACY` from spark's output."""
    ref = {}
    with open(os.path.join(ROOT, "benches", "closed_loops_spark.txt")) as f:
        for line in f:
            if line.startswith("# reference "):
                words = line.split()
                ref[words[2]] = float(words[-1])
    return ref


def loop_gap(model, data):
    """The largest distance between the two anchors of a connect."""
    gap = 0.0
    for e in range(model.neq):
        b1, b2 = model.eq_obj1id[e], model.eq_obj2id[e]
        a1 = data.xpos[b1] + data.xmat[b1].reshape(3, 3) @ model.eq_data[e, 0:3]
        a2 = data.xpos[b2] + data.xmat[b2].reshape(3, 3) @ model.eq_data[e, 3:6]
        gap = max(gap, float(np.linalg.norm(a1 - a2)))
    return gap


def start(model, name):
    """qpos0 with the crank at RATE and the other joints' rates on the loop's tangent: the null
    space of the equality rows' Jacobian (from mj_forward), scaled to the crank's rate."""
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    j = data.efc_J.reshape(data.nefc, model.nv)[: data.nefc]
    keep = [r for r in range(data.nefc) if data.efc_type[r] == mujoco.mjtConstraint.mjCNSTR_EQUALITY]
    g = j[keep]
    _, s, vt = np.linalg.svd(g)
    tangent = vt[-1]
    assert len(s) == model.nv and s[-2] > 1e-6 and s[-1] < 1e-12, s  # one degree of freedom
    crank = model.jnt_dofadr[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, CRANK[name])]
    return model.qpos0.copy(), tangent * RATE[name] / tangent[crank], crank


def run(name, integrator, dt, solref, t_end, samples):
    """Steps to t_end; returns the final crank angle, the largest loop gap and relative energy
    change over the samples, and the CPU seconds spent in mj_step."""
    model = mujoco.MjModel.from_xml_path(os.path.join(ROOT, MODELS[name]))
    model.dof_damping[:] = 0.0
    model.opt.integrator = integrator
    model.opt.timestep = dt
    if solref is not None:
        model.eq_solref[:] = solref
    q0, v0, crank = start(model, name)
    data = mujoco.MjData(model)
    data.qpos[:] = q0
    data.qvel[:] = v0
    data.ctrl[:] = 0.0
    mujoco.mj_forward(model, data)
    e0 = data.energy.sum()
    scale = abs(e0) if abs(e0) > 1e-12 else 1.0
    steps = int(round(t_end / dt))
    chunk = steps // samples
    gap, worst_e, cpu = loop_gap(model, data), 0.0, 0.0
    for _ in range(samples):
        t0 = time.process_time()
        mujoco.mj_step(model, data, nstep=chunk)
        cpu += time.process_time() - t0
        mujoco.mj_forward(model, data)
        gap = max(gap, loop_gap(model, data))
        worst_e = max(worst_e, abs(data.energy.sum() - e0) / scale)
    return data.qpos[crank], gap, worst_e, cpu


def starts():
    """The start state and MuJoCo's energy there, for each model (to compare with spark's)."""
    for name in MODELS:
        model = mujoco.MjModel.from_xml_path(os.path.join(ROOT, MODELS[name]))
        model.dof_damping[:] = 0.0
        q0, v0, _ = start(model, name)
        data = mujoco.MjData(model)
        data.qpos[:] = q0
        data.qvel[:] = v0
        mujoco.mj_forward(model, data)
        print(f"# {name}: start q = qpos0, v = {[float(x) for x in v0]}, energy {data.energy.sum():.12f}")


def main():
    if sys.argv[1:] == ["start"]:
        starts()
        return
    ref = spark_reference()
    load = os.getloadavg()
    print(f"# output of python3 benches/mujoco_loops.py; {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores, load average at start {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"# python {platform.python_version()}, mujoco {mujoco.__version__}, numpy {np.__version__}")
    print("# conservative: joint damping and motor off; start qpos0, crank rate "
          + ", ".join(f"{n} {RATE[n]} rad/s" for n in MODELS) + "; error = |crank angle(10 s) - spark reference|")
    print("model       integrator    dt      solref      crank err(10 s)  CPU s/sim s (median of 3)  gap max(1000 s)  dE/E max(1000 s)")
    for name in MODELS:
        for integrator in NAMES:
            for dt in [1e-3, 1e-4]:
                for solref in [None, (2 * dt, 1.0)]:
                    cpus = []
                    for _ in range(3):
                        q, _, _, cpu = run(name, integrator, dt, solref, T_ACCURACY, 10)
                        cpus.append(cpu / T_ACCURACY)
                    err = abs(q - ref[name])
                    label = "default" if solref is None else f"{solref[0]:g} {solref[1]:g}"
                    if dt >= 1e-3:
                        _, gap, e_max, _ = run(name, integrator, dt, solref, T_LONG, 1000)
                        long = f"{gap:<16.2e} {e_max:.2e}"
                    else:
                        long = "-                -"
                    print(f"{name:<11} {NAMES[integrator]:<13} {dt:<7g} {label:<11} {err:<16.2e} "
                          f"{statistics.median(cpus):<26.2e} {long}", flush=True)
    print(f"# load average at end {os.getloadavg()[0]:.2f}", file=sys.stdout)


if __name__ == "__main__":
    main()

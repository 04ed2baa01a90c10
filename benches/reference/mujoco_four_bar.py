"""MuJoCo on the four-bar of tests/models/four_bar_loop.xml (closed by its soft equality
`connect`), conservative (joint damping and motor off): for several integrators, time steps and
equality stiffnesses, the loop gap and the energy over 1000 s, the error of the crank angle at
t = 10 s against the exact solution, and the CPU time per simulated second. For
docs/performance.md; it writes no data file (its output is kept in mujoco_four_bar.txt).

The exact solution integrates the index-1 equations of four_bar.py's independent model
(sympy + numpy saddle solve at every stage) with classical RK4 at h = 5e-4 (its error at t = 10 s
is estimated by a second run at 1e-3 and printed).

    pip install mujoco numpy sympy
    python3 benches/reference/mujoco_four_bar.py
"""

import os
import time

import mujoco
import numpy as np

from common import MODELS, versions
from four_bar import CRANK0, ROCKER, assemble, symbolic

T_ACCURACY = 10.0
T_LONG = 1000.0
CRANK_RATE = 3.0  # rad/s at the start, the other rates consistent


def start(sym):
    """The assembled pose qpos = 0 with the crank turning at CRANK_RATE."""
    q = np.zeros(3)
    gq = np.array(sym["gq"](q, np.zeros(3), 0.0), dtype=float)
    v = np.zeros(3)
    v[0] = CRANK_RATE
    v[1:] = np.linalg.solve(gq[:, 1:], -gq[:, 0] * v[0])
    return q, v


def exact(sym, q, v, t_end, h):
    """RK4 on the index-1 equations (the saddle solve gives a); returns (q, v) at t_end."""
    z = np.zeros(3)

    def rate(y):
        q, v = y[:3], y[3:]
        mass = np.array(sym["mass"](q, v, 0.0), dtype=float)
        force = np.array(sym["force"](q, v, 0.0), dtype=float).ravel()
        gq = np.array(sym["gq"](q, z, 0.0), dtype=float)
        gdot_v = np.array(sym["gdot_v"](q, v, 0.0), dtype=float).ravel()
        kkt = np.block([[mass, gq.T], [gq, np.zeros((2, 2))]])
        a = np.linalg.solve(kkt, np.concatenate([force, -gdot_v]))[:3]
        return np.concatenate([v, a])

    y = np.concatenate([q, v])
    n = int(round(t_end / h))
    for _ in range(n):
        k1 = rate(y)
        k2 = rate(y + 0.5 * h * k1)
        k3 = rate(y + 0.5 * h * k2)
        k4 = rate(y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y[:3], y[3:]


def loop_gap(model, data, rocker):
    tip = data.xpos[rocker] + data.xmat[rocker].reshape(3, 3) @ np.array([ROCKER, 0.0, 0.0])
    return np.linalg.norm(tip - np.array([1.0, 0.0, 0.0]))


def run(path, integrator, dt, solref, q0, v0, t_end, samples):
    """Steps MuJoCo to t_end; returns the final qpos, the largest sampled loop gap, the largest
    and final relative energy change, and the CPU seconds spent stepping."""
    model = mujoco.MjModel.from_xml_path(path)
    model.dof_damping[:] = 0.0
    model.opt.integrator = integrator
    model.opt.timestep = dt
    if solref is not None:
        model.eq_solref[0] = solref
    rocker = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, "rocker")
    data = mujoco.MjData(model)
    data.qpos[:] = q0
    data.qvel[:] = v0
    data.ctrl[:] = 0.0
    mujoco.mj_forward(model, data)
    e0 = data.energy.sum()
    steps = int(round(t_end / dt))
    chunk = steps // samples
    gap = loop_gap(model, data, rocker)
    worst_e = 0.0
    cpu = 0.0
    for _ in range(samples):
        t0 = time.process_time()
        mujoco.mj_step(model, data, nstep=chunk)
        cpu += time.process_time() - t0
        mujoco.mj_forward(model, data)
        gap = max(gap, loop_gap(model, data, rocker))
        worst_e = max(worst_e, abs(data.energy.sum() - e0) / abs(e0))
    return data.qpos.copy(), gap, worst_e, (data.energy.sum() - e0) / abs(e0), cpu


def main():
    path = os.path.join(MODELS, "four_bar_loop.xml")
    base = assemble(CRANK0)
    sym = symbolic(base, damping=[0.0, 0.0, 0.0])
    q0, v0 = start(sym)
    print(f"# {versions('mujoco', 'numpy', 'sympy')}")
    print(f"# four-bar {os.path.relpath(path)}: damping and motor off, start qpos = 0, crank rate {CRANK_RATE} rad/s")
    t0 = time.process_time()
    q_ref, _ = exact(sym, q0, v0, T_ACCURACY, 5e-4)
    q_half, _ = exact(sym, q0, v0, T_ACCURACY, 1e-3)
    print(f"# exact crank angle at t = {T_ACCURACY}: {q_ref[0]!r} (RK4 h = 5e-4; against h = 1e-3: "
          f"{abs(q_ref[0] - q_half[0]):.1e}; {time.process_time() - t0:.0f} s CPU)")
    names = {mujoco.mjtIntegrator.mjINT_EULER: "Euler", mujoco.mjtIntegrator.mjINT_IMPLICITFAST: "implicitfast",
             mujoco.mjtIntegrator.mjINT_RK4: "RK4"}
    print("integrator    dt      solref       crank err(10 s)  CPU s/sim s   gap max(1000 s)  dE max(1000 s)  dE end(1000 s)")
    for integrator in names:
        for dt in [1e-3, 1e-4]:
            for solref in [None, (2 * dt, 1.0)]:
                q, _, _, _, cpu = run(path, integrator, dt, solref, q0, v0, T_ACCURACY, 100)
                err = abs(q[0] - q_ref[0])
                _, gap, e_max, e_end, _ = run(path, integrator, dt, solref, q0, v0, T_LONG, 1000)
                label = "default" if solref is None else f"{solref[0]:g} {solref[1]:g}"
                print(f"{names[integrator]:<13} {dt:<7g} {label:<12} {err:<16.2e} {cpu / T_ACCURACY:<13.2e} "
                      f"{gap:<16.2e} {e_max:<15.2e} {e_end:.2e}", flush=True)


if __name__ == "__main__":
    main()

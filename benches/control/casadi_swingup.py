"""The cart-pole swing-up of examples/cartpole_swingup.rs with CasADi Opti + IPOPT (multiple
shooting), for the comparison in docs/performance.md.

The same problem: the Cartesian cart-pole (mc = 1, m = 0.2, l = 0.5, g = 9.81, c = 0.4) written
here in minimal coordinates (cart xc, lean theta from upright), 150 intervals of 20 ms, |u| <= 20 N,
from hanging at rest; the same costs, on the Cartesian state [xc, x, y, vc, vx, vy]:
stage 1/2 (x - x*)' Q_k (x - x*) + 1/2 r u^2 with Q_k = weights(0.01, 0, 0.001) for the first
1.5 s and weights(100, 1, 1) after, terminal weights(1e3, 10, 10), r = 2e-3 (weights() as in the
example). Dynamics: RK4 with 4 substeps per interval (spark uses one GaussLobatto<2> step; both
are accurate to far below the cost differences reported). Initial guess: the example's (a push
back and forth for the first second, rolled out).

Run:  python3 benches/control/casadi_swingup.py
With --warm, the first guess is spark's solution (examples/out/cartpole_swingup_plan.txt, written
by the example), rolled out: a check that both solve the same problem (the same cost).
"""

import math
import sys
import time

import casadi as ca
import numpy as np

MC, M, L, G, C = 1.0, 0.2, 0.5, 9.81, 0.4
H, TC, SUB = 150, 0.02, 4
U_MAX = 20.0
HOLD_FROM = round(1.5 / TC)


def f(z, u):
    xc, th, vc, om = z[0], z[1], z[2], z[3]
    s, c = ca.sin(th), ca.cos(th)
    # [[mc + m, m l c], [m l c, m l^2]] [xc''; th''] = [u - c vc + m l s om^2; m g l s]
    a11, a12, a22 = MC + M, M * L * c, M * L * L
    b1 = u - C * vc + M * L * s * om**2
    b2 = M * G * L * s
    det = a11 * a22 - a12 * a12
    acc = (a22 * b1 - a12 * b2) / det
    alpha = (a11 * b2 - a12 * b1) / det
    return ca.vertcat(vc, om, acc, alpha)


def rk4(z, u):
    h = TC / SUB
    for _ in range(SUB):
        k1 = f(z, u)
        k2 = f(z + h / 2 * k1, u)
        k3 = f(z + h / 2 * k2, u)
        k4 = f(z + h * k3, u)
        z = z + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return z


def cost_x(z, w, w_cart, w_vel):
    xc, th, vc, om = z[0], z[1], z[2], z[3]
    dx, dy = L * ca.sin(th), L * ca.cos(th) - L
    vx, vy = vc + L * ca.cos(th) * om, -L * ca.sin(th) * om
    return 0.5 * (w * (dx**2 + dy**2) + w_cart * xc**2 + w_vel * (vc**2 + vx**2 + vy**2))


def main():
    opti = ca.Opti()
    z = opti.variable(4, H + 1)
    u = opti.variable(1, H)
    zs, us = ca.MX.sym("z", 4), ca.MX.sym("u")
    step = ca.Function("step", [zs, us], [rk4(zs, us)])
    j = 0
    for k in range(H):
        w = (0.01, 0.0, 0.001) if k < HOLD_FROM else (100.0, 1.0, 1.0)
        j += cost_x(z[:, k], *w) + 0.5 * 2e-3 * u[0, k] ** 2
        opti.subject_to(z[:, k + 1] == step(z[:, k], u[0, k]))
    j += cost_x(z[:, H], 1e3, 10.0, 10.0)
    opti.minimize(j)
    opti.subject_to(opti.bounded(-U_MAX, u, U_MAX))
    opti.subject_to(z[:, 0] == np.array([0.0, math.pi, 0.0, 0.0]))
    # The example's guess, rolled out.
    guess = [10.0 * math.sin(2 * math.pi * k * TC) if k * TC < 1.0 else 0.0 for k in range(H)]
    if "--warm" in sys.argv:
        with open("examples/out/cartpole_swingup_plan.txt") as fh:
            guess = [float(v) for v in fh.read().split()]
        assert len(guess) == H
    zk = np.array([0.0, math.pi, 0.0, 0.0])
    zg = [zk]
    for k in range(H):
        zk = np.array(step(zk, guess[k])).flatten()
        zg.append(zk)
    opti.set_initial(z, np.array(zg).T)
    opti.set_initial(u, np.array(guess)[None, :])
    opti.solver("ipopt", {"print_time": False}, {"tol": 1e-10, "print_level": 0, "sb": "yes"})
    t0 = time.perf_counter()
    sol = opti.solve()
    wall = time.perf_counter() - t0
    stats = opti.stats()
    ur = np.array(sol.value(u)).flatten()
    zr = np.array(sol.value(z))
    print(f"guess: {'spark solution' if '--warm' in sys.argv else 'the example first guess'}")
    print(f"casadi {ca.__version__} ipopt: {stats['iter_count']} iterations, "
          f"{wall * 1e3:.1f} ms wall (solve call), cost {sol.value(j):.6e}, "
          f"status {stats['return_status']}")
    print(f"  final lean {zr[1, -1] - 2 * math.pi * round(zr[1, -1] / (2 * math.pi)):.2e} rad, "
          f"max |u| {np.abs(ur).max():.4f} N, inputs at a bound {int(np.sum(np.abs(ur) > U_MAX - 1e-6))}")


if __name__ == "__main__":
    main()

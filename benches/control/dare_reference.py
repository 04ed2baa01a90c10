"""Reference solutions of the discrete algebraic Riccati equation for tests/suite/control_lqr.rs.

Writes tests/data/dare_reference.txt: for each case, A, B, Q, R and SciPy's stabilizing
solution P of  P = Q + A'PA - A'PB (R + B'PB)^-1 B'PA  and the gain K = (R + B'PB)^-1 B'PA.

Cases: the Cartesian cart-pole of examples/models/cartpole.rs, hand-linearized at upright on
(xc, theta, vc, omega) and sampled with a zero-order hold at 20 ms (scipy.linalg.expm); and a
fixed 3-state, 2-input system with an unstable mode and a cross-coupled R.

Run from the repository root:  python3 benches/control/dare_reference.py
"""

import numpy as np
import scipy
from scipy.linalg import expm, solve_discrete_are


def cartpole():
    mc, m, l, g, c = 1.0, 0.2, 0.5, 9.81, 0.4
    a = np.zeros((4, 4))
    a[0, 2] = 1.0
    a[1, 3] = 1.0
    a[2, 1] = -m * g / mc
    a[2, 2] = -c / mc
    a[3, 1] = (g + m * g / mc) / l
    a[3, 2] = c / (mc * l)
    b = np.array([[0.0], [0.0], [1.0 / mc], [-1.0 / (mc * l)]])
    big = np.zeros((5, 5))
    big[:4, :4] = a * 0.02
    big[:4, 4:] = b * 0.02
    e = expm(big)
    q = np.diag([10.0, 100.0, 1.0, 1.0])
    r = np.array([[0.1]])
    return e[:4, :4], e[:4, 4:], q, r


def coupled():
    a = np.array([[1.1, 0.2, 0.0], [0.0, 0.95, 0.3], [0.1, 0.0, 0.8]])
    b = np.array([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5]])
    q = np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.0], [0.0, 0.0, 0.5]])
    r = np.array([[1.0, 0.2], [0.2, 0.5]])
    return a, b, q, r


def emit(out, name, a, b, q, r):
    p = solve_discrete_are(a, b, q, r)
    k = np.linalg.solve(r + b.T @ p @ b, b.T @ p @ a)
    for label, mat in (("A", a), ("B", b), ("Q", q), ("R", r), ("P", p), ("K", k)):
        vals = " ".join(repr(float(x)) for x in mat.flatten())  # row-major
        out.write(f"{name} {label} {mat.shape[0]} {mat.shape[1]} {vals}\n")


with open("tests/data/dare_reference.txt", "w") as out:
    out.write(f"# scipy {scipy.__version__} solve_discrete_are; benches/control/dare_reference.py\n")
    emit(out, "cartpole", *cartpole())
    emit(out, "coupled", *coupled())

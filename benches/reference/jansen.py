"""Kinematics of one leg of Theo Jansen's linkage from its published link lengths (the "holy
numbers", tests/data/jansen.md): the position of every joint at 360 crank angles, by circle
intersections on the leg's usual assembly branch. Writes tests/data/jansen_kinematics.csv, a
reference for the foot path of a closed-loop model of the leg (and its closure: every bar length
is checked at every angle).

    pip install numpy
    python3 benches/reference/jansen.py
"""

import math
import os

import numpy as np

from common import DATA, versions, write_table

HOLY = dict(a=38.0, b=41.5, c=39.3, d=40.1, e=55.8, f=39.4, g=36.7, h=65.7, i=49.0, j=50.0,
            k=61.9, l=7.8, m=15.0)
ANGLES = 360

# The bars: (joint, joint, length name). O is the crank axle, P the fixed pivot.
BARS = [("O", "crank", "m"), ("crank", "upper", "j"), ("P", "upper", "b"), ("upper", "back", "e"),
        ("P", "back", "d"), ("crank", "lower", "k"), ("P", "lower", "c"), ("back", "knee", "f"),
        ("lower", "knee", "g"), ("knee", "foot", "h"), ("lower", "foot", "i")]
JOINTS = ["O", "P", "crank", "upper", "back", "lower", "knee", "foot"]


def meet(p1, r1, p2, r2, pick):
    """The intersection of the circles (p1, r1) and (p2, r2) that `pick` prefers."""
    d = p2 - p1
    dist = np.linalg.norm(d)
    along = (r1**2 - r2**2 + dist**2) / (2 * dist)
    h = math.sqrt(r1**2 - along**2)
    u = d / dist
    n = np.array([-u[1], u[0]])
    return pick(p1 + along * u + h * n, p1 + along * u - h * n)


def leg(theta):
    """Joint positions at crank angle theta (from +x, counter-clockwise)."""
    L = HOLY
    higher = lambda x, y: x if x[1] > y[1] else y
    lower = lambda x, y: x if x[1] < y[1] else y
    lefter = lambda x, y: x if x[0] < y[0] else y
    p = {"O": np.zeros(2), "P": np.array([-L["a"], -L["l"]])}
    p["crank"] = L["m"] * np.array([math.cos(theta), math.sin(theta)])
    p["upper"] = meet(p["crank"], L["j"], p["P"], L["b"], higher)
    p["back"] = meet(p["upper"], L["e"], p["P"], L["d"], lefter)
    p["lower"] = meet(p["crank"], L["k"], p["P"], L["c"], lower)
    p["knee"] = meet(p["back"], L["f"], p["lower"], L["g"], lefter)
    p["foot"] = meet(p["knee"], L["h"], p["lower"], L["i"], lower)
    return p


def main():
    rows = []
    worst = 0.0
    for n in range(ANGLES):
        theta = 2 * math.pi * n / ANGLES
        p = leg(theta)
        for a, b, name in BARS:
            worst = max(worst, abs(np.linalg.norm(p[a] - p[b]) - HOLY[name]))
        rows.append([theta] + [x for j in JOINTS for x in p[j]])
    foot = np.array([[r[-2], r[-1]] for r in rows])
    low = foot[:, 1].min()
    flat = foot[foot[:, 1] < low + 1.0]
    meta = [
        ("source", "benches/reference/jansen.py"),
        ("engine", "circle intersections (numpy), no dynamics"),
        ("versions", versions("numpy")),
        ("lengths", " ".join(f"{k}={v}" for k, v in HOLY.items())),
        ("joint_names", " ".join(JOINTS)),
        ("bars", " ".join(f"{a}-{b}:{n}" for a, b, n in BARS)),
        ("states", ANGLES),
        ("layout", "theta (crank angle from +x, counter-clockwise, rad), then x and y of each joint in joint_names order; O the crank axle at the origin, P the fixed pivot at (-a, -l); triangles P-upper-back (b, d, e) and lower-knee-foot (g, h, i) are rigid"),
        ("branch", "upper above, back left of, lower below, knee left of, foot below the other intersection"),
        ("foot_path", f"x in [{foot[:, 0].min():.4f}, {foot[:, 0].max():.4f}], y in [{low:.4f}, {foot[:, 1].max():.4f}]; "
                      f"{len(flat)} of {ANGLES} angles within 1 unit of the lowest point, over x in [{flat[:, 0].min():.4f}, {flat[:, 0].max():.4f}]"),
        ("residual_bar_lengths", f"{worst:.3e}"),
    ]
    cols = ["theta"] + [f"{j}_{c}" for j in JOINTS for c in "xy"]
    write_table(os.path.join(DATA, "jansen_kinematics.csv"), meta, cols, rows)
    print(f"jansen: worst bar-length residual {worst:.3e}; foot path {meta[-2][1]}")


if __name__ == "__main__":
    main()

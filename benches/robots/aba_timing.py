"""Pinocchio's ABA and an RK4 step on a free flyer, timed in C++ (pinocchio_aba.cpp, built
against the pip package `pin` by ../pinocchio_cxx.py), at the states of aba_reference.py's
CSVs: the peer column of the robots' timing in docs/performance.md, printed as
`NAME aba NS rk4 NS`. spark's column is `ABA_TIME=1` of the crate benches/robots/aba (README.md
there). Run after aba_reference.py: python3 benches/robots/aba_timing.py [NAME ...]
"""
import os
import subprocess
import sys

import numpy as np
import pinocchio as pin

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
import pinocchio_cxx  # noqa: E402
from aba_reference import OUT, ROBOTS, robots_dir  # noqa: E402


def states(csv, model):
    """The CSV's q, v and tau columns, one state per row."""
    with open(csv) as f:
        lines = [line for line in f if not line.startswith("#")]
    header = lines[0].strip().split(",")
    rows = np.array([[float(x) for x in line.split(",")] for line in lines[1:] if line.strip()])
    col = lambda p, n: rows[:, [header.index(f"{p}{i}") for i in range(n)]]  # noqa: E731
    return np.hstack([col("q", model.nq), col("v", model.nv), col("tau", model.nv)])


def main():
    names = sys.argv[1:] or list(ROBOTS)
    binary = pinocchio_cxx.build(os.path.join(HERE, "pinocchio_aba.cpp"), os.path.join(OUT, "pinocchio_aba"))
    for name in names:
        urdf = os.path.join(robots_dir(), ROBOTS[name])
        model = pin.buildModelFromUrdf(urdf, pin.JointModelFreeFlyer())
        text, data = os.path.join(OUT, f"{name}.model.txt"), os.path.join(OUT, f"{name}.states.txt")
        model.saveToText(text)
        np.savetxt(data, states(os.path.join(OUT, f"{name}.csv"), model), fmt="%.17g")
        out = subprocess.run([binary, text, data], check=True, capture_output=True, text=True).stdout
        values = dict(line.split() for line in out.splitlines())
        print(f"{name} (nv = {model.nv}): aba {values['aba']} ns, rk4 step {values['rk4']} ns")


if __name__ == "__main__":
    main()

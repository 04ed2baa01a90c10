"""Reference gravity torques for `Integrator::equilibrium_inputs` (issue 41): Pinocchio's
generalized gravity g(q) of the vendored Panda (fingers removed) and UR5 URDFs at random
configurations inside their joint limits, the torques that hold each arm at rest.

Writes tests/data/{panda,ur5}_gravity.csv. Run from anywhere (the URDFs are the ones
benches/reference/pinocchio_arms.py vendored into tests/models/):

    pip install pin numpy
    python3 benches/reference/pinocchio_gravity.py
"""

import os

import numpy as np
import pinocchio as pin

from common import DATA, ROOT, versions, write_table

CONFIGURATIONS = 32
SEED = 41

ARMS = {
    "panda": "tests/models/panda/panda.urdf",
    "ur5": "tests/models/ur5/ur5_robot.urdf",
}


def reference(name, rel):
    model = pin.buildModelFromUrdf(os.path.join(ROOT, rel))
    data = model.createData()
    assert model.nq == model.nv, "revolute and prismatic joints only"
    n = model.nv
    joints = [model.names[i] for i in range(1, model.njoints)]
    lo = np.maximum(model.lowerPositionLimit, -np.pi)
    hi = np.minimum(model.upperPositionLimit, np.pi)
    assert np.all(lo < hi), (lo, hi)
    rng = np.random.default_rng(SEED)
    rows = []
    worst_rnea = worst_aba = 0.0
    for _ in range(CONFIGURATIONS):
        q = rng.uniform(lo, hi)
        g = pin.computeGeneralizedGravity(model, data, q).copy()
        # Self-consistency: inverse dynamics at rest with zero acceleration is g; forward
        # dynamics with g applied leaves the arm at rest.
        back = pin.rnea(model, data, q, np.zeros(n), np.zeros(n))
        worst_rnea = max(worst_rnea, np.max(np.abs(back - g)) / (1 + np.max(np.abs(g))))
        a = pin.aba(model, data, q, np.zeros(n), g)
        worst_aba = max(worst_aba, np.max(np.abs(a)))
        rows.append([*q, *g])
    cols = [f"q{i}" for i in range(n)] + [f"g{i}" for i in range(n)]
    meta = [
        ("source", "benches/reference/pinocchio_gravity.py"),
        ("engine", "Pinocchio computeGeneralizedGravity"),
        ("versions", versions("pin", "numpy")),
        ("model", rel),
        ("gravity", "0 0 -9.81"),
        ("coordinates", n),
        ("configurations", CONFIGURATIONS),
        ("seed", SEED),
        ("joint_names", " ".join(joints)),
        ("sampling", "q uniform within the URDF's joint limits, clipped to [-pi, pi]"),
        ("meaning", "g(q): the joint torques that hold the arm at rest at q"),
        ("residual_rnea", f"{worst_rnea:.3e}"),
        ("residual_aba_at_rest", f"{worst_aba:.3e}"),
    ]
    write_table(os.path.join(DATA, f"{name}_gravity.csv"), meta, cols, rows)


if __name__ == "__main__":
    for arm, path in ARMS.items():
        reference(arm, path)

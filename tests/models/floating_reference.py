"""Reference accelerations of tests/models/floating_branch.urdf from Pinocchio's ABA, the
root link on a free flyer (pip package `pin`; written with Pinocchio 4.1.0).

Writes tests/data/floating_branch_aba.csv in the format of tests/data/README.md: per row
Pinocchio's q (free flyer x y z qx qy qz qw; the continuous joint cos, sin), v (free flyer:
linear and angular velocity in the body frame), the joint torques tau (zero on the free
flyer) and ABA's a. The metadata names the joints (model.names[1:]) and gives nq and nv.
tests/mechanisms/floating.rs reads it through spark::convert, with no Python. Run from the
repository root:
    python3 tests/models/floating_reference.py
"""
import numpy as np
import pinocchio as pin

URDF = "tests/models/floating_branch.urdf"
model = pin.buildModelFromUrdf(URDF, pin.JointModelFreeFlyer())
data = model.createData()
rng = np.random.default_rng(40)
rows = []
for k in range(20):
    q = np.zeros(model.nq)
    for j in range(1, model.njoints):
        joint = model.joints[j]
        i, n = joint.idx_q, joint.nq
        short = joint.shortname()
        if short == "JointModelFreeFlyer":
            quat = rng.normal(size=4)
            q[i:i + 3] = rng.uniform(-1.0, 1.0, 3)
            q[i + 3:i + 7] = quat / np.linalg.norm(quat)
        elif joint.nq == 2 and joint.nv == 1:  # RevoluteUnbounded(Unaligned): cos, sin
            a = rng.uniform(-np.pi, np.pi)
            q[i:i + 2] = [np.cos(a), np.sin(a)]
        else:
            q[i] = rng.uniform(-1.0, 1.0)
    v = rng.uniform(-2.0, 2.0, model.nv)
    tau = rng.uniform(-3.0, 3.0, model.nv)
    tau[:6] = 0.0
    a = pin.aba(model, data, q, v, tau)
    rows.append(list(q) + list(v) + list(tau) + list(a))

columns = (
    [f"q{i}" for i in range(model.nq)]
    + [f"v{i}" for i in range(model.nv)]
    + [f"tau{i}" for i in range(model.nv)]
    + [f"a{i}" for i in range(model.nv)]
)
with open("tests/data/floating_branch_aba.csv", "w") as f:
    f.write(f"# source: {URDF}, Pinocchio {pin.__version__} aba, root on JointModelFreeFlyer\n")
    f.write("# joint_names: " + " ".join(model.names[1:]) + "\n")
    f.write(f"# nq: {model.nq}\n# nv: {model.nv}\n")
    f.write(",".join(columns) + "\n")
    for r in rows:
        f.write(",".join(repr(float(x)) for x in r) + "\n")
print("joints", list(model.names), "nq", model.nq, "nv", model.nv)

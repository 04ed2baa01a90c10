"""Reference data for the Panda arm (fingers removed) and the UR5 URDFs of example-robot-data 6.0.0,
from Pinocchio: forward dynamics (ABA), energies and the world poses of every link at random states.

Vendors the URDFs (original and trimmed) with their licences into tests/models/{panda,ur5}/ and
writes tests/data/{panda,ur5}_{dynamics,poses}.csv. Run from anywhere:

    pip install pin mujoco example-robot-data==6.0.0 numpy
    python3 benches/reference/pinocchio_arms.py
"""

import importlib.metadata
import os
import re
import shutil

import numpy as np
import pinocchio as pin

from common import DATA, MODELS, pose_columns, versions, write_table

STATES = 48
SEED = 29


def erd_file(suffix):
    """The path of a file of the installed example-robot-data package ending in `suffix`."""
    dist = importlib.metadata.distribution("example-robot-data")
    assert dist.version == "6.0.0", f"example-robot-data {dist.version}: 6.0.0 is pinned"
    hits = [f for f in dist.files if str(f).endswith(suffix)]
    assert len(hits) == 1, (suffix, hits)
    return str(hits[0].locate())


def trim_panda(text):
    """The Panda URDF without the hand's finger links and joints (the hand stays, fixed)."""
    out = text
    for link in ["panda_leftfinger", "panda_rightfinger"]:
        out, n = re.subn(rf'\s*<link name="{link}">.*?</link>', "", out, flags=re.S)
        assert n == 1, link
    for joint in ["panda_finger_joint1", "panda_finger_joint2"]:
        out, n = re.subn(rf'\s*<joint name="{joint}".*?</joint>', "", out, flags=re.S)
        assert n == 1, joint
    note = (
        "<!-- Trimmed by benches/reference/pinocchio_arms.py from panda_original.urdf "
        "(example-robot-data 6.0.0): the links panda_leftfinger, panda_rightfinger and the "
        "joints panda_finger_joint1, panda_finger_joint2 removed; nothing else changed. -->\n"
    )
    head, sep, rest = out.partition("?>")
    return head + sep + "\n" + note + rest.lstrip("\n") if sep else note + out


def vendor():
    """Copies the URDFs and licences; returns the paths of the URDFs to model."""
    panda_dir = os.path.join(MODELS, "panda")
    ur5_dir = os.path.join(MODELS, "ur5")
    os.makedirs(panda_dir, exist_ok=True)
    os.makedirs(ur5_dir, exist_ok=True)
    panda_src = erd_file("panda_description/urdf/panda.urdf")
    shutil.copyfile(panda_src, os.path.join(panda_dir, "panda_original.urdf"))
    shutil.copyfile(erd_file("panda_description/LICENSE"), os.path.join(panda_dir, "LICENSE"))
    shutil.copyfile(erd_file("panda_description/README.md"), os.path.join(panda_dir, "UPSTREAM.md"))
    with open(panda_src) as f:
        trimmed = trim_panda(f.read())
    panda = os.path.join(panda_dir, "panda.urdf")
    with open(panda, "w") as f:
        f.write(trimmed)
    ur5 = os.path.join(ur5_dir, "ur5_robot.urdf")
    shutil.copyfile(erd_file("ur_description/urdf/ur5_robot.urdf"), ur5)
    shutil.copyfile(erd_file("ur_description/README.md"), os.path.join(ur5_dir, "UPSTREAM.md"))
    # ur_description ships no licence file of its own (its README says BSD); the package's
    # licence (BSD-2-Clause) is vendored beside it.
    lic = [f for f in importlib.metadata.distribution("example-robot-data").files
           if "licenses" in str(f) and str(f).endswith("LICENSE")]
    assert len(lic) == 1, lic
    shutil.copyfile(str(lic[0].locate()), os.path.join(ur5_dir, "LICENSE-example-robot-data"))
    shutil.copyfile(str(lic[0].locate()), os.path.join(panda_dir, "LICENSE-example-robot-data"))
    return {"panda": (panda, "tests/models/panda/panda.urdf"),
            "ur5": (ur5, "tests/models/ur5/ur5_robot.urdf")}


def reference(name, path, rel):
    model = pin.buildModelFromUrdf(path)
    data = model.createData()
    assert model.nq == model.nv, "revolute and prismatic joints only"
    n = model.nv
    joints = [model.names[i] for i in range(1, model.njoints)]
    assert all(model.joints[i].nq == 1 for i in range(1, model.njoints))
    damping = np.array(model.damping)
    rng = np.random.default_rng(SEED)
    bodies = [f for f in model.frames if f.type == pin.FrameType.BODY]
    body_ids = [model.getFrameId(f.name, pin.FrameType.BODY) for f in bodies]
    rows, pose_rows = [], []
    worst_rnea = worst_kin = worst_pot = 0.0
    for s in range(STATES):
        q = rng.uniform(-np.pi, np.pi, n)
        v = rng.uniform(-2.0, 2.0, n)
        tau = rng.uniform(-20.0, 20.0, n)
        tau_total = tau - damping * v  # Pinocchio applies no joint damping itself.
        a = pin.aba(model, data, q, v, tau_total).copy()
        kinetic = pin.computeKineticEnergy(model, data, q, v)
        potential = pin.computePotentialEnergy(model, data, q)
        # Self-consistency: inverse dynamics of the result, the kinetic energy from the mass
        # matrix (CRBA), the potential energy from the centre of mass.
        back = pin.rnea(model, data, q, v, a)
        worst_rnea = max(worst_rnea, np.max(np.abs(back - tau_total)) / (1 + np.max(np.abs(tau_total))))
        mass = pin.crba(model, data, q)
        mass = np.triu(mass) + np.triu(mass, 1).T
        worst_kin = max(worst_kin, abs(0.5 * v @ mass @ v - kinetic) / (1 + abs(kinetic)))
        com = pin.centerOfMass(model, data, q)  # of the moving bodies; data.mass[0] their mass
        worst_pot = max(worst_pot, abs(-data.mass[0] * model.gravity.linear @ com - potential) / (1 + abs(potential)))
        rows.append([*q, *v, *tau, *damping, *a, kinetic, potential])
        pin.framesForwardKinematics(model, data, q)
        for f, fid in zip(bodies, body_ids):
            m = data.oMf[fid]
            pose_rows.append([str(s), f.name, *m.translation, *m.rotation.reshape(-1)])
    cols = ([f"q{i}" for i in range(n)] + [f"v{i}" for i in range(n)] + [f"tau{i}" for i in range(n)]
            + [f"damping{i}" for i in range(n)] + [f"a{i}" for i in range(n)] + ["kinetic", "potential"])
    meta = [
        ("source", "benches/reference/pinocchio_arms.py"),
        ("engine", "Pinocchio aba, computeKineticEnergy, computePotentialEnergy, framesForwardKinematics"),
        ("versions", versions("pin", "example-robot-data", "numpy")),
        ("model", rel),
        ("gravity", "0 0 -9.81"),
        ("coordinates", n),
        ("states", STATES),
        ("seed", SEED),
        ("joint_names", " ".join(joints)),
        ("sampling", "q uniform in [-pi, pi], v in [-2, 2], tau in [-20, 20] (joint limits ignored)"),
        ("dynamics", "a = aba(q, v, tau - damping * v): damping is the URDF's <dynamics damping>, applied as a viscous joint torque"),
        ("energies", "kinetic = 1/2 v^T M(q) v; potential = -sum m g . c over the moving bodies (zero at the world origin; the links fixed to the world are left out, a constant)"),
        ("residual_rnea", f"{worst_rnea:.3e}"),
        ("residual_kinetic_crba", f"{worst_kin:.3e}"),
        ("residual_potential_com", f"{worst_pot:.3e}"),
    ]
    write_table(os.path.join(DATA, f"{name}_dynamics.csv"), meta, cols, rows)
    pose_meta = [
        ("source", "benches/reference/pinocchio_arms.py"),
        ("engine", "Pinocchio framesForwardKinematics: data.oMf of every BODY frame (one per URDF link)"),
        ("versions", versions("pin", "example-robot-data", "numpy")),
        ("model", rel),
        ("states", STATES),
        ("bodies", len(bodies)),
        ("body_names", " ".join(f.name for f in bodies)),
        ("layout", "state index into the dynamics file, link name, the link frame's origin in the world, its rotation matrix (world from link) row by row"),
    ]
    write_table(os.path.join(DATA, f"{name}_poses.csv"), pose_meta,
                ["state", "body_name"] + pose_columns(), pose_rows)
    print(f"{name}: {n} joints, {len(bodies)} links; max residuals: rnea {worst_rnea:.3e}, "
          f"kinetic {worst_kin:.3e}, potential {worst_pot:.3e}")


def main():
    for name, (path, rel) in vendor().items():
        reference(name, path, rel)


if __name__ == "__main__":
    main()

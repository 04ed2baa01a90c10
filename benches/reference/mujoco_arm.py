"""Reference data for tests/models/mjcf_arm.xml from MuJoCo: mj_forward's qacc, the energies and
the body poses at random (qpos, qvel, ctrl). Writes tests/data/mjcf_arm_{dynamics,poses}.csv.

    pip install mujoco numpy
    python3 benches/reference/mujoco_arm.py
"""

import os

import mujoco
import numpy as np

from common import DATA, MODELS, pose_columns, versions, write_table

STATES = 48
SEED = 2929


def main():
    path = os.path.join(MODELS, "mjcf_arm.xml")
    model = mujoco.MjModel.from_xml_path(path)
    data = mujoco.MjData(model)
    assert model.nq == model.nv, "hinge and slide joints only"
    assert model.opt.enableflags & mujoco.mjtEnableBit.mjENBL_ENERGY
    n, nu = model.nv, model.nu
    joints = [mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, j) for j in range(model.njnt)]
    bodies = [mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, b) for b in range(model.nbody)]
    actuators = [mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_ACTUATOR, a) for a in range(nu)]
    act_joints = [joints[model.actuator_trnid[a, 0]] for a in range(nu)]
    gears = [model.actuator_gear[a, 0] for a in range(nu)]
    rng = np.random.default_rng(SEED)
    rows, pose_rows = [], []
    worst_inv = worst_kin = worst_pot = 0.0
    for s in range(STATES):
        qpos = model.qpos0 + rng.uniform(-np.pi, np.pi, n) * np.where(model.jnt_type == mujoco.mjtJoint.mjJNT_SLIDE, 0.1, 1.0)
        qvel = rng.uniform(-2.0, 2.0, n)
        ctrl = rng.uniform(-1.0, 1.0, nu)
        mujoco.mj_resetData(model, data)
        data.qpos[:] = qpos
        data.qvel[:] = qvel
        data.ctrl[:] = ctrl
        mujoco.mj_forward(model, data)
        qacc = data.qacc.copy()
        potential, kinetic = data.energy
        # Self-consistency: inverse dynamics of qacc gives the actuator forces back; the
        # kinetic energy from the mass matrix (armature included); the potential energy from
        # the bodies' centres of mass and the joint springs.
        forces = data.qfrc_actuator.copy()
        act_check = np.zeros(n)
        for a in range(nu):
            act_check[model.jnt_dofadr[model.actuator_trnid[a, 0]]] += gears[a] * ctrl[a]
        assert np.allclose(forces, act_check, rtol=0, atol=1e-14)
        data.qacc[:] = qacc
        mujoco.mj_inverse(model, data)
        worst_inv = max(worst_inv, np.max(np.abs(data.qfrc_inverse - forces)) / (1 + np.max(np.abs(forces))))
        mass = np.zeros((n, n))
        mujoco.mj_fullM(model, data, mass)
        worst_kin = max(worst_kin, abs(0.5 * qvel @ mass @ qvel - kinetic) / (1 + abs(kinetic)))
        grav = -sum(model.body_mass[b] * model.opt.gravity @ data.xipos[b] for b in range(model.nbody))
        spring = sum(0.5 * model.jnt_stiffness[j] * (qpos[model.jnt_qposadr[j]] - model.qpos_spring[model.jnt_qposadr[j]]) ** 2
                     for j in range(model.njnt))
        worst_pot = max(worst_pot, abs(grav + spring - potential) / (1 + abs(potential)))
        rows.append([*qpos, *qvel, *ctrl, *qacc, kinetic, potential])
        for b in range(model.nbody):
            pose_rows.append([str(s), bodies[b], *data.xpos[b], *data.xmat[b]])
    cols = ([f"q{i}" for i in range(n)] + [f"v{i}" for i in range(n)] + [f"ctrl{i}" for i in range(nu)]
            + [f"a{i}" for i in range(n)] + ["kinetic", "potential"])
    meta = [
        ("source", "benches/reference/mujoco_arm.py"),
        ("engine", "MuJoCo mj_forward: qacc, energy (potential, kinetic)"),
        ("versions", versions("mujoco", "numpy")),
        ("model", "tests/models/mjcf_arm.xml"),
        ("gravity", " ".join(repr(float(g)) for g in model.opt.gravity)),
        ("coordinates", n),
        ("inputs", nu),
        ("states", STATES),
        ("seed", SEED),
        ("joint_names", " ".join(joints)),
        ("actuator_names", " ".join(actuators)),
        ("actuator_joints", " ".join(act_joints)),
        ("actuator_gears", " ".join(repr(float(g)) for g in gears)),
        ("qpos0", " ".join(repr(float(x)) for x in model.qpos0)),
        ("sampling", "q = qpos0 + uniform in [-pi, pi] (hinges) or [-0.1 pi, 0.1 pi] (slides), v in [-2, 2], ctrl in [-1, 1]"),
        ("dynamics", "q is MuJoCo's qpos (a hinge's ref counts), v its qvel, a its qacc; forces: gear * ctrl on the actuated joints, -damping * v, -stiffness * (q - springref)"),
        ("energies", "kinetic = 1/2 v^T M(q) v with armature on the diagonal; potential = -sum m g . c + sum 1/2 stiffness (q - springref)^2"),
        ("residual_inverse", f"{worst_inv:.3e}"),
        ("residual_kinetic_mass_matrix", f"{worst_kin:.3e}"),
        ("residual_potential_com_springs", f"{worst_pot:.3e}"),
    ]
    write_table(os.path.join(DATA, "mjcf_arm_dynamics.csv"), meta, cols, rows)
    pose_meta = [
        ("source", "benches/reference/mujoco_arm.py"),
        ("engine", "MuJoCo mj_forward: xpos, xmat of every body (the world body included)"),
        ("versions", versions("mujoco", "numpy")),
        ("model", "tests/models/mjcf_arm.xml"),
        ("states", STATES),
        ("bodies", len(bodies)),
        ("body_names", " ".join(bodies)),
        ("layout", "state index into the dynamics file, body name, the body frame's origin in the world, its rotation matrix (world from body) row by row"),
    ]
    write_table(os.path.join(DATA, "mjcf_arm_poses.csv"), pose_meta,
                ["state", "body_name"] + pose_columns(), pose_rows)
    print(f"mjcf_arm: {n} joints, {len(bodies)} bodies; max residuals: inverse {worst_inv:.3e}, "
          f"kinetic {worst_kin:.3e}, potential {worst_pot:.3e}")


if __name__ == "__main__":
    main()

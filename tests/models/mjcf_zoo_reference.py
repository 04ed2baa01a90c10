"""Reference energies of tests/models/mjcf_zoo.xml from MuJoCo (pip package `mujoco`).

Writes tests/models/mjcf_zoo_reference.csv: per row the state in MuJoCo's qpos and qvel
(ball and free joints: unit quaternions, angular velocities in the body frame) and MuJoCo's
potential and kinetic energy (mj_energyPos, mj_energyVel), plus qpos0. Run from the repository root:
    python3 tests/models/mjcf_zoo_reference.py
"""
import numpy as np
import mujoco

model = mujoco.MjModel.from_xml_path("tests/models/mjcf_zoo.xml")
data = mujoco.MjData(model)
rng = np.random.default_rng(29)
rows = []
for k in range(40):
    qpos = model.qpos0.copy()
    qpos += rng.uniform(-0.8, 0.8, model.nq)
    for j in range(model.njnt):
        adr = model.jnt_qposadr[j]
        if model.jnt_type[j] == mujoco.mjtJoint.mjJNT_BALL:
            q = rng.normal(size=4)
            qpos[adr:adr + 4] = q / np.linalg.norm(q)
        if model.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE:
            q = rng.normal(size=4)
            qpos[adr + 3:adr + 7] = q / np.linalg.norm(q)
    qvel = rng.uniform(-1.5, 1.5, model.nv)
    data.qpos[:] = qpos
    data.qvel[:] = qvel
    mujoco.mj_forward(model, data)
    mujoco.mj_energyPos(model, data)
    mujoco.mj_energyVel(model, data)
    rows.append(list(qpos) + list(qvel) + [data.energy[0], data.energy[1]])
header = f"# nq={model.nq} nv={model.nv}; qpos, qvel, potential, kinetic (MuJoCo {mujoco.__version__})"
qpos0 = "# qpos0 " + " ".join(repr(float(x)) for x in model.qpos0)
with open("tests/models/mjcf_zoo_reference.csv", "w") as f:
    f.write(header + "\n" + qpos0 + "\n")
    for r in rows:
        f.write(",".join(repr(float(x)) for x in r) + "\n")
print("masses", model.body_mass, "\ninertia", model.body_inertia)

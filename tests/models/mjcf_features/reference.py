"""MuJoCo reference data for the MJCF feature models of tests/models/mjcf_features/.

For each feature model (a)-(e) (defaults, include_frames, actuators, equality_tendons, misc)
it writes two files beside the model:

  NAME.csv           20 random states and MuJoCo's accelerations. Line 1: `# nq=.. nv=.. nu=..;
                     ...`; line 2: `# qpos0 ...`; line 3: `# ctrl NAME...` (the actuators in
                     order; spark names its inputs after them); line 4: `# joints NAME:KIND...`
                     (MuJoCo's joints in qpos order, KIND hinge, slide, ball or free). Then one
                     row per state:
                     qpos (nq), qvel (nv), ctrl (nu), qacc (nv), in MuJoCo's conventions: a ball
                     joint's qpos is a unit quaternion (w first) and its qvel the body angular
                     velocity; a free joint's qpos is the world position and quaternion, its
                     qvel the world linear velocity then the body angular velocity.
  NAME_compiled.csv  MuJoCo's compiled numbers, one per line `field,name,values...`: body_mass,
                     body_inertia (principal moments), body_ipos (centre of mass in the
                     body frame), dof_armature, dof_damping, jnt_stiffness,
                     qpos_spring (per joint, its first value), actuator_gainprm[:3],
                     actuator_biasprm[:3], actuator_gear[0], eq_data[:5], tendon_length0,
                     tendon_lengthspring (lower end), tendon_stiffness, tendon_damping.

The models disable contacts, limits and frictionloss in their own <option><flag> so spark reads
the same. MuJoCo makes equality constraints soft; for a model with equalities the states are
first made consistent (Newton on the constraint residual, velocities projected onto the
constraints' null space) and qacc is the exact constrained acceleration from MuJoCo's mass
matrix, smooth forces and constraint Jacobian (see `exact_qacc`), not MuJoCo's soft qacc.

For (f), friction.xml (frictionloss enabled), it writes friction_trajectory.csv (a MuJoCo
simulation: t, qpos, qvel every 0.01 s for 2 s, timestep 1e-5 RK4), friction_trajectory_coulomb.csv
(the same in the limit of MuJoCo's friction constraint made rigid, see `friction`) and
friction.csv (states sliding fast, where MuJoCo's bounded friction force is exactly
-frictionloss sign(qdot), in the format above).

Run from the repository root (MuJoCo's pip package `mujoco`, 4.0.0 for the committed files):
    python3 tests/models/mjcf_features/reference.py [MODEL ...]   (default: every model)
"""
import os
import sys

import mujoco
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
FEATURES = ["defaults", "include_frames", "actuators", "equality_tendons", "misc", "fluid_sites"]
STATES = 20


def fmt(x):
    return repr(float(x))


def random_state(m, rng):
    """qpos around qpos0 (unit quaternions for ball and free joints), qvel, ctrl."""
    qpos = m.qpos0.copy()
    for j in range(m.njnt):
        a = m.jnt_qposadr[j]
        t = m.jnt_type[j]
        if t == mujoco.mjtJoint.mjJNT_FREE:
            qpos[a:a + 3] += rng.uniform(-0.5, 0.5, 3)
            q = rng.normal(size=4)
            qpos[a + 3:a + 7] = q / np.linalg.norm(q)
        elif t == mujoco.mjtJoint.mjJNT_BALL:
            q = rng.normal(size=4)
            qpos[a:a + 4] = q / np.linalg.norm(q)
        else:
            qpos[a] += rng.uniform(-0.6, 0.6)
    qvel = rng.uniform(-1.5, 1.5, m.nv)
    ctrl = np.empty(m.nu)
    for i in range(m.nu):
        lo, hi = (m.actuator_ctrlrange[i] if m.actuator_ctrllimited[i] else (-2.0, 2.0))
        # Strictly inside the range: MuJoCo clamps ctrl, spark does not.
        ctrl[i] = rng.uniform(0.9 * lo + 0.1 * hi, 0.1 * lo + 0.9 * hi)
    return qpos, qvel, ctrl


def equality_rows(m, d):
    """Residual, Jacobian and velocity of the equality rows at the current d.qpos, d.qvel."""
    mujoco.mj_forward(m, d)
    rows = d.efc_type[:d.nefc] == mujoco.mjtConstraint.mjCNSTR_EQUALITY
    # `feature` sets m.opt.jacobian to dense: efc_J is nefc × nv, row-major.
    jac = d.efc_J[:d.nefc * m.nv].reshape(d.nefc, m.nv)
    return d.efc_pos[:d.nefc][rows].copy(), jac[rows], d.efc_vel[:d.nefc][rows].copy()


def project(m, d, qpos, qvel):
    """Newton on the equality residual (minimum-norm steps in the tangent space), then the
    velocity projected onto the null space of the constraint Jacobian."""
    qpos = qpos.copy()
    for _ in range(100):
        d.qpos[:] = qpos
        d.qvel[:] = 0
        r, jac, _ = equality_rows(m, d)
        if np.max(np.abs(r)) < 1e-15:
            break
        dq = -np.linalg.lstsq(jac, r, rcond=None)[0]
        mujoco.mj_integratePos(m, qpos, dq, 1.0)
    else:
        raise RuntimeError("projection did not converge")
    qvel = qvel - np.linalg.pinv(jac) @ (jac @ qvel)
    return qpos, qvel


def drift(m, d, qpos, qvel, h=1e-3):
    """J̇ q̇ of the equality rows: the time derivative of J(q(t)) q̇ along the path of zero
    acceleration q(t) = q ⊕ t q̇ (mj_integratePos: constant body angular velocity for
    quaternions), by central differences with one Richardson extrapolation (error ~h⁴)."""

    def vel(t):
        q = qpos.copy()
        mujoco.mj_integratePos(m, q, qvel, t)
        d.qpos[:] = q
        d.qvel[:] = qvel
        return equality_rows(m, d)[2]

    def central(s):
        return (vel(s) - vel(-s)) / (2 * s)

    return (4 * central(h / 2) - central(h)) / 3


def exact_qacc(m, d, qpos, qvel, ctrl):
    """The exact constrained acceleration: M q̈ = f + Jᵀ λ with J q̈ + J̇ q̇ = 0, where M
    (armature included) and f = qfrc_smooth (passive, actuator, minus bias) are MuJoCo's."""
    dd = drift(m, d, qpos, qvel)
    d.qpos[:] = qpos
    d.qvel[:] = qvel
    d.ctrl[:] = ctrl
    _, jac, _ = equality_rows(m, d)
    mass = np.zeros((m.nv, m.nv))
    mujoco.mj_fullM(m, d, mass)
    a_s = d.qacc_smooth.copy()
    minv_jt = np.linalg.solve(mass, jac.T)
    lam = np.linalg.solve(jac @ minv_jt, -dd - jac @ a_s)
    return a_s + minv_jt @ lam, dd


def check_connect_drift(m, d, qpos, qvel, dd):
    """For connect rows MuJoCo puts −J̇ q̇ into efc_aref (with −B·vel − K·pos, zero here):
    the finite differences against it."""
    d.qpos[:] = qpos
    d.qvel[:] = qvel
    mujoco.mj_forward(m, d)
    rows = d.efc_type[:d.nefc] == mujoco.mjtConstraint.mjCNSTR_EQUALITY
    aref = d.efc_aref[:d.nefc][rows]
    worst, k = 0.0, 0
    for e in range(m.neq):
        n = 3 if m.eq_type[e] == mujoco.mjtEq.mjEQ_CONNECT else 1
        if n == 3:
            worst = max(worst, np.abs(dd[k:k + 3] + aref[k:k + 3]).max())
        k += n
    return worst


def check_polycoef_drift(m, qvel_all, qpos_all, dd):
    """For the joint equalities: J̇ q̇ = −P''(x − x0) ẋ², against the finite differences."""
    worst = 0.0
    k = 0
    for e in range(m.neq):
        if m.eq_type[e] == mujoco.mjtEq.mjEQ_CONNECT:
            k += 3
            continue
        if m.eq_type[e] == mujoco.mjtEq.mjEQ_JOINT and m.eq_obj2id[e] >= 0:
            c = m.eq_data[e, :5]
            j2 = m.eq_obj2id[e]
            x = qpos_all[m.jnt_qposadr[j2]] - m.qpos0[m.jnt_qposadr[j2]]
            xd = qvel_all[m.jnt_dofadr[j2]]
            p2 = 2 * c[2] + 6 * c[3] * x + 12 * c[4] * x * x
            worst = max(worst, abs(dd[k] + p2 * xd * xd))
        k += 1
    return worst


# The compiled parameters whose every non-zero entry must change qacc when zeroed.
VISIBLE = ["dof_damping", "dof_armature", "jnt_stiffness", "body_gravcomp", "tendon_stiffness",
           "tendon_damping", "actuator_gainprm", "actuator_biasprm"]


def qacc_of(m, d, qpos, qvel, ctrl):
    if m.neq > 0:
        return exact_qacc(m, d, qpos, qvel, ctrl)[0]
    d.qpos[:] = qpos
    d.qvel[:] = qvel
    d.ctrl[:] = ctrl
    mujoco.mj_forward(m, d)
    return d.qacc.copy()


def check_visible(name, m, d, states, qaccs):
    """Zeroes each non-zero entry of VISIBLE in turn: qacc must change (the reference data
    sees every damping, armature, spring, gravity compensation and actuator parameter)."""
    # An adhesion actuator (a body transmission) acts through contacts only: none here.
    contact_only = m.actuator_trntype == mujoco.mjtTrn.mjTRN_BODY
    for field in VISIBLE:
        arr = getattr(m, field)
        for idx in zip(*np.nonzero(arr)):
            if field.startswith("actuator_") and contact_only[idx[0]]:
                continue
            keep = arr[idx]
            arr[idx] = 0.0
            change = max(np.abs(qacc_of(m, d, *st) - a).max() for st, a in zip(states, qaccs))
            arr[idx] = keep
            assert change > 1e-6, f"{name}: {field}{list(idx)} does not change qacc ({change:.1e})"
    for k in ["density", "viscosity"]:
        keep = getattr(m.opt, k)
        if keep:
            setattr(m.opt, k, 0.0)
            change = max(np.abs(qacc_of(m, d, *st) - a).max() for st, a in zip(states, qaccs))
            setattr(m.opt, k, keep)
            assert change > 1e-6, f"{name}: the fluid's {k} does not change qacc ({change:.1e})"


def compiled_rows(m):
    """`field,name,values` lines of MuJoCo's compiled numbers."""
    out = []

    def put(field, name, values):
        out.append(",".join([field, name] + [fmt(v) for v in np.atleast_1d(values)]))

    for b in range(m.nbody):
        put("body_mass", m.body(b).name, m.body_mass[b])
        put("body_inertia", m.body(b).name, m.body_inertia[b])
        put("body_ipos", m.body(b).name, m.body_ipos[b])
    for v in range(m.nv):
        jn = m.joint(m.dof_jntid[v]).name
        put("dof_armature", jn, m.dof_armature[v])
        put("dof_damping", jn, m.dof_damping[v])
    for j in range(m.njnt):
        put("jnt_stiffness", m.joint(j).name, m.jnt_stiffness[j])
        put("qpos_spring", m.joint(j).name, m.qpos_spring[m.jnt_qposadr[j]])
    for i in range(m.nu):
        n = m.actuator(i).name
        put("actuator_gainprm", n, m.actuator_gainprm[i, :3])
        put("actuator_biasprm", n, m.actuator_biasprm[i, :3])
        put("actuator_gear", n, m.actuator_gear[i, 0])
    for e in range(m.neq):
        put("eq_data", m.equality(e).name or str(e), m.eq_data[e, :5])
    for t in range(m.ntendon):
        n = m.tendon(t).name
        put("tendon_length0", n, m.tendon_length0[t])
        put("tendon_lengthspring", n, m.tendon_lengthspring[t, 0])
        put("tendon_stiffness", n, m.tendon_stiffness[t])
        put("tendon_damping", n, m.tendon_damping[t])
    return out


JOINT_KINDS = {0: "free", 1: "ball", 2: "slide", 3: "hinge"}


def header(m, what):
    names = " ".join(m.actuator(i).name for i in range(m.nu))
    joints = " ".join(f"{m.joint(j).name}:{JOINT_KINDS[int(m.jnt_type[j])]}" for j in range(m.njnt))
    return [
        f"# nq={m.nq} nv={m.nv} nu={m.nu}; {what} (MuJoCo {mujoco.__version__}, reference.py)",
        "# qpos0 " + " ".join(fmt(x) for x in m.qpos0),
        "# ctrl " + names,
        "# joints " + joints,
    ]


def feature(name, seed):
    path = os.path.join(HERE, name + ".xml")
    m = mujoco.MjModel.from_xml_path(path)
    m.opt.jacobian = mujoco.mjtJacobian.mjJAC_DENSE
    d = mujoco.MjData(m)
    rng = np.random.default_rng(seed)
    rows = []
    states = []
    qaccs = []
    worst_poly = worst_connect = 0.0
    for _ in range(STATES):
        qpos, qvel, ctrl = random_state(m, rng)
        if m.neq > 0:
            qpos, qvel = project(m, d, qpos, qvel)
            qacc, dd = exact_qacc(m, d, qpos, qvel, ctrl)
            worst_poly = max(worst_poly, check_polycoef_drift(m, qvel, qpos, dd))
            worst_connect = max(worst_connect, check_connect_drift(m, d, qpos, qvel, dd))
        else:
            d.qpos[:] = qpos
            d.qvel[:] = qvel
            d.ctrl[:] = ctrl
            mujoco.mj_forward(m, d)
            assert d.nefc == 0, f"{name}: unexpected constraints"
            qacc = d.qacc.copy()
            assert np.allclose(qacc, d.qacc_smooth, rtol=0, atol=1e-12)
        # Every force kind acts (not zero): actuators, passive forces, gravity compensation.
        if m.nu:
            assert np.abs(d.qfrc_actuator).max() > 1e-3, name
        rows.append(list(qpos) + list(qvel) + list(ctrl) + list(qacc))
        states.append((qpos, qvel, ctrl))
        qaccs.append(qacc)
    check_visible(name, m, d, states, qaccs)
    lines = header(m, "columns qpos, qvel, ctrl, qacc")
    with open(os.path.join(HERE, name + ".csv"), "w") as f:
        f.write("\n".join(lines + [",".join(fmt(x) for x in r) for r in rows]) + "\n")
    with open(os.path.join(HERE, name + "_compiled.csv"), "w") as f:
        f.write(f"# {name}.xml compiled by MuJoCo {mujoco.__version__}: field,name,values\n")
        f.write("\n".join(compiled_rows(m)) + "\n")
    extra = (f"; J̇q̇ against -P''ẋ² {worst_poly:.1e}, against MuJoCo's connect J̇v "
             f"{worst_connect:.1e}") if m.neq else ""
    print(f"{name}: nq={m.nq} nv={m.nv} nu={m.nu} neq={m.neq}{extra}")


def friction():
    path = os.path.join(HERE, "friction.xml")
    m = mujoco.MjModel.from_xml_path(path)
    d = mujoco.MjData(m)
    # Sliding fast: |qdot| >= 1 on both joints, where the friction force is saturated.
    rng = np.random.default_rng(61)
    rows = []
    worst = 0.0
    for _ in range(STATES):
        qpos = m.qpos0 + rng.uniform(-0.8, 0.8, m.nq)
        qvel = rng.choice([-1, 1], m.nv) * rng.uniform(1.0, 2.0, m.nv)
        ctrl = rng.uniform(-1, 1, m.nu)
        d.qpos[:] = qpos
        d.qvel[:] = qvel
        d.ctrl[:] = ctrl
        mujoco.mj_forward(m, d)
        # Coulomb: qacc_smooth + M⁻¹ (−frictionloss sign(qdot)).
        mass = np.zeros((m.nv, m.nv))
        mujoco.mj_fullM(m, d, mass)
        coulomb = d.qacc_smooth + np.linalg.solve(mass, -m.dof_frictionloss * np.sign(qvel))
        worst = max(worst, np.abs(coulomb - d.qacc).max())
        rows.append(list(qpos) + list(qvel) + list(ctrl) + list(d.qacc))
    with open(os.path.join(HERE, "friction.csv"), "w") as f:
        lines = header(m, "columns qpos, qvel, ctrl, qacc, sliding states")
        f.write("\n".join(lines + [",".join(fmt(x) for x in r) for r in rows]) + "\n")
    print(f"friction: sliding qacc against Coulomb's {worst:.1e}")
    # The trajectory: the block sent up the incline at 2 m/s, the pendulum released at 1 rad
    # with a constant motor torque 0.5. MuJoCo's friction is a soft constraint (time constant
    # solreffriction[0], default 0.02 s): its trajectory approaches the Coulomb one linearly in
    # that time constant (the block turns back about that much later). friction_trajectory.csv
    # is MuJoCo as shipped (default solreffriction); friction_trajectory_coulomb.csv the limit
    # of zero time constant, extrapolated from 5e-4 and 2e-4 s (their difference, 6e-4 in the
    # block's position, shrinks to ~1e-5 in the extrapolation).
    def trajectory(timeconst=None):
        text = open(path).read()
        if timeconst is not None:
            text = text.replace('frictionloss="', f'solreffriction="{timeconst} 1" frictionloss="')
        mt = mujoco.MjModel.from_xml_string(text)
        dt = mujoco.MjData(mt)
        dt.qpos[:] = [0.0, 1.0]
        dt.qvel[:] = [2.0, 0.0]
        dt.ctrl[:] = [0.5]
        every = round(0.01 / mt.opt.timestep)
        out = []
        for k in range(201):
            out.append([dt.time] + list(dt.qpos) + list(dt.qvel))
            if k < 200:
                for _ in range(every):
                    mujoco.mj_step(mt, dt)
        return np.array(out)

    def write(name, rows, note):
        out = header(m, "columns t, qpos, qvel every 0.01 s; ctrl 0.5")
        out.append(f"# timestep {fmt(m.opt.timestep)} integrator RK4; {note}")
        out += [",".join(fmt(x) for x in r) for r in rows]
        with open(os.path.join(HERE, name), "w") as f:
            f.write("\n".join(out) + "\n")

    shipped = trajectory()
    write("friction_trajectory.csv", shipped, "solreffriction as shipped (0.02 1)")
    a, b = trajectory(5e-4), trajectory(2e-4)
    coulomb = b + (b - a) * (2e-4 / 3e-4)
    coulomb[:, 0] = b[:, 0]
    write("friction_trajectory_coulomb.csv", coulomb,
          "the limit solreffriction -> 0, extrapolated from 5e-4 and 2e-4")
    print("friction: trajectory final", shipped[-1], "Coulomb limit", coulomb[-1],
          "largest difference", np.abs(shipped - coulomb)[:, 1:].max())


if __name__ == "__main__":
    # Arguments: the models to write (default: all, and the friction data).
    only = sys.argv[1:]
    for k, name in enumerate(FEATURES):
        if not only or name in only:
            feature(name, 100 + k)
    if not only or "friction" in only:
        friction()

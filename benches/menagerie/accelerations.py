"""MuJoCo's accelerations of four Menagerie robots at random states, for benches/menagerie/accel.

For each robot (an arm, a quadruped, a humanoid, a hand; ROBOTS below) it
  1. writes a flag-patched copy of the robot file into the robot's own directory, as
     `<stem>_spark_accel.xml` (the file as shipped plus a last <option><flag> disabling
     contacts, limits and frictionloss; patch.py), which the accel crate's build.rs hands to
     `mechanics!`;
  2. draws 20 random states: qpos around qpos0 (hinges and slides ±0.5, free-joint positions
     ±0.2, unit quaternions near the reference), qvel in ±1, and per actuator a ctrl inside its
     ctrlrange chosen so that the actuator force stays inside its forcerange (MuJoCo clamps
     both; spark does not); states whose forces would be clamped are drawn again;
  3. writes /tmp/menagerie_accel/<name>.csv in the format of
     tests/models/mjcf_features/reference.py (header lines `# nq= nv= nu=`, `# qpos0`,
     `# ctrl NAMES`, `# joints NAME:KIND`, then rows qpos, qvel, ctrl, qacc). Equality
     constraints are not handled (none of these four has one).

It also writes OUT/robots.tsv (name, patched model, CSV), the list build.rs reads.

Run after benches/menagerie/setup.sh (MENAGERIE, default /tmp/menagerie; OUT, default
/tmp/menagerie_accel):
    python3 benches/menagerie/accelerations.py
or, to try the tools on other files (the patched copies then go to OUT, so such a file must
not include others by relative path):
    OUT=/tmp/accel_try python3 benches/menagerie/accelerations.py zoo=tests/models/mjcf_zoo.xml
then the comparison (benches/menagerie/accel/README.md):
    cd benches/menagerie/accel && cargo run --release
"""
import os
import sys

import mujoco
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import patch  # noqa: E402

MENAGERIE = os.environ.get("MENAGERIE", "/tmp/menagerie")
OUT = os.environ.get("OUT", "/tmp/menagerie_accel")
# (name used by the accel crate, directory, file)
ROBOTS = [
    ("ur5e", "universal_robots_ur5e", "ur5e.xml"),
    ("go2", "unitree_go2", "go2.xml"),
    ("h1", "unitree_h1", "h1.xml"),
    ("leap_hand", "leap_hand", "left_hand.xml"),
    # Fluid forces (inertia-box model) and actuators on sites.
    ("cf2", "bitcraze_crazyflie_2", "cf2.xml"),
    ("x2", "skydio_x2", "x2.xml"),
]
STATES = 20
KINDS = {0: "free", 1: "ball", 2: "slide", 3: "hinge"}


def fmt(x):
    return repr(float(x))


def unit_quaternion_near(q, rng, spread=0.5):
    dq = np.concatenate([[1.0], rng.uniform(-spread, spread, 3)])
    out = np.zeros(4)
    mujoco.mju_mulQuat(out, q, dq / np.linalg.norm(dq))
    return out / np.linalg.norm(out)


def draw(m, d, rng):
    """One state and controls with no clamping by MuJoCo; None when clamping would act."""
    qpos = m.qpos0.copy()
    for j in range(m.njnt):
        a = m.jnt_qposadr[j]
        t = m.jnt_type[j]
        if t == mujoco.mjtJoint.mjJNT_FREE:
            qpos[a:a + 3] += rng.uniform(-0.2, 0.2, 3)
            qpos[a + 3:a + 7] = unit_quaternion_near(qpos[a + 3:a + 7], rng)
        elif t == mujoco.mjtJoint.mjJNT_BALL:
            qpos[a:a + 4] = unit_quaternion_near(qpos[a:a + 4], rng)
        else:
            qpos[a] += rng.uniform(-0.5, 0.5)
    qvel = rng.uniform(-1.0, 1.0, m.nv)
    d.qpos[:] = qpos
    d.qvel[:] = qvel
    d.ctrl[:] = 0
    mujoco.mj_forward(m, d)
    ctrl = np.zeros(m.nu)
    for i in range(m.nu):
        if m.actuator_dyntype[i] != mujoco.mjtDyn.mjDYN_NONE:
            raise SystemExit(f"actuator {m.actuator(i).name}: activation dynamics not handled")
        if m.actuator_gaintype[i] != mujoco.mjtGain.mjGAIN_FIXED:
            raise SystemExit(f"actuator {m.actuator(i).name}: gain type not handled")
        lo, hi = m.actuator_ctrlrange[i] if m.actuator_ctrllimited[i] else (-1.0, 1.0)
        ctrl[i] = rng.uniform(0.95 * lo + 0.05 * hi, 0.05 * lo + 0.95 * hi)
        if m.actuator_forcelimited[i]:
            # A force inside forcerange, and the ctrl that gives it: gain · ctrl + bias.
            flo, fhi = m.actuator_forcerange[i]
            f = rng.uniform(0.8 * flo + 0.2 * fhi, 0.2 * flo + 0.8 * fhi)
            b = 0.0
            if m.actuator_biastype[i] == mujoco.mjtBias.mjBIAS_AFFINE:
                bp = m.actuator_biasprm[i]
                b = bp[0] + bp[1] * d.actuator_length[i] + bp[2] * d.actuator_velocity[i]
            c = (f - b) / m.actuator_gainprm[i, 0]
            if not m.actuator_ctrllimited[i] or lo < c < hi:
                ctrl[i] = c
    d.ctrl[:] = ctrl
    mujoco.mj_forward(m, d)
    # Drawn again when MuJoCo clamps a force (the ctrl that avoids it was outside ctrlrange).
    for i in range(m.nu):
        if m.actuator_forcelimited[i]:
            flo, fhi = m.actuator_forcerange[i]
            if not (flo < d.actuator_force[i] < fhi):
                return None
    return qpos, qvel, ctrl


def robot(name, path, patched, rng):
    patch.flag_patched(path, patched)
    unreliable = patch.placeholder_bodies(path, MENAGERIE)
    m = mujoco.MjModel.from_xml_path(patched)
    d = mujoco.MjData(m)
    if m.neq:
        raise SystemExit(f"{name}: equality constraints are not handled here")
    rows = []
    tries = 0
    while len(rows) < STATES:
        tries += 1
        if tries > 100 * STATES:
            raise SystemExit(f"{name}: no state without force clamping")
        s = draw(m, d, rng)
        if s is None:
            continue
        qpos, qvel, ctrl = s
        assert d.nefc == 0, f"{name}: constraints left ({d.nefc} rows)"
        rows.append(list(qpos) + list(qvel) + list(ctrl) + list(d.qacc))
    # Unnamed joints and actuators get the names spark's reader gives them.
    joints = " ".join(f"{m.joint(j).name or f'joint{j}'}:{KINDS[int(m.jnt_type[j])]}"
                      for j in range(m.njnt))
    lines = [
        f"# nq={m.nq} nv={m.nv} nu={m.nu}; columns qpos, qvel, ctrl, qacc "
        f"(MuJoCo {mujoco.__version__}, accelerations.py, {patched})",
        "# qpos0 " + " ".join(fmt(x) for x in m.qpos0),
        "# ctrl " + " ".join(m.actuator(i).name or f"actuator{i}" for i in range(m.nu)),
        "# joints " + joints,
    ]
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, name + ".csv"), "w") as f:
        f.write("\n".join(lines + [",".join(fmt(x) for x in r) for r in rows]) + "\n")
    print(f"{name}: nq={m.nq} nv={m.nv} nu={m.nu}, {tries} draws, bodies with placeholder "
          f"mass {unreliable}; {patched}")
    csv = os.path.join(os.path.abspath(OUT), name + ".csv")
    return f"{name}\t{os.path.abspath(patched)}\t{csv}"


def main():
    rng = np.random.default_rng(2026)
    jobs = []
    if len(sys.argv) > 1:
        # Other files, for trying the tools: NAME=PATH; the patched copy goes to OUT (so the
        # file must not include others by relative path).
        for arg in sys.argv[1:]:
            name, path = arg.split("=", 1)
            jobs.append((name, path, os.path.join(os.path.abspath(OUT), f"{name}_spark_accel.xml")))
    else:
        for name, directory, file in ROBOTS:
            stem = os.path.splitext(file)[0]
            jobs.append((name, os.path.join(MENAGERIE, directory, file),
                         os.path.join(MENAGERIE, directory, f"{stem}_spark_accel.xml")))
    os.makedirs(OUT, exist_ok=True)
    # The list the accel crate's build.rs reads: name, patched model, reference CSV.
    lines = [robot(name, path, patched, rng) for name, path, patched in jobs]
    with open(os.path.join(OUT, "robots.tsv"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote", os.path.join(OUT, "robots.tsv"))


if __name__ == "__main__":
    main()

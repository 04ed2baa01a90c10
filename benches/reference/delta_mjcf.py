"""A Delta parallel robot as an MJCF file (tests/models/delta.xml): a fixed base, three arms on
hinges (motors), three forearms, a moving platform. Each forearm parallelogram is replaced by its
kinematic equivalent, a universal joint at the elbow (axes t, n) and one at the wrist (n, t),
where t is the arm's hinge axis and n is normal to t and the forearm: with the outer axes
parallel and the inner ones parallel the leg keeps the platform's orientation (a translational
3-RUU robot, three degrees of freedom). All joints are hinges; the platform hangs from leg 0,
and legs 1 and 2 end in a light stub welded to it: two welds close the three legs' loops.

Base radius 0.2 m, platform radius 0.05 m, arms 0.2 m (30 degrees below the horizontal at
qpos0), forearms 0.45 m. Posed so that qpos0 = 0 is assembled.

    pip install numpy mujoco
    python3 benches/reference/delta_mjcf.py
"""

import math
import os

import numpy as np

from common import MODELS

R_BASE, R_PLATFORM, ARM, FOREARM, TILT = 0.2, 0.05, 0.2, 0.45, math.radians(30.0)


def f(x):
    return repr(0.0 if abs(x) < 1e-15 else float(x))


def vec(v):
    return " ".join(f(x) for x in v)


def quat(r):
    """The unit quaternion (w first) of the rotation matrix r (Shepperd's method: from the
    largest of w, x, y, z, so that no component loses precision)."""
    t = np.trace(r)
    k = int(np.argmax([t, r[0, 0], r[1, 1], r[2, 2]]))
    if k == 0:
        w = math.sqrt(1.0 + t) / 2.0
        q = [w, (r[2, 1] - r[1, 2]) / (4 * w), (r[0, 2] - r[2, 0]) / (4 * w), (r[1, 0] - r[0, 1]) / (4 * w)]
    else:
        a, b, c = [(0, 1, 2), (1, 2, 0), (2, 0, 1)][k - 1]
        v = math.sqrt(1.0 + r[a, a] - r[b, b] - r[c, c]) / 2.0
        q = [0.0] * 4
        q[0] = (r[c, b] - r[b, c]) / (4 * v)
        q[1 + a] = v
        q[1 + b] = (r[b, a] + r[a, b]) / (4 * v)
        q[1 + c] = (r[c, a] + r[a, c]) / (4 * v)
    q = np.array(q)
    return q / np.linalg.norm(q)


def frame(x, y):
    """The rotation whose columns are x, y and x × y."""
    x = x / np.linalg.norm(x)
    y = y / np.linalg.norm(y)
    return np.column_stack([x, y, np.cross(x, y)])


def geometry():
    """Per leg: base point, arm frame, elbow, forearm frame, platform point; and the platform
    centre."""
    er = [np.array([math.cos(2 * math.pi * i / 3), math.sin(2 * math.pi * i / 3), 0.0]) for i in range(3)]
    dr = R_BASE + ARM * math.cos(TILT) - R_PLATFORM
    height = ARM * math.sin(TILT) + math.sqrt(FOREARM**2 - dr**2)
    centre = np.array([0.0, 0.0, -height])
    legs = []
    for e in er:
        t = np.array([-e[1], e[0], 0.0])
        base = R_BASE * e
        arm_dir = math.cos(TILT) * e - math.sin(TILT) * np.array([0.0, 0.0, 1.0])
        elbow = base + ARM * arm_dir
        point = centre + R_PLATFORM * e
        legs.append(dict(e=e, t=t, base=base, arm=frame(arm_dir, t), elbow=elbow,
                         fore=frame(point - elbow, t), point=point))
    return legs, centre


def inertial(mass, com, inertia):
    return f'<inertial pos="{vec(com)}" mass="{mass}" diaginertia="{vec(inertia)}"/>'


LIGHT = inertial(0.01, (0, 0, 0), (1e-6, 1e-6, 1e-6))


def model():
    legs, centre = geometry()
    out = []
    for i, leg in enumerate(legs):
        ra, rf = leg["arm"], leg["fore"]
        rel = ra.T @ rf  # forearm frame in the arm's
        if i == 0:
            # The platform: world-aligned frame at the centre, hinge about t through the point.
            end = f"""
              <body name="platform" pos="{vec(rf.T @ (centre - leg['point']))}" quat="{vec(quat(rf.T))}">
                <joint name="wrist_0_t" type="hinge" axis="{vec(leg['t'])}" pos="{vec(leg['point'] - centre)}"/>
                {inertial(0.5, (0, 0, 0), (0.0004, 0.0004, 0.0008))}
              </body>"""
        else:
            end = f"""
              <body name="stub_{i}" quat="{vec(quat(rf.T))}">
                <joint name="wrist_{i}_t" type="hinge" axis="{vec(leg['t'])}"/>
                {LIGHT}
              </body>"""
        out.append(f"""    <body name="arm_{i}" pos="{vec(leg['base'])}" quat="{vec(quat(ra))}">
      <joint name="arm_{i}" type="hinge" axis="0 1 0" damping="0.05"/>
      {inertial(0.3, (ARM / 2, 0, 0), (0.0001, 0.001, 0.001))}
      <body name="elbow_{i}" pos="{f(ARM)} 0 0" quat="{vec(quat(rel))}">
        <joint name="elbow_{i}_t" type="hinge" axis="0 1 0"/>
        {LIGHT}
        <body name="forearm_{i}">
          <joint name="elbow_{i}_n" type="hinge" axis="0 0 1"/>
          {inertial(0.1, (FOREARM / 2, 0, 0), (0.00002, 0.0017, 0.0017))}
          <body name="wrist_{i}" pos="{f(FOREARM)} 0 0">
            <joint name="wrist_{i}_n" type="hinge" axis="0 0 1"/>
            {LIGHT}{end}
          </body>
        </body>
      </body>
    </body>""")
    return f"""<!-- A Delta parallel robot: base radius {R_BASE} m, platform radius {R_PLATFORM} m, arms {ARM} m
     ({math.degrees(TILT):g} degrees below the horizontal at qpos0), forearms {FOREARM} m. Each forearm
     parallelogram is its kinematic equivalent: universal joints at the elbow (axes t, n) and at
     the wrist (n, t), t the arm's hinge axis, so that the platform only translates. The platform
     hangs from leg 0; legs 1 and 2 end in light stubs welded to it. Fifteen hinges, two welds
     (twelve rows), three degrees of freedom; motors on the arms. Generated by
     benches/reference/delta_mjcf.py, posed so that qpos0 = 0 is assembled. -->
<mujoco model="spark_delta">
  <compiler angle="radian"/>
  <option gravity="0 0 -9.81" timestep="0.001">
    <flag contact="disable" energy="enable"/>
  </option>
  <worldbody>
{chr(10).join(out)}
  </worldbody>
  <equality>
    <weld name="leg_1" body1="stub_1" body2="platform"/>
    <weld name="leg_2" body1="stub_2" body2="platform"/>
  </equality>
  <actuator>
    <motor name="arm_0_motor" joint="arm_0"/>
    <motor name="arm_1_motor" joint="arm_1"/>
    <motor name="arm_2_motor" joint="arm_2"/>
  </actuator>
</mujoco>
"""


def main():
    path = os.path.join(MODELS, "delta.xml")
    with open(path, "w") as out:
        out.write(model())
    print(f"wrote {os.path.relpath(path)}")
    import mujoco
    m = mujoco.MjModel.from_xml_path(path)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    _, centre = geometry()
    platform = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "platform")
    gap = 0.0
    for i in (1, 2):
        stub = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, f"stub_{i}")
        gap = max(gap, np.abs(d.xmat[stub] - d.xmat[platform]).max())
    j = d.efc_J.reshape(d.nefc, m.nv)
    s = np.linalg.svd(j)[1]
    print(f"  MuJoCo: nq {m.nq}, {d.nefc} equality rows, singular values of their Jacobian "
          f"{s.min():.3e} .. {s.max():.3e}, platform at {d.xpos[platform]} (want {centre}), "
          f"stub orientation gap {gap:.1e}")


if __name__ == "__main__":
    main()

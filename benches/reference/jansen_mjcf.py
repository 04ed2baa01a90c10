"""MJCF files of Theo Jansen's linkage from its published link lengths (tests/data/jansen.md):
one leg (tests/models/jansen_leg.xml) and a walker of four legs on one crank
(tests/models/jansen_walker.xml). Planar in the x-y plane (hinges about z, gravity along -y), the
holy numbers read as centimetres (so the crank is 0.15 m). Each leg is a tree of hinges rooted at
the crank axle O and the fixed pivot P, closed by three equality `connect`s; each file is posed
at crank angle 0 by jansen.py's circle intersections, so that qpos0 = 0 is assembled and every
hinge coordinate is the change of its body's angle relative to its parent from that pose.

Bars and triangles are capsules (radius 5 mm, aluminium 2700 kg/m^3): their mass properties are
computed from the geoms, by MuJoCo and by spark's reader alike. The crank carries a motor
(`drive`, gear 1) and joint damping 0.05 N m s; the walker's legs sit in layers along z (which
changes nothing in the planar motion).

    pip install numpy mujoco
    python3 benches/reference/jansen_mjcf.py
"""

import math
import os

import numpy as np

from common import MODELS
from jansen import HOLY, leg

SCALE = 0.01  # the holy numbers in centimetres
RADIUS = 0.005
DENSITY = 2700.0
CRANK_DAMPING = 0.05


def angle(p, q):
    return math.atan2(q[1] - p[1], q[0] - p[0])


def local(origin, phi, p):
    """p in the frame at `origin` turned by phi about z."""
    d = np.asarray(p) - np.asarray(origin)
    c, s = math.cos(phi), math.sin(phi)
    return np.array([c * d[0] + s * d[1], -s * d[0] + c * d[1]])


def f(x):
    """A float that reads back bit for bit (round-off below 1e-15 m written as 0)."""
    return repr(0.0 if abs(x) < 1e-15 else float(x))


def geom(a, b, z=0.0):
    return (f'<geom type="capsule" size="{RADIUS}" fromto="{f(a[0])} {f(a[1])} {z} '
            f'{f(b[0])} {f(b[1])} {z}"/>')


def leg_bodies(tag, p, z, indent, on_crank):
    """The leg's bodies for joint positions p (metres) at the reference pose. With `on_crank`,
    bars j and k hang from the crank pin, triangle bde (with bar f) and bar c (with triangle
    ghi) from the fixed pivot P, and the loops close where j meets bde, k meets c and f meets
    ghi. Without, the crank carries nothing: bar j hangs from triangle bde at the upper joint,
    bar k from bar c at the lower joint, and the loops close where j and k meet the crank pin
    (and f meets ghi). Returns (crank children, world children, connects)."""
    pad = " " * indent
    pin = p["crank"]  # the crank's frame is the world's at qpos0
    phi_j = angle(pin, p["upper"])
    phi_k = angle(pin, p["lower"])
    phi_b = angle(p["P"], p["upper"])
    phi_f = angle(p["back"], p["knee"])
    phi_c = angle(p["P"], p["lower"])
    phi_g = angle(p["lower"], p["knee"])
    L = {k: v * SCALE for k, v in HOLY.items()}
    back = local(p["P"], phi_b, p["back"])
    upper = local(p["P"], phi_b, p["upper"])
    knee = local(p["lower"], phi_g, p["knee"])
    foot = local(p["lower"], phi_g, p["foot"])
    if on_crank:
        pin_local = pin - p["O"]
        crank_children = f"""{pad}<body name="bar_j{tag}" pos="{f(pin_local[0])} {f(pin_local[1])} {z}" euler="0 0 {f(phi_j)}">
{pad}  <joint name="bar_j{tag}" type="hinge" axis="0 0 1"/>
{pad}  {geom((0, 0), (L['j'], 0))}
{pad}</body>
{pad}<body name="bar_k{tag}" pos="{f(pin_local[0])} {f(pin_local[1])} {z}" euler="0 0 {f(phi_k)}">
{pad}  <joint name="bar_k{tag}" type="hinge" axis="0 0 1"/>
{pad}  {geom((0, 0), (L['k'], 0))}
{pad}</body>
"""
        j_in_bde = k_in_c = ""
        connects = f"""    <connect name="upper{tag}" body1="bar_j{tag}" body2="triangle_bde{tag}" anchor="{f(L['j'])} 0 0"/>
    <connect name="lower{tag}" body1="bar_k{tag}" body2="bar_c{tag}" anchor="{f(L['k'])} 0 0"/>
    <connect name="knee{tag}" body1="bar_f{tag}" body2="triangle_ghi{tag}" anchor="{f(L['f'])} 0 0"/>
"""
    else:
        crank_children = ""
        # Bars j and k run from the moving joints to the crank pin.
        j_in_bde = f"""
{pad}  <body name="bar_j{tag}" pos="{f(upper[0])} {f(upper[1])} 0" euler="0 0 {f(phi_j + math.pi - phi_b)}">
{pad}    <joint name="bar_j{tag}" type="hinge" axis="0 0 1"/>
{pad}    {geom((0, 0), (L['j'], 0))}
{pad}  </body>"""
        k_in_c = f"""
{pad}  <body name="bar_k{tag}" pos="{f(L['c'])} 0 0" euler="0 0 {f(phi_k + math.pi - phi_c)}">
{pad}    <joint name="bar_k{tag}" type="hinge" axis="0 0 1"/>
{pad}    {geom((0, 0), (L['k'], 0))}
{pad}  </body>"""
        connects = f"""    <connect name="upper{tag}" body1="bar_j{tag}" body2="crank" anchor="{f(L['j'])} 0 0"/>
    <connect name="lower{tag}" body1="bar_k{tag}" body2="crank" anchor="{f(L['k'])} 0 0"/>
    <connect name="knee{tag}" body1="bar_f{tag}" body2="triangle_ghi{tag}" anchor="{f(L['f'])} 0 0"/>
"""
    world_children = f"""{pad}<body name="triangle_bde{tag}" pos="{f(p['P'][0])} {f(p['P'][1])} {z}" euler="0 0 {f(phi_b)}">
{pad}  <joint name="triangle_bde{tag}" type="hinge" axis="0 0 1"/>
{pad}  {geom((0, 0), upper)}
{pad}  {geom(upper, back)}
{pad}  {geom((0, 0), back)}
{pad}  <body name="bar_f{tag}" pos="{f(back[0])} {f(back[1])} 0" euler="0 0 {f(phi_f - phi_b)}">
{pad}    <joint name="bar_f{tag}" type="hinge" axis="0 0 1"/>
{pad}    {geom((0, 0), (L['f'], 0))}
{pad}  </body>{j_in_bde}
{pad}</body>
{pad}<body name="bar_c{tag}" pos="{f(p['P'][0])} {f(p['P'][1])} {z}" euler="0 0 {f(phi_c)}">
{pad}  <joint name="bar_c{tag}" type="hinge" axis="0 0 1"/>
{pad}  {geom((0, 0), (L['c'], 0))}
{pad}  <body name="triangle_ghi{tag}" pos="{f(L['c'])} 0 0" euler="0 0 {f(phi_g - phi_c)}">
{pad}    <joint name="triangle_ghi{tag}" type="hinge" axis="0 0 1"/>
{pad}    {geom((0, 0), knee)}
{pad}    {geom(knee, foot)}
{pad}    {geom((0, 0), foot)}
{pad}    <site name="foot{tag}" pos="{f(foot[0])} {f(foot[1])} 0"/>
{pad}  </body>{k_in_c}
{pad}</body>
"""
    return crank_children, world_children, connects


def scaled(p, mirror):
    """Joint positions in metres; mirrored legs reflect x."""
    s = -1.0 if mirror else 1.0
    return {k: np.array([s * v[0], v[1]]) * SCALE for k, v in p.items()}


def model(name, comment, legs, on_crank=True):
    """legs: (tag, phase of its crank pin, mirrored, z). The crank is at angle 0 at qpos0; a
    mirrored leg's pose at crank pin angle phase is the reflection of leg(pi - phase)."""
    m = HOLY["m"] * SCALE
    pins = sorted({phase for _, phase, _, _ in legs})
    crank_geoms = "\n".join(
        "      " + geom((0, 0), (m * math.cos(ph), m * math.sin(ph))) for ph in pins)
    crank_children, world_children, connects = "", "", ""
    for tag, phase, mirror, z in legs:
        p = scaled(leg(math.pi - phase if mirror else phase), mirror)
        c, w, k = leg_bodies(tag, p, z, 4, on_crank)
        # The crank children are placed in the crank's frame (angle 0 at qpos0).
        crank_children += "\n".join("  " + line for line in c.splitlines()) + "\n"
        world_children += w
        connects += k
    return f"""<!-- {comment}
     Generated by benches/reference/jansen_mjcf.py from the holy numbers (tests/data/jansen.md)
     read as centimetres; posed at crank angle 0 so that qpos0 = 0 is assembled. Angles in
     radians. -->
<mujoco model="{name}">
  <compiler angle="radian"/>
  <option gravity="0 -9.81 0" timestep="0.001">
    <flag contact="disable" energy="enable"/>
  </option>
  <default>
    <geom density="{DENSITY}"/>
  </default>
  <worldbody>
    <body name="crank">
      <joint name="crank" type="hinge" axis="0 0 1" damping="{CRANK_DAMPING}"/>
{crank_geoms}
{crank_children.rstrip()}
    </body>
{world_children.rstrip()}
  </worldbody>
  <equality>
{connects.rstrip()}
  </equality>
  <actuator>
    <motor name="drive" joint="crank" gear="1"/>
  </actuator>
</mujoco>
"""


def main():
    files = {
        "jansen_leg.xml": model(
            "jansen_leg",
            "One leg of Theo Jansen's linkage: a crank about O (the origin), the fixed pivot P at\n"
            "     (-0.38, -0.078) m, seven moving bodies on seven hinges about z, three loop closures.",
            [("", 0.0, False, 0.0)]),
        "jansen_walker.xml": model(
            "jansen_walker",
            "A walker of four Jansen legs on one crank (on a stand: the frame is fixed): two crank\n"
            "     pins half a turn apart, each driving a leg on the left (P at x = -0.38 m) and its\n"
            "     mirror image on the right (P at x = +0.38 m); the legs in layers along z.",
            [("_0", 0.0, False, 0.02), ("_1", 0.0, True, 0.04),
             ("_2", math.pi, False, 0.06), ("_3", math.pi, True, 0.08)]),
    }
    for name, text in files.items():
        path = os.path.join(MODELS, name)
        with open(path, "w") as out:
            out.write(text)
        print(f"wrote {os.path.relpath(path)}")
        try:
            import mujoco
        except ImportError:
            continue
        mj = mujoco.MjModel.from_xml_path(path)
        d = mujoco.MjData(mj)
        mujoco.mj_forward(mj, d)
        gap = 0.0
        for e in range(mj.neq):
            b1, b2 = mj.eq_obj1id[e], mj.eq_obj2id[e]
            a1 = d.xpos[b1] + d.xmat[b1].reshape(3, 3) @ mj.eq_data[e, 0:3]
            a2 = d.xpos[b2] + d.xmat[b2].reshape(3, 3) @ mj.eq_data[e, 3:6]
            gap = max(gap, np.linalg.norm(a1 - a2))
        print(f"  MuJoCo: nq {mj.nq}, neq {mj.neq}, mass {mj.body_mass.sum():.4f} kg, "
              f"loop gap at qpos0 {gap:.1e} m")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""MuJoCo's mass properties of small mesh files, for the unit tests of spark-macros' mesh.rs.

Writes the mesh files of this folder (a cube, a non-convex L-shaped prism, a tetrahedron, an
irregular convex solid; binary and ASCII STL, OBJ with quads and with two groups, .msh) and
`reference.csv`: one row per case (one body without <inertial>, one geom), the inputs and what
MuJoCo compiles (body_mass, body_ipos, body_iquat, body_inertia, geom_size, geom_pos, geom_quat)
or the error. Run it from anywhere: `python3 spark-macros/tests/meshes/reference.py`.
MuJoCo cannot read ASCII STL: the ASCII file's cases use its binary twin here.
"""

import csv
import math
import os
import struct

import mujoco

HERE = os.path.dirname(os.path.abspath(__file__))


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


# ---------------------------------------------------------------------------------------------
# Mesh files

def box_mesh(lo, hi):
    x0, y0, z0 = lo
    x1, y1, z1 = hi
    v = [(x0, y0, z0), (x1, y0, z0), (x1, y1, z0), (x0, y1, z0),
         (x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1)]
    quads = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]
    return v, quads


def lshape():
    # L-shaped prism: the polygon (0,0) (3,0) (3,1) (1,1) (1,2) (0,2), extruded along z by 0.7,
    # scaled to decimetres and offset.
    poly = [(0, 0), (3, 0), (3, 1), (1, 1), (1, 2), (0, 2)]
    s, off, h = 0.1, (0.05, -0.02, 0.03), 0.07
    v = [(s * x + off[0], s * y + off[1], off[2]) for x, y in poly]
    v += [(s * x + off[0], s * y + off[1], off[2] + h) for x, y in poly]
    n = len(poly)
    polys = []
    # bottom (seen from below: clockwise in xy), as quads of the convex pieces
    polys.append((0, 3, 2, 1))
    polys.append((0, 5, 4, 3))
    polys.append((n + 0, n + 1, n + 2, n + 3))
    polys.append((n + 0, n + 3, n + 4, n + 5))
    for i in range(n):
        j = (i + 1) % n
        polys.append((i, j, n + j, n + i))
    return v, polys


def tetra():
    return [(0.0, 0.0, 0.0), (0.2, 0.01, -0.02), (0.03, 0.15, 0.01), (0.02, 0.04, 0.12)], [
        (0, 2, 1), (0, 1, 3), (1, 2, 3), (0, 3, 2)]


def blob():
    # An irregular convex solid: points on a squashed sphere, with their hull as faces,
    # plus interior and duplicate points (unreferenced) that the convex hull must ignore.
    import random
    rnd = random.Random(7)
    pts = []
    for _ in range(40):
        while True:
            x, y, z = (rnd.uniform(-1, 1) for _ in range(3))
            r = math.sqrt(x * x + y * y + z * z)
            if 0.2 < r <= 1:
                break
        pts.append((0.05 * x / r + 0.01, 0.03 * y / r, 0.02 * z / r - 0.005))
    return pts


def tris(polys):
    out = []
    for p in polys:
        for k in range(1, len(p) - 1):
            out.append((p[0], p[k], p[k + 1]))
    return out


def write_stl_binary(path, v, faces):
    with open(path, "wb") as f:
        f.write(b"solid binary file written by reference.py".ljust(80, b" "))
        f.write(struct.pack("<I", len(faces)))
        for t in faces:
            f.write(struct.pack("<3f", 0, 0, 0))
            for k in t:
                f.write(struct.pack("<3f", *v[k]))
            f.write(b"\0\0")


def write_stl_ascii(path, v, faces):
    with open(path, "w") as f:
        f.write("solid ascii\n")
        for t in faces:
            f.write("  facet normal 0 0 0\n    outer loop\n")
            for k in t:
                f.write("      vertex %r %r %r\n" % tuple(f32(x) for x in v[k]))
            f.write("    endloop\n  endfacet\n")
        f.write("endsolid ascii\n")


def write_obj(path, v, polys, extra_group=None, relative=False):
    with open(path, "w") as f:
        f.write("# written by reference.py\nmtllib none.mtl\no part\n")
        for p in v:
            f.write("v %r %r %r\n" % tuple(f32(x) for x in p))
        f.write("vn 0 0 1\nvt 0 0\nusemtl none\n")
        n = len(v)
        for p in polys:
            if relative:
                f.write("f " + " ".join("%d/1/1" % (k - n) for k in p) + "\n")
            else:
                f.write("f " + " ".join("%d/1/1" % (k + 1) for k in p) + "\n")
        if extra_group:
            gv, gp = extra_group
            f.write("g second\n")
            for p in gv:
                f.write("v %r %r %r\n" % tuple(f32(x) for x in p))
            for p in gp:
                f.write("f " + " ".join(str(k + 1 + n) for k in p) + "\n")


def write_msh(path, v, faces):
    with open(path, "wb") as f:
        f.write(struct.pack("<4i", len(v), 0, 0, len(faces)))
        for p in v:
            f.write(struct.pack("<3f", *p))
        for t in faces:
            f.write(struct.pack("<3i", *t))


def write_meshes():
    cv, cq = box_mesh((0.01, -0.02, 0.03), (0.11, 0.18, 0.33))
    write_stl_binary(os.path.join(HERE, "cube.stl"), cv, tris(cq))
    lv, lp = lshape()
    write_obj(os.path.join(HERE, "lshape.obj"), lv, lp)
    write_stl_binary(os.path.join(HERE, "lshape.stl"), lv, tris(lp))
    write_stl_ascii(os.path.join(HERE, "lshape_ascii.stl"), lv, tris(lp))
    tv, tf = tetra()
    write_msh(os.path.join(HERE, "tetra.msh"), tv, tf)
    # Two groups: MuJoCo reads the first only; relative indices.
    gv, gq = box_mesh((1, 1, 1), (2, 2, 2))
    write_obj(os.path.join(HERE, "groups.obj"), lv, lp, extra_group=(gv, gq), relative=True)
    # An .msh without faces: the convex hull of its points (with an interior point).
    bp = blob()
    write_msh(os.path.join(HERE, "blob.msh"), bp + [(0.01, 0.0, -0.005), bp[3]], [])


# ---------------------------------------------------------------------------------------------
# Cases

FIELDS = [
    "case", "file", "mujoco_file", "inertia", "scale", "refpos", "refquat", "maxhullvert",
    "geom_type", "pos", "quat", "mass", "density", "fitaabb", "fitscale", "size", "shellinertia",
    "error", "body_mass", "body_ipos", "body_iquat", "body_inertia", "geom_size", "geom_pos",
    "geom_quat",
]


def vec(x):
    return " ".join(repr(float(v)) for v in x)


def run(case):
    c = dict(case)
    mesh = ""
    geom_mesh = ""
    if c["file"]:
        attrs = 'file="%s" inertia="%s" scale="%s" refpos="%s" refquat="%s"' % (
            os.path.join(HERE, c["mujoco_file"]), c["inertia"], c["scale"], c["refpos"],
            c["refquat"])
        if c["maxhullvert"] != "-1":
            attrs += ' maxhullvert="%s"' % c["maxhullvert"]
        mesh = '<asset><mesh name="m" %s/></asset>' % attrs
        geom_mesh = ' mesh="m"'
    # No collisions: MuJoCo would need the convex hull of every collision mesh.
    g = 'type="%s" pos="%s" quat="%s" contype="0" conaffinity="0"%s' % (
        c["geom_type"], c["pos"], c["quat"], geom_mesh)
    if c["mass"]:
        g += ' mass="%s"' % c["mass"]
    if c["density"]:
        g += ' density="%s"' % c["density"]
    if c["fitscale"] != "1":
        g += ' fitscale="%s"' % c["fitscale"]
    if c["size"]:
        g += ' size="%s"' % c["size"]
    if c["shellinertia"] == "true":
        g += ' shellinertia="true"'
    xml = """<mujoco><compiler fitaabb="%s"/>%s<worldbody>
      <body name="b" pos="0.3 0.1 0.2"><geom %s/></body></worldbody></mujoco>""" % (
        c["fitaabb"], mesh, g)
    try:
        m = mujoco.MjModel.from_xml_string(xml)
    except Exception as e:  # noqa: BLE001
        c["error"] = str(e).replace("\n", " ").replace(",", ";").replace('"', "'")[:200]
        return c
    c["error"] = ""
    c["body_mass"] = repr(float(m.body_mass[1]))
    c["body_ipos"] = vec(m.body_ipos[1])
    c["body_iquat"] = vec(m.body_iquat[1])
    c["body_inertia"] = vec(m.body_inertia[1])
    c["geom_size"] = vec(m.geom_size[0])
    c["geom_pos"] = vec(m.geom_pos[0])
    c["geom_quat"] = vec(m.geom_quat[0])
    return c


def base(**kw):
    c = {k: "" for k in FIELDS}
    c.update(inertia="legacy", scale="1 1 1", refpos="0 0 0", refquat="1 0 0 0",
             maxhullvert="-1", geom_type="mesh", pos="0 0 0", quat="1 0 0 0", fitaabb="false",
             fitscale="1", shellinertia="false")
    c.update(kw)
    if c["file"] and not c["mujoco_file"]:
        c["mujoco_file"] = c["file"]
    return c


def cases():
    out = []
    files = ["cube.stl", "lshape.obj", "lshape.stl", "lshape_ascii.stl", "tetra.msh",
             "groups.obj", "blob.msh"]
    poses = [("0 0 0", "1 0 0 0"), ("0.01 -0.2 0.05", "0.8 0.2 -0.3 0.4")]
    scales = ["1 1 1", "2 0.5 1.5", "-1 1 1"]
    for f in files:
        twin = "lshape.stl" if f == "lshape_ascii.stl" else f
        for mode in ["convex", "exact", "legacy", "shell"]:
            for scale in scales:
                for pos, quat in poses:
                    out.append(base(file=f, mujoco_file=twin, inertia=mode, scale=scale,
                                    pos=pos, quat=quat))
        for mode in ["exact", "legacy", "convex"]:
            out.append(base(file=f, mujoco_file=twin, inertia=mode, refpos="0.02 0.01 -0.03",
                            refquat="0.9 -0.1 0.3 0.2", scale="1.2 1 0.8", mass="2.5",
                            pos="0.1 0 0", quat="0 1 0 0"))
        out.append(base(file=f, mujoco_file=twin, inertia="exact", density="7800"))
    # maxhullvert: our first simplex is not Qhull's, recorded for comparison.
    for mhv in ["4", "6", "10"]:
        out.append(base(file="blob.msh", inertia="convex", maxhullvert=mhv))
    # Fitted primitives.
    for f in ["lshape.obj", "tetra.msh", "blob.msh"]:
        for mode in ["legacy", "shell"]:
            for t in ["sphere", "capsule", "cylinder", "ellipsoid", "box"]:
                for fitaabb in ["false", "true"]:
                    out.append(base(file=f, inertia=mode, geom_type=t, fitaabb=fitaabb,
                                    fitscale="1.1", pos="0.02 0 0.01",
                                    quat="0.6 0.3 -0.2 0.7",
                                    shellinertia="true" if t == "box" else "false"))
    # Shell primitives.
    for t, size in [("sphere", "0.07"), ("capsule", "0.05 0.12"), ("cylinder", "0.05 0.12"),
                    ("ellipsoid", "0.05 0.08 0.11"), ("box", "0.05 0.08 0.11")]:
        for shell in ["true", "false"]:
            out.append(base(geom_type=t, size=size, shellinertia=shell, pos="0.01 0.02 0.03",
                            quat="0.9 0.1 0.2 0.3"))
    for i, c in enumerate(out):
        c["case"] = str(i)
    return out


def main():
    write_meshes()
    os.chdir(os.environ.get("TMPDIR", "/tmp"))  # MuJoCo writes MUJOCO_LOG.TXT on warnings
    rows = [run(c) for c in cases()]
    with open(os.path.join(HERE, "reference.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        for r in rows:
            w.writerow(r)
    errs = sum(1 for r in rows if r["error"])
    print("%d cases, %d MuJoCo errors, MuJoCo %s" % (len(rows), errs, mujoco.__version__))


if __name__ == "__main__":
    main()

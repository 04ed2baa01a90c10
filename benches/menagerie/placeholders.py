"""Writes a placeholder mesh for every file of the Menagerie snapshot that is absent from it.

The snapshot lacks files of 4 MiB or more (meshes). Without them MuJoCo cannot compile the
robots that use them, so each absent .obj or .stl becomes a tetrahedron (edges 10 cm, so that
a mesh scaled down a thousandfold keeps a volume MuJoCo accepts) and its path is listed in
$MENAGERIE/MISSING.txt. A placeholder changes nothing of the dynamics where the mesh's geom is
visual or its body has an explicit <inertial>; where the body's mass comes from that mesh
(benches/menagerie/mujoco_dump.py lists such bodies as `unreliable_bodies`), MuJoCo and spark
both see the tetrahedron, not the robot as shipped.

Called by setup.sh:  python3 placeholders.py SNAPSHOT_GIT_DIR MENAGERIE
"""
import os
import struct
import subprocess
import sys

VERTICES = [(0.0, 0.0, 0.0), (0.1, 0.0, 0.0), (0.0, 0.1, 0.0), (0.0, 0.0, 0.1)]
# Outward-facing triangles.
FACES = [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)]


def obj():
    lines = [f"v {x} {y} {z}" for x, y, z in VERTICES]
    lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in FACES]
    return ("\n".join(lines) + "\n").encode()


def stl():
    out = bytearray(b"spark placeholder".ljust(80, b" "))
    out += struct.pack("<I", len(FACES))
    for face in FACES:
        out += struct.pack("<3f", 0.0, 0.0, 0.0)
        for k in face:
            out += struct.pack("<3f", *VERTICES[k])
        out += struct.pack("<H", 0)
    return bytes(out)


def main(snapshot, root):
    tree = subprocess.run(["git", f"--git-dir={snapshot}", "ls-tree", "-r", "HEAD"],
                          check=True, capture_output=True, text=True).stdout
    missing = []
    for line in tree.splitlines():
        meta, path = line.split("\t", 1)
        if meta.split()[1] != "blob":
            continue
        full = os.path.join(root, path)
        if os.path.exists(full):
            continue
        ext = os.path.splitext(path)[1].lower()
        if ext not in (".obj", ".stl"):
            print(f"absent, no placeholder: {path}", file=sys.stderr)
            continue
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(obj() if ext == ".obj" else stl())
        missing.append(path)
    with open(os.path.join(root, "MISSING.txt"), "w") as f:
        f.write("".join(p + "\n" for p in missing))
    print(f"{len(missing)} placeholder meshes (listed in {root}/MISSING.txt)")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

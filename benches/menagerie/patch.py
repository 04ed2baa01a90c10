"""What the Menagerie measurements share: the flag-patched copy of a robot file, and which
bodies have mass properties from a placeholder mesh.

`flag_patched(path, out)` copies the robot file as it is, with one element added just before
its closing </mujoco>:
    <option><flag contact="disable" limit="disable" frictionloss="disable"/></option>
MuJoCo merges repeated <option> elements, the last one winning per attribute, so the copy is
the shipped robot with contacts, joint limits and frictionloss off; every other line keeps its
number. Written into the robot's own directory, its includes and meshdir still resolve.

`placeholder_bodies(path, root)`: the bodies whose mass properties come from a mesh that
setup.sh replaced by a placeholder (absent from the snapshot, listed in root/MISSING.txt):
no explicit <inertial>, or `inertiafromgeom="true"`. MuJoCo's numbers for those bodies are the
placeholder's, not the robot's.
"""
import os

import mujoco

FLAGS = '<option><flag contact="disable" limit="disable" frictionloss="disable"/></option>'


def flag_patched(path, out):
    with open(path) as f:
        text = f.read()
    at = text.rfind("</mujoco>")
    if at < 0:
        raise ValueError(f"{path}: no </mujoco>")
    with open(out, "w") as f:
        f.write(text[:at] + FLAGS + "\n" + text[at:])
    return out


def placeholder_bodies(path, root):
    listed = os.path.join(root, "MISSING.txt")
    if not os.path.exists(listed):
        return []
    with open(listed) as f:
        missing = {os.path.normpath(os.path.join(root, p.strip())) for p in f if p.strip()}
    spec = mujoco.MjSpec.from_file(path)
    base = os.path.dirname(os.path.abspath(path))
    placeholder = {m.name for m in spec.meshes
                   if os.path.normpath(os.path.join(base, spec.meshdir or "", m.file)) in missing}
    from_geoms = spec.compiler.inertiafromgeom == mujoco.mjtInertiaFromGeom.mjINERTIAFROMGEOM_TRUE
    bodies = set()
    for geom in spec.geoms:
        if geom.type == mujoco.mjtGeom.mjGEOM_MESH and geom.meshname in placeholder:
            if from_geoms or not geom.parent.explicitinertial:
                bodies.add(geom.parent.name)
    return sorted(bodies)

"""MuJoCo's compiled sizes and mass properties of the Menagerie robots, for the survey.

For each robot file of robots.tsv (directory, kind, file): nq, nv, nu, nbody, the total mass
and per body its name, mass, centre of mass `ipos` (body frame), principal inertia
`inertia` and principal axes `iquat` (w first), as MuJoCo 4.0.0 compiles them. A file MuJoCo
cannot load gets `"ok": false` and the error. `unreliable_bodies` lists the bodies whose mass
properties come from a placeholder mesh (setup.sh writes one for each mesh absent from the
snapshot; patch.py): MuJoCo's numbers for those are not the shipped robot's, and the survey
leaves them out of its comparison.

Writes one JSON file (a measurement input, not committed): $OUT, default
/tmp/menagerie_mujoco.json. The ignored survey test of spark-macros
(`spark-macros/src/mechanism/menagerie_survey.rs`) reads it to compare the reader's masses and
inertias with MuJoCo's.

Run after benches/menagerie/setup.sh:
    python3 benches/menagerie/mujoco_dump.py
    MENAGERIE=/tmp/menagerie ROBOTS=/work/shared/menagerie/robots.tsv OUT=/tmp/x.json \
        python3 benches/menagerie/mujoco_dump.py
"""
import json
import sys
import os

import mujoco

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import patch  # noqa: E402

MENAGERIE = os.environ.get("MENAGERIE", "/tmp/menagerie")
ROBOTS = os.environ.get("ROBOTS", "/work/shared/menagerie/robots.tsv")
OUT = os.environ.get("OUT", "/tmp/menagerie_mujoco.json")


def dump(path):
    m = mujoco.MjModel.from_xml_path(path)
    info = {"unreliable_bodies": patch.placeholder_bodies(path, MENAGERIE)}
    bodies = []
    for b in range(m.nbody):
        bodies.append({
            "name": m.body(b).name,
            "mass": float(m.body_mass[b]),
            "ipos": [float(x) for x in m.body_ipos[b]],
            "inertia": [float(x) for x in m.body_inertia[b]],
            "iquat": [float(x) for x in m.body_iquat[b]],
        })
    return {
        "ok": True,
        "nq": int(m.nq),
        "nv": int(m.nv),
        "nu": int(m.nu),
        "nbody": int(m.nbody),
        "total_mass": float(sum(m.body_mass)),
        "bodies": bodies,
        **info,
    }


def main():
    robots = []
    with open(ROBOTS) as f:
        for line in f:
            if not line.strip():
                continue
            directory, kind, file = line.rstrip("\n").split("\t")
            entry = {"dir": directory, "kind": kind, "file": file}
            path = os.path.join(MENAGERIE, directory, file)
            try:
                entry.update(dump(path))
            except Exception as e:  # absent files, missing meshes, compile errors
                entry.update({"ok": False, "error": str(e).splitlines()[0] if str(e) else repr(e)})
            robots.append(entry)
            status = (f"nq={entry['nq']} nv={entry['nv']} nu={entry['nu']} "
                      f"mass={entry['total_mass']:.3f}, bodies with placeholder mass "
                      f"{len(entry['unreliable_bodies'])}") if entry["ok"] else entry["error"]
            print(f"{directory}/{file}: {status}")
    with open(OUT, "w") as f:
        json.dump({"mujoco": mujoco.__version__, "menagerie": MENAGERIE, "robots": robots}, f,
                  indent=1)
    print(f"{sum(r['ok'] for r in robots)} of {len(robots)} loaded; wrote {OUT}")


if __name__ == "__main__":
    main()

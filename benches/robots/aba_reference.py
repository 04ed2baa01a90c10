"""Reference accelerations of example-robot-data's URDFs as shipped, from Pinocchio's ABA with
the root link on a free flyer (pip packages `pin` 4.1.0 and `example-robot-data` 6.0.0).

For each robot it writes OUT/NAME.csv (OUT default /tmp/robots_aba) in the format of
tests/data/README.md (as tests/models/floating_reference.py): per row Pinocchio's q, v, the
joint torques tau (zero on the free flyer) and a = ABA(q, v, tau - damping v - friction(v)),
where the joint damping and dry friction of the file are applied as spark applies them (ABA
ignores both): viscous `damping v`, friction `f v / sqrt(v^2 + eps^2)` with spark's default
`friction_velocity` eps = 1e-3 (docs/friction.md). Then OUT/robots.tsv: name, URDF, CSV, for
the crate benches/robots/aba. Run: python3 benches/robots/aba_reference.py [NAME ...]
"""
import os
import sys

import numpy as np
import pinocchio as pin

OUT = os.environ.get("OUT", "/tmp/robots_aba")
EPS = 1e-3
ROBOTS = {
    "solo12": "solo_description/robots/solo12.urdf",
    "talos": "talos_data/robots/talos_full_v2.urdf",
}


def robots_dir():
    d = os.path.dirname(os.path.abspath(pin.__file__))
    while d != os.path.dirname(d):
        for prefix in [d, os.path.join(d, "cmeel.prefix")]:
            r = os.path.join(prefix, "share", "example-robot-data", "robots")
            if os.path.isdir(r):
                return r
        d = os.path.dirname(d)
    raise SystemExit("example-robot-data not found: pip install example-robot-data")


def reference(name, urdf, rng):
    model = pin.buildModelFromUrdf(urdf, pin.JointModelFreeFlyer())
    data = model.createData()
    rows = []
    for _ in range(20):
        q = pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq))
        q[:3] = rng.uniform(-1.0, 1.0, 3)
        quat = rng.normal(size=4)
        q[3:7] = quat / np.linalg.norm(quat)
        v = rng.uniform(-2.0, 2.0, model.nv)
        tau = rng.uniform(-3.0, 3.0, model.nv)
        tau[:6] = 0.0
        passive = model.damping * v + model.friction * v / np.sqrt(v * v + EPS * EPS)
        a = pin.aba(model, data, q, v, tau - passive)
        rows.append(list(q) + list(v) + list(tau) + list(a))
    columns = ([f"q{i}" for i in range(model.nq)] + [f"v{i}" for i in range(model.nv)]
               + [f"tau{i}" for i in range(model.nv)] + [f"a{i}" for i in range(model.nv)])
    csv = os.path.join(OUT, name + ".csv")
    with open(csv, "w") as f:
        f.write(f"# source: {urdf}, Pinocchio {pin.__version__} aba, root on JointModelFreeFlyer,"
                f" damping and friction (eps {EPS}) applied as spark applies them\n")
        f.write("# joint_names: " + " ".join(model.names[1:]) + "\n")
        f.write(f"# nq: {model.nq}\n# nv: {model.nv}\n")
        f.write(",".join(columns) + "\n")
        for r in rows:
            f.write(",".join(repr(float(x)) for x in r) + "\n")
    print(f"{name}: nq={model.nq} nv={model.nv}, damped joints {int((model.damping > 0).sum())},"
          f" joints with friction {int((model.friction > 0).sum())}; {urdf}")
    return f"{name}\t{urdf}\t{csv}"


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    only = sys.argv[1:] or list(ROBOTS)
    rng = np.random.default_rng(43)
    lines = [reference(n, os.path.join(robots_dir(), ROBOTS[n]), rng) for n in only]
    with open(os.path.join(OUT, "robots.tsv"), "w") as f:
        f.write("\n".join(lines) + "\n")

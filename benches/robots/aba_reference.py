"""Reference accelerations of example-robot-data's URDFs as shipped, from Pinocchio's ABA with
the root link on a free flyer (pip packages `pin` 4.1.0 and `example-robot-data` 6.0.0).

For each robot it writes OUT/NAME.csv (OUT default /tmp/robots_aba) in the format of
tests/data/README.md (as tests/models/floating_reference.py): per row Pinocchio's q, v, the
joint torques tau (zero on the free flyer) and a = ABA(q, v, tau - damping v - friction(v))
(with mimic joints, Talos's grippers: the states satisfy them and a is the constrained
dynamics from Pinocchio's mass matrix and bias forces, see `reference`),
where the joint damping and dry friction of the file are applied as spark applies them (ABA
ignores both): viscous `damping v`, friction `f v / sqrt(v^2 + eps^2)` with spark's default
`friction_velocity` eps = 1e-3 (docs/friction.md). Then OUT/robots.tsv: name, URDF, CSV, for
the crate benches/robots/aba. Run: python3 benches/robots/aba_reference.py [NAME ...]
"""
import os
import sys
import xml.etree.ElementTree as ET

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


def mimics(urdf, model):
    """The file's mimic joints as (q index, v index, leader q, leader v, multiplier, offset):
    Pinocchio's model built without them has them as independent joints."""
    out = []
    for j in ET.parse(urdf).getroot().iter("joint"):
        m = j.find("mimic")
        if m is None:
            continue
        a, b = model.joints[model.getJointId(j.get("name"))], model.joints[model.getJointId(m.get("joint"))]
        out.append((a.idx_q, a.idx_v, b.idx_q, b.idx_v, float(m.get("multiplier", 1.0)),
                    float(m.get("offset", 0.0))))
    return out


def reference(name, urdf, rng):
    """ABA, or with mimic joints the constrained dynamics M a + b = tau + Jᵀλ, J a = 0 (the mimic
    rows q_m = k q_l + o are linear: J is constant and J̇ = 0), from Pinocchio's M (crba) and
    bias b (rnea at zero acceleration)."""
    model = pin.buildModelFromUrdf(urdf, pin.JointModelFreeFlyer())
    data = model.createData()
    rows = []
    mimic = mimics(urdf, model)
    jac = np.zeros((len(mimic), model.nv))
    for r, (_, iv, _, lv, k, _) in enumerate(mimic):
        jac[r, iv], jac[r, lv] = 1.0, -k
    for _ in range(20):
        q = pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq))
        q[:3] = rng.uniform(-1.0, 1.0, 3)
        quat = rng.normal(size=4)
        q[3:7] = quat / np.linalg.norm(quat)
        v = rng.uniform(-2.0, 2.0, model.nv)
        tau = rng.uniform(-3.0, 3.0, model.nv)
        tau[:6] = 0.0
        for iq, iv, lq, lv, k, o in mimic:
            q[iq], v[iv] = k * q[lq] + o, k * v[lv]
        passive = model.damping * v + model.friction * v / np.sqrt(v * v + EPS * EPS)
        if mimic:
            mass = pin.crba(model, data, q)
            mass = np.triu(mass) + np.triu(mass, 1).T
            bias = pin.rnea(model, data, q, v, np.zeros(model.nv))
            kkt = np.block([[mass, jac.T], [jac, np.zeros((len(mimic), len(mimic)))]])
            rhs = np.concatenate([tau - passive - bias, np.zeros(len(mimic))])
            a = np.linalg.solve(kkt, rhs)[:model.nv]
        else:
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
          f" joints with friction {int((model.friction > 0).sum())}, mimic joints {len(mimic)};"
          f" {urdf}")
    return f"{name}\t{urdf}\t{csv}"


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    only = sys.argv[1:] or list(ROBOTS)
    rng = np.random.default_rng(43)
    lines = [reference(n, os.path.join(robots_dir(), ROBOTS[n]), rng) for n in only]
    with open(os.path.join(OUT, "robots.tsv"), "w") as f:
        f.write("\n".join(lines) + "\n")

//! Mechanisms written with `bodies` and `joints` in `mechanics!`: every joint kind against a
//! hand-written Lagrangian of the same mechanism (energies and accelerations at random states),
//! and closed loops (`Connect`, `Weld`) kept to round-off.

use spark::nalgebra::SVector;
use spark::{GaussLobatto, Integrator, State};

use crate::common::Rng;

fn assert_close<const N: usize>(what: &str, got: &SVector<f64, N>, want: &SVector<f64, N>) {
    let scale = 1.0 + want.amax();
    let d = (got - want).amax();
    assert!(
        d <= 1e-10 * scale,
        "{what}: {got:?} against {want:?} (difference {d:e})"
    );
}

fn assert_energy(what: &str, got: f64, want: f64) {
    assert!(
        (got - want).abs() <= 1e-12 * want.abs().max(1.0),
        "{what}: energy {got} against {want}"
    );
}

spark::mechanics! {
    /// A revolute, a prismatic and a fixed joint, rotated joint frames, full inertia tensors,
    /// springs and a damper.
    pub struct Chain {
        bodies: {
            a: Body {
                mass: 1.3,
                com: [0.1, 0.05, -0.4],
                inertia: [[0.05, 0.002, -0.001], [0.002, 0.04, 0.003], [-0.001, 0.003, 0.02]],
            },
            b: Body {
                mass: 0.7,
                com: [0.0, 0.1, -0.2],
                inertia: [[0.02, 0.001, 0.002], [0.001, 0.025, -0.004], [0.002, -0.004, 0.015]],
            },
            c: Body {
                mass: 0.5,
                com: [0.05, 0.0, 0.0],
                inertia: [[0.003, 0.0005, 0.0002], [0.0005, 0.002, 0.0001], [0.0002, 0.0001, 0.004]],
            },
        },
        joints: {
            hinge: Revolute {
                parent: world,
                child: a,
                rotation: Rotation::axis_angle([0.0, 0.0, 1.0], 0.3),
                axis: [0.0, 1.0, 0.0],
                stiffness: 2.0,
                rest: 0.1,
                damping: 0.3,
            },
            slider: Prismatic {
                parent: a,
                child: b,
                origin: [0.0, 0.0, -0.8],
                rotation: Rotation::body_fixed_xyz([0.5, 0.0, 0.0]),
                axis: [1.0, 0.0, 1.0],
                stiffness: 5.0,
                rest: 0.2,
            },
            bracket: Fixed {
                parent: b,
                child: c,
                origin: [0.2, 0.0, 0.0],
                rotation: Rotation::quaternion([(0.1).cos(), 0.0, (0.1).sin(), 0.0]),
            },
        },
    }
}

spark::mechanics! {
    /// `Rz(0.3) Ry(a)` applied to a vector of body `a`: x component.
    fn wx(a: f64, x: f64, y: f64, z: f64) -> f64 {
        let p = a.cos() * x + a.sin() * z;
        (0.3).cos() * p - (0.3).sin() * y
    }
    /// y component.
    fn wy(a: f64, x: f64, y: f64, z: f64) -> f64 {
        let p = a.cos() * x + a.sin() * z;
        (0.3).sin() * p + (0.3).cos() * y
    }
    /// z component.
    fn wz(a: f64, x: f64, y: f64, z: f64) -> f64 {
        -a.sin() * x + a.cos() * z
    }
    /// `½ wᵀ I w` for a symmetric `I`.
    fn wiw(x: f64, y: f64, z: f64, ixx: f64, iyy: f64, izz: f64, ixy: f64, ixz: f64, iyz: f64) -> f64 {
        0.5 * (ixx * x * x + iyy * y * y + izz * z * z) + ixy * x * y + ixz * x * z + iyz * y * z
    }
    /// [`Chain`] by hand: `a` the hinge angle, `s` the slide.
    pub struct ChainByHand {
        coordinates: [a, s],
        velocities: [va, vs],
        parameters: [g = 9.81],
        definitions: {
            let c5 = (0.5).cos();
            let s5 = (0.5).sin();
            let c2 = (0.2).cos();
            let s2 = (0.2).sin();
            // Points in body a's frame: B's origin, B's and C's mass centres (Rx(0.5) maps B's
            // axes to A's, Ry(0.2) C's to B's).
            let u = s / (2.0).sqrt();
            let obx = u;
            let oby = -s5 * u;
            let obz = -0.8 + c5 * u;
            let bx = obx;
            let by = oby + c5 * 0.1 + s5 * 0.2;
            let bz = obz + s5 * 0.1 - c5 * 0.2;
            let cx = obx + 0.2 + c2 * 0.05;
            let cy = oby + s5 * s2 * 0.05;
            let cz = obz - c5 * s2 * 0.05;
            // Angular velocities in body axes.
            let wb_y = c5 * va;
            let wb_z = -s5 * va;
            let wc_x = -s2 * wb_z;
            let wc_z = c2 * wb_z;
            let rot = wiw(0.0, va, 0.0, 0.05, 0.04, 0.02, 0.002, -0.001, 0.003)
                + wiw(0.0, wb_y, wb_z, 0.02, 0.025, 0.015, 0.001, 0.002, -0.004)
                + wiw(wc_x, wb_y, wc_z, 0.003, 0.002, 0.004, 0.0005, 0.0002, 0.0001);
            let ta = dt(wx(a, 0.1, 0.05, -0.4)).powi(2) + dt(wy(a, 0.1, 0.05, -0.4)).powi(2)
                + dt(wz(a, 0.1, 0.05, -0.4)).powi(2);
            let tb = dt(wx(a, bx, by, bz)).powi(2) + dt(wy(a, bx, by, bz)).powi(2)
                + dt(wz(a, bx, by, bz)).powi(2);
            let tc = dt(wx(a, cx, cy, cz)).powi(2) + dt(wy(a, cx, cy, cz)).powi(2)
                + dt(wz(a, cx, cy, cz)).powi(2);
            let height = 1.3 * wz(a, 0.1, 0.05, -0.4) + 0.7 * wz(a, bx, by, bz) + 0.5 * wz(a, cx, cy, cz);
        },
        lagrangian: 0.5 * (1.3 * ta + 0.7 * tb + 0.5 * tc) + rot - g * height
            - (a - 0.1).powi(2) - 2.5 * (s - 0.2).powi(2),
        dissipation: 0.15 * va.powi(2),
    }
}

#[test]
fn revolute_prismatic_and_fixed_joints_equal_the_hand_written_chain() {
    let ours = Integrator::<Chain, GaussLobatto<2>>::new(Chain::default(), 0.01).unwrap();
    let hand =
        Integrator::<ChainByHand, GaussLobatto<2>>::new(ChainByHand::default(), 0.01).unwrap();
    assert_eq!(Chain::COORDINATE_NAMES, ["hinge", "slider"]);
    assert_eq!(Chain::BODY_NAMES, ["a", "b", "c"]);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..40 {
        let s = State::new(0.0, rng.array(-3.0, 3.0), rng.array(-2.0, 2.0));
        assert_energy("chain", ours.energy(&s), hand.energy(&s));
        let (a, b) = (
            ours.acceleration(&s).unwrap(),
            hand.acceleration(&s).unwrap(),
        );
        assert_close("chain", &a, &b);
    }
}

spark::mechanics! {
    /// A universal joint (a Hooke joint: first axis fixed in the world, second in the body)
    /// with springs and dampers on both axes.
    pub struct Cardan {
        bodies: {
            u: Body {
                mass: 1.1,
                com: [0.05, -0.02, -0.6],
                inertia: [[0.04, 0.001, -0.002], [0.001, 0.05, 0.003], [-0.002, 0.003, 0.02]],
            },
        },
        joints: {
            cross: Universal {
                parent: world,
                child: u,
                axes: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
                stiffness: 1.5,
                damping: 0.2,
            },
        },
    }
}

spark::mechanics! {
    /// `½ wᵀ I w` for a symmetric `I`.
    fn wiw(x: f64, y: f64, z: f64, ixx: f64, iyy: f64, izz: f64, ixy: f64, ixz: f64, iyz: f64) -> f64 {
        0.5 * (ixx * x * x + iyy * y * y + izz * z * z) + ixy * x * y + ixz * x * z + iyz * y * z
    }
    /// [`Cardan`] by hand: `R = Rx(a) Ry(b)`, body rate `(cos b a', b', sin b a')`.
    pub struct CardanByHand {
        coordinates: [a, b],
        velocities: [va, vb],
        parameters: [g = 9.81],
        definitions: {
            let p = b.cos() * 0.05 + b.sin() * (-0.6);
            let r = -b.sin() * 0.05 + b.cos() * (-0.6);
            let x = p;
            let y = a.cos() * (-0.02) - a.sin() * r;
            let z = a.sin() * (-0.02) + a.cos() * r;
        },
        lagrangian: 0.55 * (dt(x).powi(2) + dt(y).powi(2) + dt(z).powi(2))
            + wiw(b.cos() * va, vb, b.sin() * va, 0.04, 0.05, 0.02, 0.001, -0.002, 0.003)
            - 1.1 * g * z - 0.75 * (a.powi(2) + b.powi(2)),
        dissipation: 0.1 * (va.powi(2) + vb.powi(2)),
    }
}

#[test]
fn universal_joint_equals_the_hand_written_one() {
    let ours = Integrator::<Cardan, GaussLobatto<2>>::new(Cardan::default(), 0.01).unwrap();
    let hand =
        Integrator::<CardanByHand, GaussLobatto<2>>::new(CardanByHand::default(), 0.01).unwrap();
    assert_eq!(Cardan::COORDINATE_NAMES, ["cross.1", "cross.2"]);
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    for _ in 0..40 {
        let s = State::new(0.0, rng.array(-3.0, 3.0), rng.array(-2.0, 2.0));
        assert_energy("universal", ours.energy(&s), hand.energy(&s));
        let (a, b) = (
            ours.acceleration(&s).unwrap(),
            hand.acceleration(&s).unwrap(),
        );
        assert_close("universal", &a, &b);
    }
}

spark::mechanics! {
    /// A planar joint whose plane is the world's x-z plane (the joint frame turned about x), a
    /// damper on its three coordinates.
    pub struct Slab {
        bodies: {
            p: Body {
                mass: 2.0,
                com: [0.1, 0.2, 0.05],
                inertia: [[0.3, 0.01, 0.02], [0.01, 0.2, -0.03], [0.02, -0.03, 0.25]],
            },
        },
        joints: {
            plane: Planar {
                parent: world,
                child: p,
                rotation: Rotation::axis_angle([1.0, 0.0, 0.0], core::f64::consts::FRAC_PI_2),
                damping: 0.4,
            },
        },
    }
}

spark::mechanics! {
    /// [`Slab`] by hand: the body's origin at `(x, 0, y)`, turned by `th` about `-y`.
    pub struct SlabByHand {
        coordinates: [x, y, th],
        velocities: [vx, vy, vth],
        parameters: [g = 9.81],
        definitions: {
            let p = th.cos() * 0.1 - th.sin() * 0.2;
            let q = th.sin() * 0.1 + th.cos() * 0.2;
            let cx = x + p;
            let cz = y + q;
        },
        lagrangian: 1.0 * (dt(cx).powi(2) + dt(cz).powi(2)) + 0.125 * vth.powi(2) - 2.0 * g * cz,
        dissipation: 0.2 * (vx.powi(2) + vy.powi(2) + vth.powi(2)),
    }
}

#[test]
fn planar_joint_equals_the_hand_written_one() {
    let ours = Integrator::<Slab, GaussLobatto<2>>::new(Slab::default(), 0.01).unwrap();
    let hand = Integrator::<SlabByHand, GaussLobatto<2>>::new(SlabByHand::default(), 0.01).unwrap();
    assert_eq!(
        Slab::COORDINATE_NAMES,
        ["plane.x", "plane.y", "plane.angle"]
    );
    let mut rng = Rng(0x0F0F_1234_5678_9ABC);
    for _ in 0..40 {
        let s = State::new(0.0, rng.array(-3.0, 3.0), rng.array(-2.0, 2.0));
        assert_energy("planar", ours.energy(&s), hand.energy(&s));
        let (a, b) = (
            ours.acceleration(&s).unwrap(),
            hand.acceleration(&s).unwrap(),
        );
        assert_close("planar", &a, &b);
    }
}

/// A random unit quaternion and a random rate tangent to the unit sphere (`q · q̇ = 0`).
fn quaternion_state(rng: &mut Rng) -> ([f64; 4], [f64; 4]) {
    let q: [f64; 4] = rng.array(-1.0, 1.0);
    let n = q.iter().map(|x| x * x).sum::<f64>().sqrt();
    let q = q.map(|x| x / n);
    let v: [f64; 4] = rng.array(-2.0, 2.0);
    let d: f64 = q.iter().zip(&v).map(|(a, b)| a * b).sum();
    (q, core::array::from_fn(|i| v[i] - d * q[i]))
}

spark::mechanics! {
    /// A body on a spherical joint, its pivot 1 m above the world's origin.
    pub struct Spherical {
        bodies: {
            s: Body {
                mass: 1.7,
                com: [0.1, -0.05, -0.5],
                inertia: [[0.06, 0.002, 0.001], [0.002, 0.05, -0.004], [0.001, -0.004, 0.03]],
            },
        },
        joints: {
            pivot: Spherical { parent: world, child: s, origin: [0.0, 0.0, 1.0] },
        },
    }
}

spark::mechanics! {
    /// `½ wᵀ I w` for a symmetric `I`.
    fn wiw(x: f64, y: f64, z: f64, ixx: f64, iyy: f64, izz: f64, ixy: f64, ixz: f64, iyz: f64) -> f64 {
        0.5 * (ixx * x * x + iyy * y * y + izz * z * z) + ixy * x * y + ixz * x * z + iyz * y * z
    }
    /// [`Spherical`] by hand, as the heavy top of `examples/models/heavy_top.rs` (body rate
    /// `2 vec(q̄ ⊗ q̇)`, the regularizing `½ (q · q̇)²` with its own weight 1).
    pub struct SphericalByHand {
        coordinates: [w, x, y, z],
        velocities: [vw, vx, vy, vz],
        parameters: [g = 9.81],
        definitions: {
            let o1 = 2.0 * (w * vx - vw * x - (y * vz - z * vy));
            let o2 = 2.0 * (w * vy - vw * y - (z * vx - x * vz));
            let o3 = 2.0 * (w * vz - vw * z - (x * vy - y * vx));
            let cx = 0.1;
            let cy = -0.05;
            let cz = -0.5;
            let px = (w * w + x * x - y * y - z * z) * cx + 2.0 * (x * y - w * z) * cy + 2.0 * (x * z + w * y) * cz;
            let py = 2.0 * (x * y + w * z) * cx + (w * w - x * x + y * y - z * z) * cy + 2.0 * (y * z - w * x) * cz;
            let pz = 1.0 + 2.0 * (x * z - w * y) * cx + 2.0 * (y * z + w * x) * cy + (w * w - x * x - y * y + z * z) * cz;
        },
        lagrangian: 0.85 * (dt(px).powi(2) + dt(py).powi(2) + dt(pz).powi(2))
            + wiw(o1, o2, o3, 0.06, 0.05, 0.03, 0.002, 0.001, -0.004)
            + 0.5 * (w * vw + x * vx + y * vy + z * vz).powi(2)
            - 1.7 * g * pz,
        holonomic: [w.powi(2) + x.powi(2) + y.powi(2) + z.powi(2) - 1.0],
    }
}

#[test]
fn spherical_joint_equals_the_hand_written_one() {
    let ours = Integrator::<Spherical, GaussLobatto<2>>::new(Spherical::default(), 0.01).unwrap();
    let hand =
        Integrator::<SphericalByHand, GaussLobatto<2>>::new(SphericalByHand::default(), 0.01)
            .unwrap();
    assert_eq!(
        Spherical::COORDINATE_NAMES,
        ["pivot.qw", "pivot.qx", "pivot.qy", "pivot.qz"]
    );
    let mut rng = Rng(0x5555_0123_4567_89AB);
    for _ in 0..40 {
        let (q, v) = quaternion_state(&mut rng);
        let s = State::new(0.0, q, v);
        assert_energy("spherical", ours.energy(&s), hand.energy(&s));
        let (a, b) = (
            ours.acceleration(&s).unwrap(),
            hand.acceleration(&s).unwrap(),
        );
        assert_close("spherical", &a, &b);
    }
}

spark::mechanics! {
    /// A pendulum arm and a free body welded to it: one rigid compound pendulum written as a
    /// revolute joint, a free joint (seven coordinates) and a loop-closing weld.
    pub struct Welded {
        bodies: {
            arm: Body { mass: 1.0, com: [0.0, 0.0, -0.5], inertia: [0.02, 0.02, 0.001] },
            blob: Body {
                mass: 0.6,
                com: [0.05, 0.02, 0.0],
                inertia: [[0.01, 0.001, 0.0], [0.001, 0.012, 0.002], [0.0, 0.002, 0.008]],
            },
        },
        joints: {
            hinge: Revolute { parent: world, child: arm, axis: [0.0, 1.0, 0.0] },
            float: Free { parent: world, child: blob },
            glue: Weld {
                body1: arm,
                body2: blob,
                origin: [0.3, 0.0, -0.7],
                rotation: Rotation::axis_angle([1.0, 0.0, 0.0], 0.4),
            },
        },
    }
}

spark::mechanics! {
    /// `½ wᵀ I w` for a symmetric `I`.
    fn wiw(x: f64, y: f64, z: f64, ixx: f64, iyy: f64, izz: f64, ixy: f64, ixz: f64, iyz: f64) -> f64 {
        0.5 * (ixx * x * x + iyy * y * y + izz * z * z) + ixy * x * y + ixz * x * z + iyz * y * z
    }
    /// [`Welded`] by hand: one angle, the blob's mass centre at `Ry(a) P` with `P` its place in
    /// the arm's frame, its body rate `Rx(0.4)ᵀ (0, a', 0)`.
    pub struct WeldedByHand {
        coordinates: [a],
        velocities: [va],
        parameters: [g = 9.81],
        definitions: {
            let c = (0.4).cos();
            let s = (0.4).sin();
            let px = 0.35;
            let pz = -0.7 + 0.02 * s;
            let bx = a.cos() * px + a.sin() * pz;
            let bz = -a.sin() * px + a.cos() * pz;
        },
        lagrangian: 0.5 * (0.02 + 0.25) * va.powi(2) + 0.3 * (dt(bx).powi(2) + dt(bz).powi(2))
            + wiw(0.0, c * va, -s * va, 0.01, 0.012, 0.008, 0.001, 0.0, 0.002)
            + g * 0.5 * a.cos() - 0.6 * g * bz,
    }
}

/// The consistent state of [`Welded`] at arm angle `a` and rate `va`.
fn welded_state(a: f64, va: f64) -> State<8> {
    let (x, z) = (0.3, -0.7);
    let pos = [a.cos() * x + a.sin() * z, 0.0, -a.sin() * x + a.cos() * z];
    let dpos = [-a.sin() * x + a.cos() * z, 0.0, -a.cos() * x - a.sin() * z];
    let mul = |p: [f64; 4], q: [f64; 4]| {
        [
            p[0] * q[0] - p[1] * q[1] - p[2] * q[2] - p[3] * q[3],
            p[0] * q[1] + p[1] * q[0] + p[2] * q[3] - p[3] * q[2],
            p[0] * q[2] - p[1] * q[3] + p[2] * q[0] + p[3] * q[1],
            p[0] * q[3] + p[1] * q[2] - p[2] * q[1] + p[3] * q[0],
        ]
    };
    let qx = [(0.2f64).cos(), (0.2f64).sin(), 0.0, 0.0];
    let quat = mul([(a / 2.0).cos(), 0.0, (a / 2.0).sin(), 0.0], qx);
    let dquat = mul(
        [-0.5 * (a / 2.0).sin(), 0.0, 0.5 * (a / 2.0).cos(), 0.0],
        qx,
    );
    let mut q = [a; 8];
    let mut v = [va; 8];
    for i in 0..3 {
        q[1 + i] = pos[i];
        v[1 + i] = va * dpos[i];
    }
    for i in 0..4 {
        q[4 + i] = quat[i];
        v[4 + i] = va * dquat[i];
    }
    State::new(0.0, q, v)
}

#[test]
fn free_joint_welded_to_a_pendulum_moves_as_one_rigid_body() {
    assert_eq!(
        Welded::COORDINATE_NAMES,
        [
            "hinge", "float.x", "float.y", "float.z", "float.qw", "float.qx", "float.qy",
            "float.qz"
        ]
    );
    // The quaternion's norm and the weld's six rows.
    assert_eq!(Welded::HOLONOMIC_CONSTRAINTS, 7);
    let ours = Integrator::<Welded, GaussLobatto<2>>::new(Welded::default(), 0.01).unwrap();
    let hand =
        Integrator::<WeldedByHand, GaussLobatto<2>>::new(WeldedByHand::default(), 0.01).unwrap();
    let mut rng = Rng(0x7777_1234_0000_4321);
    for _ in 0..40 {
        let (a, va) = (rng.uniform(-3.0, 3.0), rng.uniform(-2.0, 2.0));
        let s = welded_state(a, va);
        let (g, gv) = ours.constraint_residual(&s);
        assert!(g < 1e-14 && gv < 1e-13, "not consistent: {g:e} {gv:e}");
        let h = State::new(0.0, [a], [va]);
        assert_energy("weld", ours.energy(&s), hand.energy(&h));
        let (x, y) = (
            ours.acceleration(&s).unwrap(),
            hand.acceleration(&h).unwrap(),
        );
        assert!(
            (x[0] - y[0]).abs() < 1e-10 * (1.0 + y[0].abs()),
            "weld: {} against {}",
            x[0],
            y[0]
        );
    }
}

include!("../../examples/models/bodies_four_bar.rs");

#[test]
fn four_bar_closed_by_a_connection_keeps_its_loop_to_round_off() {
    assert_eq!(FourBar::COORDINATE_NAMES, ["drive", "knee", "rock"]);
    // The connection's out-of-plane row is identically zero and dropped.
    assert_eq!(FourBar::HOLONOMIC_CONSTRAINTS, 2);
    assert_eq!(FourBar::INPUT_NAMES, ["tau_drive"]);
    let q0 = four_bar_assembled(0.5);
    assert!(four_bar_gap(&q0) < 1e-14, "{}", four_bar_gap(&q0));
    let mut sim = Integrator::<FourBar, GaussLobatto<2>>::new(FourBar::default(), 0.01).unwrap();
    let mut s = State::new(0.0, q0, [3.0, 0.0, 0.0]);
    sim.project(&mut s).unwrap();
    let e0 = sim.energy(&s);
    let (mut worst_gap, mut worst_energy) = (0.0f64, 0.0f64);
    for _ in 0..2000 {
        sim.step(&mut s).unwrap();
        let (g, gv) = sim.constraint_residual(&s);
        assert!(g < 1e-12 && gv < 1e-10, "residuals {g:e} {gv:e}");
        worst_gap = worst_gap.max(four_bar_gap(s.q.as_slice()));
        worst_energy = worst_energy.max((sim.energy(&s) - e0).abs());
    }
    println!("four-bar over 20 s: loop gap {worst_gap:.1e}, energy error {worst_energy:.1e}");
    assert!(worst_gap < 1e-12, "loop gap {worst_gap:e}");
    assert!(
        worst_energy < 1e-4 * e0.abs(),
        "energy error {worst_energy:e}"
    );
    // The crank turns round (a Grashof crank-rocker), driven only by its initial speed.
    assert!(s.q[0].abs() > 6.3, "crank at {}", s.q[0]);
}

#[test]
fn actuated_joint_is_an_input() {
    let q0 = four_bar_assembled(0.5);
    let driven = FourBar {
        tau_drive: 2.0,
        ..FourBar::default()
    };
    let free = Integrator::<FourBar, GaussLobatto<2>>::new(FourBar::default(), 0.01).unwrap();
    let pushed = Integrator::<FourBar, GaussLobatto<2>>::new(driven, 0.01).unwrap();
    let mut s = State::new(0.0, q0, [0.0; 3]);
    free.project(&mut s).unwrap();
    let (a, b) = (
        free.acceleration(&s).unwrap(),
        pushed.acceleration(&s).unwrap(),
    );
    assert!(b[0] > a[0] + 1e-3, "{} vs {}", b[0], a[0]);
}

spark::mechanics! {
    /// A thin uniform disc (radius 0.3 m, 1 kg) on a free joint, rolling without slip on the
    /// ground: the norm of its quaternion and the contact height are holonomic, the contact
    /// point's horizontal velocity nonholonomic.
    pub struct Coin {
        bodies: {
            disc: Body { mass: 1.0, inertia: [0.0225, 0.045, 0.0225] },
        },
        joints: {
            roll: Free { parent: world, child: disc },
            contact: Wheel { body: disc, radius: 0.3, axis: [0.0, 1.0, 0.0] },
        },
    }
}

/// The coin upright at the origin, rolling along x at `speed` with lean rate `lean_rate` about
/// its forward axis (the centre moving sideways so that the contact does not slip).
fn coin_state(speed: f64, lean_rate: f64) -> State<7> {
    let w = speed / 0.3;
    State::new(
        0.0,
        [0.0, 0.0, 0.3, 1.0, 0.0, 0.0, 0.0],
        [
            speed,
            -0.3 * lean_rate,
            0.0,
            0.0,
            0.5 * lean_rate,
            0.5 * w,
            0.0,
        ],
    )
}

/// The coin's lean: the angle of its axis above the ground, `asin((R e_y)_z)`.
fn coin_lean(q: &[f64]) -> f64 {
    let (w, x, y, z) = (q[3], q[4], q[5], q[6]);
    (2.0 * (y * z + w * x)).asin()
}

#[test]
fn rolling_wheel_straight_ahead_has_the_exact_accelerations() {
    assert_eq!(Coin::COORDINATES, 7);
    assert_eq!(Coin::HOLONOMIC_CONSTRAINTS, 2);
    let sim = Integrator::<Coin, GaussLobatto<2>>::new(Coin::default(), 0.01).unwrap();
    for speed in [0.5, 2.0, -1.5] {
        let s = coin_state(speed, 0.0);
        let (g, gv) = sim.constraint_residual(&s);
        assert!(g < 1e-15 && gv < 1e-15, "{g:e} {gv:e}");
        // Steady rolling: the centre keeps its velocity, the quaternion turns at w = v / r,
        // q(t) = (cos(w t / 2), 0, sin(w t / 2), 0), so q'' = -(w / 2)^2 q.
        let a = sim.acceleration(&s).unwrap();
        let w = speed / 0.3;
        let want = SVector::<f64, 7>::from([0.0, 0.0, 0.0, -0.25 * w * w, 0.0, 0.0, 0.0]);
        assert_close("rolling", &a, &want);
    }
}

/// A thin uniform disc rolls upright stably above `w² = g / (3 r)` (about 0.99 m/s here) and
/// falls below it: a kicked coin at 3 and 1.5 m/s stays up, at 0.6 and 0.3 m/s it falls over. (On
/// a frictionless floor, sliding, it would need `w² > 4 g / r`, above 3.4 m/s.)
#[test]
fn rolling_wheel_is_gyroscopically_stable_only_when_fast() {
    let ride = |speed: f64| {
        let mut sim = Integrator::<Coin, GaussLobatto<2>>::new(Coin::default(), 0.005).unwrap();
        let mut s = coin_state(speed, 0.3);
        sim.project(&mut s).unwrap();
        let e0 = sim.energy(&s);
        let (mut lean, mut drift, mut residual) = (0.0f64, 0.0f64, 0.0f64);
        for _ in 0..600 {
            sim.step(&mut s).unwrap();
            lean = lean.max(coin_lean(s.q.as_slice()).abs());
            drift = drift.max((sim.energy(&s) - e0).abs());
            let (g, gv) = sim.constraint_residual(&s);
            residual = residual.max(g).max(gv);
            if lean > 0.6 {
                break;
            }
        }
        (lean, drift, residual)
    };
    let (fast, drift, residual) = ride(3.0);
    println!("coin at 3 m/s: largest lean {fast:.3} rad, energy error {drift:.1e}, residual {residual:.1e}");
    assert!(fast < 0.1, "the fast coin leans {fast}");
    assert!(drift < 1e-6, "energy error {drift:e}");
    assert!(residual < 1e-10, "constraint residual {residual:e}");
    let (above, _, _) = ride(1.5);
    println!("coin at 1.5 m/s: largest lean {above:.3} rad");
    assert!(
        above < 0.3,
        "the coin above the critical speed leans {above}"
    );
    for speed in [0.6, 0.3] {
        let (slow, _, _) = ride(speed);
        println!("coin at {speed} m/s: largest lean {slow:.3} rad");
        assert!(slow > 0.5, "the slow coin stays up (lean {slow})");
    }
}

//! The Whipple bicycle written with bodies, joints and two wheels
//! (`examples/models/bicycle_bodies.rs`) against the benchmark of Meijaard et al. (2007): its
//! lean and steer eigenvalues of the upright, straight-ahead motion from the step's exact
//! Jacobian against Table 2 at v = 0, 1, ..., 10 m/s (as `tests/mechanisms/bicycle.rs` checks the
//! hand-written model), and its energy against the hand-written model's at the same motion.

include!("../../examples/models/bicycle_bodies.rs");

use spark::nalgebra::{Complex, SMatrix};
use spark::{GaussLobatto, Integrator, State, StepJacobian, TangentBasis};

/// The method and step of the linearization, those of `tests/mechanisms/bicycle.rs`.
const S: usize = 8;
const H: f64 = 0.05;

/// Meijaard et al. (2007), Table 2, as `tests/mechanisms/bicycle.rs` checks it.
use crate::bicycle::whipple::TABLE2;

/// The index of the coordinate `name`.
fn at(name: &str) -> usize {
    let i = BodiesBicycle::COORDINATE_NAMES
        .iter()
        .position(|n| *n == name);
    i.unwrap_or_else(|| {
        panic!(
            "no coordinate {name} in {:?}",
            BodiesBicycle::COORDINATE_NAMES
        )
    })
}

/// Riding straight and upright at `speed` (m/s) along x: every angle zero, the wheels rolling.
fn upright(speed: f64) -> State<10> {
    let mut q = [0.0; 10];
    q[at("ride.qw")] = 1.0;
    let mut v = [0.0; 10];
    v[at("ride.x")] = speed;
    v[at("rear_hub")] = speed / 0.3;
    v[at("front_hub")] = speed / 0.35;
    State::new(0.0, q, v)
}

/// The one-step map of lean, steer and their rates (`B = P J T`, as in `tests/mechanisms/bicycle.rs`).
/// Lean is the quaternion's x component (half the lean angle to first order), its rate that
/// component's rate; held at zero: the rear wheel centre's x and y, the quaternion's z (yaw),
/// the wheel angles and the centre's forward velocity. The directions these move (translation,
/// yaw, the wheels' angles, the speed) map into themselves and move neither lean nor steer, so
/// `B`'s eigenvalues are the step's on the tangent space without the six unit ones.
fn lean_steer_map(speed: f64) -> Result<SMatrix<f64, 4, 4>, Box<dyn std::error::Error>> {
    let mut sim = Integrator::<BodiesBicycle, GaussLobatto<S>>::new(BodiesBicycle::default(), H)?;
    let mut s = upright(speed);
    let basis: TangentBasis<10, 10> = sim.tangent_basis::<10, 3, 4, 10>(&s)?;
    let t = SMatrix::<f64, 20, 10>::from_fn(|i, j| {
        if i < 10 {
            basis.q[(i, j)]
        } else {
            basis.v[(i - 10, j)]
        }
    });
    let lean_steer = [
        at("ride.qx"),
        at("steer"),
        10 + at("ride.qx"),
        10 + at("steer"),
    ];
    let fixed = [
        at("ride.x"),
        at("ride.y"),
        at("ride.qz"),
        at("rear_hub"),
        at("front_hub"),
        10 + at("ride.x"),
    ];
    let picked: Vec<usize> = lean_steer.iter().chain(fixed.iter()).copied().collect();
    let pt = SMatrix::<f64, 10, 10>::from_fn(|i, j| t[(picked[i], j)]);
    let rhs = SMatrix::<f64, 10, 4>::from_fn(|i, j| if i == j { 1.0 } else { 0.0 });
    let coefficients = pt
        .lu()
        .solve(&rhs)
        .ok_or("lean, steer and their rates do not parametrize the tangent space")?;
    let directions = t * coefficients;
    let j: StepJacobian<10, 0> = sim.step_with_jacobian(&mut s)?;
    let full = SMatrix::<f64, 20, 20>::from_fn(|r, c| match (r < 10, c < 10) {
        (true, true) => j.dq_dq[(r, c)],
        (true, false) => j.dq_dv[(r, c - 10)],
        (false, true) => j.dv_dq[(r - 10, c)],
        (false, false) => j.dv_dv[(r - 10, c - 10)],
    });
    let image = full * directions;
    Ok(SMatrix::<f64, 4, 4>::from_fn(|r, c| {
        image[(lean_steer[r], c)]
    }))
}

/// The continuous-time lean and steer eigenvalues at `speed`, sorted by real part, then
/// imaginary part.
fn eigenvalues(speed: f64) -> Result<[Complex<f64>; 4], Box<dyn std::error::Error>> {
    let mu = lean_steer_map(speed)?.complex_eigenvalues();
    let mut out = [Complex::new(0.0, 0.0); 4];
    for (o, m) in out.iter_mut().zip(mu.iter()) {
        *o = Complex::new(m.re.hypot(m.im).ln() / H, m.im.atan2(m.re) / H);
    }
    out.sort_by(|a, b| a.re.total_cmp(&b.re).then(a.im.total_cmp(&b.im)));
    Ok(out)
}

#[test]
fn the_model_has_the_whipple_sizes() {
    assert_eq!(BodiesBicycle::COORDINATES, 10);
    assert_eq!(BodiesBicycle::HOLONOMIC_CONSTRAINTS, 3);
}

/// Every eigenvalue of Table 2 (printed with 14 decimals) to 1e-13 of its size (or absolute
/// below 1): the eigenvalues are `log(μ)/H` of the step Jacobian's, whose round-off grows with
/// `|λ|`. Measured: largest relative difference 5.1e-14 (absolute 1.1e-12, at λ ≈ −24.6) with
/// the floating base's composite terms, 6.7e-14 (absolute 7.6e-13) with the Lagrangian's
/// Hessians before them.
#[test]
fn eigenvalues_equal_table_2() {
    let mut worst: f64 = 0.0;
    for v in 0..=10u8 {
        let ours = eigenvalues(f64::from(v)).expect("linearization");
        println!("v = {v}: {ours:?}");
        for (got, want) in ours.iter().zip(TABLE2[usize::from(v)]) {
            let want = Complex::new(want.0, want.1);
            let d = got - want;
            worst = worst.max(d.re.hypot(d.im) / want.re.hypot(want.im).max(1.0));
        }
    }
    println!("largest relative difference from Table 2: {worst:.2e}");
    assert!(
        worst < 1e-13,
        "largest relative difference from Table 2: {worst:e}"
    );
}

/// Hamilton's product of quaternions `(w, x, y, z)`.
fn mul(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    [
        a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
        a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
        a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
        a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    ]
}

/// The rotation by `angle` about the unit axis `axis` and its derivative in `angle`.
fn turn(axis: usize, angle: f64) -> ([f64; 4], [f64; 4]) {
    let (mut q, mut d) = (
        [(0.5 * angle).cos(), 0.0, 0.0, 0.0],
        [-0.5 * (0.5 * angle).sin(), 0.0, 0.0, 0.0],
    );
    q[axis] = (0.5 * angle).sin();
    d[axis] = 0.5 * (0.5 * angle).cos();
    (q, d)
}

/// The state of this model that is the hand-written model's state `(q, v)` (coordinates of
/// `examples/models/bicycle.rs`, the paper's z-down axes): the same bodies in the same places
/// with the same velocities. The world is the paper's frame turned by π about x, so the rear
/// frame's rotation `Rz(ψ) Rx(φ) Ry(θ)` becomes `Rz(-ψ) Rx(φ) Ry(-θ)`, the steer is the
/// negative (the axis here points up), and the wheels' angles are about the opposite axis
/// (the rear one measured from the pitched rear frame here, from the leaned one there).
fn from_hand(q: [f64; 8], v: [f64; 8]) -> State<10> {
    let rr = 0.3;
    let [x, y, psi, phi, theta, delta, th_r, th_f] = q;
    let [vx, vy, w_psi, w_phi, w_theta, w_delta, w_r, w_f] = v;
    let (qz, dz) = turn(3, -psi);
    let (qx, dx) = turn(1, phi);
    let (qy, dy) = turn(2, -theta);
    let rot = mul(mul(qz, qx), qy);
    let d_psi = mul(mul(dz, qx), qy);
    let d_phi = mul(mul(qz, dx), qy);
    let d_theta = mul(mul(qz, qx), dy);
    let rate: [f64; 4] =
        core::array::from_fn(|i| -w_psi * d_psi[i] + w_phi * d_phi[i] - w_theta * d_theta[i]);
    let mut bq = [0.0; 10];
    let mut bv = [0.0; 10];
    // The rear wheel's centre, in the paper's axes, and its velocity.
    let centre = [
        x - rr * psi.sin() * phi.sin(),
        y + rr * psi.cos() * phi.sin(),
        -rr * phi.cos(),
    ];
    let centre_rate = [
        vx - rr * (psi.cos() * phi.sin() * w_psi + psi.sin() * phi.cos() * w_phi),
        vy + rr * (-psi.sin() * phi.sin() * w_psi + psi.cos() * phi.cos() * w_phi),
        rr * phi.sin() * w_phi,
    ];
    (bq[at("ride.x")], bq[at("ride.y")], bq[at("ride.z")]) =
        (centre[0], -centre[1], -centre[2] - rr);
    (bv[at("ride.x")], bv[at("ride.y")], bv[at("ride.z")]) =
        (centre_rate[0], -centre_rate[1], -centre_rate[2]);
    for (k, name) in ["ride.qw", "ride.qx", "ride.qy", "ride.qz"]
        .iter()
        .enumerate()
    {
        bq[at(name)] = rot[k];
        bv[at(name)] = rate[k];
    }
    (bq[at("rear_hub")], bv[at("rear_hub")]) = (theta - th_r, w_theta - w_r);
    (bq[at("steer")], bv[at("steer")]) = (-delta, -w_delta);
    (bq[at("front_hub")], bv[at("front_hub")]) = (-th_f, -w_f);
    State::new(0.0, bq, bv)
}

/// At arbitrary configurations and velocities (not on the constraints: the energy is a
/// function of both alone), the two models' energies agree: the same kinetic energy (so the same
/// mass matrix in the mapped coordinates) and the same potential.
#[test]
fn energy_equals_the_hand_written_models() {
    use crate::bicycle::Bicycle;
    let bodies = Integrator::<BodiesBicycle, GaussLobatto<2>>::new(BodiesBicycle::default(), H)
        .expect("integrator");
    let hand = Integrator::<Bicycle, GaussLobatto<2>>::new(Bicycle::default(), H).expect("hand");
    let states = [
        (
            [0.0; 8],
            [4.0, 0.0, 0.0, 0.0, 0.0, 0.0, -4.0 / 0.3, -4.0 / 0.35],
        ),
        (
            [0.3, -0.2, 0.7, 0.2, -0.05, 0.4, 1.1, -2.3],
            [2.0, 0.5, 0.3, -0.4, 0.2, 1.3, -6.0, -5.0],
        ),
        (
            [-1.0, 2.0, -2.5, -0.6, 0.1, -1.0, -0.3, 0.8],
            [-1.0, 3.0, -0.7, 0.9, -0.3, -0.8, 2.0, 4.0],
        ),
    ];
    let mut worst: f64 = 0.0;
    for (q, v) in states {
        let e_hand = hand.energy(&State::new(0.0, q, v));
        let e_bodies = bodies.energy(&from_hand(q, v));
        worst = worst.max((e_hand - e_bodies).abs() / e_hand.abs());
        assert!(
            (e_hand - e_bodies).abs() < 1e-12 * e_hand.abs(),
            "{e_hand} vs {e_bodies} at {q:?}, {v:?}"
        );
    }
    println!("largest relative energy difference: {worst:.2e}");
}

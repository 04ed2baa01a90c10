//! The general DAE step on a hand-written model: test problem (6.1) of Jay (2007), whose
//! reaction r(y, λ) = (y1 y2 λ², −√y1 λ) is nonlinear in λ and whose exact solution is
//! y1 = z1 = e^{2t}, y2 = z2 = e^{−t}, λ = e^t.

use nalgebra::{SMatrix, SVector};
use spark_runtime::{
    dae, GaussLobatto, HiddenJacobian, Integrator, KinematicsJacobian, LobattoIIIAB, Method, Model,
    Odae, ReactionJacobian,
};

type V2 = SVector<f64, 2>;

struct Problem61;

impl Model for Problem61 {
    fn first_non_finite_parameter(&self) -> Option<&'static str> {
        None
    }
}

impl Odae<2, 1> for Problem61 {
    fn kinematics(&self, t: f64, y: &V2, z: &V2) -> (V2, V2, V2) {
        let k = self.kinematics_jacobian(t, y, z);
        (k.v, k.p, k.f)
    }
    fn kinematics_jacobian(&self, _t: f64, y: &V2, z: &V2) -> KinematicsJacobian<2> {
        let (y1, y2, z1, z2) = (y[0], y[1], z[0], z[1]);
        KinematicsJacobian {
            v: V2::new(2.0 * z1, -z2),
            p: *z,
            f: V2::new(2.0 * y1 * y2 * z1 * z2 - y1 * z1 * z2, z1 - y1 * z2.powi(3)),
            v_y: SMatrix::zeros(),
            v_z: SMatrix::<f64, 2, 2>::new(2.0, 0.0, 0.0, -1.0),
            p_y: SMatrix::zeros(),
            p_z: SMatrix::identity(),
            f_y: SMatrix::<f64, 2, 2>::new(
                2.0 * y2 * z1 * z2 - z1 * z2,
                2.0 * y1 * z1 * z2,
                -z2.powi(3),
                0.0,
            ),
            f_z: SMatrix::<f64, 2, 2>::new(
                2.0 * y1 * y2 * z2 - y1 * z2,
                2.0 * y1 * y2 * z1 - y1 * z1,
                1.0,
                -3.0 * y1 * z2 * z2,
            ),
        }
    }
    fn reaction_jacobian(&self, _t: f64, y: &V2, l: &SVector<f64, 1>) -> ReactionJacobian<2, 1> {
        let (y1, y2, l) = (y[0], y[1], l[0]);
        ReactionJacobian {
            r: V2::new(y1 * y2 * l * l, -y1.sqrt() * l),
            r_y: SMatrix::<f64, 2, 2>::new(y2 * l * l, y1 * l * l, -0.5 / y1.sqrt() * l, 0.0),
            r_l: SMatrix::<f64, 2, 1>::new(2.0 * y1 * y2 * l, -y1.sqrt()),
        }
    }
    fn position_constraints(&self, _t: f64, y: &V2) -> (SVector<f64, 1>, SMatrix<f64, 1, 2>) {
        let (y1, y2) = (y[0], y[1]);
        (
            SVector::from([y1 * y2 * y2 - 1.0]),
            SMatrix::<f64, 1, 2>::new(y2 * y2, 2.0 * y1 * y2),
        )
    }
    fn hidden_constraint(&self, _t: f64, y: &V2, z: &V2) -> HiddenJacobian<2, 1> {
        // w = g_y v = y2² (2 z1) + 2 y1 y2 (−z2) = 2 y2 (z1 y2 − y1 z2).
        let (y1, y2, z1, z2) = (y[0], y[1], z[0], z[1]);
        HiddenJacobian {
            w: SVector::from([2.0 * y2 * (z1 * y2 - y1 * z2)]),
            w_y: SMatrix::<f64, 1, 2>::new(-2.0 * y2 * z2, 4.0 * y2 * z1 - 2.0 * y1 * z2),
            w_z: SMatrix::<f64, 1, 2>::new(2.0 * y2 * y2, -2.0 * y1 * y2),
        }
    }
}

fn errors<Meth: Method>(h: f64) -> (f64, f64, f64) {
    let mut sim = Integrator::<Problem61, Meth>::new(Problem61, h).unwrap();
    let mut s = dae::State::new(0.0, [1.0, 1.0], [1.0, 1.0], [1.0]);
    for _ in 0..(1.0 / h).round() as usize {
        sim.step(&mut s).unwrap();
        let (g, w) = sim.constraint_residual(&s);
        assert!(g < 1e-12 && w < 1e-11, "{g:e} {w:e}");
    }
    let (e2, em1) = (2f64.exp(), (-1f64).exp());
    let ey = ((s.y[0] - e2).powi(2) + (s.y[1] - em1).powi(2)).sqrt();
    let ez = ((s.z[0] - e2).powi(2) + (s.z[1] - em1).powi(2)).sqrt();
    (ey, ez, (s.lambda[0] - 1f64.exp()).abs())
}

fn slope(a: f64, b: f64) -> f64 {
    (a / b).log2()
}

#[test]
fn orders_2s_in_y_and_z_match_the_guides_table() {
    // s = 1 at h = 1/10: the guide's prototype reports err_y = 8.203e-2, err_z = 1.078e-1.
    let (ey, ez, _) = errors::<GaussLobatto<1>>(0.1);
    assert!(
        (ey / 8.203e-2 - 1.0).abs() < 1e-3 && (ez / 1.078e-1 - 1.0).abs() < 1e-3,
        "{ey:e} {ez:e}"
    );
    for (order, h0, f) in [
        (
            2.0,
            0.05,
            errors::<GaussLobatto<1>> as fn(f64) -> (f64, f64, f64),
        ),
        (4.0, 0.05, errors::<GaussLobatto<2>>),
        (6.0, 0.1, errors::<GaussLobatto<3>>),
        (2.0, 0.05, errors::<LobattoIIIAB<2>>),
    ] {
        let (a, b) = (f(h0), f(h0 / 2.0));
        eprintln!(
            "order {order}: y {:e} -> {:e}, z {:e} -> {:e}, λ {:e} -> {:e}",
            a.0, b.0, a.1, b.1, a.2, b.2
        );
        assert!(
            (slope(a.0, b.0) - order).abs() < 0.25,
            "y slope {}",
            slope(a.0, b.0)
        );
        assert!(
            (slope(a.1, b.1) - order).abs() < 0.25,
            "z slope {}",
            slope(a.1, b.1)
        );
    }
}

#[test]
fn the_initial_multiplier_selects_the_branch() {
    // λ² + λ − 2 = 0 at t = 0: starting near −2 follows the other branch, which is not the
    // exact solution; starting at 1 follows e^t.
    let mut sim = Integrator::<Problem61, GaussLobatto<2>>::new(Problem61, 0.05).unwrap();
    let mut good = dae::State::new(0.0, [1.0, 1.0], [1.0, 1.0], [1.0]);
    sim.step(&mut good).unwrap();
    assert!(
        (good.lambda[0] - 0.05f64.exp()).abs() < 1e-2,
        "{}",
        good.lambda[0]
    );
    let mut other = dae::State::new(0.0, [1.0, 1.0], [1.0, 1.0], [-2.0]);
    sim.step(&mut other).unwrap();
    assert!(other.lambda[0] < -1.0, "{}", other.lambda[0]);
}

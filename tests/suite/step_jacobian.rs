//! The step's exact Jacobian (issue 14): agreement with central differences of `step` along
//! tangent and input directions, symplecticity on the constraint manifold, the linearized
//! nonholonomic constraints carried from the start to the end, and `J(−h) J(h) = I` on tangent
//! vectors for symmetric methods.

use spark::nalgebra::{SMatrix, SVector};
use spark::{
    Emprk, GaussLobatto, Integrator, Lagrangian, LobattoIIIAB, Method, State, StepJacobian,
    TangentBasis,
};

spark::mechanics! {
    /// A damped pendulum pushed horizontally by a time-dependent force and two inputs.
    struct Pendulum {
        coordinates: [x, y],
        velocities: [vx, vy],
        parameters: [g = 9.81, c = 0.3],
        inputs: [u, w],
        lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - g * y + w * x * vy,
        forces: [0.8 * (2.0 * t).cos() + u, 0.0],
        dissipation: 0.5 * c * (vx.powi(2) + vy.powi(2)),
        holonomic: [x.powi(2) + y.powi(2) - 1.0],
    }
}

spark::mechanics! {
    /// A charged particle on the unit sphere (conservative; momentum p = v + w (−q2, q1, 0)).
    struct Charged {
        coordinates: [q1, q2, q3],
        velocities: [v1, v2, v3],
        parameters: [w = 1.3, e = 0.7],
        lagrangian: 0.5 * (v1.powi(2) + v2.powi(2) + v3.powi(2)) + w * (q1 * v2 - q2 * v1) + e * q3,
        holonomic: [q1.powi(2) + q2.powi(2) + q3.powi(2) - 1.0],
    }
}

spark::mechanics! {
    /// A knife edge with thrust and steering inputs and a velocity-coupled dissipation.
    struct Skate {
        coordinates: [x, y, phi],
        velocities: [vx, vy, om],
        parameters: [m = 1.3, j = 0.4, c = 0.5, d = 0.3, e = 0.2],
        inputs: [f, tau],
        lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) + 0.5 * j * om.powi(2),
        forces: [f * phi.cos(), f * phi.sin(), tau],
        dissipation: 0.5 * c * (vx.powi(2) + vy.powi(2)) + 0.5 * d * om.powi(2) + e * vx * om,
        nonholonomic: [vx * phi.sin() - vy * phi.cos()],
    }
}

/// A planar chain of eight masses on rods, pushed at its fourth mass by an input `u` and a
/// time-dependent force, with damping, and the model's remaining fields (`$($extra)*`).
macro_rules! planar_chain {
    ($(#[$doc:meta])* $name:ident { $($extra:tt)* }) => {
        spark::mechanics! {
            const N: usize = 8;
            $(#[$doc])*
            struct $name {
                coordinates: [x[N], y[N]],
                velocities: [vx[N], vy[N]],
                parameters: [g = 9.81, c = 0.2],
                inputs: [u],
                lagrangian: (0..N).map(|i| 0.5 * (1.0 + 0.1 * x[i].powi(2)) * (vx[i].powi(2) + vy[i].powi(2)) - g * y[i]).sum::<f64>(),
                forces: [0.0, 0.0, 0.0, u + 0.5 * (3.0 * t).sin(), 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                dissipation: (0..N).map(|i| 0.5 * c * (vx[i].powi(2) + vy[i].powi(2))).sum::<f64>(),
                holonomic: [
                    x[0].powi(2) + y[0].powi(2) - 1.0,
                    for i in 1..N { (x[i] - x[i - 1]).powi(2) + (y[i] - y[i - 1]).powi(2) - 1.0 },
                ],
                $($extra)*
            }
        }

        impl InputsMut<1> for $name {
            fn input(&self, _: usize) -> f64 {
                self.u
            }
            fn set_input(&mut self, _: usize, value: f64) {
                self.u = value;
            }
        }
    };
}

planar_chain! {
    /// [`planar_chain!`]: its step systems (48 to 96 unknowns) are large enough that the
    /// Jacobian factors their two diagonal blocks within their rows' spans, and from `S = 2` on
    /// reorders their stage block (48 to 72 unknowns) to a band first.
    Chain {}
}

planar_chain! {
    /// [`Chain`] whose last mass may not move about the hinge other than radially
    /// (`x vy − y vx = 0`): the coupled holonomic + nonholonomic system (49 to 98 unknowns),
    /// factored within its rows' spans after a reordering of the whole system.
    NonholonomicChain {
        nonholonomic: [x[N - 1] * vy[N - 1] - y[N - 1] * vx[N - 1]],
    }
}

/// Links at angles 0.4, 0.9, .., 3.9 from the vertical, turning at 0.5, −0.3, 0.8, 0.2, ...
fn chain_state() -> State<16> {
    let (mut q, mut v) = ([0.0; 16], [0.0; 16]);
    let (mut px, mut py, mut vx, mut vy) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for i in 0..8 {
        let th = 0.4 + 0.5 * i as f64;
        let om = [0.5, -0.3, 0.8, 0.2][i % 4];
        px += th.sin();
        py -= th.cos();
        vx += om * th.cos();
        vy += om * th.sin();
        (q[i], q[8 + i], v[i], v[8 + i]) = (px, py, vx, vy);
    }
    State::new(0.0, q, v)
}

spark::mechanics! {
    /// The damped pendulum with its mass, gravity and damping declared as inputs: the step
    /// Jacobian's `dq_du`, `dv_du` are then their sensitivities (the recipe for derivatives
    /// with respect to parameters that appear outside the constraints).
    struct Physical {
        coordinates: [x, y],
        velocities: [vx, vy],
        inputs: [m, g, c],
        lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y,
        dissipation: 0.5 * c * (vx.powi(2) + vy.powi(2)),
        holonomic: [x.powi(2) + y.powi(2) - 1.0],
    }
}

impl InputsMut<3> for Physical {
    fn input(&self, k: usize) -> f64 {
        [self.m, self.g, self.c][k]
    }
    fn set_input(&mut self, k: usize, value: f64) {
        *[&mut self.m, &mut self.g, &mut self.c][k] = value;
    }
}

/// Parameters declared as inputs get exact sensitivities: mass (in the kinetic energy and the
/// potential), gravity and damping, against central differences, GaussLobatto S = 1, 2, 3.
#[test]
fn parameter_sensitivities_through_inputs_match_central_differences() {
    let p = Physical {
        m: 1.3,
        g: 9.81,
        c: 0.3,
    };
    let (s0, h) = (pendulum_state(), 0.05);
    check_against_differences::<_, GaussLobatto<1>, 2, 1, 0, 3, 2>("constants S=1", p, s0, h);
    check_against_differences::<_, GaussLobatto<2>, 2, 1, 0, 3, 2>("constants S=2", p, s0, h);
    check_against_differences::<_, GaussLobatto<3>, 2, 1, 0, 3, 2>("constants S=3", p, s0, h);
}

fn pendulum() -> Pendulum {
    Pendulum {
        u: 0.4,
        w: 0.2,
        ..Pendulum::default()
    }
}

fn pendulum_state() -> State<2> {
    let th = 0.7f64;
    State::new(0.1, [th.sin(), -th.cos()], [1.1 * th.cos(), 1.1 * th.sin()])
}

fn charged_state() -> State<3> {
    // On the sphere, velocity tangent to it.
    let q = SVector::<f64, 3>::new(0.6, 0.0, -0.8);
    let v = SVector::<f64, 3>::new(0.3, 1.0, 0.225);
    State::new(0.0, q, v)
}

fn skate() -> Skate {
    Skate {
        f: 0.7,
        tau: -0.3,
        ..Skate::default()
    }
}

fn skate_state() -> State<3> {
    let (s, om, phi) = (0.8f64, -0.5f64, 0.3f64);
    State::new(0.2, [0.1, 0.2, phi], [s * phi.cos(), s * phi.sin(), om])
}

/// Max over the entries of `|a − b| / (1 + |b|)`.
fn rel(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .fold(0.0f64, |m, (x, y)| m.max((x - y).abs() / (1.0 + y.abs())))
}

/// `J ξ` against central differences of `step` along every tangent direction (from projected
/// perturbed states) and every input.
fn check_against_differences<
    Sys,
    Meth,
    const N: usize,
    const M: usize,
    const K: usize,
    const U: usize,
    const D: usize,
>(
    label: &str,
    sys: Sys,
    state: State<N>,
    h: f64,
) where
    Sys: Lagrangian<N, M, K> + spark::Inputs<N, U> + Copy + InputsMut<U>,
    Meth: Method,
{
    let mut sim = Integrator::<Sys, Meth>::new(sys, h).unwrap();
    let mut s1 = state;
    let j: StepJacobian<N, U> = sim.step_with_jacobian(&mut s1).unwrap();
    // The state advanced exactly as `step` advances it.
    let mut s2 = state;
    sim.step(&mut s2).unwrap();
    assert_eq!(s1, s2, "{label}: step_with_jacobian and step differ");

    let basis: TangentBasis<N, D> = sim.tangent_basis(&state).unwrap();
    let eps = 1e-5;
    let mut worst = 0.0f64;
    for c in 0..D {
        let (dq, dv) = (
            basis.q.column(c).into_owned(),
            basis.v.column(c).into_owned(),
        );
        let shifted = |sgn: f64| {
            let mut s = State::new(
                state.t,
                state.q + dq * (sgn * eps),
                state.v + dv * (sgn * eps),
            );
            sim.project(&mut s).unwrap();
            let mut fresh = Integrator::<Sys, Meth>::new(sys, h).unwrap();
            fresh.step(&mut s).unwrap();
            s
        };
        let (p, m) = (shifted(1.0), shifted(-1.0));
        let fd: Vec<f64> = (0..N)
            .map(|a| (p.q[a] - m.q[a]) / (2.0 * eps))
            .chain((0..N).map(|a| (p.v[a] - m.v[a]) / (2.0 * eps)))
            .collect();
        let (jq, jv) = j.apply(&dq, &dv);
        let an: Vec<f64> = jq.iter().chain(jv.iter()).copied().collect();
        worst = worst.max(rel(&an, &fd));
    }
    for k in 0..U {
        let step_with = |du: f64| {
            let mut sys2 = sys;
            sys2.set_input(k, sys.input(k) + du);
            let mut sim2 = Integrator::<Sys, Meth>::new(sys2, h).unwrap();
            let mut s = state;
            sim2.step(&mut s).unwrap();
            s
        };
        let (p, m) = (step_with(eps), step_with(-eps));
        let fd: Vec<f64> = (0..N)
            .map(|a| (p.q[a] - m.q[a]) / (2.0 * eps))
            .chain((0..N).map(|a| (p.v[a] - m.v[a]) / (2.0 * eps)))
            .collect();
        let an: Vec<f64> = (0..N)
            .map(|a| j.dq_du[(a, k)])
            .chain((0..N).map(|a| j.dv_du[(a, k)]))
            .collect();
        worst = worst.max(rel(&an, &fd));
    }
    eprintln!("{label}: max relative difference to central differences {worst:.2e}");
    assert!(worst < 1e-7, "{label}: {worst:e}");
}

/// Setting an input by index, for the tests' finite differences.
trait InputsMut<const U: usize> {
    fn input(&self, k: usize) -> f64;
    fn set_input(&mut self, k: usize, value: f64);
}

impl InputsMut<2> for Pendulum {
    fn input(&self, k: usize) -> f64 {
        [self.u, self.w][k]
    }
    fn set_input(&mut self, k: usize, value: f64) {
        *[&mut self.u, &mut self.w][k] = value;
    }
}

impl InputsMut<0> for Charged {
    fn input(&self, _: usize) -> f64 {
        unreachable!()
    }
    fn set_input(&mut self, _: usize, _: f64) {
        unreachable!()
    }
}

impl InputsMut<2> for Skate {
    fn input(&self, k: usize) -> f64 {
        [self.f, self.tau][k]
    }
    fn set_input(&mut self, k: usize, value: f64) {
        *[&mut self.f, &mut self.tau][k] = value;
    }
}

#[test]
fn jacobian_matches_central_differences_holonomic() {
    let (p, s0, h) = (pendulum(), pendulum_state(), 0.05);
    check_against_differences::<_, GaussLobatto<1>, 2, 1, 0, 2, 2>("pendulum S=1", p, s0, h);
    check_against_differences::<_, GaussLobatto<2>, 2, 1, 0, 2, 2>("pendulum S=2", p, s0, h);
    check_against_differences::<_, GaussLobatto<3>, 2, 1, 0, 2, 2>("pendulum S=3", p, s0, h);
    check_against_differences::<_, LobattoIIIAB<3>, 2, 1, 0, 2, 2>("pendulum IIIA-B S=3", p, s0, h);
    check_against_differences::<_, Emprk<2>, 2, 1, 0, 2, 2>("pendulum EMPRK S=2", p, s0, h);
    let (c, s0) = (Charged::default(), charged_state());
    check_against_differences::<_, GaussLobatto<1>, 3, 1, 0, 0, 4>("charged S=1", c, s0, h);
    check_against_differences::<_, GaussLobatto<2>, 3, 1, 0, 0, 4>("charged S=2", c, s0, h);
    check_against_differences::<_, GaussLobatto<3>, 3, 1, 0, 0, 4>("charged S=3", c, s0, h);
}

/// The holonomic step systems are block lower triangular (stage block, then end block) and
/// factored by blocks for the Jacobian, from 40 unknowns on with run-time block sizes, and
/// stage blocks of 40 unknowns or more are reordered coordinate by coordinate first (S = 2, 3
/// here); the result must not change.
#[test]
fn jacobian_matches_central_differences_block_ordered() {
    let (c, s0, h) = (
        Chain {
            u: 0.3,
            ..Chain::default()
        },
        chain_state(),
        0.05,
    );
    check_against_differences::<_, GaussLobatto<1>, 16, 8, 0, 1, 16>("chain S=1", c, s0, h);
    check_against_differences::<_, GaussLobatto<2>, 16, 8, 0, 1, 16>("chain S=2", c, s0, h);
    check_against_differences::<_, GaussLobatto<3>, 16, 8, 0, 1, 16>("chain S=3", c, s0, h);
    check_against_differences::<_, LobattoIIIAB<3>, 16, 8, 0, 1, 16>("chain IIIA-B S=3", c, s0, h);
}

#[test]
fn jacobian_matches_central_differences_nonholonomic() {
    let (k, s0, h) = (skate(), skate_state(), 0.05);
    check_against_differences::<_, GaussLobatto<1>, 3, 0, 1, 2, 5>("skate S=1", k, s0, h);
    check_against_differences::<_, GaussLobatto<2>, 3, 0, 1, 2, 5>("skate S=2", k, s0, h);
    check_against_differences::<_, GaussLobatto<3>, 3, 0, 1, 2, 5>("skate S=3", k, s0, h);
    check_against_differences::<_, LobattoIIIAB<3>, 3, 0, 1, 2, 5>("skate IIIA-B S=3", k, s0, h);
    check_against_differences::<_, Emprk<2>, 3, 0, 1, 2, 5>("skate EMPRK S=2", k, s0, h);
    check_against_differences::<_, Emprk<3>, 3, 0, 1, 2, 5>("skate EMPRK S=3", k, s0, h);
}

/// `ω(ξ, η) = δq_ξ · δp_η − δq_η · δp_ξ` with `δp = L_vv δv + L_vq δq` at `s`.
fn omega<Sys: Lagrangian<N, M, 0>, const N: usize, const M: usize>(
    sys: &Sys,
    s: &State<N>,
    xi: (SVector<f64, N>, SVector<f64, N>),
    eta: (SVector<f64, N>, SVector<f64, N>),
) -> f64 {
    let d = sys.dynamics_jacobian(s.t, &s.q, &s.v);
    let dp = |x: &(SVector<f64, N>, SVector<f64, N>)| d.lvv * x.1 + d.lvq * x.0;
    xi.0.dot(&dp(&eta)) - eta.0.dot(&dp(&xi))
}

fn symplectic<Meth: Method>(label: &str) {
    let sys = Charged::default();
    let h = 0.1;
    let mut sim = Integrator::<Charged, Meth>::new(sys, h).unwrap();
    let s0 = charged_state();
    let t: TangentBasis<3, 4> = sim.tangent_basis(&s0).unwrap();
    let mut s1 = s0;
    let j = sim.step_with_jacobian(&mut s1).unwrap();
    let mut worst = 0.0f64;
    for a in 0..4 {
        for b in 0..4 {
            let xi = (t.q.column(a).into_owned(), t.v.column(a).into_owned());
            let eta = (t.q.column(b).into_owned(), t.v.column(b).into_owned());
            let before = omega(&sys, &s0, xi, eta);
            let after = omega(&sys, &s1, j.apply(&xi.0, &xi.1), j.apply(&eta.0, &eta.1));
            worst = worst.max((after - before).abs() / (1.0 + before.abs()));
        }
    }
    eprintln!("{label}: max |ω(Jξ, Jη) − ω(ξ, η)| / (1 + |ω(ξ, η)|) = {worst:.2e}");
    assert!(worst < 1e-12, "{label}: {worst:e}");
}

#[test]
fn the_step_is_symplectic_on_the_constraint_manifold() {
    symplectic::<GaussLobatto<1>>("charged S=1");
    symplectic::<GaussLobatto<2>>("charged S=2");
    symplectic::<GaussLobatto<3>>("charged S=3");
    symplectic::<LobattoIIIAB<2>>("charged IIIA-B S=2");
    symplectic::<LobattoIIIAB<3>>("charged IIIA-B S=3");
}

#[test]
fn linearized_nonholonomic_constraints_are_carried_to_the_end() {
    let h = 0.1;
    let mut sim = Integrator::<Skate, GaussLobatto<2>>::new(skate(), h).unwrap();
    let s0 = skate_state();
    let t: TangentBasis<3, 5> = sim.tangent_basis(&s0).unwrap();
    let mut s1 = s0;
    let j = sim.step_with_jacobian(&mut s1).unwrap();
    let sys = skate();
    let nh = sys.nonholonomic_jacobian(s1.t, &s1.q, &s1.v, &SVector::zeros());
    let mut worst = 0.0f64;
    for c in 0..5 {
        let (dq, dv) = j.apply(&t.q.column(c).into_owned(), &t.v.column(c).into_owned());
        let dk = nh.kq * dq + nh.kv * dv;
        worst = worst.max(dk[0].abs() / (1.0 + dq.norm() + dv.norm()));
    }
    eprintln!("skate: max |k_q δq1 + k_v δv1| = {worst:.2e}");
    assert!(worst < 1e-12, "{worst:e}");
}

/// `J(−h)` at the image times `J(h)` at the start, on tangent vectors.
fn round_trip<
    Sys,
    Meth,
    const N: usize,
    const M: usize,
    const K: usize,
    const U: usize,
    const D: usize,
>(
    label: &str,
    sys: Sys,
    s0: State<N>,
) where
    Sys: Lagrangian<N, M, K> + spark::Inputs<N, U> + Copy,
    Meth: Method,
{
    let h = 0.1;
    let mut forward = Integrator::<Sys, Meth>::new(sys, h).unwrap();
    let mut backward = Integrator::<Sys, Meth>::new(sys, -h).unwrap();
    let t: TangentBasis<N, D> = forward.tangent_basis(&s0).unwrap();
    let mut s1 = s0;
    let jf = forward.step_with_jacobian(&mut s1).unwrap();
    let mut s2 = s1;
    let jb = backward.step_with_jacobian(&mut s2).unwrap();
    assert!(
        rel(s2.q.as_slice(), s0.q.as_slice()) < 1e-12,
        "{label}: not back at the start"
    );
    let mut worst = 0.0f64;
    for c in 0..D {
        let (dq, dv) = (t.q.column(c).into_owned(), t.v.column(c).into_owned());
        let (aq, av) = jf.apply(&dq, &dv);
        let (bq, bv) = jb.apply(&aq, &av);
        worst = worst.max((bq - dq).amax()).max((bv - dv).amax());
    }
    eprintln!("{label}: max |J(−h) J(h) ξ − ξ| = {worst:.2e}");
    assert!(worst < 1e-12, "{label}: {worst:e}");
}

#[test]
fn symmetric_methods_invert_their_jacobian_backwards() {
    round_trip::<_, GaussLobatto<2>, 2, 1, 0, 2, 2>("pendulum S=2", pendulum(), pendulum_state());
    round_trip::<_, GaussLobatto<3>, 3, 1, 0, 0, 4>(
        "charged S=3",
        Charged::default(),
        charged_state(),
    );
    round_trip::<_, LobattoIIIAB<3>, 3, 1, 0, 0, 4>(
        "charged IIIA-B S=3",
        Charged::default(),
        charged_state(),
    );
    round_trip::<_, GaussLobatto<2>, 3, 0, 1, 2, 5>("skate S=2", skate(), skate_state());
    round_trip::<_, Emprk<2>, 3, 0, 1, 2, 5>("skate EMPRK S=2", skate(), skate_state());
}

#[test]
fn unsupported_methods_say_so_and_leave_the_state() {
    let mut sim = Integrator::<Skate, spark::LobattoIIIABIndex2<2>>::new(skate(), 0.1).unwrap();
    let mut s = skate_state();
    let before = s;
    assert!(matches!(
        sim.step_with_jacobian(&mut s),
        Err(spark::Error::Unsupported { .. })
    ));
    assert_eq!(s, before);
    let _ = SMatrix::<f64, 1, 1>::zeros();
}

spark::mechanics! {
    /// The charged particle of `Charged` in Hamiltonian form (`p = v + A(q)`,
    /// `A = w (−q2, q1, 0)`), pushed along `q1` by the input `u`.
    struct ChargedH {
        coordinates: [q1, q2, q3],
        momenta: [p1, p2, p3],
        parameters: [w = 1.3, e = 0.7],
        inputs: [u],
        hamiltonian: 0.5 * ((p1 + w * q2).powi(2) + (p2 - w * q1).powi(2) + p3.powi(2)) - e * q3,
        forces: [u, 0.0, 0.0],
        holonomic: [q1.powi(2) + q2.powi(2) + q3.powi(2) - 1.0],
    }
}

spark::mechanics! {
    /// An unconstrained oscillator whose kinetic term depends on the input (`v = H_p` does).
    struct Stiffened {
        coordinates: [x],
        momenta: [p],
        inputs: [k],
        hamiltonian: 0.5 * (1.0 + 0.3 * k) * p.powi(2) + 0.5 * (2.0 + k) * x.powi(2),
    }
}

/// `(δq, δv) → (δq, δp)` of the charged particle: `δp = δv + w (−δq2, δq1, 0)`.
fn to_momenta(w: f64, dq: &SVector<f64, 3>, dv: &SVector<f64, 3>) -> SVector<f64, 3> {
    dv + SVector::<f64, 3>::new(-w * dq[1], w * dq[0], 0.0)
}

fn hamiltonian_differences<Meth: Method>(label: &str) {
    let h = 0.05;
    let sys = ChargedH {
        u: 0.4,
        ..ChargedH::default()
    };
    let s0 = charged_state();
    let p0 = to_momenta(sys.w, &s0.q, &s0.v);
    let start = spark::hamiltonian::State::new(s0.t, s0.q, p0);
    let mut sim = Integrator::<ChargedH, Meth>::new(sys, h).unwrap();
    let mut s1 = start;
    let j = sim.step_with_jacobian(&mut s1).unwrap();
    let mut s2 = start;
    sim.step(&mut s2).unwrap();
    assert_eq!(s1, s2, "{label}: step_with_jacobian and step differ");
    // Tangent directions from the Lagrangian twin's basis, moved to momenta.
    let lag = Integrator::<Charged, Meth>::new(Charged::default(), h).unwrap();
    let basis: TangentBasis<3, 4> = lag.tangent_basis(&s0).unwrap();
    let eps = 1e-5;
    let mut worst = 0.0f64;
    for c in 0..5 {
        let (dq, dp, du) = if c < 4 {
            let dq = basis.q.column(c).into_owned();
            (
                dq,
                to_momenta(sys.w, &dq, &basis.v.column(c).into_owned()),
                0.0,
            )
        } else {
            (SVector::zeros(), SVector::zeros(), 1.0)
        };
        let shifted = |sgn: f64| {
            let mut sys2 = sys;
            sys2.u += sgn * eps * du;
            let mut sim2 = Integrator::<ChargedH, Meth>::new(sys2, h).unwrap();
            let mut s = spark::hamiltonian::State::new(
                start.t,
                start.q + dq * (sgn * eps),
                start.p + dp * (sgn * eps),
            );
            sim2.project(&mut s).unwrap();
            sim2.step(&mut s).unwrap();
            s
        };
        let (a, b) = (shifted(1.0), shifted(-1.0));
        let fd: Vec<f64> = (0..3)
            .map(|i| (a.q[i] - b.q[i]) / (2.0 * eps))
            .chain((0..3).map(|i| (a.p[i] - b.p[i]) / (2.0 * eps)))
            .collect();
        let (jq, jp) = j.apply(&dq, &dp);
        let (jq, jp) = (jq + j.dq_du.column(0) * du, jp + j.dv_du.column(0) * du);
        let an: Vec<f64> = jq.iter().chain(jp.iter()).copied().collect();
        worst = worst.max(rel(&an, &fd));
    }
    eprintln!("{label}: max relative difference to central differences {worst:.2e}");
    assert!(worst < 1e-7, "{label}: {worst:e}");
}

#[test]
fn hamiltonian_jacobian_matches_central_differences() {
    hamiltonian_differences::<GaussLobatto<1>>("charged (Hamiltonian) S=1");
    hamiltonian_differences::<GaussLobatto<2>>("charged (Hamiltonian) S=2");
    hamiltonian_differences::<GaussLobatto<3>>("charged (Hamiltonian) S=3");
    hamiltonian_differences::<LobattoIIIAB<3>>("charged (Hamiltonian) IIIA-B S=3");
    // An input in `H_p`: every direction, without constraints.
    let h = 0.1;
    let sys = Stiffened { k: 0.5 };
    let start = spark::hamiltonian::State::new(0.0, [0.7], [-0.4]);
    let mut sim = Integrator::<Stiffened, GaussLobatto<2>>::new(sys, h).unwrap();
    let mut s1 = start;
    let j = sim.step_with_jacobian(&mut s1).unwrap();
    let eps = 1e-5;
    let run = |dq: f64, dp: f64, dk: f64| {
        let mut sim2 =
            Integrator::<Stiffened, GaussLobatto<2>>::new(Stiffened { k: sys.k + dk }, h).unwrap();
        let mut s = spark::hamiltonian::State::new(0.0, [start.q[0] + dq], [start.p[0] + dp]);
        sim2.step(&mut s).unwrap();
        (s.q[0], s.p[0])
    };
    let fd = |a: (f64, f64), b: (f64, f64)| ((a.0 - b.0) / (2.0 * eps), (a.1 - b.1) / (2.0 * eps));
    let cols = [
        (
            fd(run(eps, 0.0, 0.0), run(-eps, 0.0, 0.0)),
            (j.dq_dq[(0, 0)], j.dv_dq[(0, 0)]),
        ),
        (
            fd(run(0.0, eps, 0.0), run(0.0, -eps, 0.0)),
            (j.dq_dv[(0, 0)], j.dv_dv[(0, 0)]),
        ),
        (
            fd(run(0.0, 0.0, eps), run(0.0, 0.0, -eps)),
            (j.dq_du[(0, 0)], j.dv_du[(0, 0)]),
        ),
    ];
    for (f, a) in cols {
        let d = rel(&[a.0, a.1], &[f.0, f.1]);
        assert!(d < 1e-7, "input in H_p: {a:?} vs {f:?}");
    }
}

spark::mechanics! {
    /// The thesis' two-point skate (one holonomic, one nonholonomic constraint), damped, pushed
    /// by the input `u`.
    struct TwoPointSkate {
        coordinates: [q1, q2, q3, q4],
        velocities: [v1, v2, v3, v4],
        parameters: [c = 0.4],
        inputs: [u],
        lagrangian: 0.25 * (v1.powi(2) + v2.powi(2) + v3.powi(2) + v4.powi(2)) + 0.5 * (q1 + q3),
        forces: [u, 0.0, 0.0, 0.0],
        dissipation: 0.5 * c * (v1.powi(2) + v2.powi(2)),
        holonomic: [0.5 * ((q3 - q1).powi(2) + (q4 - q2).powi(2) - 1.0)],
        nonholonomic: [-(q4 - q2) * (v1 + v3) + (q3 - q1) * (v2 + v4)],
    }
}

impl InputsMut<1> for TwoPointSkate {
    fn input(&self, _: usize) -> f64 {
        self.u
    }
    fn set_input(&mut self, _: usize, value: f64) {
        self.u = value;
    }
}

/// On this model the default (simplified) Newton iteration of the coupled step stops after two
/// iterations, leaving an error below the tolerance that varies with the start state: the
/// computed step's own derivative then differs from the exact one by about 6e-9 relative
/// (independent of the difference step; with `simplified_newton = false` the agreement is
/// 2.5e-11).
/// The coupled holonomic + nonholonomic systems of 40 unknowns or more are reordered and
/// factored within their rows' spans; the result must not change.
#[test]
fn jacobian_matches_central_differences_mixed_banded() {
    fn check<Meth: Method>(label: &str) {
        let (sys, h) = (
            NonholonomicChain {
                u: 0.3,
                ..NonholonomicChain::default()
            },
            0.05,
        );
        let mut s0 = chain_state();
        Integrator::<NonholonomicChain, Meth>::new(sys, h)
            .unwrap()
            .project(&mut s0)
            .unwrap();
        check_against_differences::<_, Meth, 16, 8, 1, 1, 15>(label, sys, s0, h);
    }
    check::<GaussLobatto<1>>("nonholonomic chain S=1");
    check::<GaussLobatto<2>>("nonholonomic chain S=2");
    check::<LobattoIIIAB<3>>("nonholonomic chain IIIA-B S=3");
    // EMPRK's system (49 and 90 unknowns) is reordered the same way (`reorder_emprk`).
    check::<Emprk<1>>("nonholonomic chain EMPRK S=1");
    check::<Emprk<2>>("nonholonomic chain EMPRK S=2");
}

#[test]
fn jacobian_matches_central_differences_mixed() {
    let sys = TwoPointSkate {
        u: 0.3,
        ..TwoPointSkate::default()
    };
    let h = 0.05;
    let mut s0 = State::new(0.0, [0.0, 0.0, 1.0, 0.0], [0.2, 0.5, -0.2, 0.5]);
    Integrator::<TwoPointSkate, GaussLobatto<1>>::new(sys, h)
        .unwrap()
        .project(&mut s0)
        .unwrap();
    check_against_differences::<_, GaussLobatto<1>, 4, 1, 1, 1, 5>(
        "two-point skate S=1",
        sys,
        s0,
        h,
    );
    check_against_differences::<_, GaussLobatto<2>, 4, 1, 1, 1, 5>(
        "two-point skate S=2",
        sys,
        s0,
        h,
    );
    check_against_differences::<_, LobattoIIIAB<3>, 4, 1, 1, 1, 5>(
        "two-point skate IIIA-B S=3",
        sys,
        s0,
        h,
    );
    check_against_differences::<_, Emprk<2>, 4, 1, 1, 1, 5>(
        "two-point skate EMPRK S=2",
        sys,
        s0,
        h,
    );
}

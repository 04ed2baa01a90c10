//! A heavy body carrying light links: the pathologies of the 50-dof floating Talos (issue 43),
//! whose trunk's momenta (~1e2) are 1e7 times its fingers' inertias and whose grippers have
//! dry friction, in three coordinates.
//!
//! - Dry friction, regularized as `f v / √(v² + ε²)` (`docs/friction.md`), is nearly a step of
//!   height `2f` within `|v| ≲ ε`. A light link stops within one step, its stage velocity's
//!   solution lies in that band, and Newton from outside it jumped between the flat sides
//!   forever: every state failed its first steps with `NoConvergence` (simplified Newton, then
//!   full Newton, 20 iterations each). Full Newton now searches along its corrections.
//! - The full-Newton stage solve bounds the accuracy it can attain by the rounding of the
//!   residual propagated through its matrix, and fails past `1e4 ×` the tolerance. Estimated
//!   with one rounding for every momentum row, the largest momentum's `ε max |p|`, a light
//!   link's row divided it by the link's inertia, and every step from a moving state failed
//!   with `SingularJacobian { phase: Stages }` though the matrix is regular and the solve
//!   accurate: each row's rounding now comes from its own terms.

use spark::{Error, GaussLobatto, Integrator, Options, State};

spark::mechanics! {
    /// A cart of 100 kg and two light hinged links on it (1e-2 kg at 1 cm, inertia 1e-6), the
    /// second held parallel to the first (a mimic joint): mass-matrix eigenvalues from 2e-6
    /// to 1e2. The first hinge has damping `d` and dry friction `fr` (`ε` = 1e-3).
    pub struct LightLinks {
        coordinates: [x, a, b],
        velocities: [vx, va, vb],
        parameters: [big = 100.0, m = 0.01, r = 0.01, i0 = 1e-6, d = 0.0, g = 9.81, fr = 0.0],
        lagrangian: 0.5 * big * vx.powi(2)
            + 0.5 * m * (vx.powi(2) + 2.0 * r * vx * va * a.cos() + r.powi(2) * va.powi(2))
            + 0.5 * i0 * va.powi(2)
            + 0.5 * m * (vx.powi(2) + 2.0 * r * vx * vb * b.cos() + r.powi(2) * vb.powi(2))
            + 0.5 * i0 * vb.powi(2)
            + m * g * r * (a.cos() + b.cos()),
        dissipation: 0.5 * d * va.powi(2) + fr * (va.powi(2) + 1e-6).sqrt(),
        holonomic: [b - a],
    }
}

/// Steps 20 states (velocities up to 2) 200 times with GL2 at h = 1e-3 and `options`; returns
/// the failures as (state, step, error).
fn failures(model: &LightLinks, options: Options) -> Vec<(usize, usize, Error)> {
    let mut out = Vec::new();
    for k in 0..20 {
        let (s, c) = ((k as f64 * 0.731).sin(), (k as f64 * 1.37).cos());
        let mut state = State::new(0.0, [0.3 * s, c, c], [2.0 * s, 2.0 * c, 2.0 * c]);
        let mut sim = Integrator::<LightLinks, GaussLobatto<2>>::new(*model, 1e-3)
            .unwrap()
            .with_options(options);
        let e0 = sim.energy(&state);
        if let Some((n, e)) = (0..200).find_map(|n| sim.step(&mut state).err().map(|e| (n, e))) {
            out.push((k, n, e));
            continue;
        }
        // Without damping and friction the energy is kept; the links stay parallel.
        if model.d == 0.0 && model.fr == 0.0 {
            let de = (sim.energy(&state) - e0).abs() / e0.abs().max(1.0);
            assert!(de < 1e-8, "state {k}: energy changed by {de:e}");
        }
        assert!(
            (state.q[1] - state.q[2]).abs() < 1e-12,
            "state {k}: {state:?}"
        );
    }
    out
}

/// Full Newton (simplified Newton off): before the per-row rounding 19 of the 20 states failed
/// their first step with `SingularJacobian { phase: Stages }`.
#[test]
fn full_newton_steps_a_heavy_body_with_light_links() {
    let full = Options {
        simplified_newton: false,
        ..Options::default()
    };
    let model = LightLinks::default();
    assert_eq!(failures(&model, full), []);
    let damped = LightLinks {
        d: 1.0,
        ..LightLinks::default()
    };
    assert_eq!(failures(&damped, full), []);
}

/// The default iteration (simplified Newton, full Newton as its fallback) with the first
/// hinge's dry friction: before the line search every one of the 20 states failed with
/// `NoConvergence { phase: Stages }` (friction 1, and 1e-2), most at their first step.
#[test]
fn default_steps_light_links_with_dry_friction() {
    for (d, fr) in [(0.0, 0.0), (0.0, 1.0), (1.0, 1.0), (0.0, 0.01), (1.0, 0.01)] {
        let model = LightLinks {
            d,
            fr,
            ..LightLinks::default()
        };
        assert_eq!(
            failures(&model, Options::default()),
            [],
            "damping {d}, friction {fr}"
        );
    }
}

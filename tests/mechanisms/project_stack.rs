//! The stack of the calls a user makes on a large model besides `step`: `project`,
//! `multipliers`, `constraint_residual` and `energy` use the sparse factors the step uses
//! (`Lagrangian::SPARSE_SADDLE`), so projecting a 3D chain and stepping it takes about the stack
//! of the step alone (measured by painting the stack, optimized x86-64 builds); `tangent_basis`,
//! whose result is dense, stays within its estimate and is refused above the stack limit.

include!("../../examples/models/chain3d.rs");

chain!(PChain10, 10);
chain!(PChain40, 40);

/// A straight chain of `n` links 0.3 rad from the downward vertical, slightly off its
/// constraints (every coordinate 1 % too far out) and moving off the tangent space.
fn perturbed<const D: usize>(n: usize) -> spark::State<D> {
    let mut q = [0.0; D];
    let mut v = [0.0; D];
    for i in 0..n {
        let r = 1.01 * (i as f64 + 1.0);
        q[i] = r * 0.3f64.sin();
        q[2 * n + i] = -r * 0.3f64.cos();
        v[n + i] = 0.1;
        v[2 * n + i] = 0.05;
    }
    spark::State::new(0.0, q, v)
}

#[cfg(all(target_arch = "x86_64", not(debug_assertions)))]
mod bound {
    use super::*;
    use spark::{GaussLobatto, Integrator, Lagrangian};

    include!("../../examples/models/stack.rs");

    /// Stack bytes of `project` then 200 steps, of 200 steps alone (from the projected state),
    /// and of `multipliers`, `energy` and `constraint_residual`, of the chain `Sys` with `D`
    /// coordinates and `M` constraints.
    fn measure_chain<Sys, const D: usize, const M: usize>(n: usize) -> (usize, usize, usize)
    where
        Sys: Lagrangian<D, M> + Default + Copy,
    {
        let mut sim = Integrator::<Sys, GaussLobatto<2>>::new(Sys::default(), 0.01).unwrap();
        let s0 = perturbed::<D>(n);
        let mut projected = s0;
        let both = stack::measure(&mut || {
            let mut s = s0;
            sim.project(&mut s).unwrap();
            for _ in 0..200 {
                sim.step(&mut s).unwrap();
            }
            let (g, w) = sim.constraint_residual(&s);
            assert!(g < 1e-10 && w < 1e-10, "{g:e} {w:e}");
            projected = std::hint::black_box(s);
        });
        let mut start = s0;
        sim.project(&mut start).unwrap();
        let steps = stack::measure(&mut || {
            let mut s = start;
            for _ in 0..200 {
                sim.step(&mut s).unwrap();
            }
            std::hint::black_box(s);
        });
        let others = stack::measure(&mut || {
            let m = sim.multipliers(&projected).unwrap();
            std::hint::black_box(m);
            std::hint::black_box(sim.energy(&projected));
            std::hint::black_box(sim.constraint_residual(&projected));
        });
        eprintln!(
            "3D chain, {n} masses: project + 200 steps {:.1} KiB, 200 steps {:.1} KiB, multipliers + energy + residual {:.1} KiB",
            both as f64 / 1024.0,
            steps as f64 / 1024.0,
            others as f64 / 1024.0
        );
        (both, steps, others)
    }

    /// Stack bytes of `tangent_basis` on the projected chain `Sys`, and its estimate.
    fn measure_tangent<Sys, const N: usize, const M: usize, const D: usize>(
        n: usize,
    ) -> (usize, usize)
    where
        Sys: Lagrangian<N, M> + Default + Copy,
    {
        let sim = Integrator::<Sys, GaussLobatto<2>>::new(Sys::default(), 0.01).unwrap();
        let mut s = perturbed::<N>(n);
        sim.project(&mut s).unwrap();
        let used = stack::measure(&mut || {
            let t = sim.tangent_basis::<N, M, 0, D>(&s).unwrap();
            std::hint::black_box(t);
        });
        let estimate = sim.tangent_basis_stack_estimate::<N, M, 0, D>();
        eprintln!(
            "3D chain, {n} masses: tangent_basis {:.1} KiB, estimate {:.1} KiB",
            used as f64 / 1024.0,
            estimate as f64 / 1024.0
        );
        (used, estimate)
    }

    #[test]
    fn the_tangent_basis_stack_is_within_its_estimate() {
        let rows = std::thread::Builder::new()
            .stack_size(4 * stack::DEPTH)
            .spawn(|| {
                [
                    measure_tangent::<PChain10, 30, 10, 40>(10),
                    measure_tangent::<PChain40, 120, 40, 160>(40),
                ]
            })
            .unwrap()
            .join()
            .unwrap();
        for (used, estimate) in rows {
            // The estimate bounds the call and is not more than twice what it takes.
            assert!(used <= estimate, "{used} bytes used, {estimate} estimated");
            assert!(
                estimate <= 2 * used,
                "{used} bytes used, {estimate} estimated"
            );
        }
    }

    #[test]
    fn projecting_a_large_chain_takes_about_the_stack_of_its_step() {
        let rows = std::thread::Builder::new()
            .stack_size(4 * stack::DEPTH)
            .spawn(|| {
                [
                    measure_chain::<PChain10, 30, 10>(10),
                    measure_chain::<PChain40, 120, 40>(40),
                ]
            })
            .unwrap()
            .join()
            .unwrap();
        for (both, steps, others) in rows {
            // `project` adds at most a quarter to the step's own stack, and the other calls
            // take at most as much as a step.
            assert!(
                4 * both <= 5 * steps,
                "project + steps {both} bytes against {steps} for the steps"
            );
            assert!(
                others <= steps,
                "multipliers, energy, residual {others} bytes against {steps} for the steps"
            );
        }
        // A sparse model's step stack grows linearly: 4 times the masses, at most 6 times the
        // stack (measured 4.3; an `N × N` matrix in the step's frame made it 22).
        let (small, large) = (rows[0].1, rows[1].1);
        assert!(
            large <= 6 * small,
            "200 steps: {small} bytes at 10 masses, {large} at 40"
        );
    }
}

/// Below the tangent basis' stack estimate the call is refused with `StackTooLarge`.
#[test]
fn a_tangent_basis_above_the_stack_limit_is_refused() {
    let sim = spark::Integrator::<PChain10, spark::GaussLobatto<2>>::new(PChain10::default(), 0.01)
        .unwrap();
    let need = sim.tangent_basis_stack_estimate::<30, 10, 0, 40>();
    let sim = sim.with_options(spark::Options {
        jacobian_stack_limit: need - 1,
        ..spark::Options::default()
    });
    let mut s = perturbed::<30>(10);
    sim.project(&mut s).unwrap();
    match sim.tangent_basis::<30, 10, 0, 40>(&s) {
        Err(spark::Error::StackTooLarge {
            call: "tangent_basis",
            estimate,
            limit,
        }) => assert_eq!((estimate, limit), (need, need - 1)),
        other => panic!("expected StackTooLarge, got {:?}", other.map(|_| ())),
    }
}

/// The projected 40-mass chain is consistent and steps, in a thread with the default 2 MiB stack.
#[test]
fn a_large_chain_projects_and_steps_on_a_default_thread() {
    std::thread::spawn(|| {
        let mut sim =
            spark::Integrator::<PChain40, spark::GaussLobatto<2>>::new(PChain40::default(), 0.01)
                .unwrap();
        let mut s = perturbed::<120>(40);
        sim.project(&mut s).unwrap();
        let (g, w) = sim.constraint_residual(&s);
        assert!(g < 1e-12 && w < 1e-12, "{g:e} {w:e}");
        for _ in 0..10 {
            sim.step(&mut s).unwrap();
        }
        assert!(sim.multipliers(&s).is_ok());
    })
    .join()
    .unwrap();
}

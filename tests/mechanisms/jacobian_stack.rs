//! The step Jacobian's stack: `Integrator::jacobian_stack_estimate` bounds what
//! `step_with_jacobian` takes (measured by painting the stack, on optimized x86-64 builds), and
//! a model whose estimate exceeds `Options::jacobian_stack_limit` is refused with
//! `Error::JacobianTooLarge`, its state unchanged, instead of overflowing the stack.

use spark::{Error, GaussLobatto, Integrator, Options, State};

include!("../../examples/models/chain3d.rs");

chain!(Chain40, 40);

/// A straight chain of `n` links 0.3 rad from the downward vertical, at rest.
fn start<const D: usize>(n: usize) -> State<D> {
    let mut q = [0.0; D];
    for i in 0..n {
        let r = i as f64 + 1.0;
        q[i] = r * 0.3f64.sin();
        q[2 * n + i] = -r * 0.3f64.cos();
    }
    State::new(0.0, q, [0.0; D])
}

/// Options that let every Jacobian run (the threads below have the stack for them).
const UNLIMITED: Options = Options {
    jacobian_stack_limit: usize::MAX,
    ..Options::DEFAULT
};

/// Frames differ between optimized and debug builds and between targets; the estimate is for
/// optimized builds, and the painting helper for x86-64.
#[cfg(all(target_arch = "x86_64", not(debug_assertions)))]
mod bound {
    use super::*;
    use spark::{hamiltonian, Emprk, Linearize, Method, Model};

    include!("../../examples/models/stack.rs");

    chain!(Chain5, 5);
    chain!(Chain10, 10);

    /// The 3D chain in Hamiltonian form (the DAE path of the Jacobian).
    macro_rules! hamiltonian_chain {
        ($name:ident, $n:literal) => {
            spark::mechanics! {
                const N: usize = $n;
                fn norm2(a: f64, b: f64, c: f64) -> f64 { a.powi(2) + b.powi(2) + c.powi(2) }
                pub struct $name {
                    coordinates: [x[N], y[N], z[N]],
                    momenta: [px[N], py[N], pz[N]],
                    parameters: [g = 9.81],
                    hamiltonian: (0..N).map(|i| 0.5 * norm2(px[i], py[i], pz[i]) + g * z[i]).sum::<f64>(),
                    holonomic: [
                        norm2(x[0], y[0], z[0]) - 1.0,
                        for i in 1..N { norm2(x[i] - x[i - 1], y[i] - y[i - 1], z[i] - z[i - 1]) - 1.0 },
                    ],
                }
            }
        };
    }
    hamiltonian_chain!(HChain5, 5);
    hamiltonian_chain!(HChain10, 10);

    // The 3D chain whose last mass may not turn about the vertical axis (`x vy − y vx = 0`):
    // the coupled holonomic + nonholonomic path, and EMPRK's.
    chain!(NChain5, 5, nonholonomic: [x[N - 1] * vy[N - 1] - y[N - 1] * vx[N - 1]],);
    chain!(NChain10, 10, nonholonomic: [x[N - 1] * vy[N - 1] - y[N - 1] * vx[N - 1]],);

    /// Measured stack and estimate of one step Jacobian from `s0`, any state kind.
    fn measured<Sys, Meth, St, const D: usize, const M: usize, const K: usize>(
        sys: Sys,
        s0: St,
    ) -> (usize, usize)
    where
        Sys: Model,
        Meth: Method,
        St: Linearize<Sys, D, M, K, 0> + Copy + std::fmt::Debug,
    {
        let mut sim = Integrator::<Sys, Meth>::new(sys, 0.01)
            .unwrap()
            .with_options(UNLIMITED);
        let estimate = sim.jacobian_stack_estimate(&s0);
        let used = stack::measure(&mut || {
            let mut s = s0;
            let result = sim.step_with_jacobian(&mut s);
            assert!(result.is_ok(), "{result:?}");
            std::hint::black_box(result.ok());
        });
        (used, estimate)
    }

    /// The Hamiltonian chain's start: the Lagrangian one's, with `p = v` (unit masses).
    fn momenta<const D: usize>(s: State<D>) -> hamiltonian::State<D> {
        hamiltonian::State::new(s.t, s.q, s.v)
    }

    fn all_paths<const S: usize>(out: &mut Vec<(String, usize, usize)>) {
        let mut add = |name: &str, (used, estimate): (usize, usize)| {
            out.push((format!("{name} S={S}"), used, estimate));
        };
        add(
            "3D chain, 5 masses",
            measured::<_, GaussLobatto<S>, _, 15, 5, 0>(Chain5::default(), start(5)),
        );
        add(
            "3D chain, 10 masses",
            measured::<_, GaussLobatto<S>, _, 30, 10, 0>(Chain10::default(), start(10)),
        );
        add(
            "Hamiltonian 3D chain, 5 masses",
            measured::<_, GaussLobatto<S>, _, 15, 5, 0>(HChain5::default(), momenta(start(5))),
        );
        add(
            "Hamiltonian 3D chain, 10 masses",
            measured::<_, GaussLobatto<S>, _, 30, 10, 0>(HChain10::default(), momenta(start(10))),
        );
        add(
            "nonholonomic 3D chain, 5 masses",
            measured::<_, GaussLobatto<S>, _, 15, 5, 1>(NChain5::default(), start(5)),
        );
        add(
            "nonholonomic 3D chain, 10 masses",
            measured::<_, GaussLobatto<S>, _, 30, 10, 1>(NChain10::default(), start(10)),
        );
        add(
            "nonholonomic 3D chain, 5 masses, EMPRK",
            measured::<_, Emprk<S>, _, 15, 5, 1>(NChain5::default(), start(5)),
        );
    }

    #[test]
    fn the_estimate_bounds_the_stack_of_every_jacobian_path() {
        let rows = std::thread::Builder::new()
            .stack_size(32 << 20)
            .spawn(|| {
                let mut rows = Vec::new();
                all_paths::<1>(&mut rows);
                all_paths::<2>(&mut rows);
                all_paths::<3>(&mut rows);
                rows
            })
            .unwrap()
            .join()
            .unwrap();
        for (name, used, estimate) in &rows {
            let ratio = *estimate as f64 / *used as f64;
            eprintln!("{name}: {used} bytes used, {estimate} estimated ({ratio:.2}x)");
            assert!(
                used <= estimate,
                "{name}: {used} bytes used > {estimate} estimated"
            );
            // Not so pessimistic that it refuses models that would fit.
            assert!(ratio < 2.5, "{name}: estimate {ratio:.2}x the stack used");
        }
    }
}

/// A 3D chain of 40 masses (120 coordinates) needs several MB for its step Jacobian: refused
/// with the default limit, the state unchanged; with the limit raised, on a thread with the
/// stack for it, computed.
#[test]
fn a_jacobian_too_large_for_the_limit_is_refused_not_overflowing() {
    let run = || {
        let mut sim =
            Integrator::<Chain40, GaussLobatto<2>>::new(Chain40::default(), 0.01).unwrap();
        let mut s = start::<120>(40);
        let before = s;
        let estimate = sim.jacobian_stack_estimate(&s);
        let limit = Options::default().jacobian_stack_limit;
        assert!(estimate > limit, "{estimate} <= {limit}");
        match sim.step_with_jacobian(&mut s) {
            Err(Error::JacobianTooLarge {
                estimate: e,
                limit: l,
            }) => {
                assert_eq!((e, l), (estimate, limit));
            }
            other => panic!("expected JacobianTooLarge, got {:?}", other.map(|_| ())),
        }
        assert_eq!(s, before);
        let message = Error::JacobianTooLarge { estimate, limit }.to_string();
        assert!(message.contains("jacobian_stack_limit"), "{message}");

        let mut sim = sim.with_options(UNLIMITED);
        let j = sim.step_with_jacobian(&mut s).unwrap();
        assert!(j.is_finite());
        assert!(s.t > 0.0);
    };
    // The refusal runs in a thread with the default 2 MiB: there the Jacobian itself would
    // overflow. The computation needs its own large stack.
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(run)
        .unwrap()
        .join()
        .unwrap();
    std::thread::spawn(|| {
        let mut sim =
            Integrator::<Chain40, GaussLobatto<2>>::new(Chain40::default(), 0.01).unwrap();
        let mut s = start::<120>(40);
        assert!(matches!(
            sim.step_with_jacobian(&mut s),
            Err(Error::JacobianTooLarge { .. })
        ));
    })
    .join()
    .unwrap();
}

//! The expansion of `mechanics!` is lint-clean: this crate denies every rustc warning and
//! clippy's `all` and `pedantic` groups, and uses every DSL feature (`cargo clippy
//! --all-targets` checks it; `cargo test` runs it).
#![deny(warnings, clippy::all, clippy::pedantic)]

mod every_feature {
    spark::mechanics! {
        /// A mechanism that uses every feature of the DSL.
        #[derive(Default)]
        pub struct Everything {
            coordinates: [x, y, theta],
            velocities: [vx, vy, omega],
            parameters: [m, l, g, a, k, j],
            definitions: {
                let r2 = x.powi(2) + y.powi(2);
                let drive = 0.1 * (2.0 * PI * t).sin();
            },
            lagrangian: {
                let ke = 0.5 * m * (vx.powi(2) + vy.powi(2)) + 0.5 * j * omega.powi(2);
                let pe = m * g * y + 0.5 * k * (theta - drive).powi(2)
                    + a * sqrt(r2 + 1.0) + exp(-r2) + ln(2.0 + cos(theta))
                    + tan(0.1 * theta) + asin(0.5 * theta.sin()) + acos(0.5 * theta.cos())
                    + atan(x) + atan2(y, 2.0 + x.powi(2)) + y.atan2(3.0)
                    + sinh(0.1 * x) + cosh(0.1 * y) + tanh(theta)
                    + (1.0 + x.powi(2)).powf(0.5 + 0.1 * y) + x.powi(-2) * 0.0
                    + core::f64::consts::PI * theta - 3 * x / (1.0 + r2);
                ke - pe
            },
            holonomic: [r2 - (l + 0.1 * t).powi(2)],
        }
    }

    spark::mechanics! {
        /// A private model with defaults, no constraint and no definitions.
        struct Oscillator {
            coordinates: [q],
            velocities: [v],
            parameters: [m = 1.0, k = 4.0],
            lagrangian: 0.5 * m * v.powi(2) - 0.5 * k * q.powi(2),
        }
    }

    pub fn oscillator_energy() -> f64 {
        use spark::{GaussLobatto, Integrator, State};
        let mut sim = Integrator::<Oscillator, GaussLobatto<2>>::new(Oscillator::default(), 0.01)
            .expect("valid step size");
        let mut s = State::new(0.0, [1.0], [0.0]);
        sim.step(&mut s).expect("one step");
        sim.energy(&s)
    }
}

use every_feature::Everything;
use spark::{GaussLobatto, Integrator, State};

#[test]
fn every_feature_expands_and_runs() {
    let sys = Everything {
        m: 1.0,
        l: 1.5,
        g: 9.81,
        a: -0.5,
        k: 1.0,
        j: 2.0,
    };
    assert_eq!(Everything::COORDINATES, 3);
    assert_eq!(Everything::HOLONOMIC_CONSTRAINTS, 1);
    assert_eq!(Everything::PARAMETERS, 6);
    assert_eq!(Everything::COORDINATE_NAMES, ["x", "y", "theta"]);
    assert_eq!(Everything::VELOCITY_NAMES, ["vx", "vy", "omega"]);
    let sim = Integrator::<Everything, GaussLobatto<2>>::new(sys, 0.01).expect("valid");
    let s = State::new(0.0, [1.5, 0.0, 0.5], [0.0, 0.0, 0.0]);
    // On the constraint (`r = l` at `t = 0`); the support moves, so `g_t + G v` is not zero.
    let (g, _) = sim.constraint_residual(&s);
    assert!(g < 1e-12);
    assert!(sim.energy(&s).is_finite());
    assert!((every_feature::oscillator_energy() - 2.0).abs() < 1e-9);
}

mod other_forms {
    spark::mechanics! {
        /// A Hamiltonian model: the charged particle on a sphere.
        pub struct Particle {
            coordinates: [q1, q2, q3],
            momenta: [p1, p2, p3],
            parameters: [m = 1.0, w = 1.0, r = 1.0, e = 1.0],
            hamiltonian: ((p1 + m * w * q2).powi(2) + (p2 - m * w * q1).powi(2) + p3.powi(2))
                / (2.0 * m)
                - e * q3,
            holonomic: [(q1.powi(2) + q2.powi(2) + q3.powi(2)).sqrt() - r],
        }
    }

    spark::mechanics! {
        /// A model given as the DAE (2.11).
        pub struct Dae {
            coordinates: [y1, y2],
            variables: [z1, z2],
            multipliers: [lam],
            v: [2.0 * z1, -z2],
            p: [z1, z2],
            f: [2.0 * y1 * y2 * z1 * z2 - y1 * z1 * z2, z1 - y1 * z2.powi(3)],
            r: [y1 * y2 * lam.powi(2), -y1.sqrt() * lam],
            holonomic: [y1 * y2.powi(2) - 1.0],
        }
    }

    spark::mechanics! {
        /// An open system in Lagrangian form: inputs, forces, dissipation, constraints of both
        /// kinds.
        pub struct Driven {
            coordinates: [x, y, phi],
            velocities: [vx, vy, om],
            parameters: [m = 1.0, c = 0.2, d = 0.1],
            inputs: [thrust, torque],
            definitions: {
                let heading = phi.cos();
            },
            lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2) + om.powi(2)) - thrust * 0.0 * vx,
            forces: [thrust * heading, thrust * phi.sin(), torque],
            dissipation: 0.5 * c * (vx.powi(2) + vy.powi(2)) + 0.5 * d * om.powi(2),
            nonholonomic: [vx * phi.sin() - vy * phi.cos()],
        }
    }

    spark::mechanics! {
        /// An open system in Hamiltonian form.
        pub struct DrivenH {
            coordinates: [q],
            momenta: [p],
            parameters: [c = 0.2],
            inputs: [u],
            hamiltonian: 0.5 * (p.powi(2) + q.powi(2)),
            forces: [u - c * p],
        }
    }

    spark::mechanics! {
        /// An open system in DAE form.
        pub struct DrivenDae {
            coordinates: [y1],
            variables: [z1],
            multipliers: [],
            inputs: [u],
            v: [z1],
            p: [z1],
            f: [-y1],
            r: [0.0],
            forces: [u],
        }
    }

    #[test]
    fn other_forms_expand_lint_free() {
        assert_eq!(Particle::COORDINATES, 3);
        assert_eq!(Dae::HOLONOMIC_CONSTRAINTS, 1);
        assert_eq!(Driven::INPUT_NAMES, ["thrust", "torque"]);
        assert_eq!((DrivenH::INPUTS, DrivenDae::INPUTS), (1, 1));
    }
}

mod arrays {
    spark::mechanics! {
        const N: usize = 3;
        /// Squared length.
        fn norm2(a: f64, b: f64) -> f64 { a.powi(2) + b.powi(2) }
        /// A planar chain written with arrays, loops, constants, helpers and parameter arrays.
        pub struct ArrayChain {
            coordinates: [x[N], y[N]],
            velocities: [vx[N], vy[N]],
            parameters: [m[N] = 1.0, l[N], g = 9.81, c = 0.1],
            lagrangian: (0..N).map(|i| m[i] * (0.5 * norm2(vx[i], vy[i]) - g * y[i])).sum::<f64>(),
            dissipation: 0.5 * c * (0..N).map(|i| norm2(vx[i], vy[i])).sum::<f64>(),
            holonomic: [
                x[0].hypot(y[0]) - l[0],
                for i in 1..N { hypot(x[i] - x[i - 1], y[i] - y[i - 1]) - l[i] },
            ],
        }
    }

    #[test]
    fn arrays_expand_lint_free() {
        assert_eq!(ArrayChain::PARAMETERS, 8);
        assert_eq!(ArrayChain::COORDINATE_NAMES[3], "y[0]");
    }
}

mod helpers_as_items {
    spark::mechanics! {
        /// A helper whose `let` shadows its own parameter.
        fn pot(x: f64, y: f64) -> f64 { let x = x * 2.0; x.powi(2) + y.powi(2) }
        /// A helper parameter named `t`, like the time.
        fn at(t: f64) -> f64 { t * 2.0 }
        /// Helpers called with swapped arguments and one written after the struct; an integer
        /// parameter default.
        pub struct Hygienic {
            coordinates: [x, y],
            velocities: [vx, vy],
            parameters: [j = 2],
            lagrangian: 0.5 * j * (vx.powi(2) + vy.powi(2)) - pot(y, x) - at(t) * later(x),
        }
        /// Written after the struct, as Rust items may be.
        fn later(a: f64) -> f64 { a }
    }

    #[test]
    fn helpers_as_items_expand_lint_free() {
        use spark::nalgebra::SVector;
        use spark::Lagrangian;
        // At (x, y) = (1, 3), t = 0.5, v = 0: L = -(pot(3, 1) + at(0.5) * later(1)) = -(36 + 1 + 1).
        let l = Hygienic::default().lagrangian(
            0.5,
            &SVector::from([1.0, 3.0]),
            &SVector::from([0.0, 0.0]),
        );
        assert!((l + 38.0).abs() < 1e-12, "{l}");
        assert!((Hygienic::default().j - 2.0).abs() < 1e-15);
    }
}

mod file_names {
    spark::mechanics! {
        /// Joints named in upper case (`FL_HAA`): the inputs keep the file's spelling.
        pub struct UpperCase {
            urdf: "tests/models/upper_case.urdf",
            actuated: all,
        }
    }

    #[test]
    fn upper_case_joint_names_expand_lint_free() {
        assert_eq!(UpperCase::INPUT_NAMES, ["tau_FL_HAA", "tau_FL_HFE"]);
        let arm = UpperCase {
            tau_FL_HAA: 1.5,
            ..UpperCase::default()
        };
        assert!((arm.tau_FL_HAA - 1.5).abs() < 1e-15 && arm.tau_FL_HFE == 0.0);
        assert_eq!(UpperCase::JOINT_LAYOUT[1].name, "FL_HFE");
    }
}

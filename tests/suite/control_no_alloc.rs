//! Every control call allocates nothing (issue 31): the suite's counting global allocator (`no_alloc.rs`) watches the
//! DARE, iLQR iterations, the KKT check, NMPC periods and EKF steps.

use crate::no_alloc::watched;
use spark::control::cost::Quadratic;
use spark::control::ekf::Ekf;
use spark::control::ilqr::{Bounds, Ilqr, Settings};
use spark::control::lqr::dare;
use spark::control::nmpc::Nmpc;
use spark::nalgebra::{SMatrix, SVector};
use spark::{GaussLobatto, Integrator, State};

spark::mechanics! {
    struct CartPole {
        coordinates: [xc, x, y],
        velocities: [vc, vx, vy],
        parameters: [mc = 1.0, m = 0.2, l = 0.5, g = 9.81, c = 0.4],
        inputs: [u],
        lagrangian: 0.5 * mc * vc.powi(2) + 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y,
        forces: [u, 0.0, 0.0],
        dissipation: 0.5 * c * vc.powi(2),
        holonomic: [(x - xc).powi(2) + y.powi(2) - l.powi(2)],
    }
}

#[test]
fn control_calls_allocate_nothing() {
    let mut sim = Integrator::<CartPole, GaussLobatto<2>>::new(CartPole::default(), 0.02).unwrap();
    let s0 = State::new(0.0, [0.0, 0.1, (0.25f64 - 0.01).sqrt()], [0.0; 3]);
    let mut q = SMatrix::<f64, 6, 6>::identity();
    q[(0, 1)] = -0.5;
    q[(1, 0)] = -0.5;
    let cost = Quadratic::<6, 1> {
        q,
        r: SMatrix::identity() * 1e-2,
        qf: q * 10.0,
        x_ref: SVector::from([0.0, 0.0, 0.5, 0.0, 0.0, 0.0]),
        u_ref: SVector::zeros(),
    };
    let bounds = Bounds::symmetric(5.0);
    // The workspaces are the caller's: built before watching.
    let mut solver = Ilqr::<3, 1, 4, 25>::new(s0, [SVector::zeros(); 25]);
    let mut mpc = Nmpc::<3, 1, 4, 25>::new(&s0, [SVector::zeros(); 25], 1, Settings::default());
    let mut ekf = Ekf::new(&sim, &s0, &SMatrix::<f64, 4, 4>::identity()).unwrap();
    let measure = |s: &State<3>| {
        let mut hx = SMatrix::<f64, 1, 6>::zeros();
        hx[(0, 1)] = 1.0;
        (SVector::<f64, 1>::from([s.q[1]]), hx)
    };
    let (ok, n) = watched(|| {
        let a = SMatrix::<f64, 2, 2>::new(1.0, 0.1, 0.0, 1.0);
        let b = SMatrix::<f64, 2, 1>::new(0.005, 0.1);
        let lqr = dare(&a, &b, &SMatrix::identity(), &SMatrix::identity()).is_ok();
        solver.initialize(&mut sim, &cost, &bounds).unwrap();
        for _ in 0..5 {
            solver
                .iterate(&mut sim, &cost, &bounds, &Settings::default())
                .unwrap();
        }
        let kkt = solver.kkt(&cost, &bounds);
        let mut s = s0;
        for _ in 0..10 {
            let (u, _) = mpc.control(&mut sim, &cost, &bounds, &s).unwrap();
            sim.system_mut().u = u[0];
            sim.step(&mut s).unwrap();
            ekf.predict(&mut sim, &(SMatrix::identity() * 1e-8))
                .unwrap();
            ekf.update(
                &sim,
                &SVector::from([s.q[1]]),
                measure,
                &SMatrix::identity(),
            )
            .unwrap();
        }
        lqr && kkt.bound_violation == 0.0
    });
    assert!(ok);
    assert_eq!(n, 0, "control calls allocated {n} times");
}

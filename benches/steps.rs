//! Steps per second of (s,s)-Gauss-Lobatto SPARK on the pendulum and the seven-body mechanism.
//!
//! `cargo bench -p spark-examples --bench steps`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use spark::{GaussLobatto, Integrator, Method, State};

include!("../examples/models/seven_body.rs");

spark::mechanics! {
    struct Pendulum {
        coordinates: [x, y],
        velocities: [vx, vy],
        parameters: [m = 1.0, l = 1.0, g = 9.81],
        lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y,
        holonomic: [x.powi(2) + y.powi(2) - l.powi(2)],
    }
}

const STEPS: usize = 100;

fn pendulum<Meth: Method>(c: &mut Criterion, name: &str) {
    let mut group = c.benchmark_group("pendulum");
    group.throughput(Throughput::Elements(STEPS as u64));
    group.bench_function(name, |b| {
        let mut sim = Integrator::<Pendulum, Meth>::new(Pendulum::default(), 0.01).unwrap();
        b.iter(|| {
            let mut s = State::new(0.0, [1.0, 0.0], [0.0, 0.0]);
            for _ in 0..STEPS {
                sim.step(&mut s).unwrap();
            }
            s
        })
    });
    group.finish();
}

fn seven_body<Meth: Method>(c: &mut Criterion, name: &str) {
    let mut group = c.benchmark_group("seven_body");
    group.throughput(Throughput::Elements(STEPS as u64));
    group.bench_function(name, |b| {
        let mut sim = Integrator::<SevenBody, Meth>::new(SevenBody::default(), 1e-5).unwrap();
        b.iter(|| {
            let mut s = State::new(0.0, Q0, [0.0; 7]);
            for _ in 0..STEPS {
                sim.step(&mut s).unwrap();
            }
            s
        })
    });
    group.finish();
}

fn benches(c: &mut Criterion) {
    pendulum::<GaussLobatto<1>>(c, "S=1");
    pendulum::<GaussLobatto<2>>(c, "S=2");
    pendulum::<GaussLobatto<3>>(c, "S=3");
    seven_body::<GaussLobatto<1>>(c, "S=1");
    seven_body::<GaussLobatto<2>>(c, "S=2");
    seven_body::<GaussLobatto<3>>(c, "S=3");
}

criterion_group!(steps, benches);
criterion_main!(steps);

//! Stepping allocates nothing: a counting global allocator watches 1,000 steps. The allocator
//! is the suite binary's: it counts per thread and only while a test watches, so the other tests,
//! running at the same time on their own threads, are not counted (`watched` is shared with
//! `control_no_alloc`).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use spark::{Emprk, GaussLobatto, Integrator, LobattoIIIABD, LobattoIIIABIndex2, State};

struct Counting;

thread_local! {
    // Allocations are counted per thread, and only while watched: libtest's own threads and
    // the other test allocate at any time, which is not the stepping thread's doing.
    static WATCHED: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn count() {
    if WATCHED.with(Cell::get) {
        ALLOCATIONS.with(|a| a.set(a.get() + 1));
    }
}

fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

/// Runs `f` with this thread's allocations counted: its value and how many it made.
pub(crate) fn watched<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = allocations();
    WATCHED.with(|w| w.set(true));
    let out = f();
    WATCHED.with(|w| w.set(false));
    (out, allocations() - before)
}

// SAFETY: forwards to the system allocator; only counts calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

spark::mechanics! {
    struct DoublePendulum {
        coordinates: [x1, y1, x2, y2],
        velocities: [u1, w1, u2, w2],
        parameters: [g = 9.81],
        lagrangian: 0.5 * (u1.powi(2) + w1.powi(2) + u2.powi(2) + w2.powi(2)) - g * (y1 + y2),
        holonomic: [x1.powi(2) + y1.powi(2) - 1.0, (x2 - x1).powi(2) + (y2 - y1).powi(2) - 1.0],
    }
}

#[test]
fn a_thousand_steps_allocate_nothing() {
    let mut sim =
        Integrator::<DoublePendulum, GaussLobatto<3>>::new(DoublePendulum::default(), 0.01)
            .unwrap();
    let mut s = State::new(0.0, [1.0, 0.0, 1.0, -1.0], [0.0; 4]);
    sim.project(&mut s).unwrap();
    let before = allocations();
    WATCHED.with(|w| w.set(true));
    for _ in 0..1000 {
        sim.step(&mut s).unwrap();
    }
    let _ = sim.energy(&s);
    let _ = sim.constraint_residual(&s);
    WATCHED.with(|w| w.set(false));
    let after = allocations();
    assert_eq!(
        after - before,
        0,
        "stepping allocated {} times",
        after - before
    );
    assert!(s.t > 9.99);
}

spark::mechanics! {
    /// The skate of the thesis (holonomic and nonholonomic constraints).
    struct Skate {
        coordinates: [q1, q2, q3, q4],
        velocities: [v1, v2, v3, v4],
        lagrangian: 0.25 * (v1.powi(2) + v2.powi(2) + v3.powi(2) + v4.powi(2)) + 0.5 * (q1 + q3),
        holonomic: [0.5 * ((q3 - q1).powi(2) + (q4 - q2).powi(2) - 1.0)],
        nonholonomic: [-(q4 - q2) * (v1 + v3) + (q3 - q1) * (v2 + v4)],
    }
}

spark::mechanics! {
    /// The nonholonomic particle.
    struct Particle {
        coordinates: [q1, q2, q3],
        velocities: [v1, v2, v3],
        lagrangian: 0.5 * (v1.powi(2) + v2.powi(2) + v3.powi(2)) - (q1.powi(2) + q2.powi(2)),
        nonholonomic: [v3 - q2 * v1],
    }
}

/// Steps `sim` 200 times on the watched thread; returns the allocations seen.
fn watched_steps<
    Sys: spark::Lagrangian<N, M, K>,
    Meth: spark::Method,
    const N: usize,
    const M: usize,
    const K: usize,
>(
    sim: &mut Integrator<Sys, Meth>,
    s: &mut State<N>,
) -> usize {
    let before = allocations();
    WATCHED.with(|w| w.set(true));
    for _ in 0..200 {
        sim.step(s).unwrap();
    }
    WATCHED.with(|w| w.set(false));
    allocations() - before
}

#[test]
fn nonholonomic_steps_allocate_nothing() {
    let s0 = State::new(0.0, [-0.5, 0.0, 0.5, 0.0], [0.0, -0.5, 0.0, 0.5]);
    let mut s = s0;
    let mut sim = Integrator::<Skate, GaussLobatto<2>>::new(Skate::default(), 0.05).unwrap();
    assert_eq!(watched_steps(&mut sim, &mut s), 0, "GaussLobatto, mixed");
    let mut s = s0;
    let mut sim = Integrator::<Skate, Emprk<2>>::new(Skate::default(), 0.05).unwrap();
    assert_eq!(watched_steps(&mut sim, &mut s), 0, "Emprk, mixed");
    let mut s = s0;
    let mut sim = Integrator::<Skate, LobattoIIIABD<3>>::new(Skate::default(), 0.05).unwrap();
    assert_eq!(watched_steps(&mut sim, &mut s), 0, "LobattoIIIABD, mixed");
    let p0 = State::new(0.0, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
    let mut s = p0;
    let mut sim =
        Integrator::<Particle, LobattoIIIABIndex2<3>>::new(Particle::default(), 0.05).unwrap();
    assert_eq!(watched_steps(&mut sim, &mut s), 0, "LobattoIIIABIndex2");
}

#[test]
fn the_counter_sees_an_allocation_on_the_watched_thread() {
    WATCHED.with(|w| w.set(true));
    let before = allocations();
    let v = std::hint::black_box(vec![1u8; 100]);
    let after = allocations();
    WATCHED.with(|w| w.set(false));
    drop(v);
    assert!(after > before, "the counting allocator saw nothing");
}

spark::mechanics! {
    /// A cart-pole with a damped cart and a force input: a controlled model.
    struct CartPole {
        coordinates: [xc, x, y],
        velocities: [vc, vx, vy],
        parameters: [mc = 1.0, m = 0.2, g = 9.81, c = 0.4],
        inputs: [u],
        lagrangian: 0.5 * mc * vc.powi(2) + 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y,
        forces: [u, 0.0, 0.0],
        dissipation: 0.5 * c * vc.powi(2),
        holonomic: [(x - xc).powi(2) + y.powi(2) - 1.0],
    }
}

#[test]
fn stepping_with_inputs_changed_every_step_allocates_nothing() {
    let mut sim = Integrator::<CartPole, GaussLobatto<2>>::new(CartPole::default(), 0.01).unwrap();
    let mut s = State::new(0.0, [0.0, 0.2f64.sin(), 0.2f64.cos()], [0.0; 3]);
    let before = allocations();
    WATCHED.with(|w| w.set(true));
    for _ in 0..1000 {
        // A feedback law on the lean of the pole, evaluated and applied every step.
        let lean = s.q[1] - s.q[0];
        sim.system_mut().u = 30.0 * lean + 5.0 * (s.v[1] - s.v[0]) + 1.0 * s.q[0];
        sim.step(&mut s).unwrap();
    }
    let _ = sim.multipliers(&s).unwrap();
    WATCHED.with(|w| w.set(false));
    let after = allocations();
    assert_eq!(
        after - before,
        0,
        "stepping allocated {} times",
        after - before
    );
    assert!(s.t > 9.99);
}

#[test]
fn step_jacobians_and_tangent_bases_allocate_nothing() {
    let mut sim = Integrator::<CartPole, GaussLobatto<2>>::new(CartPole::default(), 0.01).unwrap();
    let mut s = State::new(0.0, [0.0, 0.2f64.sin(), 0.2f64.cos()], [0.0; 3]);
    let mut skate = Integrator::<Skate, Emprk<2>>::new(Skate::default(), 0.01).unwrap();
    let mut k = State::new(0.0, [0.0, 0.0, 1.0, 0.0], [0.2, 0.5, -0.2, 0.5]);
    skate.project(&mut k).unwrap();
    let before = allocations();
    WATCHED.with(|w| w.set(true));
    let mut trace = 0.0;
    for _ in 0..100 {
        sim.system_mut().u = -(s.q[1] - s.q[0]);
        let j = sim.step_with_jacobian(&mut s).unwrap();
        let t: spark::TangentBasis<3, 4> = sim.tangent_basis(&s).unwrap();
        let jk = skate.step_with_jacobian(&mut k).unwrap();
        trace += j.dq_dq.trace() + t.q[(0, 0)] + jk.dv_dv.trace();
    }
    WATCHED.with(|w| w.set(false));
    let after = allocations();
    assert_eq!(after - before, 0, "allocated {} times", after - before);
    assert!(trace.is_finite());
}

#[test]
fn adaptive_steps_dense_output_and_events_allocate_nothing() {
    use spark::simulate::{Direction, Event, Report};
    let o = spark::Options {
        rtol: 1e-8,
        atol: 1e-8,
        ..spark::Options::default()
    };
    let mut sim =
        Integrator::<DoublePendulum, GaussLobatto<2>>::new(DoublePendulum::default(), 0.01)
            .unwrap()
            .with_options(o);
    let mut s = State::new(0.0, [1.0, 0.0, 1.0, -1.0], [0.0; 4]);
    let outputs: [f64; 50] = core::array::from_fn(|k| 0.1 * (k + 1) as f64);
    let crossing = |s: &State<4>| s.q[2];
    let events = [Event {
        function: &crossing,
        direction: Direction::Either,
        terminal: false,
    }];
    let (mut seen_outputs, mut seen_events) = (0, 0);
    let before = allocations();
    WATCHED.with(|w| w.set(true));
    let advanced = sim.advance_to(&mut s, 1.0).unwrap();
    let simulated = sim
        .simulate(&mut s, 6.0, &outputs, &events, |r| match r {
            Report::Output(_) => seen_outputs += 1,
            Report::Event { .. } => seen_events += 1,
        })
        .unwrap();
    WATCHED.with(|w| w.set(false));
    let after = allocations();
    assert_eq!(after - before, 0, "allocated {} times", after - before);
    // The runs did work: steps taken, every output in [1, 5] reported, the lower bob crossed
    // x2 = 0.
    assert!(advanced.accepted > 10 && simulated.accepted > 10);
    assert_eq!(seen_outputs, outputs.iter().filter(|&&t| t >= 1.0).count());
    assert!(seen_events > 0, "{simulated:?}");
}

spark::mechanics! {
    /// A pendulum in Hamiltonian form.
    struct HamPendulum {
        coordinates: [x, y],
        momenta: [px, py],
        parameters: [g = 9.81],
        hamiltonian: 0.5 * (px.powi(2) + py.powi(2)) + g * y,
        holonomic: [x.powi(2) + y.powi(2) - 1.0],
    }
}

#[test]
fn hamiltonian_dense_output_and_events_allocate_nothing() {
    use spark::hamiltonian::State as HState;
    use spark::simulate::{Direction, EventOn, ReportOn};
    let o = spark::Options {
        rtol: 1e-8,
        atol: 1e-8,
        ..spark::Options::default()
    };
    let mut sim = Integrator::<HamPendulum, GaussLobatto<2>>::new(HamPendulum::default(), 0.01)
        .unwrap()
        .with_options(o);
    let mut s = HState::new(0.0, [1.0, 0.0], [0.0, 0.0]);
    let outputs: [f64; 20] = core::array::from_fn(|k| 0.1 * (k + 1) as f64);
    let below = |s: &HState<2>| s.q[0];
    let events = [EventOn {
        function: &below,
        direction: Direction::Either,
        terminal: false,
    }];
    let (mut seen_outputs, mut seen_events) = (0, 0);
    let before = allocations();
    WATCHED.with(|w| w.set(true));
    let stats = sim
        .simulate(&mut s, 2.0, &outputs, &events, |r| match r {
            ReportOn::Output(_) => seen_outputs += 1,
            ReportOn::Event { .. } => seen_events += 1,
        })
        .unwrap();
    WATCHED.with(|w| w.set(false));
    let after = allocations();
    assert_eq!(after - before, 0, "allocated {} times", after - before);
    assert_eq!(seen_outputs, outputs.len());
    assert!(stats.accepted > 5 && seen_events > 0, "{stats:?}");
}

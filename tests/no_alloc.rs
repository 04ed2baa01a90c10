//! Stepping allocates nothing: a counting global allocator watches 1,000 steps.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use spark::{GaussLobatto, Integrator, State};

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

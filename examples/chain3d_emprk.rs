//! The EMPRK method (`Emprk<2>`, Small's (s,s)-Gauss-Lobatto EMPRK, h = 0.01) on the
//! nonholonomic 3D chains of `examples/chain3d.rs` (5 and 10 masses, the last one's motion
//! about the vertical axis forbidden) and on the differential-drive robot
//! (`models/diff_drive.rs`): the time of `step` and of `step_with_jacobian` (process CPU
//! time, best of 25 runs of 100 calls) with the iterations per step, and the stack of one
//! step. A program of its own: with EMPRK and GL2 in one binary the compiler inlines the
//! models' shared functions differently, and the GL2 numbers of `chain3d` would not be those of
//! a program that uses GL2 alone.
//!
//! `RUSTFLAGS="-C target-cpu=native" cargo run --profile production -p spark-examples --example chain3d_emprk`
//!
//! With `-- steps MODEL` (`emprk5`, `emprk10`, `diff_drive_emprk`): 1000 steps of that model,
//! untimed, for a profiler; prints the iterations per step and a digest of the final state's
//! bits. `-- steps MODEL R` repeats them R times.

use spark::{Emprk, Inputs, Integrator, Lagrangian, Method, Options, State};
use std::hint::black_box;

include!("models/cpu_time.rs");
use cpu_time::process as cpu_seconds;

include!("models/stack.rs");

include!("models/chain3d.rs");

include!("models/diff_drive.rs");

include!("models/chain3d_harness.rs");

chain!(NonholonomicChain5, 5, nonholonomic: [x[N - 1] * vy[N - 1] - y[N - 1] * vx[N - 1]],);
chain!(NonholonomicChain10, 10, nonholonomic: [x[N - 1] * vy[N - 1] - y[N - 1] * vx[N - 1]],);

/// Runs [`profile_steps`] on the model `name` (see the module's doc).
fn profile(name: &str, repeats: usize) {
    match name {
        "emprk5" => {
            let (sim, s) = chain_start::<NonholonomicChain5, Emprk<2>, 15, 5, 1>(5);
            profile_steps(sim, s, repeats);
        }
        "emprk10" => {
            let (sim, s) = chain_start::<NonholonomicChain10, Emprk<2>, 30, 10, 1>(10);
            profile_steps(sim, s, repeats);
        }
        "diff_drive_emprk" => {
            let (sim, s) = diff_drive::<Emprk<2>>();
            profile_steps(sim, s, repeats);
        }
        other => panic!("unknown model {other:?}: see the module's doc"),
    }
}

fn main() {
    let request = profile_request();
    on_large_stack(move || {
        if let Some((name, repeats)) = request {
            profile(&name, repeats);
            return;
        }
        let emprk = (Emprk::<2>, ", Emprk<2>");
        jacobian(5, NonholonomicChain5::default(), emprk);
        jacobian(10, NonholonomicChain10::default(), emprk);
        let (sim, s) = diff_drive::<Emprk<2>>();
        time_steps("diff drive Emprk<2>, h = 0.01", sim, s);
    });
}

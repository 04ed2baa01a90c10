//! The integration tests of `spark` on integrators, methods, forces, control and runtime
//! errors: one module per topic, linked into one test binary (`cargo test --release --test suite
//! MODULE::` runs one topic). Each file directly under `tests/` is a crate of its own linking the
//! whole library, so the tests are two binaries, built in parallel: this one and `mechanisms`
//! (models from bodies, joints and files, which expand to the largest code). Shared helpers are
//! in `tests/common/`. `ui` (trybuild compile-fail cases) is a third binary; the counting global
//! allocator of `no_alloc` is this binary's, and counts only the thread that watches.

#[path = "../common/mod.rs"]
mod common;

mod acceleration;
mod adaptive;
mod arrays;
mod bad_inputs;
mod ball_table;
mod charged_particle;
mod control_equilibrium;
mod control_ilqr;
mod control_linearize;
mod control_lqr;
mod control_no_alloc;
mod control_riccati_qp;
mod control_sqp;
mod control_sqp_line_search;
mod control_validation;
mod double_pendulum;
mod emprk;
mod forces;
mod four_bar;
mod front_door;
mod helpers;
mod light_links;
mod lints;
mod lobatto;
mod lobatto_index2;
mod no_alloc;
mod nonholonomic;
mod nonholonomic_lobatto;
mod nonholonomic_nonlinear;
mod pendulum;
mod problem61;
mod reduced_evaluations;
mod runtime_errors;
mod seven_body;
mod sparse_saddle;
mod step_jacobian;
mod time_dependent;

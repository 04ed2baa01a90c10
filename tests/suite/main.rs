//! The integration tests of `spark`, one module per topic, linked into ONE test binary: each
//! separate file under `tests/` is its own crate linking the whole library, and 30 of them took
//! most of the test command's time. `cargo test --release --test suite MODULE::` runs one topic.
//! `ui` (trybuild compile-fail cases) stays a binary of its own; the counting global allocator of
//! `no_alloc` is this binary's, and counts only the thread that watches.

mod common;

mod acceleration;
mod adaptive;
mod arms;
mod arrays;
mod bad_inputs;
mod ball_table;
mod bicycle;
mod bicycle_bodies;
mod bodies;
mod charged_particle;
mod control_ilqr;
mod control_linearize;
mod control_lqr;
mod control_no_alloc;
mod delta;
mod double_pendulum;
mod emprk;
mod forces;
mod four_bar;
mod helpers;
mod jacobian_stack;
mod jansen;
mod large_sums;
mod lints;
mod lobatto;
mod lobatto_index2;
mod mechanism;
mod no_alloc;
mod nonholonomic;
mod nonholonomic_lobatto;
mod nonholonomic_nonlinear;
mod pendulum;
mod problem61;
mod project_stack;
mod reduced_evaluations;
mod reference_data;
mod rigid_body;
mod runtime_errors;
mod seven_body;
mod sparse_saddle;
mod step_jacobian;
mod time_dependent;

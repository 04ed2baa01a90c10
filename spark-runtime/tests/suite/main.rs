//! The runtime's integration tests, one module per topic, in ONE test binary (each separate
//! file would be a crate of its own, linking the runtime and the facade again).
//! `cargo test -p spark-runtime --test suite MODULE::` runs one topic.

mod hand_nonholonomic;
mod hand_odae;
mod hand_pendulum;
mod local_model;
mod tableau;

//! The integration tests of `spark` on mechanisms: models built from bodies and joints, read
//! from URDF and MJCF files, checked against Pinocchio and MuJoCo reference data, and the
//! largest generated models (the bicycle, the 3D chains' stack, 1000-term sums). A test binary
//! of its own so that it compiles in parallel with `suite`; `cargo test --release --test
//! mechanisms MODULE::` runs one topic.

#[path = "../common/mod.rs"]
mod common;

mod arms;
mod bicycle;
mod bicycle_bodies;
mod bodies;
mod delta;
mod floating;
mod geometry;
mod jacobian_stack;
mod jansen;
mod large_sums;
mod mechanism;
mod mjcf_features;
mod pose_jacobians;
mod project_stack;
mod reference_data;
mod rigid_body;
mod tree_factors;

//! Tests of [`super::mesh`]: readers, and agreement with MuJoCo 4.0.0 (`tests/meshes/`).

use super::mesh::*;

#[test]
fn mesh_smoke() {}

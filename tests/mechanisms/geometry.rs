//! The geometry constants of models made of bodies (`spark::geometry`, issue 42): an MJCF file
//! without geoms (the Delta: its skeleton only), a URDF with mesh visuals (the Panda), and a
//! `bodies:` mechanism (its default drawing), placed by `body_poses`.

use spark::geometry::{Geometry, Shape};
use spark::nalgebra::SVector;

use super::arms::Panda;
use super::bodies::Chain;
use super::delta::Delta;

/// Every skeleton capsule that leaves a parent's origin towards a child ends where the child's
/// first joint is, at the reference configuration: the drawing is connected.
fn assert_connected<const B: usize>(
    g: &Geometry,
    poses: &[(spark::nalgebra::Vector3<f64>, spark::nalgebra::Matrix3<f64>); B],
) {
    let world = |b: usize, p: [f64; 3]| {
        let (o, r) = &poses[b];
        let w = r * spark::nalgebra::Vector3::from(p) + o;
        [w[0], w[1], w[2]]
    };
    for (c, parent) in g.body_parents.iter().enumerate() {
        let Some(p) = *parent else { continue };
        let anchor = g
            .joints
            .iter()
            .find(|j| j.body == Some(c))
            .map_or([0.0; 3], |j| j.pose.position);
        let want = world(c, anchor);
        let ends: Vec<[f64; 3]> = g
            .skeleton
            .iter()
            .filter(|v| v.body == Some(p) && v.name == "link")
            .filter_map(|v| match v.shape {
                Shape::Capsule { half_length, .. } => {
                    Some(world(p, v.pose.apply([0.0, 0.0, half_length])))
                }
                _ => None,
            })
            .collect();
        let close = |e: &[f64; 3]| (0..3).all(|k| (e[k] - want[k]).abs() < 1e-9);
        let coincide = (0..3).all(|k| (world(p, [0.0; 3])[k] - want[k]).abs() < 1e-9);
        assert!(
            coincide || ends.iter().any(close),
            "body {} ({}): no link of its parent ends at {want:?}: {ends:?}",
            c,
            g.body_names[c]
        );
    }
}

#[test]
fn delta_from_mjcf_without_geoms_draws_its_skeleton() {
    let g = Delta::GEOMETRY;
    assert_eq!(g.body_names, Delta::BODY_NAMES);
    assert!(g.visuals.is_empty(), "delta.xml has no geoms");
    assert_eq!(g.drawing(), Delta::SKELETON);
    assert_eq!(g.joints.len(), Delta::JOINT_LAYOUT.len());
    for (f, l) in g.joints.iter().zip(Delta::JOINT_LAYOUT.iter()) {
        assert_eq!(f.name, l.name);
    }
    // A centre-of-mass sphere per body and an axis per hinge.
    let count = |n: &str| g.skeleton.iter().filter(|v| v.name == n).count();
    assert_eq!(count("com"), Delta::BODY_NAMES.len());
    assert_eq!(count("axis"), 15);
    let q = SVector::<f64, 15>::from(Delta::REFERENCE_CONFIGURATION);
    assert_connected(&g, &Delta::body_poses(&q));
}

#[test]
fn panda_from_urdf_has_its_mesh_visuals() {
    let g = Panda::GEOMETRY;
    // Nine <visual>s, each a mesh; the collision meshes are not visuals.
    assert_eq!(g.visuals.len(), 9);
    for v in g.visuals {
        let Shape::Mesh { path, scale } = v.shape else {
            panic!("a mesh: {v:?}")
        };
        assert!(path.contains("/meshes/visual/"), "{path}");
        assert_eq!(scale, [1.0; 3]);
        assert!(v.body.is_some_and(|b| b < g.body_names.len()));
    }
    assert!(g.sites.is_empty());
}

#[test]
fn bodies_mechanism_draws_its_default_drawing() {
    assert_eq!(Chain::VISUALS, Chain::SKELETON);
    let g = Chain::GEOMETRY;
    assert_eq!(g.body_names, Chain::BODY_NAMES);
    assert!(g.visuals.iter().any(|v| v.name == "com"));
    // A revolute and a prismatic joint; the fixed one has no frame.
    assert_eq!(g.joints.len(), 2);
}

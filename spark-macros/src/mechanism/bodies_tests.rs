//! Unit tests of the `bodies`/`joints` front end: values, rotations, inertia checks, and the
//! errors of whole models (through `desugar`).

use std::collections::HashSet;

use super::items::{eigenvalues, inertia_problem};
use super::tree::{self, M3};
use super::values::Values;
use crate::parse::ModelInput;

fn close(a: &M3, b: &M3) -> bool {
    (0..3).all(|i| (0..3).all(|j| (a[i][j] - b[i][j]).abs() < 1e-14))
}

fn rotation(src: &str) -> syn::Result<M3> {
    let consts: Vec<syn::ItemConst> = vec![syn::parse_str("const K: usize = 2;").unwrap()];
    let params: HashSet<String> = ["m".to_string()].into_iter().collect();
    let v = Values::new(&consts, params);
    v.rotation(&syn::parse_str(src).unwrap())
}

#[test]
fn rotations_compose_as_body_fixed_sequences() {
    let (a, b, c) = (0.3, -0.7, 1.1);
    let x = tree::axis_angle([1.0, 0.0, 0.0], a);
    let y = tree::axis_angle([0.0, 1.0, 0.0], b);
    let z = tree::axis_angle([0.0, 0.0, 1.0], c);
    let xyz = rotation("Rotation::body_fixed_xyz([0.3, -0.7, 1.1])").unwrap();
    assert!(close(&xyz, &tree::mul(&x, &tree::mul(&y, &z))));
    // URDF's rpy is the body-fixed z-y-x sequence with the angles reversed.
    let rpy = rotation("Rotation::rpy([0.3, -0.7, 1.1])").unwrap();
    let zyx = rotation("Rotation::body_fixed_zyx([1.1, -0.7, 0.3])").unwrap();
    assert!(close(&rpy, &zyx));
    let prod = rotation(
        "Rotation::axis_angle([1.0, 0.0, 0.0], 0.3) * Rotation::axis_angle([0.0, 2.0, 0.0], -0.7)",
    )
    .unwrap();
    assert!(close(&prod, &tree::mul(&x, &y)));
    // A quaternion (not normalized as written) and its matrix.
    let q = rotation("Rotation::quaternion([2.0 * (0.15).cos(), 2.0 * (0.15).sin(), 0.0, 0.0])")
        .unwrap();
    assert!(close(&q, &x));
    let half_turn = rotation("Rotation::axis_angle([0.0, 0.0, 1.0], PI / K)").unwrap();
    assert!(close(
        &half_turn,
        &tree::axis_angle([0.0, 0.0, 1.0], std::f64::consts::FRAC_PI_2)
    ));
}

#[test]
fn bad_values_are_errors() {
    let msg = |src: &str| rotation(src).unwrap_err().to_string();
    assert!(msg("Rotation::axis_angle([0.0, 0.0, 0.0], 1.0)").contains("cannot be zero"));
    assert!(msg("Rotation::axis_angle([1.0, 0.0, 0.0], m)").contains("is a parameter"));
    assert!(msg("Rotation::body_fixed_xxy([1.0, 2.0, 3.0])").contains("expected a rotation"));
    assert!(
        msg("Rotation::matrix([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]])")
            .contains("not a rotation")
    );
    assert!(msg("Rotation::axis_angle([1.0, 0.0, 0.0], nowhere)").contains("cannot find"));
    assert!(msg("Rotation::axis_angle([1.0, 0.0, 0.0], 1.0 / 0.0)").contains("not finite"));
}

#[test]
fn inertia_checks() {
    let e = eigenvalues(&[[2.0, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 5.0]]);
    let mut e = e.to_vec();
    e.sort_by(f64::total_cmp);
    for (got, want) in e.iter().zip([1.0, 3.0, 5.0]) {
        assert!((got - want).abs() < 1e-13, "{e:?}");
    }
    assert!(inertia_problem(&tree::diag([0.1, 0.2, 0.25])).is_none());
    // A thin rod: one principal moment zero.
    assert!(inertia_problem(&tree::diag([0.0, 0.2, 0.2])).is_none());
    assert!(inertia_problem(&tree::diag([0.1, -0.2, 0.25]))
        .unwrap()
        .contains("negative principal moment"));
    assert!(inertia_problem(&tree::diag([0.1, 0.1, 0.5]))
        .unwrap()
        .contains("triangle"));
    assert!(
        inertia_problem(&[[0.1, 0.01, 0.0], [0.02, 0.1, 0.0], [0.0, 0.0, 0.1]])
            .unwrap()
            .contains("symmetric")
    );
}

/// The messages of desugaring a model.
fn errors(src: &str) -> Vec<String> {
    let mut input: ModelInput = syn::parse_str(src).unwrap();
    super::desugar(&mut input);
    input.errors.iter().map(ToString::to_string).collect()
}

fn one_error(src: &str, words: &[&str]) {
    let e = errors(src);
    assert_eq!(e.len(), 1, "{e:#?}");
    for w in words {
        assert!(e[0].contains(w), "`{w}` not in {e:?}");
    }
}

#[test]
fn a_good_model_desugars_without_errors() {
    let e = errors(
        "struct M {
            bodies: { a: Body { mass: 1.0, com: [0.0, 0.0, -1.0] } },
            joints: { j: Revolute { parent: world, child: a, axis: [0.0, 1.0, 0.0] } },
        }",
    );
    assert!(e.is_empty(), "{e:?}");
}

#[test]
fn model_errors_name_the_body_or_joint() {
    one_error(
        "struct M {
            bodies: { a: Body { mass: 1.0 } },
            joints: { j: Spherical { parent: world, child: a, damping: 0.1 } },
        }",
        &["joint `j`", "no field `damping`"],
    );
    one_error(
        "struct M {
            bodies: { a: Body { mass: 1.0 } },
            joints: {
                j: Revolute { parent: world, child: a },
                k: Revolute { parent: world, child: a },
            },
        }",
        &["`a` is attached twice", "`j`", "`k`"],
    );
    one_error(
        "struct M {
            bodies: { a: Body { mass: 1.0, com: [0.0, 0.0, 0.0] } },
            joints: { j: Revolute { parent: world, child: a } },
        }",
        &["joint `j`", "mass or inertia"],
    );
    one_error(
        "struct M {
            bodies: { a: Body { mass: 1.0, com: [0.0, 0.0, -1.0] } },
            joints: { j: Revolute { parent: world, child: a } },
            mjcf: \"x.xml\",
        }",
        &["not both"],
    );
    one_error(
        "struct M {
            bodies: { a: Body { mass: 1.0, com: [0.0, 0.0, -1.0] } },
            joints: { j: Revolute { parent: world, child: a } },
            coordinates: [x],
        }",
        &["`coordinates` cannot be given"],
    );
    one_error(
        "struct M {
            bodies: { a: Body { mass: 1.0, com: [0.0, 0.0, -1.0] } },
            joints: { j: Universal { parent: world, child: a, axes: [[1.0, 0.0, 0.0], [2.0, 0.0, 0.0]] } },
        }",
        &["universal joint `j`", "not parallel"],
    );
}

#[test]
fn wheel_errors_name_the_wheel() {
    one_error(
        "struct M {
            bodies: { a: Body { mass: 1.0, inertia: [0.1, 0.2, 0.1] } },
            joints: {
                j: Free { parent: world, child: a },
                w: Wheel { body: a, radius: -0.3, axis: [0.0, 1.0, 0.0] },
            },
        }",
        &["wheel `w`", "radius must be positive"],
    );
    one_error(
        "struct M {
            bodies: { a: Body { mass: 1.0, inertia: [0.1, 0.2, 0.1] } },
            joints: {
                j: Free { parent: world, child: a },
                w: Wheel { body: a, radius: 0.3 },
            },
        }",
        &["wheel `w`", "needs its `axis`"],
    );
}

//! `Bodies::body_jacobian` against central differences of `body_poses`: for every body of a
//! model with hinges, slides, a ball and a free joint (`tests/models/mjcf_zoo.xml`), a floating
//! base with branches (`tests/models/floating_branch.urdf`) and a closed loop written with
//! `bodies:` (`examples/models/five_bar.rs`), at random configurations (unit quaternions) and
//! velocities tangent to the quaternions' norms, `J v` is the body origin's velocity and the
//! body's angular velocity `vee(Ṙ Rᵀ)`.

use spark::convert::{JointKind, JointLayout};
use spark::nalgebra::{Matrix3, SVector, Vector3};
use spark::Bodies;

use crate::floating::FloatingBranch;
use crate::mechanism::Zoo;

include!("../../examples/models/five_bar.rs");

/// A reproducible number in [−1, 1).
fn noise(seed: &mut u64) -> f64 {
    *seed = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    ((*seed >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
}

/// The quaternions' first coordinates of a joint layout.
fn quaternions(layout: &[JointLayout]) -> Vec<usize> {
    layout
        .iter()
        .filter_map(|j| match j.kind {
            JointKind::Ball => Some(j.first),
            JointKind::Free => Some(j.first + 3),
            _ => None,
        })
        .collect()
}

/// The worst difference, relative to the velocity's size, over `states` random states.
fn worst<Sys: Bodies<N>, const N: usize>(quats: &[usize], states: usize, seed: u64) -> f64 {
    let mut seed = seed;
    let mut worst = 0.0f64;
    for _ in 0..states {
        let mut q = SVector::<f64, N>::from_fn(|_, _| noise(&mut seed));
        let mut v = SVector::<f64, N>::from_fn(|_, _| 2.0 * noise(&mut seed));
        for &k in quats {
            let mut e = q.fixed_rows::<4>(k).into_owned();
            e /= e.norm();
            q.fixed_rows_mut::<4>(k).copy_from(&e);
            let mut d = v.fixed_rows::<4>(k).into_owned();
            d -= e * e.dot(&d);
            v.fixed_rows_mut::<4>(k).copy_from(&d);
        }
        let eps = 1e-6;
        let names = Sys::body_names();
        for (b, name) in names.iter().enumerate() {
            let body = Sys::body_jacobian(&q, b).unwrap();
            let pose = Sys::body_pose(&q, b).unwrap();
            assert_eq!((body.position, body.rotation), pose, "{name}");
            let (pp, rp) = Sys::body_pose(&(q + v * eps), b).unwrap();
            let (pm, rm) = Sys::body_pose(&(q - v * eps), b).unwrap();
            let pd = (pp - pm) / (2.0 * eps);
            let rd: Matrix3<f64> = (rp - rm) / (2.0 * eps);
            let w = rd * pose.1.transpose();
            let omega = Vector3::new(
                w[(2, 1)] - w[(1, 2)],
                w[(0, 2)] - w[(2, 0)],
                w[(1, 0)] - w[(0, 1)],
            ) * 0.5;
            let jv = body.jacobian * v;
            let scale = 1.0 + v.norm();
            let d = (jv.fixed_rows::<3>(0) - pd)
                .norm()
                .max((jv.fixed_rows::<3>(3) - omega).norm());
            worst = worst.max(d / scale);
        }
        assert!(Sys::body_jacobian(&q, names.len()).is_none());
        assert!(Sys::body_pose(&q, names.len()).is_none());
    }
    worst
}

#[test]
fn pose_jacobians_match_differences_of_the_poses() {
    let zoo = worst::<Zoo, 15>(&quaternions(&Zoo::JOINT_LAYOUT), 8, 1);
    let floating = worst::<FloatingBranch, { FloatingBranch::COORDINATES }>(
        &quaternions(&FloatingBranch::JOINT_LAYOUT),
        8,
        2,
    );
    let five_bar = worst::<FiveBar, 4>(&[], 8, 3);
    // Central differences at h = 1e-6: truncation 1e-12, round-off 1e-10.
    for (name, d) in [("zoo", zoo), ("floating", floating), ("five-bar", five_bar)] {
        assert!(
            d < 1e-8,
            "{name}: J v differs from the poses' rate by {d:e}"
        );
    }
}

#[test]
fn body_jacobian_tree_and_points() {
    assert_eq!(<Zoo as Bodies<15>>::body_index("c"), Some(2));
    assert_eq!(<Zoo as Bodies<15>>::body_index("nothing"), None);
    // Every velocity moves its own body; the free body's move nothing else.
    let owners = <Zoo as Bodies<15>>::velocity_bodies();
    let floating = <Zoo as Bodies<15>>::body_index("floating").unwrap();
    assert!(owners[8..].iter().all(|&b| b == floating));
    let q = SVector::<f64, 15>::from_fn(|k, _| {
        if k == 3 || k == 11 {
            1.0
        } else {
            0.1 * k as f64
        }
    });
    let a = <Zoo as Bodies<15>>::body_jacobian(&q, 0).unwrap();
    assert!(a.jacobian.columns(1, 14).iter().all(|x| *x == 0.0));
    // A point's Jacobian: the tip of the five-bar's coupler against differences.
    let q = SVector::<f64, 4>::new(0.2, -0.1, 0.3, -0.25);
    let v = SVector::<f64, 4>::new(0.5, -1.0, 0.7, 0.2);
    let tip = Vector3::new(0.0, 0.0, 0.2);
    let body = <FiveBar as Bodies<4>>::body_index("coupler_a").unwrap();
    let (p, j) = <FiveBar as Bodies<4>>::body_jacobian(&q, body)
        .unwrap()
        .point(&tip);
    let at = |q: SVector<f64, 4>| {
        let (o, r) = <FiveBar as Bodies<4>>::body_pose(&q, body).unwrap();
        o + r * tip
    };
    assert!((p - at(q)).norm() < 1e-15);
    let eps = 1e-6;
    let d = (at(q + v * eps) - at(q - v * eps)) / (2.0 * eps);
    assert!((j * v - d).norm() < 1e-9, "{}", (j * v - d).norm());
}

/// The task-space cost's gradient against central differences of its value, for position and
/// orientation tracking on the zoo's ball-jointed body `c` (Gauss–Newton keeps the gradient
/// exact), and its Hessian against differences of the gradient where the residuals vanish.
#[test]
fn task_space_cost_gradient_matches_differences() {
    use spark::control::cost::Cost;
    use spark::control::task::TaskSpace;
    use spark::nalgebra::{Rotation3, SMatrix};
    use spark::State;

    // No inputs: R is the empty matrix.
    const U: usize = 0;
    let body = <Zoo as Bodies<15>>::body_index("c").unwrap();
    let target = Rotation3::from_euler_angles(0.3, -0.2, 0.5).into_inner();
    let cost = TaskSpace::<Zoo, _, _, 15, U>::new(
        body,
        Vector3::new(0.1, -0.05, 0.2),
        |t: f64| Vector3::new(0.3 * t.cos(), 0.2, 0.1 * t),
        3.0,
        SMatrix::zeros(),
    )
    .with_orientation(move |_| target, 2.0)
    .with_velocity_weight(0.5)
    .with_terminal_scale(4.0);
    let mut seed = 7;
    let mut q = SVector::<f64, 15>::from_fn(|_, _| noise(&mut seed));
    let v = SVector::<f64, 15>::from_fn(|_, _| noise(&mut seed));
    for k in quaternions(&Zoo::JOINT_LAYOUT) {
        let e = q.fixed_rows::<4>(k).normalize();
        q.fixed_rows_mut::<4>(k).copy_from(&e);
    }
    let u = SVector::<f64, U>::zeros();
    let value = |q: &SVector<f64, 15>, v: &SVector<f64, 15>| {
        let s = State {
            t: 0.7,
            q: *q,
            v: *v,
        };
        (
            Cost::<15, U, 30>::stage(&cost, 0, &s, &u),
            Cost::<15, U, 30>::terminal(&cost, &s),
        )
    };
    let (stage, terminal) = value(&q, &v);
    assert!((terminal.value - 4.0 * stage.value).abs() < 1e-12 * stage.value);
    // Directional derivatives along directions tangent to the quaternions' norms (the
    // Jacobians hold on the manifold; off it the quadratic-form rotation is scaled).
    let quats = quaternions(&Zoo::JOINT_LAYOUT);
    let eps = 1e-6;
    let mut worst = 0.0f64;
    for _ in 0..12 {
        let mut dq = SVector::<f64, 15>::from_fn(|_, _| noise(&mut seed));
        let dv = SVector::<f64, 15>::from_fn(|_, _| noise(&mut seed));
        for &k in &quats {
            let e = q.fixed_rows::<4>(k).into_owned();
            let d = dq.fixed_rows::<4>(k) - e * e.dot(&dq.fixed_rows::<4>(k));
            dq.fixed_rows_mut::<4>(k).copy_from(&d);
        }
        let plus = value(&(q + dq * eps), &(v + dv * eps)).0.value;
        let minus = value(&(q - dq * eps), &(v - dv * eps)).0.value;
        let d = (plus - minus) / (2.0 * eps);
        let predicted =
            stage.lx.fixed_rows::<15>(0).dot(&dq) + stage.lx.fixed_rows::<15>(15).dot(&dv);
        worst = worst.max((d - predicted).abs() / (1.0 + d.abs()));
    }
    assert!(worst < 1e-7, "gradient differs by {worst:e}");
}

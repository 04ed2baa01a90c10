//! Models made of bodies (a `bodies:`/`joints:` mechanism, a URDF or an MJCF file): the world
//! pose of each body and the Jacobian of that pose, behind a trait generic code can call
//! (task-space costs, operational-space control, a viewer).
//!
//! `mechanics!` implements [`Bodies`] for every such model. The Jacobian maps the model's
//! velocities `v` to the body's world velocities, linear first (of the body frame's origin),
//! angular second: `[ṗ; ω] = J(q) v`, Pinocchio's `LOCAL_WORLD_ALIGNED` convention. It is built
//! from [`JointMotion`]s, one per velocity, that the macro emits from the same kinematic pass
//! as `body_poses`.

use nalgebra::{Matrix3, SMatrix, SVector, Vector3};

/// How one velocity moves every body after its joint, in world axes at one configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JointMotion {
    /// A rotation: the angular velocity is `axis · vₖ` about the line through `point`.
    Rotation {
        /// The angular velocity per unit `vₖ` (world).
        axis: Vector3<f64>,
        /// A point of the rotation axis (world).
        point: Vector3<f64>,
    },
    /// A translation: every point after the joint moves with `direction · vₖ` (world).
    Translation {
        /// The velocity per unit `vₖ` (world).
        direction: Vector3<f64>,
    },
}

/// A body's world pose: the body frame's origin and the rotation body → world.
pub type Pose = (Vector3<f64>, Matrix3<f64>);

/// A body's world pose at one configuration and its Jacobian (see the [module](self)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyJacobian<const N: usize> {
    /// The body frame's origin (world).
    pub position: Vector3<f64>,
    /// The rotation from the body frame to the world frame (its columns are the body's axes).
    pub rotation: Matrix3<f64>,
    /// `[ṗ; ω] = jacobian · v`: rows 0–2 the origin's velocity, rows 3–5 the angular velocity,
    /// both in world axes.
    pub jacobian: SMatrix<f64, 6, N>,
}

impl<const N: usize> BodyJacobian<N> {
    /// The world position of the point at `offset` in the body frame and the Jacobian of its
    /// velocity (`3 × N`): `ṗ + ω × (R offset)`.
    ///
    /// ```
    /// use spark_runtime::model::bodies::BodyJacobian;
    /// use spark_runtime::nalgebra::{Matrix3, SMatrix, Vector3};
    /// // A body at the origin turning about z with v₀: the point (1, 0, 0) moves along y.
    /// let mut jacobian = SMatrix::<f64, 6, 1>::zeros();
    /// jacobian[(5, 0)] = 1.0;
    /// let body = BodyJacobian { position: Vector3::zeros(), rotation: Matrix3::identity(), jacobian };
    /// let (p, j) = body.point(&Vector3::new(1.0, 0.0, 0.0));
    /// assert_eq!(p, Vector3::new(1.0, 0.0, 0.0));
    /// assert_eq!(j.column(0).into_owned(), Vector3::new(0.0, 1.0, 0.0));
    /// ```
    pub fn point(&self, offset: &Vector3<f64>) -> (Vector3<f64>, SMatrix<f64, 3, N>) {
        let arm = self.rotation * offset;
        let mut j = self.jacobian.fixed_rows::<3>(0).into_owned();
        for k in 0..N {
            let w = self.jacobian.fixed_view::<3, 1>(3, k).into_owned();
            let add = w.cross(&arm);
            for r in 0..3 {
                j[(r, k)] += add[r];
            }
        }
        (self.position + arm, j)
    }

    /// The angular rows (`3 × N`): `ω = J_ω v`.
    pub fn angular(&self) -> SMatrix<f64, 3, N> {
        self.jacobian.fixed_rows::<3>(3).into_owned()
    }
}

/// A model made of bodies with `N` velocities: its bodies' names and tree, their world poses
/// and the poses' Jacobians. Bodies are indexed in the order of the model's `BODY_NAMES`
/// (parents before children).
///
/// ```
/// use spark::Bodies;
/// use spark::nalgebra::{SVector, Vector3};
///
/// spark::mechanics! {
///     pub struct Arm {
///         bodies: {
///             upper: Body { mass: 1.0, com: [0.0, 0.0, -0.5], inertia: [0.1, 0.1, 0.01] },
///             lower: Body { mass: 1.0, com: [0.0, 0.0, -0.5], inertia: [0.1, 0.1, 0.01] },
///         },
///         joints: {
///             shoulder: Revolute { parent: world, child: upper, axis: [0.0, 1.0, 0.0] },
///             elbow: Revolute { parent: upper, child: lower, origin: [0.0, 0.0, -1.0], axis: [0.0, 1.0, 0.0] },
///         },
///     }
/// }
///
/// let lower = <Arm as Bodies<2>>::body_index("lower").unwrap();
/// let q = SVector::from([0.0, 0.0]);
/// let body = <Arm as Bodies<2>>::body_jacobian(&q, lower).unwrap();
/// assert!((body.position - Vector3::new(0.0, 0.0, -1.0)).norm() < 1e-15);
/// // A positive shoulder rate (about +y) swings the elbow, 1 m below it, along −x; the elbow's
/// // own rate does not move the lower arm's origin.
/// assert!((body.jacobian[(0, 0)] + 1.0).abs() < 1e-15);
/// assert_eq!(body.jacobian[(0, 1)], 0.0);
/// // Both rates turn the lower arm about y.
/// assert_eq!((body.jacobian[(4, 0)], body.jacobian[(4, 1)]), (1.0, 1.0));
/// assert!(<Arm as Bodies<2>>::body_jacobian(&q, 2).is_none());
/// ```
pub trait Bodies<const N: usize> {
    /// The bodies' names.
    fn body_names() -> &'static [&'static str];

    /// Each body's parent (`None`: the world).
    fn body_parents() -> &'static [Option<usize>];

    /// Per velocity, the body its joint moves (the joint's child).
    fn velocity_bodies() -> [usize; N];

    /// The world pose of body `body` at `q`: origin and rotation body → world (`None`: no such
    /// body).
    fn body_pose(q: &SVector<f64, N>, body: usize) -> Option<Pose>;

    /// Every velocity's [`JointMotion`] at `q`, and the pose of body `body` (`None`: no such
    /// body), from one kinematic pass.
    fn joint_motions(q: &SVector<f64, N>, body: usize) -> Option<([JointMotion; N], Pose)>;

    /// The index of the body named `name`.
    fn body_index(name: &str) -> Option<usize> {
        Self::body_names().iter().position(|n| *n == name)
    }

    /// The pose of body `body` at `q` and its Jacobian (`None`: no such body).
    fn body_jacobian(q: &SVector<f64, N>, body: usize) -> Option<BodyJacobian<N>> {
        let (motions, (position, rotation)) = Self::joint_motions(q, body)?;
        let owners = Self::velocity_bodies();
        let parents = Self::body_parents();
        let mut jacobian = SMatrix::<f64, 6, N>::zeros();
        for k in 0..N {
            if !is_ancestor(parents, owners[k], body) {
                continue;
            }
            let (linear, angular) = match motions[k] {
                JointMotion::Rotation { axis, point } => (axis.cross(&(position - point)), axis),
                JointMotion::Translation { direction } => (direction, Vector3::zeros()),
            };
            for r in 0..3 {
                jacobian[(r, k)] = linear[r];
                jacobian[(r + 3, k)] = angular[r];
            }
        }
        Some(BodyJacobian {
            position,
            rotation,
            jacobian,
        })
    }
}

/// Whether `a` is `b` or one of its ancestors in the tree `parents`.
fn is_ancestor(parents: &[Option<usize>], a: usize, b: usize) -> bool {
    let mut at = Some(b);
    // A tree of `parents.len()` bodies has no path longer than that.
    for _ in 0..=parents.len() {
        match at {
            Some(x) if x == a => return true,
            Some(x) => at = parents.get(x).copied().flatten(),
            None => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::is_ancestor;

    #[test]
    fn ancestry_follows_the_parents() {
        // 0 ← 1 ← 2, 0 ← 3
        let parents = [None, Some(0), Some(1), Some(0)];
        assert!(is_ancestor(&parents, 0, 2));
        assert!(is_ancestor(&parents, 2, 2));
        assert!(!is_ancestor(&parents, 3, 2));
        assert!(!is_ancestor(&parents, 2, 0));
    }
}

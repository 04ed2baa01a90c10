//! Conversions between spark's state of a model read from a file and the states of
//! Pinocchio and MuJoCo, joint by joint, from the model's `JOINT_LAYOUT` (emitted by
//! `mechanics!` for every `urdf:` and `mjcf:` model).
//!
//! spark has one velocity per coordinate: a hinge or slide joint has its angle or offset and
//! its rate; a ball joint a unit quaternion `w x y z` and its rate `q̇`; a free joint a position
//! (in the parent frame), a unit quaternion and their rates. Accelerations are `q̈`, the
//! quaternion's included (`q̈ = ½ q ⊗ (0, ω̇) − ¼ |ω|² q`).
//!
//! | joint | [`Convention::Pinocchio`] `q` / `v` / `a` | [`Convention::MuJoCo`] `qpos` / `qvel` / `qacc` |
//! |---|---|---|
//! | revolute, prismatic | the same | the same |
//! | revolute unbounded (URDF `continuous`) | `cos θ, sin θ` / `θ̇` / `θ̈` | `θ` / `θ̇` / `θ̈` |
//! | ball | `x y z w` / `ω` / `ω̇`, in the child frame | `w x y z` / `ω` / `ω̇`, in the child frame |
//! | free | `p`, `x y z w` / `Rᵀ ṗ`, `ω` / `d(Rᵀ ṗ)/dt`, `ω̇` (the body frame) | `p`, `w x y z` / `ṗ`, `ω` / `p̈`, `ω̇` (`ṗ` in the world frame, `ω` in the body's) |
//!
//! `ω` is the angular velocity of the child relative to the parent in the child's frame (a
//! free joint's: of the body, relative to the world for a root body), `R` the joint's rotation.
//! Pinocchio's free-flyer acceleration is the rate of its body-frame velocity, so
//! `a_lin = Rᵀ p̈ − ω × (Rᵀ ṗ)`.
//!
//! The joints are in the model's order: for a URDF, Pinocchio's order (`model.names[1..]`,
//! depth first, siblings in the byte order of their joints' names), for an MJCF file
//! MuJoCo's. Slices, no heap: every function checks the lengths against the layout and leaves
//! its outputs untouched on error.
//!
//! ```
//! use spark::convert::{self, Convention, JointKind, JointLayout};
//!
//! // A free body (seven coordinates) and a hinge after it.
//! const LAYOUT: [JointLayout; 2] = [
//!     JointLayout { name: "root_joint", kind: JointKind::Free, first: 0 },
//!     JointLayout { name: "hinge", kind: JointKind::Revolute, first: 7 },
//! ];
//! assert_eq!(convert::sizes(Convention::Pinocchio, &LAYOUT), (8, 7));
//! // Pinocchio's state: at (1, 2, 3), turned by 90° about z, moving along the body's x axis.
//! let h = core::f64::consts::FRAC_1_SQRT_2;
//! let q_pin = [1.0, 2.0, 3.0, 0.0, 0.0, h, h, 0.5];
//! let v_pin = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.2];
//! let (mut q, mut qd) = ([0.0; 8], [0.0; 8]);
//! convert::state_from(Convention::Pinocchio, &LAYOUT, &q_pin, &v_pin, &mut q, &mut qd).unwrap();
//! // spark: the quaternion w first; the body's x axis is the world's y axis.
//! assert_eq!(q[3..7], [h, 0.0, 0.0, h]);
//! assert!(qd[0].abs() < 1e-15 && (qd[1] - 1.0).abs() < 1e-15 && qd[7] == 0.2);
//! // And back.
//! let (mut q2, mut v2) = ([0.0; 8], [0.0; 7]);
//! convert::state_to(Convention::Pinocchio, &LAYOUT, &q, &qd, &mut q2, &mut v2).unwrap();
//! assert!(q2.iter().zip(&q_pin).all(|(a, b)| (a - b).abs() < 1e-15));
//! assert!(v2.iter().zip(&v_pin).all(|(a, b)| (a - b).abs() < 1e-15));
//! ```

use crate::math;

/// What a joint's coordinates are (see the module's table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JointKind {
    /// A hinge with one coordinate everywhere (URDF `revolute`, MJCF `hinge`).
    Revolute,
    /// A URDF `continuous` joint: one coordinate in spark and MuJoCo, `cos θ, sin θ` in
    /// Pinocchio (`JointModelRevoluteUnbounded`).
    RevoluteUnbounded,
    /// A slide (URDF `prismatic`, MJCF `slide`).
    Prismatic,
    /// A ball joint: a unit quaternion.
    Ball,
    /// A free joint: a position and a unit quaternion (URDF `floating`, `floating_base:
    /// true`, MJCF `free`).
    Free,
}

impl JointKind {
    /// Its number of coordinates in spark (and of velocities: one per coordinate).
    pub const fn spark_size(self) -> usize {
        match self {
            Self::Revolute | Self::RevoluteUnbounded | Self::Prismatic => 1,
            Self::Ball => 4,
            Self::Free => 7,
        }
    }

    /// Its numbers of coordinates and of velocities in `convention`.
    pub const fn size(self, convention: Convention) -> (usize, usize) {
        match (self, convention) {
            (Self::Revolute | Self::Prismatic, _) => (1, 1),
            (Self::RevoluteUnbounded, Convention::Pinocchio) => (2, 1),
            (Self::RevoluteUnbounded, Convention::MuJoCo) => (1, 1),
            (Self::Ball, _) => (4, 3),
            (Self::Free, _) => (7, 6),
        }
    }
}

/// One joint of a model: its name in the file, its kind and its first coordinate in spark's
/// `q`. A model's `JOINT_LAYOUT` lists every joint with coordinates, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JointLayout {
    /// The joint's name (`root_joint` for the free joint of `floating_base: true`).
    pub name: &'static str,
    /// What its coordinates are.
    pub kind: JointKind,
    /// The index of its first coordinate in spark's `q` (and velocity in `q̇`).
    pub first: usize,
}

/// Whose state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Convention {
    /// Pinocchio's `q`, `v`, `a` (the `ddq` of `aba`).
    Pinocchio,
    /// MuJoCo's `qpos`, `qvel`, `qacc`.
    MuJoCo,
}

/// Why a conversion refused its arguments.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ConvertError {
    /// A slice of the wrong length: which argument, the length the layout needs, the length
    /// given.
    Length {
        /// The argument's name.
        argument: &'static str,
        /// What the layout needs.
        expected: usize,
        /// What was given.
        found: usize,
    },
    /// A joint's quaternion is not of unit norm (within 1e-8): the velocity conversions hold
    /// on unit quaternions only.
    NotUnitQuaternion {
        /// The joint's name.
        joint: &'static str,
        /// Its norm.
        norm: f64,
    },
    /// The layout does not tile spark's coordinates (a joint's `first` is not where the
    /// previous joint ends).
    Layout {
        /// The joint's name.
        joint: &'static str,
    },
}

impl core::fmt::Display for ConvertError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Length {
                argument,
                expected,
                found,
            } => write!(
                f,
                "`{argument}` has {found} entries, the layout needs {expected}"
            ),
            Self::NotUnitQuaternion { joint, norm } => {
                write!(f, "joint `{joint}`: its quaternion has norm {norm}, not 1")
            }
            Self::Layout { joint } => write!(
                f,
                "joint `{joint}`: its first coordinate is not where the previous joint's end"
            ),
        }
    }
}

/// The sizes `(coordinates, velocities)` of a layout's state in `convention`.
pub const fn sizes(convention: Convention, layout: &[JointLayout]) -> (usize, usize) {
    let (mut nq, mut nv) = (0, 0);
    let mut i = 0;
    while i < layout.len() {
        let (a, b) = layout[i].kind.size(convention);
        nq += a;
        nv += b;
        i += 1;
    }
    (nq, nv)
}

/// The number of spark coordinates of a layout.
pub const fn spark_size(layout: &[JointLayout]) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < layout.len() {
        n += layout[i].kind.spark_size();
        i += 1;
    }
    n
}

type Quat = [f64; 4];
type V3 = [f64; 3];

/// `a ⊗ b`, w first.
fn qmul(a: Quat, b: Quat) -> Quat {
    [
        a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
        a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
        a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
        a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    ]
}

fn conj(q: Quat) -> Quat {
    [q[0], -q[1], -q[2], -q[3]]
}

/// `q̇ = ½ q ⊗ (0, ω)`.
fn rate(q: Quat, w: V3) -> Quat {
    qmul(q, [0.0, w[0], w[1], w[2]]).map(|x| 0.5 * x)
}

/// `ω = 2 vec(q̄ ⊗ q̇)`.
fn omega(q: Quat, qd: Quat) -> V3 {
    let p = qmul(conj(q), qd);
    [2.0 * p[1], 2.0 * p[2], 2.0 * p[3]]
}

/// `q̈ = ½ q ⊗ (0, ω̇) − ¼ |ω|² q`.
fn second_rate(q: Quat, w: V3, wd: V3) -> Quat {
    let a = rate(q, wd);
    let s = 0.25 * (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    [
        a[0] - s * q[0],
        a[1] - s * q[1],
        a[2] - s * q[2],
        a[3] - s * q[3],
    ]
}

/// The rotation `R` of a unit quaternion applied to `x`.
fn rotate(q: Quat, x: V3) -> V3 {
    let p = qmul(qmul(q, [0.0, x[0], x[1], x[2]]), conj(q));
    [p[1], p[2], p[3]]
}

/// `Rᵀ x`.
fn rotate_back(q: Quat, x: V3) -> V3 {
    rotate(conj(q), x)
}

fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn v3(s: &[f64]) -> V3 {
    [s[0], s[1], s[2]]
}

fn q4(s: &[f64]) -> Quat {
    [s[0], s[1], s[2], s[3]]
}

/// A quaternion stored `x y z w` (Pinocchio) or `w x y z` (MuJoCo), as `w x y z`.
fn read_quat(convention: Convention, s: &[f64]) -> Quat {
    match convention {
        Convention::Pinocchio => [s[3], s[0], s[1], s[2]],
        Convention::MuJoCo => q4(s),
    }
}

fn write_quat(convention: Convention, q: Quat, out: &mut [f64]) {
    match convention {
        Convention::Pinocchio => out[..4].copy_from_slice(&[q[1], q[2], q[3], q[0]]),
        Convention::MuJoCo => out[..4].copy_from_slice(&q),
    }
}

fn unit(joint: &JointLayout, q: Quat) -> Result<Quat, ConvertError> {
    let norm = math::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (norm - 1.0).abs() > 1e-8 || norm.is_nan() {
        return Err(ConvertError::NotUnitQuaternion {
            joint: joint.name,
            norm,
        });
    }
    Ok(q)
}

fn length(argument: &'static str, s: &[f64], expected: usize) -> Result<(), ConvertError> {
    if s.len() == expected {
        Ok(())
    } else {
        Err(ConvertError::Length {
            argument,
            expected,
            found: s.len(),
        })
    }
}

/// Checks the layout and the slices' lengths: spark's `n`, the other side's `(nq, nv)`.
fn check(
    convention: Convention,
    layout: &[JointLayout],
    spark: &[(&'static str, &[f64])],
    other_q: Option<(&'static str, &[f64])>,
    other_v: &[(&'static str, &[f64])],
) -> Result<(), ConvertError> {
    let mut n = 0;
    for j in layout {
        if j.first != n {
            return Err(ConvertError::Layout { joint: j.name });
        }
        n += j.kind.spark_size();
    }
    let (nq, nv) = sizes(convention, layout);
    for (name, s) in spark {
        length(name, s, n)?;
    }
    if let Some((name, s)) = other_q {
        length(name, s, nq)?;
    }
    for (name, s) in other_v {
        length(name, s, nv)?;
    }
    // Quaternions of unit norm.
    for j in layout {
        let at = match j.kind {
            JointKind::Ball => j.first,
            JointKind::Free => j.first + 3,
            _ => continue,
        };
        if let Some((_, q)) = spark.first().filter(|(name, _)| *name == "q") {
            unit(j, q4(&q[at..]))?;
        }
    }
    Ok(())
}

/// spark's `q`, `q̇` from another engine's coordinates and velocities (`q_ext`, `v_ext`:
/// Pinocchio's `q`, `v` or MuJoCo's `qpos`, `qvel`). Quaternions must be of unit norm.
///
/// Errors: [`ConvertError`] (lengths, layout, a quaternion's norm); `q` and `qd` are then
/// unchanged.
pub fn state_from(
    convention: Convention,
    layout: &[JointLayout],
    q_ext: &[f64],
    v_ext: &[f64],
    q: &mut [f64],
    qd: &mut [f64],
) -> Result<(), ConvertError> {
    check(
        convention,
        layout,
        &[("q (spark)", q), ("qd (spark)", qd)],
        Some(("q_ext", q_ext)),
        &[("v_ext", v_ext)],
    )?;
    // The quaternions first, so that nothing is written on error.
    let (mut iq, mut iv) = (0, 0);
    for j in layout {
        match j.kind {
            JointKind::Ball => {
                unit(j, read_quat(convention, &q_ext[iq..]))?;
            }
            JointKind::Free => {
                unit(j, read_quat(convention, &q_ext[iq + 3..]))?;
            }
            _ => {}
        }
        let (a, b) = j.kind.size(convention);
        iq += a;
        iv += b;
    }
    let _ = iv;
    let (mut iq, mut iv) = (0, 0);
    for j in layout {
        let k = j.first;
        match j.kind {
            JointKind::Revolute | JointKind::Prismatic => {
                q[k] = q_ext[iq];
                qd[k] = v_ext[iv];
            }
            JointKind::RevoluteUnbounded => {
                q[k] = match convention {
                    Convention::Pinocchio => math::atan2(q_ext[iq + 1], q_ext[iq]),
                    Convention::MuJoCo => q_ext[iq],
                };
                qd[k] = v_ext[iv];
            }
            JointKind::Ball => {
                let quat = read_quat(convention, &q_ext[iq..]);
                q[k..k + 4].copy_from_slice(&quat);
                qd[k..k + 4].copy_from_slice(&rate(quat, v3(&v_ext[iv..])));
            }
            JointKind::Free => {
                let quat = read_quat(convention, &q_ext[iq + 3..]);
                q[k..k + 3].copy_from_slice(&q_ext[iq..iq + 3]);
                q[k + 3..k + 7].copy_from_slice(&quat);
                let lin = v3(&v_ext[iv..]);
                let pd = match convention {
                    Convention::Pinocchio => rotate(quat, lin),
                    Convention::MuJoCo => lin,
                };
                qd[k..k + 3].copy_from_slice(&pd);
                qd[k + 3..k + 7].copy_from_slice(&rate(quat, v3(&v_ext[iv + 3..])));
            }
        }
        let (a, b) = j.kind.size(convention);
        iq += a;
        iv += b;
    }
    Ok(())
}

/// Another engine's coordinates and velocities (`q_ext`, `v_ext`) from spark's `q`, `q̇`.
/// Quaternions must be of unit norm; their rates are read as `q̇ = ½ q ⊗ (0, ω)` (the part
/// along `q`, zero on a consistent state, is dropped).
///
/// Errors: [`ConvertError`]; `q_ext` and `v_ext` are then unchanged.
pub fn state_to(
    convention: Convention,
    layout: &[JointLayout],
    q: &[f64],
    qd: &[f64],
    q_ext: &mut [f64],
    v_ext: &mut [f64],
) -> Result<(), ConvertError> {
    check(
        convention,
        layout,
        &[("q", q), ("qd", qd)],
        Some(("q_ext", q_ext)),
        &[("v_ext", v_ext)],
    )?;
    let (mut iq, mut iv) = (0, 0);
    for j in layout {
        let k = j.first;
        match j.kind {
            JointKind::Revolute | JointKind::Prismatic => {
                q_ext[iq] = q[k];
                v_ext[iv] = qd[k];
            }
            JointKind::RevoluteUnbounded => {
                match convention {
                    Convention::Pinocchio => {
                        let (s, c) = math::sin_cos(q[k]);
                        q_ext[iq] = c;
                        q_ext[iq + 1] = s;
                    }
                    Convention::MuJoCo => q_ext[iq] = q[k],
                }
                v_ext[iv] = qd[k];
            }
            JointKind::Ball => {
                let quat = q4(&q[k..]);
                write_quat(convention, quat, &mut q_ext[iq..]);
                v_ext[iv..iv + 3].copy_from_slice(&omega(quat, q4(&qd[k..])));
            }
            JointKind::Free => {
                let quat = q4(&q[k + 3..]);
                q_ext[iq..iq + 3].copy_from_slice(&q[k..k + 3]);
                write_quat(convention, quat, &mut q_ext[iq + 3..]);
                let pd = v3(&qd[k..]);
                let lin = match convention {
                    Convention::Pinocchio => rotate_back(quat, pd),
                    Convention::MuJoCo => pd,
                };
                v_ext[iv..iv + 3].copy_from_slice(&lin);
                v_ext[iv + 3..iv + 6].copy_from_slice(&omega(quat, q4(&qd[k + 3..])));
            }
        }
        let (a, b) = j.kind.size(convention);
        iq += a;
        iv += b;
    }
    Ok(())
}

/// spark's `q̈` from another engine's accelerations `a_ext` (Pinocchio's `a`, MuJoCo's
/// `qacc`) at spark's state `q`, `q̇`: the quaternions' second rates include their quadratic
/// term, a free joint's Pinocchio acceleration its `ω × v` term.
///
/// Errors: [`ConvertError`]; `qdd` is then unchanged.
pub fn acceleration_from(
    convention: Convention,
    layout: &[JointLayout],
    q: &[f64],
    qd: &[f64],
    a_ext: &[f64],
    qdd: &mut [f64],
) -> Result<(), ConvertError> {
    check(
        convention,
        layout,
        &[("q", q), ("qd", qd), ("qdd", qdd)],
        None,
        &[("a_ext", a_ext)],
    )?;
    let mut iv = 0;
    for j in layout {
        let k = j.first;
        match j.kind {
            JointKind::Revolute | JointKind::Prismatic | JointKind::RevoluteUnbounded => {
                qdd[k] = a_ext[iv];
            }
            JointKind::Ball => {
                let quat = q4(&q[k..]);
                let w = omega(quat, q4(&qd[k..]));
                qdd[k..k + 4].copy_from_slice(&second_rate(quat, w, v3(&a_ext[iv..])));
            }
            JointKind::Free => {
                let quat = q4(&q[k + 3..]);
                let w = omega(quat, q4(&qd[k + 3..]));
                let lin = v3(&a_ext[iv..]);
                let pdd = match convention {
                    // p̈ = R (a + ω × Rᵀ ṗ).
                    Convention::Pinocchio => {
                        let v = rotate_back(quat, v3(&qd[k..]));
                        let c = cross(w, v);
                        rotate(quat, [lin[0] + c[0], lin[1] + c[1], lin[2] + c[2]])
                    }
                    Convention::MuJoCo => lin,
                };
                qdd[k..k + 3].copy_from_slice(&pdd);
                qdd[k + 3..k + 7].copy_from_slice(&second_rate(quat, w, v3(&a_ext[iv + 3..])));
            }
        }
        iv += j.kind.size(convention).1;
    }
    Ok(())
}

/// Another engine's accelerations `a_ext` from spark's `q̈` at spark's state `q`, `q̇`: the
/// inverse of [`acceleration_from`] (`ω̇ = 2 vec(q̄ ⊗ q̈)` exactly, for a unit quaternion).
///
/// Errors: [`ConvertError`]; `a_ext` is then unchanged.
pub fn acceleration_to(
    convention: Convention,
    layout: &[JointLayout],
    q: &[f64],
    qd: &[f64],
    qdd: &[f64],
    a_ext: &mut [f64],
) -> Result<(), ConvertError> {
    check(
        convention,
        layout,
        &[("q", q), ("qd", qd), ("qdd", qdd)],
        None,
        &[("a_ext", a_ext)],
    )?;
    let mut iv = 0;
    for j in layout {
        let k = j.first;
        match j.kind {
            JointKind::Revolute | JointKind::Prismatic | JointKind::RevoluteUnbounded => {
                a_ext[iv] = qdd[k];
            }
            JointKind::Ball => {
                let quat = q4(&q[k..]);
                a_ext[iv..iv + 3].copy_from_slice(&omega(quat, q4(&qdd[k..])));
            }
            JointKind::Free => {
                let quat = q4(&q[k + 3..]);
                let w = omega(quat, q4(&qd[k + 3..]));
                let pdd = v3(&qdd[k..]);
                let lin = match convention {
                    // a = Rᵀ p̈ − ω × Rᵀ ṗ.
                    Convention::Pinocchio => {
                        let a = rotate_back(quat, pdd);
                        let c = cross(w, rotate_back(quat, v3(&qd[k..])));
                        [a[0] - c[0], a[1] - c[1], a[2] - c[2]]
                    }
                    Convention::MuJoCo => pdd,
                };
                a_ext[iv..iv + 3].copy_from_slice(&lin);
                a_ext[iv + 3..iv + 6].copy_from_slice(&omega(quat, q4(&qdd[k + 3..])));
            }
        }
        iv += j.kind.size(convention).1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const LAYOUT: [JointLayout; 5] = [
        JointLayout {
            name: "free",
            kind: JointKind::Free,
            first: 0,
        },
        JointLayout {
            name: "hinge",
            kind: JointKind::Revolute,
            first: 7,
        },
        JointLayout {
            name: "ball",
            kind: JointKind::Ball,
            first: 8,
        },
        JointLayout {
            name: "wheel",
            kind: JointKind::RevoluteUnbounded,
            first: 12,
        },
        JointLayout {
            name: "slide",
            kind: JointKind::Prismatic,
            first: 13,
        },
    ];

    fn normalized(q: Quat) -> Quat {
        let n = math::sqrt(q.iter().map(|x| x * x).sum());
        q.map(|x| x / n)
    }

    /// A spark state on the constraints (unit quaternions, `q · q̇ = 0`) and an acceleration
    /// on their second derivative.
    fn state() -> ([f64; 14], [f64; 14], [f64; 14]) {
        let qf = normalized([0.3, -0.5, 0.7, 0.2]);
        let qb = normalized([-0.6, 0.1, 0.4, 0.8]);
        let (wf, wb) = ([0.4, -1.1, 0.7], [-0.3, 0.9, 1.3]);
        let (af, ab) = ([1.5, 0.2, -0.8], [0.6, -0.4, 0.1]);
        let mut q = [0.0; 14];
        let mut qd = [0.0; 14];
        let mut qdd = [0.0; 14];
        q[..3].copy_from_slice(&[1.0, -2.0, 0.5]);
        q[3..7].copy_from_slice(&qf);
        q[7] = 0.3;
        q[8..12].copy_from_slice(&qb);
        q[12] = 2.9;
        q[13] = -0.1;
        qd[..3].copy_from_slice(&[0.2, 0.4, -0.9]);
        qd[3..7].copy_from_slice(&rate(qf, wf));
        qd[7] = -1.2;
        qd[8..12].copy_from_slice(&rate(qb, wb));
        qd[12] = 0.8;
        qd[13] = 0.05;
        qdd[..3].copy_from_slice(&[-0.3, 0.1, 9.0]);
        qdd[3..7].copy_from_slice(&second_rate(qf, wf, af));
        qdd[7] = 0.4;
        qdd[8..12].copy_from_slice(&second_rate(qb, wb, ab));
        qdd[12] = -2.0;
        qdd[13] = 0.7;
        (q, qd, qdd)
    }

    fn close(a: &[f64], b: &[f64]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-14)
    }

    #[test]
    fn round_trips() {
        let (q, qd, qdd) = state();
        for conv in [Convention::Pinocchio, Convention::MuJoCo] {
            let (nq, nv) = sizes(conv, &LAYOUT);
            assert_eq!(
                (nq, nv),
                if conv == Convention::Pinocchio {
                    (15, 12)
                } else {
                    (14, 12)
                }
            );
            let (mut qe, mut ve, mut ae) = ([0.0; 15], [0.0; 12], [0.0; 12]);
            state_to(conv, &LAYOUT, &q, &qd, &mut qe[..nq], &mut ve).unwrap();
            acceleration_to(conv, &LAYOUT, &q, &qd, &qdd, &mut ae).unwrap();
            let (mut q2, mut qd2, mut qdd2) = ([0.0; 14], [0.0; 14], [0.0; 14]);
            state_from(conv, &LAYOUT, &qe[..nq], &ve, &mut q2, &mut qd2).unwrap();
            acceleration_from(conv, &LAYOUT, &q2, &qd2, &ae, &mut qdd2).unwrap();
            assert!(
                close(&q, &q2) && close(&qd, &qd2) && close(&qdd, &qdd2),
                "{conv:?}"
            );
        }
    }

    #[test]
    fn free_joint_velocities_by_convention() {
        let (q, qd, qdd) = state();
        let quat = q4(&q[3..]);
        let (mut qm, mut vm, mut am) = ([0.0; 14], [0.0; 12], [0.0; 12]);
        state_to(Convention::MuJoCo, &LAYOUT, &q, &qd, &mut qm, &mut vm).unwrap();
        acceleration_to(Convention::MuJoCo, &LAYOUT, &q, &qd, &qdd, &mut am).unwrap();
        let (mut qp, mut vp, mut ap) = ([0.0; 15], [0.0; 12], [0.0; 12]);
        state_to(Convention::Pinocchio, &LAYOUT, &q, &qd, &mut qp, &mut vp).unwrap();
        acceleration_to(Convention::Pinocchio, &LAYOUT, &q, &qd, &qdd, &mut ap).unwrap();
        // MuJoCo: the world-frame linear velocity; Pinocchio: the body frame's.
        assert!(close(&vm[..3], &qd[..3]));
        assert!(close(&vp[..3], &rotate_back(quat, v3(&qd[..3]))));
        assert!(close(&vm[3..6], &vp[3..6]));
        assert_eq!(qp[3..7], [q[4], q[5], q[6], q[3]]);
        // Pinocchio's linear acceleration is d/dt (Rᵀ ṗ), by central differences along the
        // motion with constant p̈ and ω̇.
        let h = 1e-5;
        let body_velocity = |t: f64| {
            let w = omega(quat, q4(&qd[3..]));
            let wd = v3(&am[3..]);
            // The quaternion at t to second order, its rotation applied to ṗ(t).
            let quat_t = normalized(core::array::from_fn(|i| {
                quat[i] + t * rate(quat, w)[i] + 0.5 * t * t * second_rate(quat, w, wd)[i]
            }));
            let pd: V3 = core::array::from_fn(|i| qd[i] + t * qdd[i]);
            rotate_back(quat_t, pd)
        };
        let (p, m) = (body_velocity(h), body_velocity(-h));
        for i in 0..3 {
            assert!(((p[i] - m[i]) / (2.0 * h) - ap[i]).abs() < 1e-8, "{i}");
        }
        // The unbounded joint: cos, sin.
        let (s, c) = math::sin_cos(q[12]);
        assert!((qp[12] - c).abs() < 1e-15 && (qp[13] - s).abs() < 1e-15 && qp[14] == q[13]);
    }

    #[test]
    fn wrong_lengths_and_quaternions_are_refused() {
        let (q, qd, _) = state();
        let (mut qe, mut ve) = ([7.0; 15], [7.0; 12]);
        assert_eq!(
            state_to(Convention::MuJoCo, &LAYOUT, &q, &qd, &mut qe, &mut ve),
            Err(ConvertError::Length {
                argument: "q_ext",
                expected: 14,
                found: 15
            })
        );
        let mut bad = q;
        bad[3] *= 1.1;
        assert!(matches!(
            state_to(Convention::Pinocchio, &LAYOUT, &bad, &qd, &mut qe, &mut ve),
            Err(ConvertError::NotUnitQuaternion { joint: "free", .. })
        ));
        assert!(qe.iter().all(|x| *x == 7.0));
        let (mut q2, mut qd2) = ([7.0; 14], [7.0; 14]);
        let mut qe = [0.0; 15];
        qe[6] = 1.0; // the free joint's w (Pinocchio: x y z w)
        assert!(matches!(
            state_from(Convention::Pinocchio, &LAYOUT, &qe, &ve, &mut q2, &mut qd2),
            Err(ConvertError::NotUnitQuaternion { joint: "ball", .. })
        ));
        assert!(q2.iter().all(|x| *x == 7.0));
    }
}

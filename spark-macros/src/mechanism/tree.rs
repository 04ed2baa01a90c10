//! A mechanism as data: bodies in a tree (each parent before its children), the joints that
//! move each body relative to its parent, loop closures, actuators and gravity. The file
//! readers (`urdf.rs`, `mjcf.rs`) build it; `kinematics.rs` turns it into a Lagrangian.
//!
//! Conventions: a rotation matrix maps body coordinates to parent (or world) coordinates;
//! quaternions are `[w, x, y, z]`; lengths, masses and angles are SI (radians).

/// A 3-vector of numbers.
pub type V3 = [f64; 3];
/// A 3×3 matrix of numbers, row-major.
pub type M3 = [[f64; 3]; 3];

/// The identity matrix.
pub const IDENTITY: M3 = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

/// A whole mechanism, ready for `kinematics`.
pub struct Mechanism {
    /// The bodies, each after its parent.
    pub bodies: Vec<Body>,
    /// Loop closures: holonomic constraints between two bodies.
    pub closures: Vec<Closure>,
    /// Mimic joints (URDF): `q[joint] = multiplier q[leader] + offset`.
    pub mimics: Vec<Mimic>,
    /// Actuators: an input each, a generalized force on their joint or tendon.
    pub actuators: Vec<Actuator>,
    /// Fixed tendons (MJCF): lengths that are linear combinations of joint coordinates.
    pub tendons: Vec<Tendon>,
    /// The gravity vector (world frame), the default of the three gravity parameters.
    pub gravity: V3,
    /// The fluid the mechanism moves in (MJCF `<option density viscosity wind>`), if any.
    pub medium: Option<Medium>,
}

/// A fluid at rest or in uniform motion, acting on every body with mass by MuJoCo's
/// inertia-box model: each body drags like the box of its mass and principal moments.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Medium {
    /// Density (mass per volume).
    pub density: f64,
    /// Dynamic viscosity.
    pub viscosity: f64,
    /// The fluid's velocity (world frame).
    pub wind: V3,
}

/// One rigid body.
pub struct Body {
    /// Its name in the file.
    pub name: String,
    /// Its parent body; `None` is the world.
    pub parent: Option<usize>,
    /// The body frame in the parent frame before its joints move it: offset and rotation.
    pub pos: V3,
    /// See [`Body::pos`].
    pub rot: M3,
    /// The joints between the parent and this body, applied in order (none: welded).
    pub joints: Vec<Joint>,
    /// Mass, centre of mass (body frame) and inertia about the centre of mass (body axes).
    pub mass: f64,
    /// See [`Body::mass`].
    pub com: V3,
    /// See [`Body::mass`].
    pub inertia: M3,
    /// Gravity compensation (MJCF `gravcomp`): the fraction of the body's weight cancelled by
    /// an applied force at its centre of mass (0: none, 1: all).
    pub gravcomp: f64,
}

impl Body {
    /// The number of coordinates its joints add.
    pub fn size(&self) -> usize {
        self.joints.iter().map(Joint::size).sum()
    }
}

/// What a joint lets move.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum JointKind {
    /// A rotation about an axis through a point: one coordinate, the angle.
    Hinge,
    /// A translation along an axis: one coordinate.
    Slide,
    /// A rotation about a point: a unit quaternion (four coordinates, one constraint).
    Ball,
    /// A free body: a position and a unit quaternion (seven coordinates, one constraint).
    /// `absolute`: the pose is the world pose (MJCF); otherwise it follows the joint's frame.
    Free { absolute: bool },
}

/// One joint.
pub struct Joint {
    /// Its name in the file (readers give unnamed joints a documented name).
    pub name: String,
    /// Where it is declared.
    pub line: u32,
    /// What it lets move.
    pub kind: JointKind,
    /// The unit axis (hinge, slide), in the body frame.
    pub axis: V3,
    /// The point the joint acts at, in the body frame.
    pub anchor: V3,
    /// The coordinate's value at which the body is where the file puts it (MJCF `ref`).
    pub reference: f64,
    /// Viscous damping: a dissipation `½ damping v²`.
    pub damping: f64,
    /// A spring: potential `½ stiffness (q − springref)²`.
    pub stiffness: f64,
    /// See [`Joint::stiffness`].
    pub springref: f64,
    /// Armature (rotor inertia): kinetic energy `½ armature v²`.
    pub armature: f64,
    /// Dry friction (MJCF `frictionloss`, URDF `<dynamics friction>`): the largest force the
    /// joint's friction gives, regularized as documented in `docs/friction.md`.
    pub frictionloss: f64,
    /// The position limits `range` (not enforced).
    pub range: Option<(f64, f64)>,
    /// The effort limit (URDF `<limit effort>`, not enforced).
    pub effort: Option<f64>,
    /// The velocity limit (URDF `<limit velocity>`, not enforced).
    pub velocity: Option<f64>,
}

impl Joint {
    /// A joint of `kind` with everything else at its default.
    pub fn new(name: String, line: u32, kind: JointKind) -> Self {
        Self {
            name,
            line,
            kind,
            axis: [0.0, 0.0, 1.0],
            anchor: [0.0; 3],
            reference: 0.0,
            damping: 0.0,
            stiffness: 0.0,
            springref: 0.0,
            armature: 0.0,
            frictionloss: 0.0,
            range: None,
            effort: None,
            velocity: None,
        }
    }

    /// The number of coordinates it adds.
    pub fn size(&self) -> usize {
        match self.kind {
            JointKind::Hinge | JointKind::Slide => 1,
            JointKind::Ball => 4,
            JointKind::Free { .. } => 7,
        }
    }
}

/// A loop closure.
pub struct Closure {
    /// How errors name it: `connect` or `weld` with its name or line.
    pub name: String,
    /// Where it is declared.
    pub line: u32,
    /// The two bodies (`None`: the world).
    pub body1: Option<usize>,
    /// See [`Closure::body1`].
    pub body2: Option<usize>,
    /// What is closed.
    pub kind: ClosureKind,
}

/// What a closure holds together.
#[derive(Clone)]
pub enum ClosureKind {
    /// A point of body 1 (`anchor1`, its frame) stays at a point of body 2 (`anchor2`).
    /// `anchor2 = None`: the point of body 2 that coincides at the reference configuration.
    Connect { anchor1: V3, anchor2: Option<V3> },
    /// Body 2's frame stays at a fixed pose in body 1's frame; `None`: the pose they have at
    /// the reference configuration.
    Weld { relpose: Option<(V3, M3)> },
    /// MJCF `<equality><joint>` and `<equality><tendon>`: `y − y0 = Σₖ coef[k] (x − x0)ᵏ`,
    /// where `y` and `x` are linear combinations of hinge/slide coordinates (a joint, or a
    /// fixed tendon's length) and `y0`, `x0` their values at the reference configuration;
    /// without `x`, `y = y0 + coef[0]`. The bodies of the closure are unused (`None`).
    Coupling {
        y: Vec<((usize, usize), f64)>,
        x: Option<Vec<((usize, usize), f64)>>,
        coef: [f64; 5],
        y0: f64,
        x0: f64,
    },
}

/// A fixed tendon: `length = Σ coef · q` over hinge/slide joints, with a spring
/// (`½ stiffness (length − springlength)²`), damping (`½ damping l̇²`) and dry friction.
pub struct Tendon {
    /// Its name.
    #[allow(dead_code)]
    pub name: String,
    /// Where it is declared.
    #[allow(dead_code)]
    pub line: u32,
    /// The joints (as (body, joint) positions) and their coefficients.
    pub terms: Vec<((usize, usize), f64)>,
    /// The spring's stiffness.
    pub stiffness: f64,
    /// The spring's rest length.
    pub springlength: f64,
    /// Viscous damping.
    pub damping: f64,
    /// Dry friction, regularized as joint friction is.
    pub frictionloss: f64,
}

/// `q[joint] = multiplier q[leader] + offset` (joint indices count the hinge/slide joints).
pub struct Mimic {
    /// The mimicking joint's name.
    pub name: String,
    /// The joint's line.
    pub line: u32,
    /// The mimicking joint and the joint it follows, as (body, joint) positions.
    pub joint: (usize, usize),
    /// See [`Mimic::joint`].
    pub leader: (usize, usize),
    /// The factor.
    pub multiplier: f64,
    /// The offset.
    pub offset: f64,
}

/// An actuator on a joint or a fixed tendon, as MuJoCo computes it: the actuator force is
/// `(gain + gain_affine[0] · l + gain_affine[1] · l̇) · u + bias[0] + bias[1] · l + bias[2] · l̇`
/// with the length `l = gear · q` (of the joint, or of the tendon), and the generalized
/// force is `gear` times it along the joint (or the tendon's coefficients). A motor has
/// `gain = 1` and the rest zero. A `bias[2] > 0` with `bias[1] = −gain` is MuJoCo's
/// `dampratio`, turned into a damping at the reference configuration by the lowering.
pub struct Actuator {
    /// Its name (the input is named after it).
    pub name: String,
    /// The joint it drives, as (body, joint) positions (ignored when `tendon` is given).
    pub joint: (usize, usize),
    /// The fixed tendon it drives (an index of [`Mechanism::tendons`]).
    pub tendon: Option<usize>,
    /// The gain's terms in the length and its rate (MuJoCo's affine gain).
    pub gain_affine: [f64; 2],
    /// The force on the joint per unit of actuator force.
    pub gear: f64,
    /// The control range (not enforced).
    pub ctrlrange: Option<(f64, f64)>,
    /// The actuator force's range (not enforced).
    pub forcerange: Option<(f64, f64)>,
    /// The gain on the input.
    pub gain: f64,
    /// The affine bias: constant, per unit length, per unit length rate.
    pub bias: [f64; 3],
    /// What the actuator acts on when it is not a joint or a tendon.
    pub drive: Drive,
}

/// An actuator's transmission beyond joints and fixed tendons.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Drive {
    /// A joint, or the tendon of [`Actuator::tendon`].
    Joint,
    /// A wrench at a site (MJCF `site`, no `refsite`): force `gear[0..3]` and torque
    /// `gear[3..6]` per unit of actuator force, in the site's frame; its length is zero and
    /// its rate the twist of the site along `gear`.
    Site {
        /// The site's body (`None`: the world, where the wrench moves nothing).
        body: Option<usize>,
        /// The site in its body's frame: position and rotation.
        pos: V3,
        /// See [`Drive::Site::pos`].
        rot: M3,
        /// The wrench per unit of actuator force, in the site's frame.
        gear: [f64; 6],
    },
    /// MJCF `<adhesion>`: a force that acts through contacts only, which spark does not
    /// simulate; the input exists, and moves nothing.
    Contact,
}

/// `a + b`.
pub fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// `a − b`.
pub fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// `s a`.
pub fn scale(s: f64, a: V3) -> V3 {
    [s * a[0], s * a[1], s * a[2]]
}

/// `a · b`.
pub fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `a × b`.
pub fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// `|a|`.
pub fn norm(a: V3) -> f64 {
    dot(a, a).sqrt()
}

/// `A b`.
pub fn mul_v(a: &M3, b: V3) -> V3 {
    [dot(a[0], b), dot(a[1], b), dot(a[2], b)]
}

/// `A B`.
pub fn mul(a: &M3, b: &M3) -> M3 {
    let mut c = [[0.0; 3]; 3];
    for (i, row) in c.iter_mut().enumerate() {
        for (j, x) in row.iter_mut().enumerate() {
            *x = (0..3).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    c
}

/// `Aᵀ`.
pub fn transpose(a: &M3) -> M3 {
    let mut c = [[0.0; 3]; 3];
    for (i, row) in c.iter_mut().enumerate() {
        for (j, x) in row.iter_mut().enumerate() {
            *x = a[j][i];
        }
    }
    c
}

/// The rotation of angle `angle` about the unit axis `a`.
pub fn axis_angle(a: V3, angle: f64) -> M3 {
    let (s, c) = angle.sin_cos();
    let mut r = [[0.0; 3]; 3];
    let k = [[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]];
    for i in 0..3 {
        for j in 0..3 {
            r[i][j] = (1.0 - c) * a[i] * a[j] + s * k[i][j] + if i == j { c } else { 0.0 };
        }
    }
    r
}

/// The rotation of the quaternion `[w, x, y, z]` (normalized here).
pub fn quat_matrix(q: [f64; 4]) -> M3 {
    let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    let [w, x, y, z] = [q[0] / n, q[1] / n, q[2] / n, q[3] / n];
    [
        [
            w * w + x * x - y * y - z * z,
            2.0 * (x * y - w * z),
            2.0 * (x * z + w * y),
        ],
        [
            2.0 * (x * y + w * z),
            w * w - x * x + y * y - z * z,
            2.0 * (y * z - w * x),
        ],
        [
            2.0 * (x * z - w * y),
            2.0 * (y * z + w * x),
            w * w - x * x - y * y + z * z,
        ],
    ]
}

/// The unit quaternion `[w, x, y, z]` of a rotation matrix (w ≥ 0).
pub fn matrix_quat(r: &M3) -> [f64; 4] {
    let t = r[0][0] + r[1][1] + r[2][2];
    let q = if t > 0.0 {
        let s = (t + 1.0).sqrt() * 2.0;
        [
            0.25 * s,
            (r[2][1] - r[1][2]) / s,
            (r[0][2] - r[2][0]) / s,
            (r[1][0] - r[0][1]) / s,
        ]
    } else if r[0][0] > r[1][1] && r[0][0] > r[2][2] {
        let s = (1.0 + r[0][0] - r[1][1] - r[2][2]).sqrt() * 2.0;
        [
            (r[2][1] - r[1][2]) / s,
            0.25 * s,
            (r[0][1] + r[1][0]) / s,
            (r[0][2] + r[2][0]) / s,
        ]
    } else if r[1][1] > r[2][2] {
        let s = (1.0 + r[1][1] - r[0][0] - r[2][2]).sqrt() * 2.0;
        [
            (r[0][2] - r[2][0]) / s,
            (r[0][1] + r[1][0]) / s,
            0.25 * s,
            (r[1][2] + r[2][1]) / s,
        ]
    } else {
        let s = (1.0 + r[2][2] - r[0][0] - r[1][1]).sqrt() * 2.0;
        [
            (r[1][0] - r[0][1]) / s,
            (r[0][2] + r[2][0]) / s,
            (r[1][2] + r[2][1]) / s,
            0.25 * s,
        ]
    };
    let sign = if q[0] < 0.0 { -1.0 } else { 1.0 };
    q.map(|x| sign * x)
}

/// The rotation of URDF's `rpy`: `Rz(yaw) Ry(pitch) Rx(roll)`.
pub fn rpy(r: V3) -> M3 {
    let rx = axis_angle([1.0, 0.0, 0.0], r[0]);
    let ry = axis_angle([0.0, 1.0, 0.0], r[1]);
    let rz = axis_angle([0.0, 0.0, 1.0], r[2]);
    mul(&rz, &mul(&ry, &rx))
}

/// `R I Rᵀ`: an inertia tensor given in rotated axes, in the unrotated ones.
pub fn rotate_inertia(r: &M3, i: &M3) -> M3 {
    mul(r, &mul(i, &transpose(r)))
}

/// The inertia of a point mass `m` at `d` about the origin, `m (|d|² 1 − d dᵀ)`.
pub fn point_inertia(m: f64, d: V3) -> M3 {
    let dd = dot(d, d);
    let mut out = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            out[i][j] = m * (if i == j { dd } else { 0.0 } - d[i] * d[j]);
        }
    }
    out
}

/// `A + B`.
pub fn add_m(a: &M3, b: &M3) -> M3 {
    let mut c = *a;
    for i in 0..3 {
        for j in 0..3 {
            c[i][j] += b[i][j];
        }
    }
    c
}

/// The diagonal matrix of `d`.
pub fn diag(d: V3) -> M3 {
    [[d[0], 0.0, 0.0], [0.0, d[1], 0.0], [0.0, 0.0, d[2]]]
}

/// A rotation taking the z axis to the unit vector `d` (the shortest one).
pub fn z_to(d: V3) -> M3 {
    let z = [0.0, 0.0, 1.0];
    let c = dot(z, d);
    let axis = cross(z, d);
    let s = norm(axis);
    if s < 1e-14 {
        if c > 0.0 {
            IDENTITY
        } else {
            axis_angle([1.0, 0.0, 0.0], std::f64::consts::PI)
        }
    } else {
        axis_angle(scale(1.0 / s, axis), s.atan2(c))
    }
}

/// `s A`.
pub fn scale_m(s: f64, a: &M3) -> M3 {
    a.map(|r| r.map(|x| s * x))
}

/// `(M⁻¹)ₖₖ` of a symmetric positive definite `M` (Cholesky); `None` if it is not.
pub fn inverse_diagonal(m: &[Vec<f64>], k: usize) -> Option<f64> {
    let n = m.len();
    let mut l = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..=i {
            let s: f64 = m[i][j] - (0..j).map(|p| l[i][p] * l[j][p]).sum::<f64>();
            if i == j {
                if s <= 0.0 || s.is_nan() {
                    return None;
                }
                l[i][i] = s.sqrt();
            } else {
                l[i][j] = s / l[j][j];
            }
        }
    }
    // (M⁻¹)ₖₖ = |L⁻¹ eₖ|²: forward substitution from row k.
    let mut y = vec![0.0; n];
    y[k] = 1.0 / l[k][k];
    for i in k + 1..n {
        let s: f64 = (k..i).map(|p| l[i][p] * y[p]).sum();
        y[i] = -s / l[i][i];
    }
    Some(y.iter().map(|x| x * x).sum())
}

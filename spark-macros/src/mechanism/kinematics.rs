//! World poses, velocities and energies of a [`Mechanism`], written once over an [`Alg`]: with
//! numbers ([`Numeric`], for the checks at the reference configuration) and with symbols
//! ([`crate::mechanism::symbolic::Symbolic`], the `let` bindings handed to the model).
//!
//! Velocities are propagated down the tree, never obtained by differentiating rotations: each
//! body frame carries its angular velocity `ω` and the velocity of its
//! origin, both in body coordinates; a joint's transform `(p, R)` with rates `(ṗ, ω_rel)` gives
//! the child `ω' = Rᵀ ω + ω_rel`, `v' = Rᵀ (v + ω × p + ṗ)`: the velocities, and so the kinetic
//! energy, never involve the world rotation. Every intermediate is one binding, so
//! the expressions grow linearly with the number of bodies.

use super::tree::{self, JointKind, Mechanism, M3, V3};

/// The arithmetic the kinematics needs.
pub trait Alg {
    /// A scalar.
    type S: Clone;
    /// A constant.
    fn c(&mut self, x: f64) -> Self::S;
    /// Coordinate `i`.
    fn q(&mut self, i: usize) -> Self::S;
    /// Velocity `i`.
    fn v(&mut self, i: usize) -> Self::S;
    /// Gravity component `k` (world frame).
    fn gravity(&mut self, k: usize) -> Self::S;
    /// `a + b`.
    fn add(&mut self, a: &Self::S, b: &Self::S) -> Self::S;
    /// `a − b`.
    fn sub(&mut self, a: &Self::S, b: &Self::S) -> Self::S;
    /// `a b`.
    fn mul(&mut self, a: &Self::S, b: &Self::S) -> Self::S;
    /// `sin a`.
    fn sin(&mut self, a: &Self::S) -> Self::S;
    /// `cos a`.
    fn cos(&mut self, a: &Self::S) -> Self::S;
    /// The value of `a` when it is a known constant.
    fn constant(&self, a: &Self::S) -> Option<f64>;
}

/// Plain numbers at one state.
pub struct Numeric {
    /// The coordinates.
    pub q: Vec<f64>,
    /// The velocities.
    pub v: Vec<f64>,
    /// Gravity.
    pub g: V3,
}

impl Alg for Numeric {
    type S = f64;
    fn c(&mut self, x: f64) -> f64 {
        x
    }
    fn q(&mut self, i: usize) -> f64 {
        self.q[i]
    }
    fn v(&mut self, i: usize) -> f64 {
        self.v[i]
    }
    fn gravity(&mut self, k: usize) -> f64 {
        self.g[k]
    }
    fn add(&mut self, a: &f64, b: &f64) -> f64 {
        a + b
    }
    fn sub(&mut self, a: &f64, b: &f64) -> f64 {
        a - b
    }
    fn mul(&mut self, a: &f64, b: &f64) -> f64 {
        a * b
    }
    fn sin(&mut self, a: &f64) -> f64 {
        a.sin()
    }
    fn cos(&mut self, a: &f64) -> f64 {
        a.cos()
    }
    fn constant(&self, _: &f64) -> Option<f64> {
        None
    }
}

pub(super) type Vec3<A> = [<A as Alg>::S; 3];
pub(super) type Mat3<A> = [[<A as Alg>::S; 3]; 3];

/// A body frame in the world: position and rotation, and the velocity of its origin and its
/// angular velocity, both in body coordinates.
pub struct Frame<A: Alg> {
    /// Origin (world).
    pub p: Vec3<A>,
    /// Rotation body → world.
    pub r: Mat3<A>,
    /// Velocity of the origin (body coordinates).
    pub vel: Vec3<A>,
    /// Angular velocity (body coordinates).
    pub w: Vec3<A>,
}

impl<A: Alg> Clone for Frame<A> {
    fn clone(&self) -> Self {
        Self {
            p: self.p.clone(),
            r: self.r.clone(),
            vel: self.vel.clone(),
            w: self.w.clone(),
        }
    }
}

/// Where each joint's coordinates start: `first[body][joint]`, and the total.
pub struct Layout {
    /// The index of each joint's first coordinate.
    pub first: Vec<Vec<usize>>,
    /// The number of coordinates.
    pub n: usize,
}

impl Layout {
    /// The coordinates of `mech`, joint after joint in body order.
    pub fn of(mech: &Mechanism) -> Self {
        let mut n = 0;
        let first = mech
            .bodies
            .iter()
            .map(|b| {
                b.joints
                    .iter()
                    .map(|j| {
                        let k = n;
                        n += j.size();
                        k
                    })
                    .collect()
            })
            .collect();
        Self { first, n }
    }

    /// The reference configuration: where the file puts every body.
    pub fn reference(&self, mech: &Mechanism) -> Vec<f64> {
        let mut q = vec![0.0; self.n];
        for (b, body) in mech.bodies.iter().enumerate() {
            for (j, joint) in body.joints.iter().enumerate() {
                let k = self.first[b][j];
                match joint.kind {
                    JointKind::Hinge | JointKind::Slide => q[k] = joint.reference,
                    JointKind::Ball => q[k] = 1.0,
                    JointKind::Free { absolute } => {
                        let (p, quat) = if absolute {
                            (body.pos, tree::matrix_quat(&body.rot))
                        } else {
                            ([0.0; 3], [1.0, 0.0, 0.0, 0.0])
                        };
                        q[k..k + 3].copy_from_slice(&p);
                        q[k + 3..k + 7].copy_from_slice(&quat);
                    }
                }
            }
        }
        q
    }
}

pub(super) fn vconst<A: Alg>(a: &mut A, x: V3) -> Vec3<A> {
    [a.c(x[0]), a.c(x[1]), a.c(x[2])]
}

pub(super) fn mconst<A: Alg>(a: &mut A, m: &M3) -> Mat3<A> {
    [vconst(a, m[0]), vconst(a, m[1]), vconst(a, m[2])]
}

pub(super) fn vadd<A: Alg>(a: &mut A, x: &Vec3<A>, y: &Vec3<A>) -> Vec3<A> {
    [
        a.add(&x[0], &y[0]),
        a.add(&x[1], &y[1]),
        a.add(&x[2], &y[2]),
    ]
}

pub(super) fn vsub<A: Alg>(a: &mut A, x: &Vec3<A>, y: &Vec3<A>) -> Vec3<A> {
    [
        a.sub(&x[0], &y[0]),
        a.sub(&x[1], &y[1]),
        a.sub(&x[2], &y[2]),
    ]
}

pub(super) fn dot<A: Alg>(a: &mut A, x: &Vec3<A>, y: &Vec3<A>) -> A::S {
    let p0 = a.mul(&x[0], &y[0]);
    let p1 = a.mul(&x[1], &y[1]);
    let p2 = a.mul(&x[2], &y[2]);
    let s = a.add(&p0, &p1);
    a.add(&s, &p2)
}

pub(super) fn cross<A: Alg>(a: &mut A, x: &Vec3<A>, y: &Vec3<A>) -> Vec3<A> {
    let mut out = Vec::with_capacity(3);
    for (i, j) in [(1, 2), (2, 0), (0, 1)] {
        let l = a.mul(&x[i], &y[j]);
        let r = a.mul(&x[j], &y[i]);
        out.push(a.sub(&l, &r));
    }
    [out[0].clone(), out[1].clone(), out[2].clone()]
}

pub(super) fn scale<A: Alg>(a: &mut A, s: &A::S, x: &Vec3<A>) -> Vec3<A> {
    [a.mul(s, &x[0]), a.mul(s, &x[1]), a.mul(s, &x[2])]
}

/// `M x`.
pub(super) fn mv<A: Alg>(a: &mut A, m: &Mat3<A>, x: &Vec3<A>) -> Vec3<A> {
    [dot(a, &m[0], x), dot(a, &m[1], x), dot(a, &m[2], x)]
}

/// `Mᵀ x`.
pub(super) fn mtv<A: Alg>(a: &mut A, m: &Mat3<A>, x: &Vec3<A>) -> Vec3<A> {
    let t = transpose::<A>(m);
    mv(a, &t, x)
}

pub(super) fn transpose<A: Alg>(m: &Mat3<A>) -> Mat3<A> {
    let c = |i: usize| [m[0][i].clone(), m[1][i].clone(), m[2][i].clone()];
    [c(0), c(1), c(2)]
}

/// `M N`.
fn mm<A: Alg>(a: &mut A, m: &Mat3<A>, n: &Mat3<A>) -> Mat3<A> {
    let nt = transpose::<A>(n);
    let row = |a: &mut A, i: usize| {
        [
            dot(a, &m[i], &nt[0]),
            dot(a, &m[i], &nt[1]),
            dot(a, &m[i], &nt[2]),
        ]
    };
    [row(a, 0), row(a, 1), row(a, 2)]
}

/// Moves `f` by a transform `(p, R)` given in `f`'s coordinates, with rates `ṗ` (in `f`'s
/// coordinates) and `ω_rel` (in the new frame's). `None` for `R`: no rotation. Velocities stay
/// in body coordinates, so that they never involve the world rotation.
fn compose<A: Alg>(
    a: &mut A,
    f: &Frame<A>,
    p: &Vec3<A>,
    pd: &Vec3<A>,
    r: Option<&Mat3<A>>,
    w_rel: &Vec3<A>,
) -> Frame<A> {
    let rp = mv(a, &f.r, p);
    let pos = vadd(a, &f.p, &rp);
    let wxp = cross(a, &f.w, p);
    let local = vadd(a, &wxp, pd);
    let vel = vadd(a, &f.vel, &local);
    let (rot, vel, w) = match r {
        Some(r) => {
            let rot = mm(a, &f.r, r);
            let vel = mtv(a, r, &vel);
            let w = mtv(a, r, &f.w);
            (rot, vel, w)
        }
        None => (f.r.clone(), vel, f.w.clone()),
    };
    let w = vadd(a, &w, w_rel);
    Frame {
        p: pos,
        r: rot,
        vel,
        w,
    }
}

/// The world frame.
pub fn world<A: Alg>(a: &mut A) -> Frame<A> {
    let z = vconst(a, [0.0; 3]);
    Frame {
        p: z.clone(),
        r: mconst(a, &tree::IDENTITY),
        vel: z.clone(),
        w: z,
    }
}

/// A fixed offset `(p, R)`.
fn offset<A: Alg>(a: &mut A, f: &Frame<A>, p: V3, r: &M3) -> Frame<A> {
    let pc = vconst(a, p);
    let z = vconst(a, [0.0; 3]);
    if *r == tree::IDENTITY {
        compose(a, f, &pc, &z, None, &z)
    } else {
        let rc = mconst(a, r);
        compose(a, f, &pc, &z, Some(&rc), &z)
    }
}

/// The rotation of angle `theta` about the unit axis `u` (exact entries for coordinate axes).
fn rotation<A: Alg>(a: &mut A, u: V3, theta: &A::S) -> Mat3<A> {
    let s = a.sin(theta);
    let c = a.cos(theta);
    let one_c = {
        let one = a.c(1.0);
        a.sub(&one, &c)
    };
    let k = [[0.0, -u[2], u[1]], [u[2], 0.0, -u[0]], [-u[1], u[0], 0.0]];
    let mut m: Vec<Vec<A::S>> = Vec::new();
    for i in 0..3 {
        let mut row = Vec::new();
        for j in 0..3 {
            let uu = u[i] * u[j];
            let mut e = if i == j {
                if uu == 1.0 {
                    a.c(1.0)
                } else {
                    c.clone()
                }
            } else {
                a.c(0.0)
            };
            if uu != 0.0 && uu != 1.0 {
                let coef = a.c(uu);
                let t = a.mul(&coef, &one_c);
                e = a.add(&e, &t);
            }
            if k[i][j] != 0.0 {
                let coef = a.c(k[i][j]);
                let t = a.mul(&coef, &s);
                e = a.add(&e, &t);
            }
            row.push(e);
        }
        m.push(row);
    }
    let r = |i: usize| [m[i][0].clone(), m[i][1].clone(), m[i][2].clone()];
    [r(0), r(1), r(2)]
}

/// The rotation of a unit quaternion, as the quadratic form (exact on unit quaternions).
pub(super) fn quat_rotation<A: Alg>(a: &mut A, q: &[A::S; 4]) -> Mat3<A> {
    let [w, x, y, z] = q;
    let mut p = |u: &A::S, v: &A::S| a.mul(u, v);
    let (ww, xx, yy, zz) = (p(w, w), p(x, x), p(y, y), p(z, z));
    let (xy, wz, xz, wy, yz, wx) = (p(x, y), p(w, z), p(x, z), p(w, y), p(y, z), p(w, x));
    let two = a.c(2.0);
    let mut lin = |s: &[(&A::S, f64)]| {
        let mut acc = a.c(0.0);
        for (t, k) in s {
            let kk = a.c(*k);
            let m = a.mul(&kk, t);
            acc = a.add(&acc, &m);
        }
        acc
    };
    let d0 = lin(&[(&ww, 1.0), (&xx, 1.0), (&yy, -1.0), (&zz, -1.0)]);
    let d1 = lin(&[(&ww, 1.0), (&xx, -1.0), (&yy, 1.0), (&zz, -1.0)]);
    let d2 = lin(&[(&ww, 1.0), (&xx, -1.0), (&yy, -1.0), (&zz, 1.0)]);
    let e01 = lin(&[(&xy, 2.0), (&wz, -2.0)]);
    let e02 = lin(&[(&xz, 2.0), (&wy, 2.0)]);
    let e10 = lin(&[(&xy, 2.0), (&wz, 2.0)]);
    let e12 = lin(&[(&yz, 2.0), (&wx, -2.0)]);
    let e20 = lin(&[(&xz, 2.0), (&wy, -2.0)]);
    let e21 = lin(&[(&yz, 2.0), (&wx, 2.0)]);
    let _ = two;
    [[d0, e01, e02], [e10, d1, e12], [e20, e21, d2]]
}

/// The derivative of [`quat_rotation`] at `q` along `d`: twice the symmetric bilinear form
/// `B` with `B(q, q)` the rotation, `2 B(q, d)` (constant for constant `q` and `d`: the
/// second derivatives along `q`, `d`).
pub(super) fn quat_rotation_along<A: Alg>(a: &mut A, q: &[A::S; 4], d: &[A::S; 4]) -> Mat3<A> {
    // The quadratic form's terms per entry: (i, j, c) for c qᵢ qⱼ (w, x, y, z = 0, 1, 2, 3).
    const SQUARES: [[(usize, usize, f64); 4]; 3] = [
        [(0, 0, 1.0), (1, 1, 1.0), (2, 2, -1.0), (3, 3, -1.0)],
        [(0, 0, 1.0), (1, 1, -1.0), (2, 2, 1.0), (3, 3, -1.0)],
        [(0, 0, 1.0), (1, 1, -1.0), (2, 2, -1.0), (3, 3, 1.0)],
    ];
    let off = |r: usize, c: usize| -> [(usize, usize, f64); 2] {
        match (r, c) {
            (0, 1) => [(1, 2, 2.0), (0, 3, -2.0)],
            (0, 2) => [(1, 3, 2.0), (0, 2, 2.0)],
            (1, 0) => [(1, 2, 2.0), (0, 3, 2.0)],
            (1, 2) => [(2, 3, 2.0), (0, 1, -2.0)],
            (2, 0) => [(1, 3, 2.0), (0, 2, -2.0)],
            _ => [(2, 3, 2.0), (0, 1, 2.0)],
        }
    };
    let mut entry = |terms: &[(usize, usize, f64)]| {
        let mut acc = a.c(0.0);
        for &(i, j, c) in terms {
            // ∂(c qᵢ qⱼ) along d: c (qᵢ dⱼ + dᵢ qⱼ).
            let x = a.mul(&q[i], &d[j]);
            let y = a.mul(&d[i], &q[j]);
            let s = a.add(&x, &y);
            let k = a.c(c);
            let t = a.mul(&k, &s);
            acc = a.add(&acc, &t);
        }
        acc
    };
    std::array::from_fn(|r| {
        std::array::from_fn(|c| {
            if r == c {
                entry(&SQUARES[r])
            } else {
                entry(&off(r, c))
            }
        })
    })
}

/// The body angular velocity `2 vec(q̄ ⊗ q̇)` of a unit quaternion.
pub(super) fn quat_rate<A: Alg>(a: &mut A, q: &[A::S; 4], qd: &[A::S; 4]) -> Vec3<A> {
    let [w, x, y, z] = q;
    let [dw, dx, dy, dz] = qd;
    let term = |a: &mut A, s: &[(&A::S, &A::S, f64)]| {
        let mut acc = a.c(0.0);
        for (u, v, k) in s {
            let m = a.mul(u, v);
            let kk = a.c(*k);
            let t = a.mul(&kk, &m);
            acc = a.add(&acc, &t);
        }
        acc
    };
    [
        term(
            a,
            &[(w, dx, 2.0), (dw, x, -2.0), (y, dz, -2.0), (z, dy, 2.0)],
        ),
        term(
            a,
            &[(w, dy, 2.0), (dw, y, -2.0), (z, dx, -2.0), (x, dz, 2.0)],
        ),
        term(
            a,
            &[(w, dz, 2.0), (dw, z, -2.0), (x, dy, -2.0), (y, dx, 2.0)],
        ),
    ]
}

/// Every body's frame, in body order.
pub fn frames<A: Alg>(a: &mut A, mech: &Mechanism, layout: &Layout) -> Vec<Frame<A>> {
    frames_recording(a, mech, layout, None, false)
}

/// How velocity `k` moves everything after its joint, in world axes: a rotation about an
/// axis through a point (the axis scaled by the angular rate per unit `vₖ`) or a translation
/// along a direction (the velocity per unit `vₖ`). What the composite-rigid-body mass matrix
/// ([`crate::mechanism::mass`]) pairs with the subtree's inertia.
pub enum Axis<A: Alg> {
    /// `ω = axis · vₖ` about `point` (world).
    Rotation {
        /// See [`Axis::Rotation`].
        axis: Vec3<A>,
        /// See [`Axis::Rotation`].
        point: Vec3<A>,
    },
    /// Velocity `direction · vₖ` (world).
    Translation(Vec3<A>),
}

/// [`frames`], and each velocity's [`Axis`], in coordinate order.
pub fn frames_and_axes<A: Alg>(
    a: &mut A,
    mech: &Mechanism,
    layout: &Layout,
) -> (Vec<Frame<A>>, Vec<Axis<A>>) {
    let mut axes = Vec::with_capacity(layout.n);
    let frames = frames_recording(a, mech, layout, Some(&mut axes), false);
    (frames, axes)
}

/// [`frames_and_axes`] with every floating tree (a root body whose only joint is free) seen
/// from its root: the root body's frame is the origin with the world's axes, its velocities
/// are its own (body coordinates, as in [`frames`]), and its free joint has six axes, not
/// seven: the root's body-frame velocity along its three axes, then its angular velocity about
/// them. The rest of the tree is where it is relative to its root. What
/// [`crate::mechanism::composite`] pairs in a floating tree, where the quaternion's rotation
/// (orthogonal only on the unit sphere) would otherwise enter every entry.
pub fn rooted_frames_and_axes<A: Alg>(
    a: &mut A,
    mech: &Mechanism,
    layout: &Layout,
) -> (Vec<Frame<A>>, Vec<Axis<A>>) {
    let mut axes = Vec::with_capacity(layout.n);
    let frames = frames_recording(a, mech, layout, Some(&mut axes), true);
    (frames, axes)
}

/// Whether body `b` is the root of a floating tree: one joint, a free one, on a body fixed in
/// the world (no parent, or a parent that no joint moves, as a URDF's `world` link).
pub fn floating_root(mech: &Mechanism, b: usize) -> bool {
    let body = &mech.bodies[b];
    let mut up = body.parent;
    while let Some(p) = up {
        if !mech.bodies[p].joints.is_empty() {
            return false;
        }
        up = mech.bodies[p].parent;
    }
    body.joints.len() == 1 && matches!(body.joints[0].kind, JointKind::Free { .. })
}

/// Each body's tree for the composite-rigid-body terms: the nearest floating root at or above
/// it ([`floating_root`]), else its topmost ancestor.
pub fn tree_roots(mech: &Mechanism) -> Vec<usize> {
    let mut root: Vec<usize> = Vec::with_capacity(mech.bodies.len());
    for (b, body) in mech.bodies.iter().enumerate() {
        root.push(match body.parent {
            Some(p) if !floating_root(mech, b) => root[p],
            _ => b,
        });
    }
    root
}

/// The world rotation of the axes a floating root's free joint moves in (constant: every body
/// above it is fixed in the world).
pub fn placement_rotation(mech: &Mechanism, b: usize) -> M3 {
    let mut chain = Vec::new();
    let mut up = mech.bodies[b].parent;
    while let Some(p) = up {
        chain.push(p);
        up = mech.bodies[p].parent;
    }
    let mut r = tree::IDENTITY;
    for &p in chain.iter().rev() {
        r = tree::mul(&r, &mech.bodies[p].rot);
    }
    match mech.bodies[b].joints[0].kind {
        JointKind::Free { absolute: true } => r,
        _ => tree::mul(&r, &mech.bodies[b].rot),
    }
}

/// The `i`-th unit vector of a quaternion's four coordinates.
pub(super) fn unit4<A: Alg>(a: &mut A, i: usize) -> [A::S; 4] {
    std::array::from_fn(|j| a.c(if i == j { 1.0 } else { 0.0 }))
}

/// The world axes `R ∂ω/∂q̇ᵢ` of a quaternion joint's four rates (`rot`: the child's world
/// rotation).
fn quat_axes<A: Alg>(a: &mut A, q: &[A::S; 4], rot: &Mat3<A>) -> Vec<Vec3<A>> {
    (0..4)
        .map(|i| {
            let e = unit4(a, i);
            let w = quat_rate(a, q, &e);
            mv(a, rot, &w)
        })
        .collect()
}

fn frames_recording<A: Alg>(
    a: &mut A,
    mech: &Mechanism,
    layout: &Layout,
    mut axes: Option<&mut Vec<Axis<A>>>,
    rooted: bool,
) -> Vec<Frame<A>> {
    let world = world(a);
    let mut out: Vec<Frame<A>> = Vec::with_capacity(mech.bodies.len());
    for (b, body) in mech.bodies.iter().enumerate() {
        let parent = match body.parent {
            Some(p) => out[p].clone(),
            None => world.clone(),
        };
        let absolute = matches!(
            body.joints.first().map(|j| j.kind),
            Some(JointKind::Free { absolute: true })
        );
        let mut f = if absolute {
            parent
        } else {
            offset(a, &parent, body.pos, &body.rot)
        };
        for (j, joint) in body.joints.iter().enumerate() {
            let k = layout.first[b][j];
            let z = vconst(a, [0.0; 3]);
            match joint.kind {
                JointKind::Hinge => {
                    let q = a.q(k);
                    let theta = if joint.reference != 0.0 {
                        let r = a.c(joint.reference);
                        a.sub(&q, &r)
                    } else {
                        q
                    };
                    let rot = rotation(a, joint.axis, &theta);
                    let v = a.v(k);
                    let axis = vconst(a, joint.axis);
                    let w_rel = scale(a, &v, &axis);
                    let anchored = joint.anchor != [0.0; 3];
                    if anchored {
                        f = offset(a, &f, joint.anchor, &tree::IDENTITY);
                    }
                    if let Some(axes) = axes.as_deref_mut() {
                        let world_axis = mv(a, &f.r, &axis);
                        axes.push(Axis::Rotation {
                            axis: world_axis,
                            point: f.p.clone(),
                        });
                    }
                    f = compose(a, &f, &z, &z, Some(&rot), &w_rel);
                    if anchored {
                        f = offset(a, &f, tree::scale(-1.0, joint.anchor), &tree::IDENTITY);
                    }
                }
                JointKind::Slide => {
                    let q = a.q(k);
                    let d = if joint.reference != 0.0 {
                        let r = a.c(joint.reference);
                        a.sub(&q, &r)
                    } else {
                        q
                    };
                    let axis = vconst(a, joint.axis);
                    if let Some(axes) = axes.as_deref_mut() {
                        axes.push(Axis::Translation(mv(a, &f.r, &axis)));
                    }
                    let p = scale(a, &d, &axis);
                    let v = a.v(k);
                    let pd = scale(a, &v, &axis);
                    f = compose(a, &f, &p, &pd, None, &z);
                }
                JointKind::Ball => {
                    let q = [a.q(k), a.q(k + 1), a.q(k + 2), a.q(k + 3)];
                    let qd = [a.v(k), a.v(k + 1), a.v(k + 2), a.v(k + 3)];
                    let rot = quat_rotation(a, &q);
                    let w_rel = quat_rate(a, &q, &qd);
                    let anchored = joint.anchor != [0.0; 3];
                    if anchored {
                        f = offset(a, &f, joint.anchor, &tree::IDENTITY);
                    }
                    f = compose(a, &f, &z, &z, Some(&rot), &w_rel);
                    if let Some(axes) = axes.as_deref_mut() {
                        for axis in quat_axes(a, &q, &f.r) {
                            axes.push(Axis::Rotation {
                                axis,
                                point: f.p.clone(),
                            });
                        }
                    }
                    if anchored {
                        f = offset(a, &f, tree::scale(-1.0, joint.anchor), &tree::IDENTITY);
                    }
                }
                JointKind::Free { .. } => {
                    let p = [a.q(k), a.q(k + 1), a.q(k + 2)];
                    let pd = [a.v(k), a.v(k + 1), a.v(k + 2)];
                    let q = [a.q(k + 3), a.q(k + 4), a.q(k + 5), a.q(k + 6)];
                    let qd = [a.v(k + 3), a.v(k + 4), a.v(k + 5), a.v(k + 6)];
                    let rot = quat_rotation(a, &q);
                    let w_rel = quat_rate(a, &q, &qd);
                    if rooted && floating_root(mech, b) {
                        f = compose(a, &f, &p, &pd, Some(&rot), &w_rel);
                        f.p = z.clone();
                        f.r = mconst(a, &tree::IDENTITY);
                        if let Some(axes) = axes.as_deref_mut() {
                            for c in tree::IDENTITY {
                                axes.push(Axis::Translation(vconst(a, c)));
                            }
                            for c in tree::IDENTITY {
                                axes.push(Axis::Rotation {
                                    axis: vconst(a, c),
                                    point: z.clone(),
                                });
                            }
                        }
                        continue;
                    }
                    if let Some(axes) = axes.as_deref_mut() {
                        let columns = transpose::<A>(&f.r);
                        for c in columns {
                            axes.push(Axis::Translation(c));
                        }
                    }
                    f = compose(a, &f, &p, &pd, Some(&rot), &w_rel);
                    if let Some(axes) = axes.as_deref_mut() {
                        for axis in quat_axes(a, &q, &f.r) {
                            axes.push(Axis::Rotation {
                                axis,
                                point: f.p.clone(),
                            });
                        }
                    }
                }
            }
        }
        out.push(f);
    }
    out
}

/// A ball or free joint's velocities as MuJoCo's `qvel` has them: a ball's angular velocity
/// in the child frame; a free joint's world linear velocity, then its body angular velocity.
pub fn joint_dofs<A: Alg>(a: &mut A, joint: &tree::Joint, k: usize) -> Vec<A::S> {
    match joint.kind {
        JointKind::Ball => {
            let q = [a.q(k), a.q(k + 1), a.q(k + 2), a.q(k + 3)];
            let qd = [a.v(k), a.v(k + 1), a.v(k + 2), a.v(k + 3)];
            quat_rate(a, &q, &qd).into_iter().collect()
        }
        JointKind::Free { .. } => {
            let mut out = vec![a.v(k), a.v(k + 1), a.v(k + 2)];
            let q = [a.q(k + 3), a.q(k + 4), a.q(k + 5), a.q(k + 6)];
            let qd = [a.v(k + 3), a.v(k + 4), a.v(k + 5), a.v(k + 6)];
            out.extend(quat_rate(a, &q, &qd));
            out
        }
        _ => vec![a.v(k)],
    }
}

/// `½ c Σ x²` over `xs`.
pub fn half_square_sum<A: Alg>(a: &mut A, c: f64, xs: &[A::S]) -> A::S {
    let mut s = a.c(0.0);
    for x in xs {
        let xx = a.mul(x, x);
        s = a.add(&s, &xx);
    }
    let h = a.c(0.5 * c);
    a.mul(&h, &s)
}

/// The kinetic and the potential energy: the bodies' ([`body_energies`]) and the joints'
/// and tendons' ([`joint_energies`]).
pub fn energies<A: Alg>(
    a: &mut A,
    mech: &Mechanism,
    layout: &Layout,
    frames: &[Frame<A>],
) -> (A::S, A::S) {
    let (t, v) = body_energies(a, mech, frames);
    let (tj, vj) = joint_energies(a, mech, layout);
    (a.add(&t, &tj), a.add(&v, &vj))
}

/// The rigid bodies' kinetic energy and their potential energy in gravity: what the
/// composite-rigid-body terms ([`crate::mechanism::composite`]) differentiate.
pub fn body_energies<A: Alg>(a: &mut A, mech: &Mechanism, frames: &[Frame<A>]) -> (A::S, A::S) {
    let mut t = a.c(0.0);
    let mut v = a.c(0.0);
    let g = [a.gravity(0), a.gravity(1), a.gravity(2)];
    for (body, f) in mech.bodies.iter().zip(frames) {
        if body.mass != 0.0 {
            let com = vconst(a, body.com);
            let wxc = cross(a, &f.w, &com);
            let vc = vadd(a, &f.vel, &wxc);
            let vv = dot(a, &vc, &vc);
            let k = a.c(0.5 * body.mass);
            let tt = a.mul(&k, &vv);
            t = a.add(&t, &tt);
            let rc = mv(a, &f.r, &com);
            let pc = vadd(a, &f.p, &rc);
            let gp = dot(a, &g, &pc);
            // Gravity compensation cancels a fraction of the weight (MJCF `gravcomp`).
            let k = a.c(-body.mass * (1.0 - body.gravcomp));
            let vv = a.mul(&k, &gp);
            v = a.add(&v, &vv);
        }
        if body.inertia.iter().flatten().any(|x| *x != 0.0) {
            let i = mconst(a, &body.inertia);
            let iw = mv(a, &i, &f.w);
            let wiw = dot(a, &f.w, &iw);
            let h = a.c(0.5);
            let tt = a.mul(&h, &wiw);
            t = a.add(&t, &tt);
        }
    }
    (t, v)
}

/// The joints' own kinetic terms (armature, the quaternion regularization) and the springs'
/// potential energy (joint and tendon stiffness): the part of the Lagrangian that is not
/// rigid-body motion.
pub fn joint_energies<A: Alg>(a: &mut A, mech: &Mechanism, layout: &Layout) -> (A::S, A::S) {
    let mut t = a.c(0.0);
    let mut v = a.c(0.0);
    for (b, body) in mech.bodies.iter().enumerate() {
        for (j, joint) in body.joints.iter().enumerate() {
            let k = layout.first[b][j];
            if joint.armature != 0.0 {
                if joint.size() == 1 {
                    let vk = a.v(k);
                    let vv = a.mul(&vk, &vk);
                    let c = a.c(0.5 * joint.armature);
                    let tt = a.mul(&c, &vv);
                    t = a.add(&t, &tt);
                } else {
                    // MuJoCo adds the armature to each of the joint's dofs.
                    let dofs = joint_dofs(a, joint, k);
                    let tt = half_square_sum(a, joint.armature, &dofs);
                    t = a.add(&t, &tt);
                }
            }
            if joint.stiffness != 0.0 {
                let qk = a.q(k);
                let r = a.c(joint.springref);
                let d = a.sub(&qk, &r);
                let dd = a.mul(&d, &d);
                let c = a.c(0.5 * joint.stiffness);
                let vv = a.mul(&c, &dd);
                v = a.add(&v, &vv);
            }
            let quat = match joint.kind {
                JointKind::Ball => Some(k),
                JointKind::Free { .. } => Some(k + 3),
                _ => None,
            };
            if let Some(k) = quat {
                // ½ κ (q · q̇)²: zero on the hidden constraint, it makes the Lagrangian regular
                // along the quaternion's own direction (see examples/models/heavy_top.rs).
                let tr = body.inertia[0][0] + body.inertia[1][1] + body.inertia[2][2];
                let kappa = if tr > 0.0 { tr / 3.0 } else { 1.0 };
                let mut s = a.c(0.0);
                for i in 0..4 {
                    let qi = a.q(k + i);
                    let vi = a.v(k + i);
                    let p = a.mul(&qi, &vi);
                    s = a.add(&s, &p);
                }
                let ss = a.mul(&s, &s);
                let c = a.c(0.5 * kappa);
                let tt = a.mul(&c, &ss);
                t = a.add(&t, &tt);
            }
        }
    }
    for tendon in &mech.tendons {
        if tendon.stiffness != 0.0 {
            let l = combination(a, layout, &tendon.terms);
            let r = a.c(tendon.springlength);
            let d = a.sub(&l, &r);
            let dd = a.mul(&d, &d);
            let c = a.c(0.5 * tendon.stiffness);
            let vv = a.mul(&c, &dd);
            v = a.add(&v, &vv);
        }
    }
    (t, v)
}

/// The holonomic rows of the mechanism: quaternion norms, then each closure's rows (tagged with
/// the closure's index), then the mimic joints (tagged after the closures).
pub struct Rows<S> {
    /// `(row, tag)`: tag `None` for a quaternion norm, `Some(i)` for closure `i` or, from
    /// `closures.len()` on, mimic `i − closures.len()`.
    pub rows: Vec<(S, Option<usize>)>,
}

/// A closure's second anchor / relative pose when the file leaves it to the reference
/// configuration, computed there.
pub struct ClosureData {
    /// Per closure: body 2's anchor (connect), or the relative pose (weld).
    pub anchor2: Vec<V3>,
    /// See [`ClosureData::anchor2`].
    pub relpose: Vec<(V3, M3)>,
}

fn frame_of<'f, A: Alg>(
    frames: &'f [Frame<A>],
    world: &'f Frame<A>,
    b: Option<usize>,
) -> &'f Frame<A> {
    match b {
        Some(b) => &frames[b],
        None => world,
    }
}

/// Numeric pose (position, rotation) of a body (or the world) at a state.
pub fn numeric_pose(frames: &[Frame<Numeric>], b: Option<usize>) -> (V3, M3) {
    match b {
        Some(b) => (frames[b].p, frames[b].r),
        None => ([0.0; 3], tree::IDENTITY),
    }
}

/// Completes each closure at the reference configuration `frames`.
pub fn closure_data(mech: &Mechanism, frames: &[Frame<Numeric>]) -> ClosureData {
    let mut anchor2 = Vec::new();
    let mut relpose = Vec::new();
    for c in &mech.closures {
        let (p1, r1) = numeric_pose(frames, c.body1);
        let (p2, r2) = numeric_pose(frames, c.body2);
        match &c.kind {
            tree::ClosureKind::Connect {
                anchor1,
                anchor2: a2,
            } => {
                let x = tree::add(p1, tree::mul_v(&r1, *anchor1));
                anchor2.push(
                    a2.unwrap_or_else(|| tree::mul_v(&tree::transpose(&r2), tree::sub(x, p2))),
                );
                relpose.push(([0.0; 3], tree::IDENTITY));
            }
            tree::ClosureKind::Weld { relpose: rp } => {
                anchor2.push([0.0; 3]);
                relpose.push(rp.unwrap_or_else(|| {
                    let rt = tree::transpose(&r1);
                    (tree::mul_v(&rt, tree::sub(p2, p1)), tree::mul(&rt, &r2))
                }));
            }
            tree::ClosureKind::Coupling { .. } => {
                anchor2.push([0.0; 3]);
                relpose.push(([0.0; 3], tree::IDENTITY));
            }
        }
    }
    ClosureData { anchor2, relpose }
}

/// `Σ coef · q` over (body, joint) positions of hinge/slide joints.
pub fn combination<A: Alg>(a: &mut A, layout: &Layout, terms: &[((usize, usize), f64)]) -> A::S {
    let mut s = a.c(0.0);
    for ((b, j), c) in terms {
        let q = a.q(layout.first[*b][*j]);
        let k = a.c(*c);
        let t = a.mul(&k, &q);
        s = a.add(&s, &t);
    }
    s
}

/// The holonomic rows.
pub fn rows<A: Alg>(
    a: &mut A,
    mech: &Mechanism,
    layout: &Layout,
    frames: &[Frame<A>],
    data: &ClosureData,
) -> Rows<A::S> {
    let mut rows = Vec::new();
    for (b, body) in mech.bodies.iter().enumerate() {
        for (j, joint) in body.joints.iter().enumerate() {
            let k = layout.first[b][j];
            let k = match joint.kind {
                JointKind::Ball => k,
                JointKind::Free { .. } => k + 3,
                _ => continue,
            };
            let mut s = a.c(-1.0);
            for i in 0..4 {
                let qi = a.q(k + i);
                let p = a.mul(&qi, &qi);
                s = a.add(&s, &p);
            }
            rows.push((s, None));
        }
    }
    let world = world(a);
    for (ci, c) in mech.closures.iter().enumerate() {
        let f1 = frame_of(frames, &world, c.body1).clone();
        let f2 = frame_of(frames, &world, c.body2).clone();
        match &c.kind {
            tree::ClosureKind::Connect { anchor1, .. } => {
                let a1 = vconst(a, *anchor1);
                let a2 = vconst(a, data.anchor2[ci]);
                let r1 = mv(a, &f1.r, &a1);
                let x1 = vadd(a, &f1.p, &r1);
                let r2 = mv(a, &f2.r, &a2);
                let x2 = vadd(a, &f2.p, &r2);
                let d = vsub(a, &x1, &x2);
                for e in d {
                    rows.push((e, Some(ci)));
                }
            }
            tree::ClosureKind::Weld { .. } => {
                let (rp, rr) = data.relpose[ci];
                let rp = vconst(a, rp);
                let off = mv(a, &f1.r, &rp);
                let x1 = vadd(a, &f1.p, &off);
                let d = vsub(a, &f2.p, &x1);
                for e in d {
                    rows.push((e, Some(ci)));
                }
                // E = R1ᵀ R2 R_relᵀ is the identity when the weld holds; its skew part vanishes.
                let r1t = transpose::<A>(&f1.r);
                let rel = mm(a, &r1t, &f2.r);
                let rrt = mconst(a, &tree::transpose(&rr));
                let e = mm(a, &rel, &rrt);
                for (i, j) in [(2, 1), (0, 2), (1, 0)] {
                    let d = a.sub(&e[i][j], &e[j][i]);
                    rows.push((d, Some(ci)));
                }
            }
            tree::ClosureKind::Coupling { y, x, coef, y0, x0 } => {
                // (y − y0) − Σₖ coef[k] (x − x0)ᵏ, Horner's rule from the top.
                let ys = combination(a, layout, y);
                let c0 = a.c(*y0);
                let dy = a.sub(&ys, &c0);
                let poly = match x {
                    Some(x) => {
                        let xs = combination(a, layout, x);
                        let c = a.c(*x0);
                        let dx = a.sub(&xs, &c);
                        let mut p = a.c(coef[4]);
                        for k in (0..4).rev() {
                            let t = a.mul(&p, &dx);
                            let ck = a.c(coef[k]);
                            p = a.add(&t, &ck);
                        }
                        p
                    }
                    None => a.c(coef[0]),
                };
                rows.push((a.sub(&dy, &poly), Some(ci)));
            }
        }
    }
    for (mi, m) in mech.mimics.iter().enumerate() {
        let kj = layout.first[m.joint.0][m.joint.1];
        let kl = layout.first[m.leader.0][m.leader.1];
        let qj = a.q(kj);
        let ql = a.q(kl);
        let mul = a.c(m.multiplier);
        let off = a.c(m.offset);
        let t = a.mul(&mul, &ql);
        let t = a.add(&t, &off);
        rows.push((a.sub(&qj, &t), Some(mech.closures.len() + mi)));
    }
    Rows { rows }
}

/// The arithmetic of `A` with every velocity replaced by the unit vector `eₖ`: the frames'
/// velocities become column `k` of their Jacobians (`∂ twist / ∂ vₖ`), as functions of `q`.
pub struct Column<'a, A: Alg> {
    /// The arithmetic the rest is delegated to.
    pub inner: &'a mut A,
    /// The velocity that is 1 (the others are 0).
    pub k: usize,
}

impl<A: Alg> Alg for Column<'_, A> {
    type S = A::S;
    fn c(&mut self, x: f64) -> A::S {
        self.inner.c(x)
    }
    fn q(&mut self, i: usize) -> A::S {
        self.inner.q(i)
    }
    fn v(&mut self, i: usize) -> A::S {
        self.inner.c(if i == self.k { 1.0 } else { 0.0 })
    }
    fn gravity(&mut self, k: usize) -> A::S {
        self.inner.gravity(k)
    }
    fn add(&mut self, a: &A::S, b: &A::S) -> A::S {
        self.inner.add(a, b)
    }
    fn sub(&mut self, a: &A::S, b: &A::S) -> A::S {
        self.inner.sub(a, b)
    }
    fn mul(&mut self, a: &A::S, b: &A::S) -> A::S {
        self.inner.mul(a, b)
    }
    fn sin(&mut self, a: &A::S) -> A::S {
        self.inner.sin(a)
    }
    fn cos(&mut self, a: &A::S) -> A::S {
        self.inner.cos(a)
    }
    fn constant(&self, a: &A::S) -> Option<f64> {
        self.inner.constant(a)
    }
}

/// The power of a wrench (`force`, `torque` in body coordinates, applied at `pos` of the body)
/// on the body's motion `f`: `force · (v + ω × pos) + torque · ω`.
pub fn wrench_power<A: Alg>(a: &mut A, f: &Frame<A>, pos: V3, force: V3, torque: V3) -> A::S {
    let p = vconst(a, pos);
    let wxp = cross(a, &f.w, &p);
    let vp = vadd(a, &f.vel, &wxp);
    let fc = vconst(a, force);
    let tc = vconst(a, torque);
    let pf = dot(a, &fc, &vp);
    let pt = dot(a, &tc, &f.w);
    a.add(&pf, &pt)
}

/// A body's angular velocity and the velocity of its centre of mass `com` relative to a
/// fluid moving at `wind` (world), both in the axes `axes` (its columns, body coordinates):
/// what MuJoCo's inertia-box fluid model reads.
pub fn fluid_velocities<A: Alg>(
    a: &mut A,
    f: &Frame<A>,
    com: V3,
    axes: &M3,
    wind: V3,
) -> (Vec3<A>, Vec3<A>) {
    let c = vconst(a, com);
    let wxc = cross(a, &f.w, &c);
    let vc = vadd(a, &f.vel, &wxc);
    let ww = vconst(a, wind);
    let wb = mtv(a, &f.r, &ww);
    let rel = vsub(a, &vc, &wb);
    let ax = mconst(a, axes);
    (mtv(a, &ax, &f.w), mtv(a, &ax, &rel))
}

//! The second derivatives of a [`Mechanism`]'s Lagrangian that a step needs (the mass matrix
//! `∂²L/∂v²`, `∂²L/∂v∂q` and `∂²L/∂q²`), by the composite-rigid-body algorithm and its
//! derivatives, written over an [`Alg`] like the rest of the kinematics.
//!
//! Every velocity `vₖ` moves the subtree of its body rigidly, by a twist `Sₖ` (its [`Axis`] in
//! world axes, about a reference point `O` of its tree). All twists, momenta and inertias are
//! spatial vectors in those axes about that point (`(ω, v)` for motions, `(n, f)` for forces,
//! `m · f = ω·n + v·f`), so no transform is carried along a path, and a perturbation of `qⱼ`
//! moves every quantity of `j`'s subtree by `Sⱼ ×` (motions) or `Sⱼ ×*` (forces). With, per
//! velocity `a` on body `b`: `C` the composite inertia of `b`'s subtree, `h` its momentum, `G`
//! its weight, `t⁻` the twist just before `a`'s joint, `zₐ = Sₐ × t⁻`, `Fₐ = C Sₐ`,
//! `yₐ = C zₐ` and `kₐ = Sₐ ×* h`, and `j ≼ a` for "`j` moves `a`'s joint" (an ancestor's
//! velocity, or an earlier one of the same body, or `a` itself):
//!
//! * `M_aj = Sₐ · Fⱼ` for `a ≼ j`;
//! * `∂pₐ/∂qⱼ = −Fₐ · zⱼ` for `j ≼ a`, and `Sₐ · (kⱼ − yⱼ)` for `a ≺ j`;
//! * `∂²T/∂qₐ∂qⱼ = zⱼ · (yₐ − kₐ)` for `j ≼ a` (symmetric);
//! * the weight's `∂²(−V)/∂qₐ∂qⱼ = (Sⱼ × Sₐ) · Gₐ + ωₐ · (∂_{Sⱼ} hᵍ × g)` for `j ≼ a`
//!   (`hᵍ` the weighted first moment, moved by `Sⱼ`), symmetric;
//!
//! and every other pair is zero: the code grows with the nonzero entries (the pairs on one
//! path of the tree), one pairing of 6-vectors each. The reference point of a tree is its
//! root body's origin, so the moments stay small wherever the robot is.
//!
//! The derivation needs orthogonal rotations: true for hinges and slides, but a quaternion's
//! rotation is its quadratic form, orthogonal only on the unit sphere, so a mechanism with a
//! ball or free joint keeps the Hessians of its Lagrangian ([`applies`]).
//!
//! The joint terms of the Lagrangian that are not rigid-body motion (armature, springs: see
//! [`kinematics::joint_energies`]) are left to the symbolic engine, except the armature's
//! (constant) part of the mass matrix, added here.

use super::kinematics::{self, cross, dot, mv, vadd, vconst, vsub};
use super::kinematics::{Alg, Axis, Frame, Layout, Vec3};
use super::tree::{self, JointKind, Mechanism};

/// Whether [`terms`] are the second derivatives of `mech`'s Lagrangian: every rotation is
/// orthogonal, which holds for hinges and slides and, for a quaternion (the rotation of a ball
/// or free joint is its quadratic form), only on the unit sphere. `false` with any ball or free
/// joint.
pub fn applies(mech: &Mechanism) -> bool {
    !mech
        .bodies
        .iter()
        .flat_map(|b| &b.joints)
        .any(|j| matches!(j.kind, JointKind::Ball | JointKind::Free { .. }))
}

/// The second derivatives (`n × n`, both triangles filled; structural zeros are the constant
/// `0`) and `(∂p/∂q) v`.
pub struct Terms<S> {
    /// `(∂²T/∂v∂q) v` of the bodies, accumulated along the tree in `O(n)`.
    pub lvq_v: Vec<S>,
    /// `∂²T/∂v²`, armature included.
    pub mass: Vec<Vec<S>>,
    /// `∂²T/∂v∂q` (`[a][j] = ∂pₐ/∂qⱼ`) of the bodies' kinetic energy.
    pub lvq: Vec<Vec<S>>,
    /// `∂²(T − V)/∂q²` of the bodies' kinetic energy and their weight.
    pub lqq: Vec<Vec<S>>,
}

/// A spatial vector: `(ω, v)` for a motion, `(n, f)` for a force.
type Six<A> = (Vec3<A>, Vec3<A>);

/// A weight: the mass gravity acts on and its first moment.
type Weight<A> = (<A as Alg>::S, Vec3<A>);

/// A body's or a subtree's inertia about its tree's reference point, in world axes: the mass,
/// the first moment `h = m r` (`r` from the point to the centre of mass) and the rotational
/// inertia about the point (upper triangle).
struct Inertia<A: Alg> {
    m: A::S,
    h: Vec3<A>,
    rot: [[A::S; 3]; 3],
}

impl<A: Alg> Clone for Inertia<A> {
    fn clone(&self) -> Self {
        Self {
            m: self.m.clone(),
            h: self.h.clone(),
            rot: self.rot.clone(),
        }
    }
}

fn zero_inertia<A: Alg>(a: &mut A) -> Inertia<A> {
    Inertia {
        m: a.c(0.0),
        h: vconst(a, [0.0; 3]),
        rot: std::array::from_fn(|_| std::array::from_fn(|_| a.c(0.0))),
    }
}

fn add_inertia<A: Alg>(a: &mut A, x: &Inertia<A>, y: &Inertia<A>) -> Inertia<A> {
    let m = a.add(&x.m, &y.m);
    let h = vadd(a, &x.h, &y.h);
    let rot = std::array::from_fn(|i| std::array::from_fn(|j| a.add(&x.rot[i][j], &y.rot[i][j])));
    Inertia { m, h, rot }
}

fn add6<A: Alg>(a: &mut A, x: &Six<A>, y: &Six<A>) -> Six<A> {
    (vadd(a, &x.0, &y.0), vadd(a, &x.1, &y.1))
}

fn sub6<A: Alg>(a: &mut A, x: &Six<A>, y: &Six<A>) -> Six<A> {
    (vsub(a, &x.0, &y.0), vsub(a, &x.1, &y.1))
}

fn zero6<A: Alg>(a: &mut A) -> Six<A> {
    (vconst(a, [0.0; 3]), vconst(a, [0.0; 3]))
}

/// `m · f`.
fn pair<A: Alg>(a: &mut A, m: &Six<A>, f: &Six<A>) -> A::S {
    let x = dot(a, &m.0, &f.0);
    let y = dot(a, &m.1, &f.1);
    a.add(&x, &y)
}

/// `m × s` of two motions: `(ω × ω', ω × v' + v × ω')`.
fn cross_motion<A: Alg>(a: &mut A, m: &Six<A>, s: &Six<A>) -> Six<A> {
    let w = cross(a, &m.0, &s.0);
    let x = cross(a, &m.0, &s.1);
    let y = cross(a, &m.1, &s.0);
    (w, vadd(a, &x, &y))
}

/// `m ×* f` of a motion and a force: `(ω × n + v × f, ω × f)`.
fn cross_force<A: Alg>(a: &mut A, m: &Six<A>, f: &Six<A>) -> Six<A> {
    let x = cross(a, &m.0, &f.0);
    let y = cross(a, &m.1, &f.1);
    let l = cross(a, &m.0, &f.1);
    (vadd(a, &x, &y), l)
}

fn scale6<A: Alg>(a: &mut A, s: &A::S, x: &Six<A>) -> Six<A> {
    (kinematics::scale(a, s, &x.0), kinematics::scale(a, s, &x.1))
}

/// Body `b`'s inertia about `origin` in world axes and its weighted first moment (mass times
/// the part of its weight gravity acts on, MJCF `gravcomp`), `None` when it has neither mass
/// nor rotational inertia.
fn body_inertia<A: Alg>(
    a: &mut A,
    mech: &Mechanism,
    b: usize,
    f: &Frame<A>,
    origin: Option<&Vec3<A>>,
) -> Option<(Inertia<A>, Weight<A>)> {
    let body = &mech.bodies[b];
    let rotational = body.inertia.iter().flatten().any(|x| *x != 0.0);
    if body.mass == 0.0 && !rotational {
        return None;
    }
    let com = vconst(a, body.com);
    let rc = mv(a, &f.r, &com);
    // The centre of mass from the reference point.
    let r = match origin {
        Some(o) => {
            let d = vsub(a, &f.p, o);
            vadd(a, &d, &rc)
        }
        None => rc,
    };
    let m = a.c(body.mass);
    let h = kinematics::scale(a, &m, &r);
    let mg = a.c(body.mass * (1.0 - body.gravcomp));
    let hg = kinematics::scale(a, &mg, &r);
    // R I Rᵀ (upper triangle), then m (|r|² 1 − r rᵀ) about the reference point.
    let i = &body.inertia;
    let mut t: [[A::S; 3]; 3] = std::array::from_fn(|_| std::array::from_fn(|_| a.c(0.0)));
    for (row, t_row) in t.iter_mut().enumerate() {
        for (col, out) in t_row.iter_mut().enumerate() {
            for (&ik, r) in i[row].iter().zip(&f.r[col]) {
                if ik != 0.0 {
                    let c = a.c(ik);
                    let p = a.mul(&c, r);
                    *out = a.add(out, &p);
                }
            }
        }
    }
    let rr = dot(a, &r, &r);
    let mut rot: [[A::S; 3]; 3] = std::array::from_fn(|_| std::array::from_fn(|_| a.c(0.0)));
    for row in 0..3 {
        for col in row..3 {
            let mut s = a.c(0.0);
            if rotational {
                for (r, t_row) in f.r[row].iter().zip(&t) {
                    let p = a.mul(r, &t_row[col]);
                    s = a.add(&s, &p);
                }
            }
            let rirj = a.mul(&r[row], &r[col]);
            let par = if row == col {
                a.sub(&rr, &rirj)
            } else {
                let zero = a.c(0.0);
                a.sub(&zero, &rirj)
            };
            let par = a.mul(&m, &par);
            rot[row][col] = a.add(&s, &par);
        }
    }
    Some((Inertia { m, h, rot }, (mg, hg)))
}

/// Body `b`'s momentum about `origin` in world axes, from its velocities in body coordinates
/// (`frames`), where its inertia is constant: `l = m (v + ω × c)` and `n = I₀ ω + m c × v`
/// about its origin, then `(R n + d × R l, R l)` with `d` from `origin` to the body's origin.
/// The same as `C S` of the world inertia and twist, without rotating the inertia.
fn body_momentum<A: Alg>(
    a: &mut A,
    mech: &Mechanism,
    b: usize,
    f: &Frame<A>,
    origin: Option<&Vec3<A>>,
) -> Six<A> {
    let body = &mech.bodies[b];
    let c = body.com;
    let m = body.mass;
    let cc = tree::dot(c, c);
    let about_origin: [[f64; 3]; 3] = std::array::from_fn(|i| {
        std::array::from_fn(|j| {
            let delta = if i == j { cc } else { 0.0 };
            body.inertia[i][j] + m * (delta - c[i] * c[j])
        })
    });
    let com = vconst(a, c);
    let wc = cross(a, &f.w, &com);
    let vc = vadd(a, &f.vel, &wc);
    let mass = a.c(m);
    let l = kinematics::scale(a, &mass, &vc);
    let i0 = kinematics::mconst(a, &about_origin);
    let iw = mv(a, &i0, &f.w);
    let mc = vconst(a, tree::scale(m, c));
    let cv = cross(a, &mc, &f.vel);
    let n = vadd(a, &iw, &cv);
    let lw = mv(a, &f.r, &l);
    let nw = mv(a, &f.r, &n);
    let nw = match origin {
        Some(o) => {
            let d = vsub(a, &f.p, o);
            let dl = cross(a, &d, &lw);
            vadd(a, &nw, &dl)
        }
        None => nw,
    };
    (nw, lw)
}

/// `C s`: the momentum `(n, f)` of an inertia moving with the twist `s = (ω, v)`:
/// `f = m v + ω × h`, `n = Ī ω + h × v`.
fn momentum<A: Alg>(a: &mut A, c: &Inertia<A>, s: &Six<A>) -> Six<A> {
    let (w, v) = s;
    let mv_ = kinematics::scale(a, &c.m, v);
    let wh = cross(a, w, &c.h);
    let l = vadd(a, &mv_, &wh);
    let sym = |i: usize, j: usize| {
        if i <= j {
            c.rot[i][j].clone()
        } else {
            c.rot[j][i].clone()
        }
    };
    let rot: [[A::S; 3]; 3] = std::array::from_fn(|i| std::array::from_fn(|j| sym(i, j)));
    let iw = mv(a, &rot, w);
    let hv = cross(a, &c.h, v);
    let n = vadd(a, &iw, &hv);
    (n, l)
}

/// The [`Terms`] of the bodies of `mech` (see the module's documentation). `frames` and `axes`
/// come from [`kinematics::frames_and_axes`] over the same `a`, whose velocities are the
/// model's.
pub fn terms<A: Alg>(
    a: &mut A,
    mech: &Mechanism,
    layout: &Layout,
    frames: &[Frame<A>],
    axes: &[Axis<A>],
) -> Terms<A::S> {
    let n = layout.n;
    let nb = mech.bodies.len();
    let zero = a.c(0.0);
    // Each body's tree root: its origin is the tree's reference point.
    let mut root = vec![0; nb];
    for b in 0..nb {
        root[b] = match mech.bodies[b].parent {
            Some(p) => root[p],
            None => b,
        };
    }
    // Each velocity's body and twist about its tree's point.
    let mut owner = vec![0; n];
    for (b, body) in mech.bodies.iter().enumerate() {
        for (j, joint) in body.joints.iter().enumerate() {
            let k = layout.first[b][j];
            owner[k..k + joint.size()].fill(b);
        }
    }
    let s: Vec<Six<A>> = axes
        .iter()
        .zip(&owner)
        .map(|(axis, &b)| match axis {
            Axis::Rotation { axis, point } => {
                let d = vsub(a, point, &frames[root[b]].p);
                let v = cross(a, &d, axis);
                (axis.clone(), v)
            }
            Axis::Translation(d) => (vconst(a, [0.0; 3]), d.clone()),
        })
        .collect();
    let dofs_of = |b: usize| {
        let body = &mech.bodies[b];
        let size: usize = body.joints.iter().map(|j| j.size()).sum();
        body.joints
            .first()
            .map_or(0..0, |_| layout.first[b][0]..layout.first[b][0] + size)
    };
    // Twists: of each body, and just before each velocity's joint.
    let mut twist: Vec<Six<A>> = Vec::with_capacity(nb);
    let mut before: Vec<Six<A>> = (0..n).map(|_| zero6(a)).collect();
    for b in 0..nb {
        let mut t = match mech.bodies[b].parent {
            Some(p) => twist[p].clone(),
            None => zero6(a),
        };
        for k in dofs_of(b) {
            before[k] = t.clone();
            let vk = a.v(k);
            let sv = scale6(a, &vk, &s[k]);
            t = add6(a, &t, &sv);
        }
        twist.push(t);
    }
    // Composite inertias, weights and momenta, leaves first (a parent comes before its
    // children).
    let mut comp: Vec<Inertia<A>> = Vec::with_capacity(nb);
    let mut weight: Vec<Weight<A>> = Vec::with_capacity(nb);
    let mut moment: Vec<Six<A>> = Vec::with_capacity(nb);
    for b in 0..nb {
        let origin = (root[b] != b).then(|| frames[root[b]].p.clone());
        match body_inertia(a, mech, b, &frames[b], origin.as_ref()) {
            Some((c, w)) => {
                moment.push(body_momentum(a, mech, b, &frames[b], origin.as_ref()));
                comp.push(c);
                weight.push(w);
            }
            None => {
                comp.push(zero_inertia(a));
                weight.push((a.c(0.0), vconst(a, [0.0; 3])));
                moment.push(zero6(a));
            }
        }
    }
    for b in (0..nb).rev() {
        if let Some(p) = mech.bodies[b].parent {
            comp[p] = add_inertia(a, &comp[p], &comp[b]);
            let m = a.add(&weight[p].0, &weight[b].0);
            let h = vadd(a, &weight[p].1, &weight[b].1);
            weight[p] = (m, h);
            moment[p] = add6(a, &moment[p], &moment[b]);
        }
    }
    // Per velocity: F = C S, z = S × t⁻, y = C z, k = S ×* h, and the weight's terms.
    let g: Vec3<A> = [a.gravity(0), a.gravity(1), a.gravity(2)];
    struct Dof<A: Alg> {
        f: Six<A>,
        z: Six<A>,
        /// `y − k`.
        y_k: Six<A>,
        /// `Sₐ ×* G`, `G = (hᵍ × g, mᵍ g)` the subtree's weight.
        e: Six<A>,
        /// `ωₐ · hᵍ`, `hᵍ · g` and `mᵍ (g × ωₐ)`.
        alpha: A::S,
        beta: A::S,
        gamma: Vec3<A>,
        /// `(ωₐ × hᵍ + mᵍ vₐ) × g`: the change of the weight's moment when `qₐ` moves.
        moved: Vec3<A>,
        /// `ωₐ · g`.
        wg: A::S,
    }
    let dofs: Vec<Dof<A>> = (0..n)
        .map(|k| {
            let b = owner[k];
            let c = &comp[b];
            let f = momentum(a, c, &s[k]);
            let z = cross_motion(a, &s[k], &before[k]);
            let y = momentum(a, c, &z);
            let kk = cross_force(a, &s[k], &moment[b]);
            let y_k = sub6(a, &y, &kk);
            let (mg, hg) = weight[b].clone();
            let mgg = kinematics::scale(a, &mg, &g);
            let weight = (cross(a, &hg, &g), mgg);
            let e = cross_force(a, &s[k], &weight);
            let alpha = dot(a, &s[k].0, &hg);
            let beta = dot(a, &hg, &g);
            let gw = cross(a, &g, &s[k].0);
            let gamma = kinematics::scale(a, &mg, &gw);
            let wh = cross(a, &s[k].0, &hg);
            let mv_ = kinematics::scale(a, &mg, &s[k].1);
            let sum = vadd(a, &wh, &mv_);
            let moved = cross(a, &sum, &g);
            let wg = dot(a, &s[k].0, &g);
            Dof {
                f,
                z,
                y_k,
                e,
                alpha,
                beta,
                gamma,
                moved,
                wg,
            }
        })
        .collect();
    let mut mass = vec![vec![zero.clone(); n]; n];
    let mut lvq = vec![vec![zero.clone(); n]; n];
    let mut lqq = vec![vec![zero.clone(); n]; n];
    for k in 0..n {
        let b = owner[k];
        // The velocities that move k's joint: those of its body up to k, then its ancestors'.
        let mut movers: Vec<usize> = dofs_of(b).filter(|&i| i <= k).collect();
        let mut up = mech.bodies[b].parent;
        while let Some(p) = up {
            movers.extend(dofs_of(p));
            up = mech.bodies[p].parent;
        }
        let dk = &dofs[k];
        for j in movers {
            let dj = &dofs[j];
            // j ≼ k.
            let m = pair(a, &s[j], &dk.f);
            mass[j][k] = m.clone();
            mass[k][j] = m;
            let lz = pair(a, &dk.f, &dj.z);
            lvq[k][j] = a.sub(&zero, &lz);
            if j != k {
                // ∂p_j/∂q_k with j ≺ k: S_j · (k_k − y_k).
                let sy = pair(a, &s[j], &dk.y_k);
                lvq[j][k] = a.sub(&zero, &sy);
            }
            // ∂²T/∂q_k∂q_j = z_j · (y_k − k_k).
            let tt = pair(a, &dj.z, &dk.y_k);
            // The weight: S_j · (S_k ×* G_k) + α_k (ω_j·g) − (ω_k·ω_j) β_k + v_j · γ_k.
            let w1 = pair(a, &s[j], &dk.e);
            let w2 = a.mul(&dk.alpha, &dj.wg);
            let ww = dot(a, &s[k].0, &s[j].0);
            let w3 = a.mul(&ww, &dk.beta);
            let w4 = dot(a, &s[j].1, &dk.gamma);
            let w = a.add(&w1, &w2);
            let w = a.sub(&w, &w3);
            let w = a.add(&w, &w4);
            let e = a.add(&tt, &w);
            lqq[k][j] = e.clone();
            if j != k {
                // ∂²(T − V)/∂q_j∂q_k with j ≺ k: z_j · (y_k − k_k) and ω_j · (moved_k).
                let wj = dot(a, &s[j].0, &dk.moved);
                lqq[j][k] = a.add(&tt, &wj);
            }
        }
    }
    joint_mass(a, mech, layout, &mut mass);
    // (∂p/∂q) v = −Fₐ · Σ_{j≼a} zⱼvⱼ − Sₐ · Σ_{j≻a} (yⱼ − kⱼ) vⱼ: the first sum accumulated
    // outward, the second inward.
    let mut outward: Vec<Six<A>> = (0..n).map(|_| zero6(a)).collect();
    let mut path: Vec<Six<A>> = Vec::with_capacity(nb);
    for b in 0..nb {
        let mut acc = match mech.bodies[b].parent {
            Some(p) => path[p].clone(),
            None => zero6(a),
        };
        for k in dofs_of(b) {
            let vk = a.v(k);
            let zv = scale6(a, &vk, &dofs[k].z);
            acc = add6(a, &acc, &zv);
            outward[k] = acc.clone();
        }
        path.push(acc);
    }
    let mut inward: Vec<Six<A>> = (0..n).map(|_| zero6(a)).collect();
    let mut below: Vec<Six<A>> = (0..nb).map(|_| zero6(a)).collect();
    for b in (0..nb).rev() {
        let mut acc = below[b].clone();
        for k in dofs_of(b).rev() {
            inward[k] = acc.clone();
            let vk = a.v(k);
            let yv = scale6(a, &vk, &dofs[k].y_k);
            acc = add6(a, &acc, &yv);
        }
        if let Some(p) = mech.bodies[b].parent {
            below[p] = add6(a, &below[p], &acc);
        }
    }
    let lvq_v = (0..n)
        .map(|k| {
            let fz = pair(a, &outward[k], &dofs[k].f);
            let sy = pair(a, &s[k], &inward[k]);
            let t = a.add(&fz, &sy);
            a.sub(&zero, &t)
        })
        .collect();
    Terms {
        lvq_v,
        mass,
        lvq,
        lqq,
    }
}

/// Adds the armature of [`kinematics::joint_energies`] (hinges and slides: `½ arm vₖ²`) to the
/// mass matrix.
fn joint_mass<A: Alg>(a: &mut A, mech: &Mechanism, layout: &Layout, m: &mut [Vec<A::S>]) {
    for (b, body) in mech.bodies.iter().enumerate() {
        for (j, joint) in body.joints.iter().enumerate() {
            let k = layout.first[b][j];
            if joint.armature != 0.0 && joint.size() == 1 {
                let arm = a.c(joint.armature);
                m[k][k] = a.add(&m[k][k], &arm);
            }
        }
    }
}

#[cfg(test)]
#[path = "composite_tests.rs"]
mod tests;

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
//! rotation is its quadratic form, orthogonal only on the unit sphere. A floating tree (a body
//! whose only joint is free, on nothing that moves: [`kinematics::floating_root`]) is
//! therefore seen from its root
//! ([`kinematics::rooted_frames_and_axes`]): there every rotation is a hinge's, the root's
//! velocity is six slots (its body-frame velocity `u = R(ε)ᵀ ẋ` and angular velocity
//! `ω = Ω(ε) ε̇`), gravity is `R(ε)ᵀ g`, and the quaternion enters only through the chain rule
//! from the slots to the coordinates (`to_coordinates`), exact off the sphere too. A mechanism
//! with a ball joint, or a free joint anywhere else, keeps the Hessians of its Lagrangian
//! ([`applies`]).
//!
//! The joint terms of the Lagrangian that are not rigid-body motion (armature, springs, the
//! quaternion's regularization: see [`kinematics::joint_energies`]) are left to the symbolic
//! engine, the mass matrix's part of them too.

use super::kinematics::{self, cross, dot, mv, vadd, vconst, vsub};
use super::kinematics::{Alg, Axis, Frame, Layout, Vec3};
use super::tree::{self, JointKind, Mechanism};

/// Whether [`terms`] are the second derivatives of `mech`'s Lagrangian: every rotation is
/// orthogonal, which holds for hinges and slides and, for a quaternion (the rotation of a ball
/// or free joint is its quadratic form), only on the unit sphere, except at the root of a
/// floating tree, whose quaternion the chain rule handles. `false` with a ball joint or a free
/// joint that is not a root body's only joint.
pub fn applies(mech: &Mechanism) -> bool {
    mech.bodies.iter().enumerate().all(|(b, body)| {
        body.joints.iter().all(|j| match j.kind {
            JointKind::Ball => false,
            JointKind::Free { .. } => kinematics::floating_root(mech, b),
            JointKind::Hinge | JointKind::Slide => true,
        })
    })
}

/// The second derivatives (`n × n`, both triangles filled; structural zeros are the constant
/// `0`) and `(∂p/∂q) v`.
pub struct Terms<S> {
    /// `(∂²T/∂v∂q) v` of the bodies, accumulated along the tree in `O(n)`.
    pub lvq_v: Vec<S>,
    /// `∂²T/∂v²` of the bodies.
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
/// come from [`kinematics::rooted_frames_and_axes`] over the same `a`, whose velocities are
/// the model's.
pub fn terms<A: Alg>(
    a: &mut A,
    mech: &Mechanism,
    layout: &Layout,
    frames: &[Frame<A>],
    axes: &[Axis<A>],
) -> Terms<A::S> {
    let nb = mech.bodies.len();
    let floating: Vec<usize> = (0..nb)
        .filter(|&b| kinematics::floating_root(mech, b))
        .collect();
    // The slots: one per coordinate, except a floating root's six (its body-frame velocity and
    // angular velocity) for its seven.
    let mut first_slot = vec![0; nb];
    let mut ns = 0;
    for (b, body) in mech.bodies.iter().enumerate() {
        first_slot[b] = ns;
        ns += if floating.contains(&b) {
            6
        } else {
            body.size()
        };
    }
    // Each slot's velocity, and whether it is also a coordinate's (a floating root's are not:
    // nothing is differentiated along them).
    let mut vel = Vec::with_capacity(ns);
    let mut coordinate = vec![true; ns];
    for (b, body) in mech.bodies.iter().enumerate() {
        if floating.contains(&b) {
            vel.extend(frames[b].vel.iter().cloned());
            vel.extend(frames[b].w.iter().cloned());
            coordinate[first_slot[b]..first_slot[b] + 6].fill(false);
        } else if let Some(&k) = layout.first[b].first() {
            vel.extend((k..k + body.size()).map(|k| a.v(k)));
        }
    }
    // Each tree's gravity in its reference axes: the world's, or for a floating tree
    // `R(ε)ᵀ g₀`, with `g₀` the world's gravity in the axes the free joint is placed in.
    let g: Vec3<A> = [a.gravity(0), a.gravity(1), a.gravity(2)];
    let mut roots = Vec::with_capacity(floating.len());
    let mut gravity: Vec<Vec3<A>> = (0..nb).map(|_| g.clone()).collect();
    for &b in &floating {
        let k = layout.first[b][0];
        let root = Root::new(a, mech, b, k, first_slot[b], &g);
        gravity[b] = kinematics::mtv(a, &root.rot, &root.g0);
        roots.push(root);
    }
    let s = Slots {
        n: ns,
        first: first_slot,
        vel,
        coordinate,
    };
    let chain = !roots.is_empty();
    let (slot_terms, parts) = slot_terms(a, mech, &s, frames, axes, &gravity, chain);
    match parts {
        Some(parts) => to_coordinates(a, mech, layout, &s, &slot_terms, &parts, &roots),
        None => slot_terms,
    }
}

/// The velocities the composite-rigid-body terms are taken in ([`terms`]).
struct Slots<S> {
    n: usize,
    /// Each body's first slot.
    first: Vec<usize>,
    /// Each slot's velocity.
    vel: Vec<S>,
    /// Whether the slot is a coordinate's velocity (not a floating root's).
    coordinate: Vec<bool>,
}

/// What the chain rule from a floating tree's slots to its coordinates needs from the slots'
/// terms: per slot, its momentum `Sₐ · h` and `∂H/∂qₐ` of the weighted first moment `H`, and
/// each tree's `H`.
struct Parts<A: Alg> {
    momentum: Vec<A::S>,
    moment_rate: Vec<Vec3<A>>,
    first_moment: Vec<Vec3<A>>,
}

/// A floating tree's root: its coordinates `(x, ε)` from `k`, its slots `(u, ω)` from
/// `slot`, `u = R(ε)ᵀ ẋ` and `ω = Ω(ε) ε̇`.
struct Root<A: Alg> {
    body: usize,
    k: usize,
    slot: usize,
    eps: [A::S; 4],
    eps_rate: [A::S; 4],
    x_rate: Vec3<A>,
    rot: [[A::S; 3]; 3],
    /// The world's gravity in the axes of the free joint's placement.
    g0: Vec3<A>,
}

impl<A: Alg> Root<A> {
    fn new(a: &mut A, mech: &Mechanism, body: usize, k: usize, slot: usize, g: &Vec3<A>) -> Self {
        let eps = std::array::from_fn(|i| a.q(k + 3 + i));
        let eps_rate = std::array::from_fn(|i| a.v(k + 3 + i));
        let x_rate = std::array::from_fn(|i| a.v(k + i));
        let rot = kinematics::quat_rotation(a, &eps);
        let placed = kinematics::placement_rotation(mech, body);
        let g0 = if placed == tree::IDENTITY {
            g.clone()
        } else {
            let placed = kinematics::mconst(a, &placed);
            kinematics::mtv(a, &placed, g)
        };
        Self {
            body,
            k,
            slot,
            eps,
            eps_rate,
            x_rate,
            rot,
            g0,
        }
    }

    /// `∂R/∂εᵢ` (`None`) or `∂²R/∂εᵢ∂εₗ` (`Some(l)`).
    fn rot_derivative(&self, a: &mut A, i: usize, l: Option<usize>) -> [[A::S; 3]; 3] {
        let ei = kinematics::unit4(a, i);
        match l {
            None => kinematics::quat_rotation_along(a, &self.eps, &ei),
            Some(l) => {
                let el = kinematics::unit4(a, l);
                kinematics::quat_rotation_along(a, &el, &ei)
            }
        }
    }

    /// `∂ω/∂ε̇ᵢ` (`rate: true`: `Ω(ε) eᵢ`) or `∂ω/∂εᵢ` (`Ω(eᵢ) ε̇`).
    fn rate_column(&self, a: &mut A, i: usize, rate: bool) -> Vec3<A> {
        let e = kinematics::unit4(a, i);
        if rate {
            kinematics::quat_rate(a, &self.eps, &e)
        } else {
            kinematics::quat_rate(a, &e, &self.eps_rate)
        }
    }
}

/// The terms in the slots' velocities ([`Slots`]): the module's formulas, with every
/// derivative along a floating root's slots left out (zero), and with `chain` the [`Parts`]
/// for the chain rule.
fn slot_terms<A: Alg>(
    a: &mut A,
    mech: &Mechanism,
    slots: &Slots<A::S>,
    frames: &[Frame<A>],
    axes: &[Axis<A>],
    gravity: &[Vec3<A>],
    chain: bool,
) -> (Terms<A::S>, Option<Parts<A>>) {
    let n = slots.n;
    let nb = mech.bodies.len();
    let zero = a.c(0.0);
    // Each body's tree root: its origin is the tree's reference point.
    let root = kinematics::tree_roots(mech);
    let dofs_of = |b: usize| {
        let end = if b + 1 < nb { slots.first[b + 1] } else { n };
        slots.first[b]..end
    };
    // Each slot's body and twist about its tree's point.
    let mut owner = vec![0; n];
    for b in 0..nb {
        owner[dofs_of(b)].fill(b);
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
    // Twists: of each body, and just before each slot's joint.
    let mut twist: Vec<Six<A>> = Vec::with_capacity(nb);
    let mut before: Vec<Six<A>> = (0..n).map(|_| zero6(a)).collect();
    for b in 0..nb {
        let mut t = match mech.bodies[b].parent {
            Some(p) => twist[p].clone(),
            None => zero6(a),
        };
        for k in dofs_of(b) {
            before[k] = t.clone();
            let sv = scale6(a, &slots.vel[k], &s[k]);
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
    // Per slot: F = C S, z = S × t⁻, y = C z, k = S ×* h, and the weight's terms.
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
        /// `ωₐ × hᵍ + mᵍ vₐ`: the change of the weighted first moment when `qₐ` moves.
        dh: Vec3<A>,
        /// `dh × g`: the change of the weight's moment.
        moved: Vec3<A>,
        /// `ωₐ · g`.
        wg: A::S,
    }
    let dofs: Vec<Dof<A>> = (0..n)
        .map(|k| {
            let b = owner[k];
            let g = &gravity[root[b]];
            let c = &comp[b];
            let f = momentum(a, c, &s[k]);
            let z = cross_motion(a, &s[k], &before[k]);
            let y = momentum(a, c, &z);
            let kk = cross_force(a, &s[k], &moment[b]);
            let y_k = sub6(a, &y, &kk);
            let (mg, hg) = weight[b].clone();
            let mgg = kinematics::scale(a, &mg, g);
            let weight = (cross(a, &hg, g), mgg);
            let e = cross_force(a, &s[k], &weight);
            let alpha = dot(a, &s[k].0, &hg);
            let beta = dot(a, &hg, g);
            let gw = cross(a, g, &s[k].0);
            let gamma = kinematics::scale(a, &mg, &gw);
            let wh = cross(a, &s[k].0, &hg);
            let mv_ = kinematics::scale(a, &mg, &s[k].1);
            let dh = vadd(a, &wh, &mv_);
            let moved = cross(a, &dh, g);
            let wg = dot(a, &s[k].0, g);
            Dof {
                f,
                z,
                y_k,
                e,
                alpha,
                beta,
                gamma,
                dh,
                moved,
                wg,
            }
        })
        .collect();
    let coordinate = &slots.coordinate;
    let mut mass = vec![vec![zero.clone(); n]; n];
    let mut lvq = vec![vec![zero.clone(); n]; n];
    let mut lqq = vec![vec![zero.clone(); n]; n];
    for k in 0..n {
        let b = owner[k];
        // The slots that move k's joint: those of its body up to k, then its ancestors'.
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
            if coordinate[j] {
                let lz = pair(a, &dk.f, &dj.z);
                lvq[k][j] = a.sub(&zero, &lz);
            }
            if j != k && coordinate[k] {
                // ∂p_j/∂q_k with j ≺ k: S_j · (k_k − y_k).
                let sy = pair(a, &s[j], &dk.y_k);
                lvq[j][k] = a.sub(&zero, &sy);
            }
            if !(coordinate[j] && coordinate[k]) {
                continue;
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
    // (∂p/∂q) v = −Fₐ · Σ_{j≼a} zⱼvⱼ − Sₐ · Σ_{j≻a} (yⱼ − kⱼ) vⱼ over the coordinates' slots j:
    // the first sum accumulated outward, the second inward.
    let mut outward: Vec<Six<A>> = (0..n).map(|_| zero6(a)).collect();
    let mut path: Vec<Six<A>> = Vec::with_capacity(nb);
    for b in 0..nb {
        let mut acc = match mech.bodies[b].parent {
            Some(p) => path[p].clone(),
            None => zero6(a),
        };
        for k in dofs_of(b) {
            if coordinate[k] {
                let zv = scale6(a, &slots.vel[k], &dofs[k].z);
                acc = add6(a, &acc, &zv);
            }
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
            if coordinate[k] {
                let yv = scale6(a, &slots.vel[k], &dofs[k].y_k);
                acc = add6(a, &acc, &yv);
            }
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
    let parts = chain.then(|| Parts {
        momentum: (0..n).map(|k| pair(a, &s[k], &moment[owner[k]])).collect(),
        moment_rate: dofs.into_iter().map(|d| d.dh).collect(),
        first_moment: weight.into_iter().map(|w| w.1).collect(),
    });
    let terms = Terms {
        lvq_v,
        mass,
        lvq,
        lqq,
    };
    (terms, parts)
}

/// The chain rule from the slots to the coordinates: with `w = J(ε) v` the slots' velocities
/// (`u = R(ε)ᵀ ẋ`, `ω = Ω(ε) ε̇` at a floating root, `vₖ` elsewhere), `T = T_s(r, w)` and
/// `−V = g₀ᵀ R(ε) H(r)` plus terms linear in `x`, where `T_s` and `H` are the tree's kinetic
/// energy and weighted first moment seen from its root (orthogonal rotations only):
///
/// * `M = Jᵀ M_s J`, `∂p/∂r = Jᵀ ∂p_s/∂r`;
/// * `∂p/∂εᵢ = (∂J/∂εᵢ)ᵀ p_s + Jᵀ M_s ∂w/∂εᵢ`;
/// * `∂²L/∂εᵢ∂rⱼ = (∂p_s/∂rⱼ) · ∂w/∂εᵢ + (∂R/∂εᵢ)ᵀ g₀ · ∂H/∂rⱼ`;
/// * `∂²L/∂εᵢ∂εₗ = (∂w/∂εᵢ) · M_s ∂w/∂εₗ + p_u · (∂²R/∂εᵢ∂εₗ)ᵀ ẋ + g₀ · (∂²R/∂εᵢ∂εₗ) H`;
///
/// and nothing along `x` (the energies are at most linear in it).
fn to_coordinates<A: Alg>(
    a: &mut A,
    mech: &Mechanism,
    layout: &Layout,
    slots: &Slots<A::S>,
    st: &Terms<A::S>,
    parts: &Parts<A>,
    roots: &[Root<A>],
) -> Terms<A::S> {
    let n = layout.n;
    let zero = a.c(0.0);
    // Per coordinate: the slots its velocity enters, with `∂w/∂v` (the columns of J), and
    // whether it is a floating root's.
    let mut cols: Vec<Vec<(usize, A::S)>> = vec![Vec::new(); n];
    let mut root_of = vec![false; n];
    // Each coordinate's tree (its root body).
    let mut tree = vec![0; n];
    let top = kinematics::tree_roots(mech);
    for (b, body) in mech.bodies.iter().enumerate() {
        let Some(&k) = layout.first[b].first() else {
            continue;
        };
        tree[k..k + body.size()].fill(top[b]);
        if let Some(root) = roots.iter().find(|r| r.body == b) {
            for m in 0..3 {
                cols[root.k + m] = (0..3)
                    .map(|c| (root.slot + c, root.rot[m][c].clone()))
                    .collect();
            }
            for l in 0..4 {
                let w = root.rate_column(a, l, true);
                cols[root.k + 3 + l] = w
                    .into_iter()
                    .enumerate()
                    .map(|(c, x)| (root.slot + 3 + c, x))
                    .collect();
            }
            root_of[root.k..root.k + 7].fill(true);
        } else {
            for (i, col) in cols[k..k + body.size()].iter_mut().enumerate() {
                *col = vec![(slots.first[b] + i, a.c(1.0))];
            }
        }
    }
    // Σ_{a ∈ col} ca · x[a].
    let through = |a: &mut A, col: &[(usize, A::S)], x: &dyn Fn(usize) -> A::S| -> A::S {
        let mut acc = a.c(0.0);
        for (s, c) in col {
            let t = a.mul(c, &x(*s));
            acc = a.add(&acc, &t);
        }
        acc
    };
    let mut mass = vec![vec![zero.clone(); n]; n];
    for i in 0..n {
        for j in i..n {
            let mut acc = a.c(0.0);
            for (si, ci) in &cols[i] {
                let row = through(a, &cols[j], &|s| st.mass[*si][s].clone());
                let t = a.mul(ci, &row);
                acc = a.add(&acc, &t);
            }
            mass[i][j] = acc.clone();
            mass[j][i] = acc;
        }
    }
    let mut lvq = vec![vec![zero.clone(); n]; n];
    let mut lqq = vec![vec![zero.clone(); n]; n];
    // The coordinates that are a slot's: `∂p/∂r = Jᵀ ∂p_s/∂r`, and `∂²L/∂r²` as it is.
    for j in 0..n {
        if root_of[j] {
            continue;
        }
        let sj = cols[j][0].0;
        for i in 0..n {
            lvq[i][j] = through(a, &cols[i], &|s| st.lvq[s][sj].clone());
            if !root_of[i] {
                let si = cols[i][0].0;
                lqq[i][j] = st.lqq[si][sj].clone();
            }
        }
    }
    // `(∂p/∂q) v` along the quaternions: `Jᵀ M_s δw + (δJ)ᵀ p_s` with `δ` the derivative along
    // `ε̇` (the slots' part, and the root's own velocities').
    let mut along_slots: Vec<A::S> = vec![zero.clone(); slots.n];
    let mut along_own: Vec<A::S> = vec![zero.clone(); n];
    // Along each floating root's quaternion.
    for root in roots {
        let six = root.slot..root.slot + 6;
        let p_u: Vec3<A> = std::array::from_fn(|c| parts.momentum[root.slot + c].clone());
        let p_w: Vec3<A> = std::array::from_fn(|c| parts.momentum[root.slot + 3 + c].clone());
        {
            let d = kinematics::quat_rotation_along(a, &root.eps, &root.eps_rate);
            let mut dw: Vec<A::S> = (0..3)
                .map(|c| {
                    let col = [d[0][c].clone(), d[1][c].clone(), d[2][c].clone()];
                    dot(a, &col, &root.x_rate)
                })
                .collect();
            dw.extend(kinematics::quat_rate(a, &root.eps_rate, &root.eps_rate));
            for (s, out) in along_slots.iter_mut().enumerate() {
                for (c, wc) in six.clone().zip(&dw) {
                    let t = a.mul(&st.mass[s][c], wc);
                    *out = a.add(out, &t);
                }
            }
            for m in 0..3 {
                along_own[root.k + m] = dot(a, &d[m], &p_u);
            }
            for l in 0..4 {
                let e = kinematics::unit4(a, l);
                let col = kinematics::quat_rate(a, &root.eps_rate, &e);
                along_own[root.k + 3 + l] = dot(a, &col, &p_w);
            }
        }
        // ∂w/∂εᵢ (on the root's six slots) and ∂R/∂εᵢ.
        let mut dw: Vec<Vec<A::S>> = Vec::with_capacity(4);
        let mut drot = Vec::with_capacity(4);
        for i in 0..4 {
            let d = root.rot_derivative(a, i, None);
            let mut w: Vec<A::S> = (0..3)
                .map(|c| {
                    let col = [d[0][c].clone(), d[1][c].clone(), d[2][c].clone()];
                    dot(a, &col, &root.x_rate)
                })
                .collect();
            w.extend(root.rate_column(a, i, false));
            dw.push(w);
            drot.push(d);
        }
        // M_s ∂w/∂εᵢ, on every slot of the tree (zero elsewhere).
        let mdw: Vec<Vec<A::S>> = dw
            .iter()
            .map(|w| {
                (0..slots.n)
                    .map(|s| {
                        let mut acc = a.c(0.0);
                        for (c, wc) in six.clone().zip(w) {
                            let t = a.mul(&st.mass[s][c], wc);
                            acc = a.add(&acc, &t);
                        }
                        acc
                    })
                    .collect()
            })
            .collect();
        for i in 0..4 {
            let ei = root.k + 3 + i;
            for alpha in (0..n).filter(|&alpha| tree[alpha] == root.body) {
                // (∂J/∂εᵢ)ᵀ p_s, nonzero on the root's own velocities.
                let own = match alpha.checked_sub(root.k) {
                    Some(m) if m < 3 => dot(a, &drot[i][m], &p_u),
                    Some(m) if m < 7 => {
                        let e = kinematics::unit4(a, m - 3);
                        let f = kinematics::unit4(a, i);
                        let col = kinematics::quat_rate(a, &f, &e);
                        dot(a, &col, &p_w)
                    }
                    _ => a.c(0.0),
                };
                let moved = through(a, &cols[alpha], &|s| mdw[i][s].clone());
                lvq[alpha][ei] = a.add(&own, &moved);
            }
            // ∂²L/∂εᵢ∂rⱼ for the tree's other coordinates.
            let dg = kinematics::mtv(a, &drot[i], &root.g0);
            for j in 0..n {
                if root_of[j] || tree[j] != root.body {
                    continue;
                }
                let sj = cols[j][0].0;
                let mut acc = a.c(0.0);
                for (c, wc) in six.clone().zip(&dw[i]) {
                    let t = a.mul(&st.lvq[c][sj], wc);
                    acc = a.add(&acc, &t);
                }
                let w = dot(a, &dg, &parts.moment_rate[sj]);
                let e = a.add(&acc, &w);
                lqq[ei][j] = e.clone();
                lqq[j][ei] = e;
            }
            // ∂²L/∂εᵢ∂εₗ.
            for (l, dw_l) in dw.iter().enumerate().skip(i) {
                let el = root.k + 3 + l;
                let mut acc = a.c(0.0);
                for (c, wc) in six.clone().zip(dw_l) {
                    let t = a.mul(&mdw[i][c], wc);
                    acc = a.add(&acc, &t);
                }
                let dd = root.rot_derivative(a, i, Some(l));
                let ddx = kinematics::mtv(a, &dd, &root.x_rate);
                let kin = dot(a, &p_u, &ddx);
                let ddh = mv(a, &dd, &parts.first_moment[root.body]);
                let pot = dot(a, &root.g0, &ddh);
                let acc = a.add(&acc, &kin);
                let e = a.add(&acc, &pot);
                lqq[ei][el] = e.clone();
                lqq[el][ei] = e;
            }
        }
    }
    // (∂p/∂q) v: the slots' (along the coordinates' slots) and along the quaternions.
    let slot_sum: Vec<A::S> = (0..slots.n)
        .map(|s| a.add(&st.lvq_v[s], &along_slots[s]))
        .collect();
    let lvq_v = (0..n)
        .map(|alpha| {
            let acc = through(a, &cols[alpha], &|s| slot_sum[s].clone());
            a.add(&acc, &along_own[alpha])
        })
        .collect();
    Terms {
        lvq_v,
        mass,
        lvq,
        lqq,
    }
}

#[cfg(test)]
#[path = "composite_tests.rs"]
mod tests;

//! Wheels rolling without slip on the ground plane `z = 0` (the world's z up): a disc of radius
//! `r` fixed to a body, its centre at the body's origin and its axis `a` (unit, body frame).
//!
//! The contact point is the disc's lowest point, `c + r d` with `d = (a a_z − e_z) / s`,
//! `s = |a × e_z| = √(1 − a_z²)` (world axis `a`). Its height `c_z − r s = 0` is a holonomic row
//! (the wheel touches the ground); the velocity of the disc's material point there,
//! `v_c + ω × r d`, has zero x and y components: two nonholonomic rows (no slip). Its z component
//! is the height's time derivative, so it adds nothing. Rows are built in the body's axes from
//! the frame the kinematics computed, as `let` bindings of the model's definitions.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::kinematics::Frame;
use super::symbolic::{number, Symbolic};
use super::tree::V3;

/// One wheel: the body (tree index), the radius and the axis in the body's frame.
pub struct Wheel {
    /// The body the disc is fixed to.
    pub body: usize,
    /// The radius.
    pub radius: f64,
    /// The unit axis, body frame.
    pub axis: V3,
}

/// The wheel's rows: `(contact height, [no slip along x, no slip along y])`.
pub fn rows(
    sym: &mut Symbolic,
    f: &Frame<Symbolic>,
    w: &Wheel,
    index: usize,
) -> (TokenStream, [TokenStream; 2]) {
    let span = proc_macro2::Span::call_site();
    let t = |sym: &Symbolic, s: &super::symbolic::Sx| sym.tokens(s);
    let let_ = |sym: &mut Symbolic, part: &str, value: TokenStream| {
        let name = format_ident!("__mech_wheel{}_{}", index, part);
        sym.lets.push(quote!(let #name = #value;));
        quote!(#name)
    };
    let num = |x: f64| number(x, span);
    let r: Vec<Vec<TokenStream>> = (0..3)
        .map(|i| (0..3).map(|j| t(sym, &f.r[i][j])).collect())
        .collect();
    let vel: Vec<TokenStream> = (0..3).map(|i| t(sym, &f.vel[i])).collect();
    let om: Vec<TokenStream> = (0..3).map(|i| t(sym, &f.w[i])).collect();
    let pz = t(sym, &f.p[2]);
    let a: Vec<TokenStream> = w.axis.iter().map(|x| num(*x)).collect();
    let (a0, a1, a2) = (&a[0], &a[1], &a[2]);
    let (r20, r21, r22) = (&r[2][0], &r[2][1], &r[2][2]);
    let az = let_(sym, "az", quote!(#r20 * #a0 + #r21 * #a1 + #r22 * #a2));
    let s = let_(sym, "s", quote!((1.0 - #az * #az).sqrt()));
    let rad = num(w.radius);
    let height = quote!(#pz - #rad * #s);
    // r d in body axes: r (a a_z − Rᵀ e_z) / s.
    let k = let_(sym, "k", quote!(#rad / #s));
    let d: Vec<TokenStream> = (0..3)
        .map(|i| {
            let (ai, r2i) = (&a[i], &r[2][i]);
            let_(sym, &format!("d{i}"), quote!(#k * (#ai * #az - #r2i)))
        })
        .collect();
    // u = v + ω × r d (body axes).
    let u: Vec<TokenStream> = (0..3)
        .map(|i| {
            let (j, l) = ((i + 1) % 3, (i + 2) % 3);
            let (vi, wj, wl, dj, dl) = (&vel[i], &om[j], &om[l], &d[j], &d[l]);
            let_(sym, &format!("u{i}"), quote!(#vi + #wj * #dl - #wl * #dj))
        })
        .collect();
    let (u0, u1, u2) = (&u[0], &u[1], &u[2]);
    let row = |i: usize| {
        let (x, y, z) = (&r[i][0], &r[i][1], &r[i][2]);
        quote!(#x * #u0 + #y * #u1 + #z * #u2)
    };
    (height, [row(0), row(1)])
}

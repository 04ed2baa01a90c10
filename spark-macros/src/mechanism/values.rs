//! The numbers of a mechanism written in `mechanics!` (`bodies`, `joints`, `gravity`),
//! evaluated when the model is compiled: literals, the model's `const`s, `PI` and the other
//! `f64` constants, `+ - * /`, the usual `f64` methods (`sin`, `sqrt`, `powi`, `to_radians`,
//! ...), `[x, y, z]` vectors, `[[..], [..], [..]]` matrices and the rotations of
//! [`Values::rotation`]. Every error is spanned on the user's tokens.
//!
//! The recursion follows the expression's nesting, which `depth.rs` bounds before any pass
//! runs; constants referring to constants are followed at most [`MAX_CONST_CHAIN`] deep.

use std::collections::{HashMap, HashSet};

use quote::ToTokens;
use syn::{BinOp, Expr, Lit, UnOp};

use super::tree::{self, M3, V3};

/// How many constants deep a constant's value may refer to others (a cycle stops here).
const MAX_CONST_CHAIN: usize = 32;

/// What a value may refer to: the model's constants, and its parameters (to say they cannot be
/// used here).
pub struct Values<'a> {
    consts: HashMap<String, &'a Expr>,
    params: HashSet<String>,
}

fn err(at: &impl ToTokens, msg: impl std::fmt::Display) -> syn::Error {
    syn::Error::new_spanned(at, msg)
}

fn strip(mut e: &Expr) -> &Expr {
    loop {
        match e {
            Expr::Paren(p) => e = &p.expr,
            Expr::Group(g) => e = &g.expr,
            _ => return e,
        }
    }
}

/// The value of a named `f64` constant (`PI`, `core::f64::consts::FRAC_PI_2`, ...).
fn std_const(name: &str) -> Option<f64> {
    use std::f64::consts as c;
    Some(match name {
        "PI" => c::PI,
        "TAU" => c::TAU,
        "E" => c::E,
        "FRAC_PI_2" => c::FRAC_PI_2,
        "FRAC_PI_3" => c::FRAC_PI_3,
        "FRAC_PI_4" => c::FRAC_PI_4,
        "FRAC_PI_6" => c::FRAC_PI_6,
        "FRAC_PI_8" => c::FRAC_PI_8,
        "SQRT_2" => c::SQRT_2,
        "FRAC_1_SQRT_2" => c::FRAC_1_SQRT_2,
        "LN_2" => c::LN_2,
        "LN_10" => c::LN_10,
        _ => return None,
    })
}

impl<'a> Values<'a> {
    /// The values of a model with these constants and parameters.
    pub fn new(consts: &'a [syn::ItemConst], params: HashSet<String>) -> Self {
        Self {
            consts: consts
                .iter()
                .map(|c| (c.ident.to_string(), &*c.expr))
                .collect(),
            params,
        }
    }

    /// A number.
    pub fn num(&self, e: &Expr) -> syn::Result<f64> {
        self.num_at(e, 0)
    }

    fn num_at(&self, e: &Expr, chain: usize) -> syn::Result<f64> {
        let v = match strip(e) {
            Expr::Lit(l) => match &l.lit {
                Lit::Float(f) => f.base10_parse::<f64>()?,
                Lit::Int(i) => i.base10_parse::<f64>()?,
                _ => return Err(err(e, "expected a number")),
            },
            Expr::Path(p) => {
                let last = p.path.segments.last().map(|s| s.ident.to_string());
                if p.path.segments.len() == 1 {
                    let s = last.unwrap_or_default();
                    if let Some(c) = self.consts.get(&s) {
                        if chain >= MAX_CONST_CHAIN {
                            return Err(err(e, format!("the constant `{s}` refers to itself")));
                        }
                        return self.num_at(c, chain + 1);
                    }
                    if self.params.contains(&s) {
                        return Err(err(
                            e,
                            format!(
                                "`{s}` is a parameter: the bodies and joints of a mechanism are \
                                 fixed when the model is compiled\nhelp: write a number or an \
                                 integer `const`; gravity is the parameters `gravity_x`, \
                                 `gravity_y`, `gravity_z`"
                            ),
                        ));
                    }
                    if let Some(x) = std_const(&s) {
                        return Ok(x);
                    }
                    return Err(err(
                        e,
                        format!(
                            "cannot find `{s}` here: a body's or joint's value is a number, an \
                             integer `const` of the model, `PI`, or arithmetic of them"
                        ),
                    ));
                }
                let in_consts = p
                    .path
                    .segments
                    .iter()
                    .rev()
                    .nth(1)
                    .map(|s| s.ident == "consts");
                match (in_consts, last.as_deref().and_then(std_const)) {
                    (Some(true), Some(x)) => x,
                    _ => return Err(err(e, "expected a number, such as `core::f64::consts::PI`")),
                }
            }
            Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => -self.num_at(&u.expr, chain)?,
            Expr::Binary(b) => {
                let (l, r) = (self.num_at(&b.left, chain)?, self.num_at(&b.right, chain)?);
                match b.op {
                    BinOp::Add(_) => l + r,
                    BinOp::Sub(_) => l - r,
                    BinOp::Mul(_) => l * r,
                    BinOp::Div(_) => l / r,
                    _ => return Err(err(&b.op, "expected `+`, `-`, `*` or `/`")),
                }
            }
            Expr::MethodCall(m) => {
                let x = self.num_at(&m.receiver, chain)?;
                let args: Vec<f64> = m
                    .args
                    .iter()
                    .map(|a| self.num_at(a, chain))
                    .collect::<syn::Result<_>>()?;
                let name = m.method.to_string();
                let want = match name.as_str() {
                    "powi" | "powf" | "atan2" | "hypot" | "min" | "max" => 1,
                    _ => 0,
                };
                if args.len() != want {
                    return Err(err(
                        &m.method,
                        format!("`{name}` takes {want} argument(s) here"),
                    ));
                }
                match name.as_str() {
                    "sin" => x.sin(),
                    "cos" => x.cos(),
                    "tan" => x.tan(),
                    "asin" => x.asin(),
                    "acos" => x.acos(),
                    "atan" => x.atan(),
                    "sqrt" => x.sqrt(),
                    "abs" => x.abs(),
                    "exp" => x.exp(),
                    "ln" => x.ln(),
                    "to_radians" => x.to_radians(),
                    "to_degrees" => x.to_degrees(),
                    "powi" => {
                        if args[0].fract() != 0.0 {
                            return Err(err(&m.args[0], "`powi` takes an integer"));
                        }
                        x.powi(args[0] as i32)
                    }
                    "powf" => x.powf(args[0]),
                    "atan2" => x.atan2(args[0]),
                    "hypot" => x.hypot(args[0]),
                    "min" => x.min(args[0]),
                    "max" => x.max(args[0]),
                    _ => {
                        return Err(err(
                            &m.method,
                            format!("`{name}` is not a method of numbers here"),
                        ))
                    }
                }
            }
            _ => return Err(err(e, "expected a number")),
        };
        if !v.is_finite() {
            return Err(err(e, format!("this value is not finite ({v})")));
        }
        Ok(v)
    }

    /// `[a, b, ..]` with `n` items.
    fn items<'e>(&self, e: &'e Expr, n: usize, what: &str) -> syn::Result<Vec<&'e Expr>> {
        match strip(e) {
            Expr::Array(a) if a.elems.len() == n => Ok(a.elems.iter().collect()),
            _ => Err(err(e, format!("expected {what}"))),
        }
    }

    /// `[x, y, z]`.
    pub fn vec3(&self, e: &Expr) -> syn::Result<V3> {
        let it = self.items(e, 3, "a vector `[x, y, z]`")?;
        Ok([self.num(it[0])?, self.num(it[1])?, self.num(it[2])?])
    }

    /// A unit vector `[x, y, z]` (normalized here; zero is an error).
    pub fn unit(&self, e: &Expr) -> syn::Result<V3> {
        let a = self.vec3(e)?;
        let n = tree::norm(a);
        if n < 1e-12 {
            return Err(err(e, "an axis cannot be zero"));
        }
        Ok(tree::scale(1.0 / n, a))
    }

    /// `[[..], [..], [..]]`, row by row.
    pub fn mat3(&self, e: &Expr) -> syn::Result<M3> {
        let it = self.items(
            e,
            3,
            "a matrix `[[xx, xy, xz], [yx, yy, yz], [zx, zy, zz]]`",
        )?;
        Ok([self.vec3(it[0])?, self.vec3(it[1])?, self.vec3(it[2])?])
    }

    /// An inertia tensor: `[ixx, iyy, izz]` (principal axes) or the full matrix.
    pub fn inertia(&self, e: &Expr) -> syn::Result<M3> {
        match strip(e) {
            Expr::Array(a) if a.elems.iter().all(|x| matches!(strip(x), Expr::Array(_))) => {
                self.mat3(e)
            }
            Expr::Array(_) => self.vec3(e).map(tree::diag),
            _ => Err(err(
                e,
                "expected an inertia tensor: `[ixx, iyy, izz]` (principal axes) or the matrix \
                 `[[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]]`",
            )),
        }
    }

    /// A rotation (a matrix mapping the rotated frame's coordinates to the parent's):
    /// `Rotation::identity()`, `Rotation::axis_angle([x, y, z], angle)`,
    /// `Rotation::quaternion([w, x, y, z])`, `Rotation::rpy([roll, pitch, yaw])` (URDF's),
    /// `Rotation::body_fixed_zyx([a, b, c])` (any sequence of three axes, each rotation about
    /// the axis of the frame the previous ones made), `Rotation::matrix([[..], ..])`, and
    /// products `r1 * r2` (first `r1`, then `r2` about the axes `r1` made).
    pub fn rotation(&self, e: &Expr) -> syn::Result<M3> {
        const HELP: &str = "expected a rotation: `Rotation::identity()`, \
             `Rotation::axis_angle([x, y, z], angle)`, `Rotation::quaternion([w, x, y, z])`, \
             `Rotation::rpy([roll, pitch, yaw])`, `Rotation::body_fixed_zyx([a, b, c])` (any \
             three axes), `Rotation::matrix([[..], [..], [..]])`, or a product `r1 * r2`";
        match strip(e) {
            Expr::Binary(b) if matches!(b.op, BinOp::Mul(_)) => {
                let l = self.rotation(&b.left)?;
                let r = self.rotation(&b.right)?;
                Ok(tree::mul(&l, &r))
            }
            Expr::Call(c) => {
                let Expr::Path(p) = strip(&c.func) else {
                    return Err(err(e, HELP));
                };
                let segs: Vec<String> = p
                    .path
                    .segments
                    .iter()
                    .map(|s| s.ident.to_string())
                    .collect();
                if segs.len() != 2 || segs[0] != "Rotation" {
                    return Err(err(&c.func, HELP));
                }
                let args: Vec<&Expr> = c.args.iter().collect();
                let arity = |n: usize| -> syn::Result<()> {
                    if args.len() == n {
                        Ok(())
                    } else {
                        Err(err(
                            &c.func,
                            format!("`Rotation::{}` takes {n} argument(s)", segs[1]),
                        ))
                    }
                };
                let name = segs[1].as_str();
                match name {
                    "identity" => {
                        arity(0)?;
                        Ok(tree::IDENTITY)
                    }
                    "axis_angle" => {
                        arity(2)?;
                        Ok(tree::axis_angle(self.unit(args[0])?, self.num(args[1])?))
                    }
                    "quaternion" => {
                        arity(1)?;
                        let it = self.items(args[0], 4, "a quaternion `[w, x, y, z]`")?;
                        let q = [
                            self.num(it[0])?,
                            self.num(it[1])?,
                            self.num(it[2])?,
                            self.num(it[3])?,
                        ];
                        if q.iter().map(|x| x * x).sum::<f64>() < 1e-24 {
                            return Err(err(args[0], "a quaternion cannot be zero"));
                        }
                        Ok(tree::quat_matrix(q))
                    }
                    "rpy" => {
                        arity(1)?;
                        Ok(tree::rpy(self.vec3(args[0])?))
                    }
                    "matrix" => {
                        arity(1)?;
                        let m = self.mat3(args[0])?;
                        let mmt = tree::mul(&m, &tree::transpose(&m));
                        let off = (0..3)
                            .flat_map(|i| (0..3).map(move |j| (i, j)))
                            .map(|(i, j)| (mmt[i][j] - tree::IDENTITY[i][j]).abs())
                            .fold(0.0, f64::max);
                        let det = tree::dot(m[0], tree::cross(m[1], m[2]));
                        if off > 1e-9 || det < 0.0 {
                            return Err(err(
                                args[0],
                                "this matrix is not a rotation (orthonormal, determinant 1)",
                            ));
                        }
                        Ok(m)
                    }
                    _ => match name.strip_prefix("body_fixed_") {
                        Some(seq)
                            if seq.len() == 3
                                && seq.chars().all(|c| matches!(c, 'x' | 'y' | 'z'))
                                && seq.as_bytes()[0] != seq.as_bytes()[1]
                                && seq.as_bytes()[1] != seq.as_bytes()[2] =>
                        {
                            arity(1)?;
                            let angles = self.vec3(args[0])?;
                            let mut r = tree::IDENTITY;
                            for (c, a) in seq.chars().zip(angles) {
                                let axis = match c {
                                    'x' => [1.0, 0.0, 0.0],
                                    'y' => [0.0, 1.0, 0.0],
                                    _ => [0.0, 0.0, 1.0],
                                };
                                r = tree::mul(&r, &tree::axis_angle(axis, a));
                            }
                            Ok(r)
                        }
                        _ => Err(err(&c.func, HELP)),
                    },
                }
            }
            _ => Err(err(e, HELP)),
        }
    }
}

//! Smart constructors: every rewrite rule of the engine lives in this file.
//!
//! Each constructor builds the canonical form documented on [`Node`] and applies only local,
//! terminating rules (no global rewriting):
//!
//! | rule | guard |
//! | --- | --- |
//! | constant folding (f64 arithmetic / `f64` functions on constants) | only if the result is finite |
//! | flatten nested sums / products | the nested one has at most `FLATTEN_LIMIT` operands |
//! | `x + 0 → x`, `x * 1 → x` | — |
//! | `x * 0 → 0` | always (only differs from f64 when `x` is infinite or NaN) |
//! | `c1·r + c2·r → (c1+c2)·r` (so `x - x → 0`, `--x → x`) | `c1 + c2` finite |
//! | `x^a · x^b → x^(a+b)` (so `x·x → x^2`) | `a`, `b` of the same sign (so `x / x` is kept: `x` is not provably non-zero) and no `i32` overflow |
//! | `(x^a)^b → x^(a·b)` | no `i32` overflow (exact for integer exponents, also at `0` and `∞`) |
//! | `(x·y)^n → x^n·y^n` | — |
//! | `x^0 → 1` | always: it is what `f64::powi(x, 0)` returns for every `x` (NaN and `0` included) |
//! | `x^1 → x` | — |
//! | `powf(x, c) → x^c` | `c` an integer in `i32` range (`powf` equals `powi` there, negative `x` included) |
//! | `powf(1, y) → 1` | — (`1.0.powf(y)` is `1` for every `y`) |
//! | `ln(exp(x)) → x` | — |
//!
//! Deliberately *not* done: `x / x → 1`, `sqrt(x^2) → x`, `sqrt(x)^2 → x`, `exp(ln x) → x`
//! (all wrong somewhere on the real line or at zero).

use std::collections::HashMap;

use super::expr::Arena;
use super::node::{Id, Node};

/// Sums and products with more operands than this are not flattened into an enclosing
/// sum / product but kept as one operand. Flattening without a bound makes long chains
/// quadratic: building `x1 + x2 + ... + xn` term by term, or the chain rule through `n`
/// nested functions (whose derivative is a product of `n` factors, one more per level).
pub(super) const FLATTEN_LIMIT: usize = 32;

impl Arena {
    /// `a + b`.
    pub fn add(&mut self, a: Id, b: Id) -> Id {
        self.sum(&[a, b])
    }

    /// `a - b`, stored as `a + (-1)·b`.
    pub fn sub(&mut self, a: Id, b: Id) -> Id {
        let nb = self.neg(b);
        self.sum(&[a, nb])
    }

    /// `a · b`.
    pub fn mul(&mut self, a: Id, b: Id) -> Id {
        self.product(&[a, b])
    }

    /// `a / b`, stored as `a · b^-1`.
    pub fn div(&mut self, a: Id, b: Id) -> Id {
        let inv = self.powi(b, -1);
        self.product(&[a, inv])
    }

    /// `-a`, stored as `(-1)·a`.
    pub fn neg(&mut self, a: Id) -> Id {
        let minus_one = self.constant(-1.0);
        self.product(&[minus_one, a])
    }

    /// Sum of any number of terms (`0` for none).
    pub fn sum(&mut self, terms: &[Id]) -> Id {
        // Flatten nested sums (small ones: see `FLATTEN_LIMIT`).
        let mut flat = Vec::with_capacity(terms.len());
        for &t in terms {
            match self.node(t) {
                Node::Add(ts) if ts.len() <= FLATTEN_LIMIT => flat.extend_from_slice(ts),
                _ => flat.push(t),
            }
        }

        // Fold constants; keep the ones whose sum would overflow.
        let mut constant = 0.0;
        let mut out: Vec<Id> = Vec::new();
        // Like terms: rest → index into `groups`, which holds (rest, coefficient).
        let mut index: HashMap<Id, usize> = HashMap::new();
        let mut groups: Vec<(Id, f64)> = Vec::new();
        for t in flat {
            if let Some(c) = self.as_const(t) {
                let s = constant + c;
                if s.is_finite() {
                    constant = s;
                } else {
                    out.push(t);
                }
                continue;
            }
            let (c, rest) = self.split_coefficient(t);
            match index.get(&rest) {
                Some(&k) if (groups[k].1 + c).is_finite() => groups[k].1 += c,
                Some(_) => groups.push((rest, c)),
                None => {
                    index.insert(rest, groups.len());
                    groups.push((rest, c));
                }
            }
        }
        if constant != 0.0 {
            out.push(self.constant(constant));
        }
        for (rest, c) in groups {
            if c == 0.0 {
                continue;
            }
            if c == 1.0 {
                out.push(rest);
            } else {
                let c = self.constant(c);
                out.push(self.product(&[c, rest]));
            }
        }
        self.finish_nary(out, 0.0, Node::Add)
    }

    /// Product of any number of factors (`1` for none).
    pub fn product(&mut self, factors: &[Id]) -> Id {
        // Flatten nested products (small ones: see `FLATTEN_LIMIT`).
        let mut flat = Vec::with_capacity(factors.len());
        for &f in factors {
            match self.node(f) {
                Node::Mul(fs) if fs.len() <= FLATTEN_LIMIT => flat.extend_from_slice(fs),
                _ => flat.push(f),
            }
        }

        let mut coefficient = 1.0;
        let mut out: Vec<Id> = Vec::new();
        // Equal bases: base → index into `groups`, which holds (base, positive exponent sum,
        // negative exponent sum); exponents of opposite signs are never combined.
        let mut index: HashMap<Id, usize> = HashMap::new();
        let mut groups: Vec<(Id, i32, i32)> = Vec::new();
        for f in flat {
            if let Some(c) = self.as_const(f) {
                if c == 0.0 {
                    return self.constant(0.0);
                }
                let p = coefficient * c;
                if p.is_finite() {
                    coefficient = p;
                } else {
                    out.push(f);
                }
                continue;
            }
            let (base, n) = match *self.node(f) {
                Node::Pow(b, n) => (b, n),
                _ => (f, 1),
            };
            let Some(&k) = index.get(&base) else {
                index.insert(base, groups.len());
                groups.push(if n > 0 { (base, n, 0) } else { (base, 0, n) });
                continue;
            };
            let slot = if n > 0 {
                &mut groups[k].1
            } else {
                &mut groups[k].2
            };
            match slot.checked_add(n) {
                Some(s) => *slot = s,
                None => out.push(f),
            }
        }
        if coefficient == 0.0 {
            // The folded constants underflowed.
            return self.constant(0.0);
        }
        if coefficient != 1.0 {
            out.push(self.constant(coefficient));
        }
        for (base, pos, neg) in groups {
            for n in [pos, neg] {
                if n != 0 {
                    out.push(self.pow_node(base, n));
                }
            }
        }
        self.finish_nary(out, 1.0, Node::Mul)
    }

    /// `a^n` for an integer `n`.
    ///
    /// `powi(a, 0)` is `1` for every `a`, exactly like `f64::powi`.
    pub fn powi(&mut self, a: Id, n: i32) -> Id {
        if n == 0 {
            return self.constant(1.0);
        }
        if n == 1 {
            return a;
        }
        match self.node(a) {
            Node::Const(bits) => {
                let v = f64::from_bits(*bits).powi(n);
                if v.is_finite() {
                    return self.constant(v);
                }
                self.intern(Node::Pow(a, n))
            }
            &Node::Pow(b, m) => match m.checked_mul(n) {
                Some(k) => self.powi(b, k),
                None => self.intern(Node::Pow(a, n)),
            },
            Node::Mul(fs) => {
                let fs = fs.clone();
                let powers: Vec<Id> = fs.iter().map(|&f| self.powi(f, n)).collect();
                self.product(&powers)
            }
            _ => self.intern(Node::Pow(a, n)),
        }
    }

    /// `a^b` for a real exponent.
    pub fn powf(&mut self, a: Id, b: Id) -> Id {
        if let Some(e) = self.as_const(b) {
            if e.fract() == 0.0 && e >= f64::from(i32::MIN) && e <= f64::from(i32::MAX) {
                // Exact: `e` is an integer in range.
                return self.powi(a, e as i32);
            }
            if let Some(x) = self.as_const(a) {
                let v = x.powf(e);
                if v.is_finite() {
                    return self.constant(v);
                }
            }
        }
        if self.as_const(a) == Some(1.0) {
            return a;
        }
        self.intern(Node::Powf([a, b]))
    }

    /// Square root.
    pub fn sqrt(&mut self, a: Id) -> Id {
        self.unary(a, f64::sqrt, Node::Sqrt)
    }

    /// Exponential.
    pub fn exp(&mut self, a: Id) -> Id {
        self.unary(a, f64::exp, Node::Exp)
    }

    /// Natural logarithm; `ln(exp(x)) → x`.
    pub fn ln(&mut self, a: Id) -> Id {
        if let Node::Exp(x) = *self.node(a) {
            return x;
        }
        self.unary(a, f64::ln, Node::Ln)
    }

    /// Sine.
    pub fn sin(&mut self, a: Id) -> Id {
        self.unary(a, f64::sin, Node::Sin)
    }

    /// Cosine.
    pub fn cos(&mut self, a: Id) -> Id {
        self.unary(a, f64::cos, Node::Cos)
    }

    /// Tangent.
    pub fn tan(&mut self, a: Id) -> Id {
        self.unary(a, f64::tan, Node::Tan)
    }

    /// Arcsine.
    pub fn asin(&mut self, a: Id) -> Id {
        self.unary(a, f64::asin, Node::Asin)
    }

    /// Arccosine.
    pub fn acos(&mut self, a: Id) -> Id {
        self.unary(a, f64::acos, Node::Acos)
    }

    /// Arctangent.
    pub fn atan(&mut self, a: Id) -> Id {
        self.unary(a, f64::atan, Node::Atan)
    }

    /// Hyperbolic sine.
    pub fn sinh(&mut self, a: Id) -> Id {
        self.unary(a, f64::sinh, Node::Sinh)
    }

    /// Hyperbolic cosine.
    pub fn cosh(&mut self, a: Id) -> Id {
        self.unary(a, f64::cosh, Node::Cosh)
    }

    /// Hyperbolic tangent.
    pub fn tanh(&mut self, a: Id) -> Id {
        self.unary(a, f64::tanh, Node::Tanh)
    }

    /// Four-quadrant arctangent of `y / x`.
    pub fn atan2(&mut self, y: Id, x: Id) -> Id {
        if let (Some(cy), Some(cx)) = (self.as_const(y), self.as_const(x)) {
            let v = cy.atan2(cx);
            if v.is_finite() {
                return self.constant(v);
            }
        }
        self.intern(Node::Atan2([y, x]))
    }

    // ---- helpers -------------------------------------------------------------------------

    /// A function of one argument: folded if the argument is constant and the result finite.
    fn unary(&mut self, a: Id, f: fn(f64) -> f64, make: fn(Id) -> Node) -> Id {
        if let Some(c) = self.as_const(a) {
            let v = f(c);
            if v.is_finite() {
                return self.constant(v);
            }
        }
        self.intern(make(a))
    }

    /// Splits a term into (numeric coefficient, rest): `3·x·y → (3, x·y)`, `x → (1, x)`.
    fn split_coefficient(&mut self, t: Id) -> (f64, Id) {
        let Node::Mul(fs) = self.node(t) else {
            return (1.0, t);
        };
        let Some(c) = self.as_const(fs[0]) else {
            return (1.0, t);
        };
        let rest = match &fs[1..] {
            [single] => *single,
            more => {
                // A sub-list of a canonical product is canonical.
                let node = Node::Mul(more.into());
                self.intern(node)
            }
        };
        (c, rest)
    }

    /// `base^n` for a base that is already a valid `Pow` base (from a canonical product).
    fn pow_node(&mut self, base: Id, n: i32) -> Id {
        if n == 1 {
            base
        } else {
            self.intern(Node::Pow(base, n))
        }
    }

    /// Sorts the operands of a sum / product canonically (constants first, then by id) and
    /// interns it; zero operands give `empty`, one operand is returned as is.
    fn finish_nary(&mut self, mut xs: Vec<Id>, empty: f64, make: fn(Box<[Id]>) -> Node) -> Id {
        match xs.len() {
            0 => self.constant(empty),
            1 => xs[0],
            _ => {
                xs.sort_unstable_by_key(|&x| (self.as_const(x).is_none(), x));
                self.intern(make(xs.into()))
            }
        }
    }
}

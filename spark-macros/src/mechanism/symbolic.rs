//! The symbolic [`Alg`]: each operation that does not fold is one `let` binding of the DSL,
//! so the model's `definitions` grow linearly with the mechanism and the symbolic engine
//! shares every subexpression. Constants fold (`0 · x = 0`, `1 · x = x`, `0 + x = x`), which
//! keeps planar mechanisms planar: a closure row that is identically constant is recognized.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::Ident;

use super::kinematics::Alg;

/// A scalar: a known constant or a name (a coordinate, velocity, parameter or binding).
#[derive(Clone, Debug)]
pub enum Sx {
    /// A number.
    C(f64),
    /// A name.
    N(Ident),
}

/// Collects the bindings.
pub struct Symbolic {
    /// The `let` statements, in order.
    pub lets: Vec<TokenStream>,
    /// The coordinates' and velocities' names.
    pub q: Vec<Ident>,
    /// See [`Symbolic::q`].
    pub v: Vec<Ident>,
    /// The gravity parameters.
    pub g: [Ident; 3],
    span: Span,
}

/// The tokens of a number (a negative one in parentheses).
pub fn number(x: f64, span: Span) -> TokenStream {
    let lit = syn::LitFloat::new(&format!("{:?}", x.abs()), span);
    if x.is_sign_negative() && x != 0.0 {
        quote!((-#lit))
    } else {
        quote!(#lit)
    }
}

impl Symbolic {
    /// A binder for `n` coordinates named `q[i]`, `v[i]` (the expansion's element names).
    pub fn new(q: Vec<Ident>, v: Vec<Ident>, g: [Ident; 3], span: Span) -> Self {
        Self {
            lets: Vec::new(),
            q,
            v,
            g,
            span,
        }
    }

    /// The tokens of a scalar.
    pub fn tokens(&self, s: &Sx) -> TokenStream {
        match s {
            Sx::C(x) => number(*x, self.span),
            Sx::N(id) => quote!(#id),
        }
    }

    fn bind(&mut self, value: TokenStream) -> Sx {
        let name = format_ident!("__mech{}", self.lets.len(), span = self.span);
        self.lets.push(quote!(let #name = #value;));
        Sx::N(name)
    }
}

impl Alg for Symbolic {
    type S = Sx;
    fn c(&mut self, x: f64) -> Sx {
        Sx::C(x)
    }
    fn q(&mut self, i: usize) -> Sx {
        Sx::N(self.q[i].clone())
    }
    fn v(&mut self, i: usize) -> Sx {
        Sx::N(self.v[i].clone())
    }
    fn gravity(&mut self, k: usize) -> Sx {
        Sx::N(self.g[k].clone())
    }
    fn add(&mut self, a: &Sx, b: &Sx) -> Sx {
        match (a, b) {
            (Sx::C(x), Sx::C(y)) => Sx::C(x + y),
            (Sx::C(x), other) | (other, Sx::C(x)) if *x == 0.0 => other.clone(),
            _ => {
                let (x, y) = (self.tokens(a), self.tokens(b));
                self.bind(quote!(#x + #y))
            }
        }
    }
    fn sub(&mut self, a: &Sx, b: &Sx) -> Sx {
        match (a, b) {
            (Sx::C(x), Sx::C(y)) => Sx::C(x - y),
            (other, Sx::C(y)) if *y == 0.0 => other.clone(),
            _ => {
                let (x, y) = (self.tokens(a), self.tokens(b));
                self.bind(quote!(#x - #y))
            }
        }
    }
    fn mul(&mut self, a: &Sx, b: &Sx) -> Sx {
        match (a, b) {
            (Sx::C(x), Sx::C(y)) => Sx::C(x * y),
            (Sx::C(x), _) | (_, Sx::C(x)) if *x == 0.0 => Sx::C(0.0),
            (Sx::C(x), other) | (other, Sx::C(x)) if *x == 1.0 => other.clone(),
            _ => {
                let (x, y) = (self.tokens(a), self.tokens(b));
                self.bind(quote!(#x * #y))
            }
        }
    }
    fn sin(&mut self, a: &Sx) -> Sx {
        match a {
            Sx::C(x) => Sx::C(x.sin()),
            _ => {
                let x = self.tokens(a);
                self.bind(quote!(#x.sin()))
            }
        }
    }
    fn cos(&mut self, a: &Sx) -> Sx {
        match a {
            Sx::C(x) => Sx::C(x.cos()),
            _ => {
                let x = self.tokens(a);
                self.bind(quote!(#x.cos()))
            }
        }
    }
    fn constant(&self, a: &Sx) -> Option<f64> {
        match a {
            Sx::C(x) => Some(*x),
            Sx::N(_) => None,
        }
    }
}

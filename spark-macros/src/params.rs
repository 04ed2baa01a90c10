//! What the generated struct holds and how the symbolic arena numbers it: the parameters and
//! inputs ([`Param`]), the symbols' numbering ([`Vars`]), and what is known of a model with
//! errors ([`Stub`], enough for a stub struct). Shared by the passes after `unroll` (lowering,
//! checks, forces, the model, emission), and defined before them so that none of them imports
//! a later one.

use syn::{Attribute, Ident, Visibility};

/// A parameter or an input: a field of the generated struct.
pub struct Param {
    pub name: Ident,
    pub default: Option<f64>,
    /// An input (`inputs: [...]`, default `0.0`, held constant over a step) rather than a
    /// parameter. Inputs come after the parameters.
    pub input: bool,
    /// An element of a parameter array (`m[N]`): the array's name and the index; the struct
    /// has one field `m: [f64; N]` for all of them.
    pub element: Option<(Ident, usize)>,
}

impl Param {
    /// Its name as users see it: `m`, or `m[k]` for an element of an array.
    pub fn shown(&self) -> String {
        crate::unroll::display(&self.name.to_string())
    }

    /// How the generated code reads it: `self.m` or `self.m[k]`.
    pub fn access(&self) -> proc_macro2::TokenStream {
        match &self.element {
            Some((base, k)) => quote::quote!(self.#base[#k]),
            None => {
                let name = &self.name;
                quote::quote!(self.#name)
            }
        }
    }
}

/// Symbol numbering in the arena: `t`, then coordinates, velocities, parameters (inputs
/// last among them), multipliers.
#[derive(Clone, Copy)]
pub struct Vars {
    pub n: usize,
    /// Parameters and inputs together.
    pub params: usize,
}

impl Vars {
    pub const TIME: usize = 0;
    pub fn q(&self, i: usize) -> usize {
        1 + i
    }
    pub fn v(&self, i: usize) -> usize {
        1 + self.n + i
    }
    pub fn param(&self, k: usize) -> usize {
        1 + 2 * self.n + k
    }
    /// Multiplier `k` that contracts constraint Hessians (never written by the user).
    pub fn mu(&self, k: usize) -> usize {
        1 + 2 * self.n + self.params + k
    }
}

/// What is known about the struct even when the model has errors: enough for a stub with the
/// real struct's fields, `Default` and constants (see `expand::emit_stub`).
pub struct Stub {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub name: Ident,
    /// Every parameter that parsed, once (its first declaration), with its default: the
    /// literal's value, `0.0` for a default that is not a finite literal (that error is
    /// reported), `None` when none is written.
    pub params: Vec<Param>,
    /// The names of the coordinates and of the velocities (momenta, variables), both `N`
    /// long: `N` is the number of coordinates when their list parsed, else of velocities.
    /// A name missing from the shorter list is empty.
    pub coords: Vec<String>,
    pub vels: Vec<String>,
    /// The number of holonomic constraints that parsed.
    pub holonomic: usize,
    /// `(N, M)` of a Lagrangian model whose coordinate, velocity and constraint lists parsed,
    /// so that the stub can also implement the model traits.
    pub dims: Option<(usize, usize)>,
}

impl Stub {
    /// The stub of a model of which only the name is known.
    pub fn empty(attrs: Vec<Attribute>, vis: Visibility, name: Ident) -> Self {
        Self {
            attrs,
            vis,
            name,
            params: Vec::new(),
            coords: Vec::new(),
            vels: Vec::new(),
            holonomic: 0,
            dims: None,
        }
    }
}

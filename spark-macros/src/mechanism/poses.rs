//! The world pose of every body at a configuration, as generated code: `body_poses(q)` next to
//! `BODY_NAMES`. Built from the common tree ([`Mechanism`]) alone, so every front end that
//! makes one (the URDF and MJCF readers, a DSL of bodies) gets the same function.
//!
//! The kinematics of [`kinematics::frames`] run over the symbolic engine's arena with the
//! velocities set to zero (so only positions and rotations remain), and the engine's emitter
//! turns the body origins and rotation matrices into straight-line code with every shared
//! subexpression (each body's pose is reused by its children) computed once; elementary
//! functions go through the runtime's `math` module, so the code also builds in `#![no_std]`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;

use super::kinematics::{self, Alg, Layout};
use super::tree::Mechanism;
use crate::sym::{self, Arena, Id};

/// [`Alg`] over the arena: coordinate `i` is variable `i`, velocities and gravity are zero.
struct Positions {
    arena: Arena,
}

impl Alg for Positions {
    type S = Id;
    fn c(&mut self, x: f64) -> Id {
        self.arena.constant(x)
    }
    fn q(&mut self, i: usize) -> Id {
        self.arena.var(i)
    }
    fn v(&mut self, _: usize) -> Id {
        self.arena.constant(0.0)
    }
    fn gravity(&mut self, _: usize) -> Id {
        self.arena.constant(0.0)
    }
    fn add(&mut self, a: &Id, b: &Id) -> Id {
        self.arena.add(*a, *b)
    }
    fn sub(&mut self, a: &Id, b: &Id) -> Id {
        self.arena.sub(*a, *b)
    }
    fn mul(&mut self, a: &Id, b: &Id) -> Id {
        self.arena.mul(*a, *b)
    }
    fn sin(&mut self, a: &Id) -> Id {
        self.arena.sin(*a)
    }
    fn cos(&mut self, a: &Id) -> Id {
        self.arena.cos(*a)
    }
    fn constant(&self, a: &Id) -> Option<f64> {
        self.arena.as_const(*a)
    }
}

/// `impl Name { pub fn body_poses(q) }` for the mechanism's bodies, in the order of
/// `BODY_NAMES` (parents before children).
pub fn items(mech: &Mechanism, name: &Ident) -> TokenStream {
    let layout = Layout::of(mech);
    let n = layout.n;
    let nb = mech.bodies.len();
    let mut alg = Positions {
        arena: Arena::new(),
    };
    let frames = kinematics::frames(&mut alg, mech, &layout);
    let mut outputs: Vec<Id> = Vec::with_capacity(12 * nb);
    for f in &frames {
        outputs.extend(f.p.iter().copied());
        outputs.extend(f.r.iter().flatten().copied());
    }
    let math = quote!(::spark::__private::math);
    let (lets, exprs) = sym::emit(&alg.arena, &outputs, &|i| quote!(q[#i]), &math);
    let na = quote!(::spark::__private::nalgebra);
    let poses = exprs.chunks(12).map(|e| {
        let (p, r) = (&e[..3], &e[3..]);
        quote!((#na::Vector3::new(#(#p),*), #na::Matrix3::new(#(#r),*)))
    });
    quote! {
        #[allow(dead_code)]
        impl #name {
            /// The pose of every body at the configuration `q`, in the order of
            /// [`Self::BODY_NAMES`]: the body frame's origin in the world frame, and the
            /// rotation matrix from the body frame to the world frame (its columns are the
            /// body's axes in world coordinates). For drawing, and for control in task space.
            #[allow(unused_variables, clippy::all, clippy::pedantic, clippy::nursery)]
            pub fn body_poses(
                q: &#na::SVector<f64, #n>,
            ) -> [(#na::Vector3<f64>, #na::Matrix3<f64>); #nb] {
                #lets
                [#(#poses),*]
            }
        }
    }
}

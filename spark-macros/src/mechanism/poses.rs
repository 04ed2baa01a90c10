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

use super::kinematics::{self, Alg, Axis, Layout};
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
/// `BODY_NAMES` (parents before children), and the runtime's `Bodies` trait: the poses one at
/// a time, and every velocity's joint motion (world axis and point, or direction) from
/// [`kinematics::frames_and_axes`], from which the runtime assembles a body's Jacobian.
pub fn items(mech: &Mechanism, name: &Ident) -> TokenStream {
    let layout = Layout::of(mech);
    let n = layout.n;
    let nb = mech.bodies.len();
    let mut alg = Positions {
        arena: Arena::new(),
    };
    let (frames, axes) = kinematics::frames_and_axes(&mut alg, mech, &layout);
    let mut outputs: Vec<Id> = Vec::with_capacity(12 * nb);
    for f in &frames {
        outputs.extend(f.p.iter().copied());
        outputs.extend(f.r.iter().flatten().copied());
    }
    let math = quote!(::spark::__private::math);
    let (lets, exprs) = sym::emit(&alg.arena, &outputs, &|i| quote!(q[#i]), &math);
    let na = quote!(::spark::__private::nalgebra);
    let poses: Vec<TokenStream> = exprs
        .chunks(12)
        .map(|e| {
            let (p, r) = (&e[..3], &e[3..]);
            quote!((#na::Vector3::new(#(#p),*), #na::Matrix3::new(#(#r),*)))
        })
        .collect();
    // The pose and motion pass of `joint_motions`, emitted on its own (its shared
    // subexpressions computed once).
    let mut motion_outputs = outputs.clone();
    for axis in &axes {
        match axis {
            Axis::Rotation { axis, point } => {
                motion_outputs.extend(axis.iter().copied());
                motion_outputs.extend(point.iter().copied());
            }
            Axis::Translation(d) => motion_outputs.extend(d.iter().copied()),
        }
    }
    let (motion_lets, motion_exprs) =
        sym::emit(&alg.arena, &motion_outputs, &|i| quote!(q[#i]), &math);
    let motion_poses = motion_exprs[..12 * nb].chunks(12).map(|e| {
        let (p, r) = (&e[..3], &e[3..]);
        quote!((#na::Vector3::new(#(#p),*), #na::Matrix3::new(#(#r),*)))
    });
    let bodies = quote!(::spark::__private::runtime::model::bodies);
    let mut at = 12 * nb;
    let motions: Vec<TokenStream> = axes
        .iter()
        .map(|axis| match axis {
            Axis::Rotation { .. } => {
                let (a, p) = (&motion_exprs[at..at + 3], &motion_exprs[at + 3..at + 6]);
                at += 6;
                quote!(#bodies::JointMotion::Rotation {
                    axis: #na::Vector3::new(#(#a),*),
                    point: #na::Vector3::new(#(#p),*),
                })
            }
            Axis::Translation(_) => {
                let d = &motion_exprs[at..at + 3];
                at += 3;
                quote!(#bodies::JointMotion::Translation {
                    direction: #na::Vector3::new(#(#d),*),
                })
            }
        })
        .collect();
    let owners: Vec<usize> = mech
        .bodies
        .iter()
        .enumerate()
        .flat_map(|(b, body)| {
            body.joints
                .iter()
                .flat_map(move |j| (0..j.size()).map(move |_| b))
        })
        .collect();
    let parents = mech.bodies.iter().map(|b| match b.parent {
        Some(p) => quote!(::core::option::Option::Some(#p)),
        None => quote!(::core::option::Option::None),
    });
    quote! {
        #[allow(dead_code)]
        impl #name {
            /// The pose of every body at the configuration `q`, in the order of
            /// [`Self::BODY_NAMES`]: the body frame's origin in the world frame, and the
            /// rotation matrix from the body frame to the world frame (its columns are the
            /// body's axes in world coordinates). For drawing, and for control in task space
            /// (with the poses' Jacobians, `spark::Bodies::body_jacobian`).
            #[allow(unused_variables, clippy::all, clippy::pedantic, clippy::nursery)]
            pub fn body_poses(
                q: &#na::SVector<f64, #n>,
            ) -> [(#na::Vector3<f64>, #na::Matrix3<f64>); #nb] {
                #lets
                [#(#poses),*]
            }
        }

        impl #bodies::Bodies<#n> for #name {
            fn body_names() -> &'static [&'static str] {
                &Self::BODY_NAMES
            }
            fn body_parents() -> &'static [::core::option::Option<usize>] {
                &[#(#parents),*]
            }
            fn velocity_bodies() -> [usize; #n] {
                [#(#owners),*]
            }
            fn body_pose(
                q: &#na::SVector<f64, #n>,
                body: usize,
            ) -> ::core::option::Option<(#na::Vector3<f64>, #na::Matrix3<f64>)> {
                Self::body_poses(q).get(body).copied()
            }
            #[allow(unused_variables, clippy::all, clippy::pedantic, clippy::nursery)]
            fn joint_motions(
                q: &#na::SVector<f64, #n>,
                body: usize,
            ) -> ::core::option::Option<(
                [#bodies::JointMotion; #n],
                (#na::Vector3<f64>, #na::Matrix3<f64>),
            )> {
                if body >= #nb {
                    return ::core::option::Option::None;
                }
                #motion_lets
                let poses = [#(#motion_poses),*];
                ::core::option::Option::Some(([#(#motions),*], poses[body]))
            }
        }
    }
}

//! A fill-reducing order of the step systems whose exact matrix the step Jacobian factors
//! (`step/jacobian.rs`, the layout of `step/mixed.rs`): coordinate by coordinate, so that the
//! systems of models whose constraints join neighbouring bodies (chains, trees) are banded,
//! for [`lu::factor_banded`] and [`lu::solve_banded`].
//!
//! The coupled step itself (`mixed.rs`, `dense_newton`) gains nothing from it: reordering its
//! Newton matrix and factoring it within the band left the nonholonomic 3D chains' steps at
//! 24 and 71 µs (5 and 10 masses, session 14), its time being in building, clearing and
//! scanning the dense matrix, where the elimination already skips zero multipliers.

// Constraint and coordinate indices follow the model's.
#![allow(clippy::needless_range_loop)]

use nalgebra::SMatrix;

use crate::linalg::layout::{flat, Layout};
use crate::linalg::lu;
use crate::model::blocks::{ConstraintJacobian, NonholonomicJacobian};
use crate::step::coupled_layout::{MixedLayout, Offsets};
use crate::step::emprk_layout::{self, EmprkLayout};

/// Step systems whose reordered part (the holonomic system's stage block, the whole coupled
/// system) has at least this many unknowns are reordered before they are factored.
pub(crate) const ORDER_FROM: usize = 40;

/// Which constraints involve which coordinates, for [`band_order`]: a nonzero in `G` at the
/// start or at a Lobatto node (`holonomic`), in `k_q` or `k_v` at the points where the step
/// evaluates `k` (`nonholonomic`).
pub(crate) struct Couplings<'a, const N: usize, const M: usize, const K: usize> {
    pub gq0: &'a SMatrix<f64, M, N>,
    pub nodes: &'a [ConstraintJacobian<N, M>],
    /// At the stages, and at the end point (SPARK) or the Lobatto nodes (EMPRK).
    pub nonholonomic: (
        &'a [NonholonomicJacobian<N, K>],
        &'a [NonholonomicJacobian<N, K>],
    ),
}

impl<const N: usize, const M: usize, const K: usize> Couplings<'_, N, M, K> {
    fn holonomic(&self, l: usize, b: usize) -> bool {
        self.gq0[(l, b)] != 0.0 || self.nodes.iter().any(|c| c.gq[(l, b)] != 0.0)
    }
    fn nonholonomic(&self, l: usize, b: usize) -> bool {
        let (stages, ends) = self.nonholonomic;
        stages
            .iter()
            .chain(ends)
            .any(|k| k.kq[(l, b)] != 0.0 || k.kv[(l, b)] != 0.0)
    }
}

/// Where the unknowns of a step system sit, for [`band_order`]: per coordinate the velocity
/// unknowns at `velocities` (plus the coordinate), per holonomic constraint the multipliers at
/// `multipliers`, per nonholonomic one those at `nonholonomic` (plus the constraint).
struct Slots<'a> {
    velocities: &'a [usize],
    multipliers: &'a [usize],
    nonholonomic: &'a [usize],
}

/// A fill-reducing symmetric order of a step system, or of its leading block, written as swaps
/// into `swaps` (`swaps[k]`: the row and column exchanged with `k`, in order, as
/// [`lu::factor`]'s pivots; `swaps.len()` unknowns, all of them listed by `slots`).
///
/// Coordinate by coordinate, the velocity unknowns of coordinate `a` (the `S` stage velocities,
/// and `v1` in the coupled system), then the multipliers of every constraint whose last
/// coordinate is `a`, with the coordinates sorted by the first constraint that involves them
/// (holonomic constraints first, then nonholonomic ones). A model whose constraints join
/// neighbouring bodies, listed in order (chains, trees), then has a banded system, however its
/// coordinates are declared, which [`lu::factor_banded`] factors and [`lu::solve_banded`]
/// solves within the band: the 16-link chain's Jacobian at `S = 2` (a stage block of 96
/// unknowns) takes 31 % less time, the 8-link chain's (48) 2 % less (`chain_bench jacobian`,
/// docs/performance.md, session 14). Any order is exact; the factorization still pivots by
/// rows.
fn band_order<const N: usize, const M: usize, const K: usize>(
    couplings: &Couplings<'_, N, M, K>,
    slots: &Slots<'_>,
    swaps: &mut [usize],
    (at, pos): (&mut [usize], &mut [usize]),
) {
    let ns = swaps.len();
    // The coordinates by the first constraint that involves them (those in none last), in
    // their declared order among equals: body by body for a chain whether its coordinates
    // are declared body by body or axis by axis (`x[N], y[N]`). An insertion sort: N is small
    // next to the elimination this order saves.
    let key: [usize; N] = core::array::from_fn(|b| {
        (0..M)
            .find(|&l| couplings.holonomic(l, b))
            .or_else(|| {
                (0..K)
                    .find(|&l| couplings.nonholonomic(l, b))
                    .map(|l| M + l)
            })
            .unwrap_or(M + K)
    });
    let mut coords: [usize; N] = core::array::from_fn(|b| b);
    for i in 1..N {
        let mut j = i;
        while j > 0 && key[coords[j - 1]] > key[coords[j]] {
            coords.swap(j - 1, j);
            j -= 1;
        }
    }
    // Each constraint's multipliers go after its last coordinate in that order.
    let mut rank = [0usize; N];
    for (r, &b) in coords.iter().enumerate() {
        rank[b] = r;
    }
    let last_of = |involves: &dyn Fn(usize) -> bool| {
        (0..N)
            .filter(|&b| involves(b))
            .map(|b| rank[b])
            .max()
            .unwrap_or(0)
    };
    let last: [usize; M] = core::array::from_fn(|l| last_of(&|b| couplings.holonomic(l, b)));
    let last_nh: [usize; K] = core::array::from_fn(|l| last_of(&|b| couplings.nonholonomic(l, b)));
    // `at[k]`: the original index now at `k`; `pos[i]`: where original index `i` now is.
    let (at, pos) = (&mut at[..ns], &mut pos[..ns]);
    for i in 0..ns {
        at[i] = i;
        pos[i] = i;
    }
    let mut k = 0;
    let mut place = |old: usize, swaps: &mut [usize]| {
        let p = pos[old];
        swaps[k] = p;
        let moved = at[k];
        at[p] = moved;
        pos[moved] = p;
        at[k] = old;
        pos[old] = k;
        k += 1;
    };
    for (r, &a) in coords.iter().enumerate() {
        for &v in slots.velocities {
            place(v + a, swaps);
        }
        for l in 0..M {
            if last[l] == r {
                for &m in slots.multipliers {
                    place(m + l, swaps);
                }
            }
        }
        for l in 0..K {
            if last_nh[l] == r {
                for &m in slots.nonholonomic {
                    place(m + l, swaps);
                }
            }
        }
    }
    debug_assert_eq!(k, ns);
}

/// The order of [`band_order`] for the step system of the layout [`MixedLayout`]: for `K = 0`
/// its stage block (`V_1..V_S`, `μ_0..μ_{s̃−1}`), for `K > 0` the whole coupled system (also
/// `v1`, `μ_0..μ_S`, `ν_1..ν_S`). Writes the swaps and `at` (see [`lu::permute_symmetric`])
/// into the first entries of `swaps` and `at`, and returns how many unknowns it orders.
fn step_order<const N: usize, const M: usize, const K: usize, const S: usize>(
    couplings: &Couplings<'_, N, M, K>,
    s_tilde: usize,
    swaps: &mut [usize],
    at: &mut [usize],
) -> usize {
    type L<const N: usize, const M: usize, const K: usize, const S: usize> =
        MixedLayout<N, M, K, S>;
    type O<const N: usize, const M: usize, const K: usize, const S: usize> = Offsets<N, M, K, S>;
    let ns = if K == 0 {
        O::<N, M, K, S>::stage_len(s_tilde)
    } else {
        <L<N, M, K, S> as Layout>::LEN
    };
    let mut qbuf = <L<N, M, K, S> as Layout>::fill(0usize);
    // The velocity and multiplier unknowns per coordinate and per constraint: the stages'
    // (holonomic), also `v1`, `μ_S` and the `ν_j` (coupled).
    let mut velocities = [[O::<N, M, K, S>::V1; S]; 2];
    let mut multipliers = [[O::<N, M, K, S>::mu(S); S]; 2];
    velocities[0] = core::array::from_fn(O::<N, M, K, S>::v);
    multipliers[0] = core::array::from_fn(O::<N, M, K, S>::mu);
    let nonholonomic: [usize; S] = core::array::from_fn(O::<N, M, K, S>::nu);
    let coupled = usize::from(K > 0);
    band_order(
        couplings,
        &Slots {
            velocities: &velocities.as_flattened()[..S + coupled],
            multipliers: if K == 0 {
                &multipliers[0][..s_tilde]
            } else {
                &multipliers.as_flattened()[..S + 1]
            },
            nonholonomic: &nonholonomic[..S * coupled],
        },
        &mut swaps[..ns],
        (
            &mut at[..ns],
            &mut flat::<L<N, M, K, S>, usize>(&mut qbuf)[..ns],
        ),
    );
    ns
}

/// Reorders the step system `jm` (row-major, the layout [`MixedLayout`]) in place by
/// [`step_order`], whose swaps it leaves in `swaps` for the right-hand sides
/// ([`lu::permute_rows`]).
pub(crate) fn reorder<const N: usize, const M: usize, const K: usize, const S: usize>(
    jm: &mut [f64],
    couplings: &Couplings<'_, N, M, K>,
    s_tilde: usize,
    swaps: &mut [usize],
) {
    type L<const N: usize, const M: usize, const K: usize, const S: usize> =
        MixedLayout<N, M, K, S>;
    let mut abuf = <L<N, M, K, S> as Layout>::fill(0usize);
    let at = flat::<L<N, M, K, S>, usize>(&mut abuf);
    let ns = step_order::<N, M, K, S>(couplings, s_tilde, swaps, at);
    let mut tbuf = <L<N, M, K, S> as Layout>::fill(0.0);
    lu::permute_symmetric(
        jm,
        <L<N, M, K, S> as Layout>::LEN,
        (&swaps[..ns], &at[..ns]),
        flat::<L<N, M, K, S>, f64>(&mut tbuf),
    );
}

/// Reorders the EMPRK step system `jm` (row-major, the layout [`EmprkLayout`]) in place by
/// [`band_order`], whole: per coordinate the Gauss and the Lobatto stage velocities, the
/// multipliers `μ_0..μ_S` and `ν_1..ν_S` after their constraints' last coordinate. Leaves
/// the swaps in `swaps` for the right-hand sides ([`lu::permute_rows`]).
pub(crate) fn reorder_emprk<const N: usize, const M: usize, const K: usize, const S: usize>(
    jm: &mut [f64],
    couplings: &Couplings<'_, N, M, K>,
    swaps: &mut [usize],
) {
    type L<const N: usize, const M: usize, const K: usize, const S: usize> =
        EmprkLayout<N, M, K, S>;
    type O<const N: usize, const M: usize, const K: usize, const S: usize> =
        emprk_layout::Offsets<N, M, K, S>;
    let len = <L<N, M, K, S> as Layout>::LEN;
    let velocities: [[usize; S]; 2] = [
        core::array::from_fn(O::<N, M, K, S>::v),
        core::array::from_fn(O::<N, M, K, S>::vt),
    ];
    let mut multipliers = [[O::<N, M, K, S>::mu(S); S]; 2];
    multipliers[0] = core::array::from_fn(O::<N, M, K, S>::mu);
    let nonholonomic: [usize; S] = core::array::from_fn(O::<N, M, K, S>::nu);
    let mut abuf = <L<N, M, K, S> as Layout>::fill(0usize);
    let at = flat::<L<N, M, K, S>, usize>(&mut abuf);
    let mut qbuf = <L<N, M, K, S> as Layout>::fill(0usize);
    band_order(
        couplings,
        &Slots {
            velocities: velocities.as_flattened(),
            multipliers: &multipliers.as_flattened()[..S + 1],
            nonholonomic: &nonholonomic,
        },
        &mut swaps[..len],
        (&mut *at, flat::<L<N, M, K, S>, usize>(&mut qbuf)),
    );
    let mut tbuf = <L<N, M, K, S> as Layout>::fill(0.0);
    lu::permute_symmetric(
        jm,
        len,
        (&swaps[..len], &at[..len]),
        flat::<L<N, M, K, S>, f64>(&mut tbuf),
    );
}

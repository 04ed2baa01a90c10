//! Dense output: the state at any time inside an accepted adaptive step.
//!
//! An adaptive step of size `H` is taken as two half steps, so three states of the step are
//! known: at its start, its midpoint and its end, each with coordinates and velocities. The
//! coordinates between them are the quintic Hermite interpolant of `(q, dq/dt)` at the three
//! points, the velocities its derivative. The interpolation error is `O(H⁶)` in `q` and
//! `O(H⁵)` in `v`; the midpoint's coordinates carry the method's local error `O(H^{p+1})`,
//! which the derivative divides by `H`. So the dense output has local order `min(p + 1, 6)`
//! in `q` and `min(p, 5)` in `v` (measured in `tests/suite/adaptive.rs`: 5 and 4 for
//! `GaussLobatto<2>`, 6 and 5 for `GaussLobatto<3>`), never below the method's global order.
//! Dense states are not projected: they satisfy the constraints to the interpolation error,
//! not to round-off.
//!
//! Hamiltonian and DAE states ([`OdaeDense`]) interpolate both `y` and `z` this way, with
//! their rates from the DAE: local order `min(p + 1, 6)` in both.

use nalgebra::SVector;

use crate::error::Error;
use crate::integrator::advance::DaePoint;
use crate::integrator::Advance;
use crate::model::{dae, hamiltonian, Lagrangian, Odae, State};
use crate::step::multipliers::odae_rates;
use crate::step::Point;

/// A state kind with dense output: the interpolant of one accepted adaptive step from its
/// start, midpoint and end states. Implemented for Lagrangian states ([`DenseStep`]) and for
/// the Hamiltonian and DAE states ([`OdaeDense`]).
pub trait Interpolate<Sys, const M: usize, const K: usize>: Advance<Sys, M, K> + Copy {
    /// The interpolant of one step.
    type Dense: Copy;
    /// The interpolant through `start`, `mid` (at the step's midpoint) and `end`.
    fn interpolant(sys: &Sys, start: &Self, mid: &Self, end: &Self) -> Result<Self::Dense, Error>;
    /// The interpolated state at `t`: `end` itself at the step's end time.
    fn at(sys: &Sys, dense: &Self::Dense, t: f64) -> Self;
    /// The step's start and end times.
    fn span(dense: &Self::Dense) -> (f64, f64);
}

impl<Sys: Lagrangian<N, M, K>, const N: usize, const M: usize, const K: usize>
    Interpolate<Sys, M, K> for State<N>
where
    State<N>: Advance<Sys, M, K>,
{
    type Dense = DenseStep<N>;
    fn interpolant(_: &Sys, start: &Self, mid: &Self, end: &Self) -> Result<DenseStep<N>, Error> {
        Ok(DenseStep::new(start, mid, end))
    }
    fn at(_: &Sys, dense: &DenseStep<N>, t: f64) -> Self {
        dense.at(t)
    }
    fn span(dense: &DenseStep<N>) -> (f64, f64) {
        (dense.start_time(), dense.end_time())
    }
}

/// The dense output of a Hamiltonian or DAE step: `y` and `z` each by the quintic Hermite
/// interpolant of [`DenseStep`] through the step's start, midpoint and end, with the rates
/// `y' = v(t, y, z)` and `z'` of the DAE (2.11) there (`z'` and the consistent multiplier from
/// the index-one system `[[p_z, −r_λ], [w_z, 0]]`, the time derivatives by central
/// differences); the multiplier `λ` of a DAE state is the one consistent with the
/// interpolated `(y, z)`.
/// Local order `min(p + 1, 6)` in both `y` and `z` (the momenta are values of an
/// interpolant, not its derivative as a Lagrangian state's velocities are); measured in
/// `tests/suite/adaptive.rs` and `tests/suite/problem61.rs`.
#[derive(Clone, Copy, Debug)]
pub struct OdaeDense<St, const N: usize, const M: usize> {
    y: DenseStep<N>,
    z: DenseStep<N>,
    lambda: [SVector<f64, M>; 3],
    end: St,
}

/// The interpolant of a DAE step through its three states `nodes`.
fn odae_dense<Sys: Odae<N, M>, St: DaePoint<N, M> + Copy, const N: usize, const M: usize>(
    sys: &Sys,
    nodes: [&St; 3],
) -> Result<OdaeDense<St, N, M>, Error> {
    let mut ys = [State::<N>::new(0.0, [0.0; N], [0.0; N]); 3];
    let mut zs = ys;
    let mut lambda = [SVector::<f64, M>::zeros(); 3];
    for (i, node) in nodes.iter().enumerate() {
        let p: Point<N, M> = node.point();
        let (dy, dz, l) = odae_rates(sys, &p)?;
        ys[i] = State {
            t: p.t,
            q: p.y,
            v: dy,
        };
        zs[i] = State {
            t: p.t,
            q: p.z,
            v: dz,
        };
        lambda[i] = l;
    }
    Ok(OdaeDense {
        y: DenseStep::new(&ys[0], &ys[1], &ys[2]),
        z: DenseStep::new(&zs[0], &zs[1], &zs[2]),
        lambda,
        end: *nodes[2],
    })
}

/// The interpolated state of `dense` at `t`, with the multiplier consistent with its `(y, z)`
/// (the quadratic through the step's three if that system is singular).
fn odae_at<Sys: Odae<N, M>, St: DaePoint<N, M> + Copy, const N: usize, const M: usize>(
    sys: &Sys,
    dense: &OdaeDense<St, N, M>,
    t: f64,
) -> St {
    if t == dense.y.end_time() {
        return dense.end;
    }
    let (t0, t1) = (dense.y.start_time(), dense.y.end_time());
    let theta = (t - t0) / (t1 - t0);
    // Lagrange weights on θ = 0, 1/2, 1.
    let w = [
        2.0 * (theta - 0.5) * (theta - 1.0),
        -4.0 * theta * (theta - 1.0),
        2.0 * theta * (theta - 0.5),
    ];
    let mut point = Point {
        t,
        y: dense.y.at(t).q,
        z: dense.z.at(t).q,
        lambda: dense.lambda[0] * w[0] + dense.lambda[1] * w[1] + dense.lambda[2] * w[2],
    };
    if St::KEEPS_MULTIPLIERS {
        if let Ok((_, _, lambda)) = odae_rates(sys, &point) {
            point.lambda = lambda;
        }
    }
    St::from_point(point)
}

/// `Interpolate` for a state kind of DAE models.
macro_rules! odae_interpolate {
    ($state:ty) => {
        impl<Sys: Odae<N, M>, const N: usize, const M: usize> Interpolate<Sys, M, 0> for $state {
            type Dense = OdaeDense<$state, N, M>;
            fn interpolant(
                sys: &Sys,
                start: &Self,
                mid: &Self,
                end: &Self,
            ) -> Result<Self::Dense, Error> {
                odae_dense(sys, [start, mid, end])
            }
            fn at(sys: &Sys, dense: &Self::Dense, t: f64) -> Self {
                odae_at(sys, dense, t)
            }
            fn span(dense: &Self::Dense) -> (f64, f64) {
                (dense.y.start_time(), dense.y.end_time())
            }
        }
    };
}

odae_interpolate!(hamiltonian::State<N>);
odae_interpolate!(dae::State<N, M>);

/// The interpolant of one accepted step.
#[derive(Clone, Copy, Debug)]
pub struct DenseStep<const N: usize> {
    t0: f64,
    h: f64,
    /// Newton coefficients on the nodes `0, 0, ½, ½, 1, 1` (in `θ = (t − t0)/h`).
    c: [SVector<f64, N>; 6],
    end: State<N>,
}

/// The doubled nodes of the Hermite interpolant, in `θ`.
const NODES: [f64; 6] = [0.0, 0.0, 0.5, 0.5, 1.0, 1.0];

impl<const N: usize> DenseStep<N> {
    /// The interpolant of a step from `start` through `mid` to `end` (`mid` at the midpoint).
    pub fn new(start: &State<N>, mid: &State<N>, end: &State<N>) -> Self {
        let h = end.t - start.t;
        // Divided differences with repeated nodes: a repeated node takes the derivative.
        let q = [start.q, start.q, mid.q, mid.q, end.q, end.q];
        let d = [start.v * h, mid.v * h, end.v * h];
        let mut table = q;
        // First differences.
        let mut first = [SVector::<f64, N>::zeros(); 5];
        for (i, f) in first.iter_mut().enumerate() {
            *f = if NODES[i + 1] == NODES[i] {
                d[i / 2]
            } else {
                (q[i + 1] - q[i]) / (NODES[i + 1] - NODES[i])
            };
        }
        let mut c = [SVector::<f64, N>::zeros(); 6];
        c[0] = table[0];
        c[1] = first[0];
        table[..5].copy_from_slice(&first);
        for order in 2..6 {
            for i in 0..6 - order {
                table[i] = (table[i + 1] - table[i]) / (NODES[i + order] - NODES[i]);
            }
            c[order] = table[0];
        }
        Self {
            t0: start.t,
            h,
            c,
            end: *end,
        }
    }

    /// The step's start time.
    pub fn start_time(&self) -> f64 {
        self.t0
    }

    /// The step's end time.
    pub fn end_time(&self) -> f64 {
        self.end.t
    }

    /// The interpolated state at `t` (meant for `t` inside the step; it extrapolates outside).
    /// At the step's end time it returns the step's end state exactly.
    pub fn at(&self, t: f64) -> State<N> {
        if t == self.end.t {
            return self.end;
        }
        let theta = (t - self.t0) / self.h;
        // Horner on the Newton form, carrying the derivative along.
        let mut p = self.c[5];
        let mut dp = SVector::<f64, N>::zeros();
        for i in (0..5).rev() {
            dp = dp * (theta - NODES[i]) + p;
            p = p * (theta - NODES[i]) + self.c[i];
        }
        State {
            t,
            q: p,
            v: dp / self.h,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::DenseStep;
    use crate::model::State;

    /// A quintic is reproduced exactly, and the end points are the data.
    #[test]
    fn reproduces_quintics() {
        let f = |t: f64| [1.0 + t - 2.0 * t * t + 0.5 * t.powi(5), (3.0 * t).powi(4)];
        let df = |t: f64| [1.0 - 4.0 * t + 2.5 * t.powi(4), 324.0 * t.powi(3)];
        let s = |t: f64| State::new(t, f(t), df(t));
        let (t0, h) = (0.3, 0.7);
        let dense = DenseStep::new(&s(t0), &s(t0 + 0.5 * h), &s(t0 + h));
        for k in 0..=10 {
            let t = t0 + h * k as f64 / 10.0;
            let d = dense.at(t);
            for i in 0..2 {
                assert!((d.q[i] - f(t)[i]).abs() < 1e-12, "{t} {i}");
                assert!((d.v[i] - df(t)[i]).abs() < 1e-11, "{t} {i}");
            }
        }
        assert_eq!(dense.at(t0 + h), s(t0 + h));
    }
}

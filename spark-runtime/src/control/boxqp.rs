//! The box-constrained quadratic program of a box-DDP backward pass,
//! `min ½ δuᵀ H δu + gᵀ δu` subject to `lo ≤ δu ≤ hi`, by projected Newton (Bertsekas; as in
//! Tassa, Mansard and Todorov's box-DDP): Newton steps on the free inputs, clamped ones held at
//! their bound, and an Armijo search along the projected path.

use nalgebra::{SMatrix, SVector};

use crate::control::dense::{cholesky, cholesky_solve, SYMMETRY_TOLERANCE};
use crate::control::error::ControlError;

/// The checks of a box `lo ≤ x ≤ hi`: no NaN, `lo_i ≤ hi_i`, and a finite point in every
/// interval (`lo_i < +∞`, `hi_i > −∞`; infinite bounds on the open side are "no bound").
/// Shared by [`solve_box_qp`] and [`crate::control::ilqr::Bounds::check`].
pub(crate) fn check_box<const U: usize>(
    lo: &SVector<f64, U>,
    hi: &SVector<f64, U>,
) -> Result<(), ControlError> {
    for i in 0..U {
        if lo[i].is_nan() || hi[i].is_nan() {
            return Err(ControlError::InvalidArgument {
                what: "an input bound is NaN: give numbers, or -inf / +inf for no bound",
            });
        }
        if lo[i] > hi[i] {
            return Err(ControlError::InvalidArgument {
                what: "an input's bounds are reversed (lo > hi): give lo <= hi",
            });
        }
        if lo[i] == f64::INFINITY || hi[i] == f64::NEG_INFINITY {
            return Err(ControlError::InvalidArgument {
                what: "an input's box has no finite point (lo = +inf or hi = -inf): give a \
                       finite bound, or -inf for no lower and +inf for no upper bound",
            });
        }
    }
    Ok(())
}

/// The solution of a box QP and what the backward pass needs from it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoxQp<const U: usize> {
    /// The minimizer `δu`.
    pub x: SVector<f64, U>,
    /// `true` for the inputs not held at a bound by the gradient (the free set).
    pub free: [bool; U],
    /// The Cholesky factor of `H` restricted to the free set (identity rows and columns for
    /// the clamped inputs): the feedback gain is `−H_ff⁻¹ Q_ux` on the free rows.
    pub factor: SMatrix<f64, U, U>,
    /// Newton iterations used.
    pub iterations: usize,
}

impl<const U: usize> BoxQp<U> {
    /// `−H_ff⁻¹ b` on the free rows, zero on the clamped ones: the feedback gain when `b` is
    /// `Q_ux`.
    pub fn free_solve<const C: usize>(&self, b: &SMatrix<f64, U, C>) -> SMatrix<f64, U, C> {
        let masked =
            SMatrix::<f64, U, C>::from_fn(|i, j| if self.free[i] { b[(i, j)] } else { 0.0 });
        -cholesky_solve(&self.factor, &masked)
    }
}

/// `H` with the rows and columns of the clamped inputs replaced by the identity's.
fn restricted<const U: usize>(h: &SMatrix<f64, U, U>, free: &[bool; U]) -> SMatrix<f64, U, U> {
    SMatrix::from_fn(|i, j| match (free[i] && free[j], i == j) {
        (true, _) => h[(i, j)],
        (false, true) => 1.0,
        (false, false) => 0.0,
    })
}

/// Solves the box QP from the start `x0` (clamped into the box first): a warm start from the
/// previous iteration's solution saves Newton iterations (a non-finite `x0` starts from 0).
///
/// Errors, before anything is computed: [`ControlError::InvalidArgument`] when `H` is not
/// finite and symmetric (to [`SYMMETRY_TOLERANCE`]), `g` is not finite, or the box is not
/// usable (a NaN bound, `lo > hi`, `lo = +∞` or `hi = −∞`). Then
/// [`ControlError::NotPositiveDefinite`] when `H` restricted to the free set is not positive
/// definite (the caller regularizes and retries).
///
/// ```
/// use spark_runtime::control::boxqp::solve_box_qp;
/// use spark_runtime::nalgebra::{Matrix2, Vector2};
/// let h = Matrix2::new(2.0, 0.5, 0.5, 1.0);
/// let g = Vector2::new(-4.0, 0.2);
/// let qp = solve_box_qp(&h, &g, &Vector2::new(-1.0, -1.0), &Vector2::new(1.0, 1.0), &Vector2::zeros()).unwrap();
/// // The first input is pushed to its upper bound; the second minimizes given it.
/// assert_eq!(qp.x[0], 1.0);
/// assert!((qp.x[1] + 0.7).abs() < 1e-12); // (−0.2 − 0.5 · 1) / 1
/// assert_eq!(qp.free, [false, true]);
/// ```
pub fn solve_box_qp<const U: usize>(
    h: &SMatrix<f64, U, U>,
    g: &SVector<f64, U>,
    lo: &SVector<f64, U>,
    hi: &SVector<f64, U>,
    x0: &SVector<f64, U>,
) -> Result<BoxQp<U>, ControlError> {
    check_box(lo, hi)?;
    if !g.iter().all(|v| v.is_finite()) {
        return Err(ControlError::InvalidArgument {
            what: "the gradient g of the box QP must be finite",
        });
    }
    let tol = SYMMETRY_TOLERANCE * h.amax();
    let symmetric = (0..U).all(|i| (0..i).all(|j| (h[(i, j)] - h[(j, i)]).abs() <= tol));
    if !(h.iter().all(|v| v.is_finite()) && symmetric) {
        return Err(ControlError::InvalidArgument {
            what: "the Hessian H of the box QP must be finite and symmetric",
        });
    }
    // `check_box` made `lo_i ≤ hi_i` with neither NaN: `clamp` cannot panic.
    let clamp = |x: &SVector<f64, U>| SVector::<f64, U>::from_fn(|i, _| x[i].clamp(lo[i], hi[i]));
    let value = |x: &SVector<f64, U>| 0.5 * x.dot(&(h * x)) + g.dot(x);
    let not_pd = ControlError::NotPositiveDefinite {
        what: "Q_uu on the free inputs",
    };
    let mut x = clamp(&if x0.iter().all(|v| v.is_finite()) {
        *x0
    } else {
        SVector::zeros()
    });
    let mut iterations = 0;
    loop {
        let grad = g + h * x;
        let free: [bool; U] = core::array::from_fn(|i| {
            !((x[i] <= lo[i] && grad[i] > 0.0) || (x[i] >= hi[i] && grad[i] < 0.0))
        });
        let factor = cholesky(&restricted(h, &free)).ok_or(not_pd)?;
        let gnorm = (0..U)
            .filter(|&i| free[i])
            .fold(0.0f64, |m, i| m.max(grad[i].abs()));
        let done = |x: SVector<f64, U>, iterations| BoxQp {
            x,
            free,
            factor,
            iterations,
        };
        if gnorm <= 1e-13 * (1.0 + g.amax()) || iterations >= 50 {
            return Ok(done(x, iterations));
        }
        iterations += 1;
        // The Newton step on the free inputs.
        let masked = SVector::<f64, U>::from_fn(|i, _| if free[i] { grad[i] } else { 0.0 });
        let dx = -cholesky_solve(&factor, &masked);
        let v0 = value(&x);
        let mut alpha = 1.0;
        let mut moved = None;
        while alpha > 1e-12 {
            let xn = clamp(&(x + dx * alpha));
            let decrease = grad.dot(&(xn - x));
            if value(&xn) - v0 <= 0.1 * decrease {
                moved = Some(xn);
                break;
            }
            alpha *= 0.5;
        }
        match moved {
            Some(xn) if (xn - x).amax() > 1e-15 * (1.0 + x.amax()) => x = xn,
            // No progress along the projected path: optimal to round-off.
            _ => return Ok(done(x, iterations)),
        }
    }
}

//! The local error estimate of a step: Richardson extrapolation from one step of `h` and two
//! steps of `h/2`.
//!
//! For a method of order `p` the local error of two half steps is, to leading order,
//! `(y_{h/2,h/2} − y_h) / (2^p − 1)`: the estimate is asymptotically exact (the ratio to the
//! true local error tends to 1 as `h → 0`) for every method and every state kind, because it
//! uses nothing but the step itself. The two half steps are the accepted solution, so the
//! estimate costs one extra step of `h` per two steps of `h/2`.

use super::advance::Advance;
use crate::error::Error;
use crate::method::Method;
use crate::options::{Options, StepStats};

/// A step of `h` taken as two steps of `h/2`, with the estimated local error of the result.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Estimated<St> {
    /// The state after the first half step.
    pub mid: St,
    /// The state after both half steps: the result.
    pub end: St,
    /// The estimated local error of `end`, in units of `atol + rtol · |y_i|` (max over the
    /// components); `≤ 1` means within the tolerances.
    pub scaled: f64,
    /// The estimated local error of `end`, `max_i |e_i|`, in the units of the state.
    pub max_abs: f64,
}

/// `2^p − 1`: Richardson's divisor for a method of order `p`.
pub(crate) fn richardson_divisor(order: usize) -> f64 {
    let mut d = 1.0;
    for _ in 0..order {
        d *= 2.0;
    }
    d - 1.0
}

/// The three solves of a Richardson estimate from `start`: one step of `h` (with its stats),
/// and two of `h/2` (`mid`, `end`). Errors of any of them are returned as they are.
#[allow(clippy::type_complexity)]
fn three_solves<Sys, St, Meth, const M: usize, const K: usize>(
    sys: &Sys,
    h: f64,
    options: &Options,
    start: &St,
) -> Result<((St, StepStats), St, St), Error>
where
    St: Advance<Sys, M, K>,
    Meth: Method,
{
    let full = St::advance::<Meth>(sys, h, options, start)?;
    let (mid, _) = St::advance::<Meth>(sys, 0.5 * h, options, start)?;
    let (end, _) = St::advance::<Meth>(sys, 0.5 * h, options, &mid)?;
    Ok((full, mid, end))
}

/// One step of `h` from `start` as two half steps, and its error estimate. Errors of any of
/// the three solves are returned as they are.
pub(crate) fn richardson<Sys, St, Meth, const M: usize, const K: usize>(
    sys: &Sys,
    h: f64,
    options: &Options,
    start: &St,
) -> Result<Estimated<St>, Error>
where
    St: Advance<Sys, M, K>,
    Meth: Method,
{
    let ((full, _), mid, end) = three_solves::<Sys, St, Meth, M, K>(sys, h, options, start)?;
    let divisor = richardson_divisor(Meth::ORDER);
    let scaled = St::scaled_distance(&end, &full, options.rtol, options.atol) / divisor;
    let max_abs = St::scaled_distance(&end, &full, 0.0, 1.0) / divisor;
    Ok(Estimated {
        mid,
        end,
        scaled,
        max_abs,
    })
}

/// One step of `h` from `start` (the result of `step`, bit for bit) and the estimated local
/// error of that step, in units of `atol + rtol · |y_i|`: `2^p (y_h − y_{h/2,h/2})/(2^p − 1)`,
/// the leading term of the full step's error (the two half steps' is `2^p` times smaller).
pub(crate) fn checked<Sys, St, Meth, const M: usize, const K: usize>(
    sys: &Sys,
    h: f64,
    options: &Options,
    start: &St,
) -> Result<(St, StepStats, f64), Error>
where
    St: Advance<Sys, M, K>,
    Meth: Method,
{
    let ((full, stats), _, end) = three_solves::<Sys, St, Meth, M, K>(sys, h, options, start)?;
    let divisor = richardson_divisor(Meth::ORDER);
    let scaled =
        St::scaled_distance(&full, &end, options.rtol, options.atol) * (divisor + 1.0) / divisor;
    Ok((full, stats, scaled))
}

#[cfg(test)]
mod tests {
    use super::richardson_divisor;

    #[test]
    fn divisor_is_two_to_the_order_minus_one() {
        assert_eq!(richardson_divisor(1), 1.0);
        assert_eq!(richardson_divisor(4), 15.0);
        assert_eq!(richardson_divisor(6), 63.0);
    }
}

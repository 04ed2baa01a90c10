//! Newton's method bookkeeping shared by every solve: convergence, stall and divergence tests.

use crate::error::{Error, Phase};
use crate::options::Options;

/// What to do after a Newton update.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// The iterate is converged (to tolerance, or to round-off when the updates stopped
    /// shrinking at round-off level).
    Converged,
    /// Iterate again.
    Continue,
}

/// Tracks the sizes of successive Newton updates, measured in units of the tolerance.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Monitor {
    phase: Phase,
    max_iterations: u32,
    iterations: u32,
    previous: f64,
    rate: f64,
    /// Updates a line search shortened ([`Monitor::damped`]).
    damped: u32,
}

impl Monitor {
    pub(crate) fn new(phase: Phase, max_iterations: u32) -> Self {
        Self {
            phase,
            max_iterations,
            iterations: 0,
            previous: f64::INFINITY,
            rate: 1.0,
            damped: 0,
        }
    }

    pub(crate) fn iterations(&self) -> u32 {
        self.iterations
    }

    /// The last update judged, in units of the tolerance (infinite before the first).
    pub(crate) fn last(&self) -> f64 {
        self.previous
    }

    /// Judges an update of size `delta` (already divided by the tolerance, so 1 means "at
    /// tolerance"). `roundoff` is the size, in the same units, below which an update is
    /// indistinguishable from rounding noise.
    pub(crate) fn judge(&mut self, delta: f64, roundoff: f64) -> Result<Verdict, Error> {
        self.iterations += 1;
        if !delta.is_finite() {
            return Err(Error::Diverged {
                phase: self.phase,
                iterations: self.iterations,
                residual: delta,
            });
        }
        let before = self.previous;
        let theta = delta / before;
        // The first update, or the first full one after updates shortened by a line search
        // (`damped`): no rate yet.
        let first = before == f64::INFINITY;
        if !first {
            self.rate = theta;
        }
        self.previous = delta;
        // Estimated remaining error after this update: rate/(1 - rate) * delta while the
        // iteration contracts; the update itself on the first iteration.
        let remaining = if !first && self.rate < 1.0 {
            self.rate / (1.0 - self.rate) * delta
        } else {
            delta
        };
        if remaining <= 1.0 || delta == 0.0 {
            return Ok(Verdict::Converged);
        }
        if !first && theta >= 0.5 && delta <= roundoff {
            // No more contraction and the update is at rounding level: nothing left to gain.
            return Ok(Verdict::Converged);
        }
        if !first && theta >= 0.5 && before <= roundoff {
            // The previous update was already at rounding level: the iterate is as close to
            // the solution as the residual's rounding lets any update bring it, and this one
            // moved it within that noise. `roundoff` is an estimate (`64 ε` times the scales):
            // where the rounding of the residual is amplified by the matrix more than it
            // allows (a linkage with many loops: the Jansen walker's simplified stage updates
            // went 2.0e2, 4.0e1, 1.7e2 tolerances with a floor of 1.6e2, and were counted as
            // diverging), an update up to `ATTAINABLE_MARGIN` times it is rounding too.
            if delta <= ATTAINABLE_MARGIN * roundoff {
                return Ok(Verdict::Converged);
            }
        }
        // After a line search the merit, not the update's size, guards against divergence.
        if !first && self.iterations > 2 && theta > 2.0 && self.damped == 0 {
            return Err(Error::Diverged {
                phase: self.phase,
                iterations: self.iterations,
                residual: delta,
            });
        }
        if self.exhausted() {
            return Err(Error::NoConvergence {
                phase: self.phase,
                iterations: self.iterations,
                residual: delta,
            });
        }
        Ok(Verdict::Continue)
    }

    /// Counts an update of size `delta` (in units of the tolerance) that a line search
    /// shortened: not judged for convergence (a shortened update says nothing of the distance
    /// to the solution), and the next full update is judged as a first one. Fails when the
    /// update is not finite or the iterations are used up.
    pub(crate) fn damped(&mut self, delta: f64) -> Result<(), Error> {
        self.iterations += 1;
        if !delta.is_finite() {
            return Err(Error::Diverged {
                phase: self.phase,
                iterations: self.iterations,
                residual: delta,
            });
        }
        self.previous = f64::INFINITY;
        self.rate = 1.0;
        self.damped += 1;
        if self.exhausted() {
            return Err(Error::NoConvergence {
                phase: self.phase,
                iterations: self.iterations,
                residual: delta,
            });
        }
        Ok(())
    }

    /// Whether the iterations are used up: `max_iterations` full updates, or
    /// [`DAMPED_BUDGET`] times as many updates in all (shortened ones included).
    fn exhausted(&self) -> bool {
        self.iterations - self.damped >= self.max_iterations
            || self.iterations >= DAMPED_BUDGET * self.max_iterations
    }

    /// True when a linearly converging iteration contracts too slowly to be worth continuing
    /// (rate above 1/2 after three iterations): simplified Newton then hands over to full Newton.
    pub(crate) fn is_slow(&self) -> bool {
        self.iterations >= 3 && self.rate > 0.5
    }

    /// The error for a singular Newton matrix in this phase.
    pub(crate) fn singular(&self) -> Error {
        Error::SingularJacobian { phase: self.phase }
    }

    /// Judges an update of size `delta` of an iteration asked for `unit` ([`tolerance_unit`]),
    /// with the rounding floor `floor` ([`rounding_floor`]) raised to `attainable`, the
    /// accuracy the iteration can attain (0 when not estimated), as
    /// [`Monitor::attainable_floor`] does with `unit` as its reference.
    pub(crate) fn judge_update(
        &mut self,
        delta: f64,
        unit: f64,
        attainable: f64,
        floor: f64,
    ) -> Result<Verdict, Error> {
        let noise = self.attainable_floor(attainable, unit, floor)?;
        self.judge(delta / unit, noise / unit)
    }

    /// The error for a regular matrix whose attainable accuracy is `ratio` tolerances.
    pub(crate) fn ill_conditioned(&self, ratio: f64) -> Error {
        Error::IllConditioned {
            phase: self.phase,
            attainable: ratio,
        }
    }

    /// The noise floor of a full-Newton convergence test whose rounding floor is `floor` and
    /// whose attainable accuracy (e.g. [`attainable`]) is `attainable`: updates below
    /// [`ATTAINABLE_MARGIN`] times it count as round-off. Fails with
    /// [`Error::IllConditioned`] when that exceeds [`ILL_CONDITIONED`] times `reference`
    /// (the tolerance, in the test's units): rounding alone then moves the solution by far
    /// more than the tolerance; near a configuration where the constraints lose rank the
    /// equations have several nearby solutions, and whichever Newton finds is not to be
    /// trusted.
    pub(crate) fn attainable_floor(
        &self,
        attainable: f64,
        reference: f64,
        floor: f64,
    ) -> Result<f64, Error> {
        let bound = ATTAINABLE_MARGIN * attainable;
        if bound > ILL_CONDITIONED * reference {
            return Err(self.ill_conditioned(bound / reference));
        }
        Ok(floor.max(bound))
    }
}

/// How many times `max_iterations` updates an iteration may take in all when a line search
/// shortens some of them ([`Monitor::damped`]): on a light link with dry friction stopping
/// within the step (`tests/suite/light_links.rs`) full Newton took up to 40 updates.
pub(crate) const DAMPED_BUDGET: u32 = 4;

/// Factor on the tolerance of the simplified Newton iterations. A linearly convergent
/// iteration stops with about the tolerance left, while full Newton's last quadratic step
/// leaves far less: the simplified iteration is asked for one digit more (with it the chains
/// of `examples/chain_bench.rs` keep |g| at 1e-16, without it at 4e-14, and a second digit
/// costs one more iteration per step without a visible change in the results).
pub(crate) const SIMPLIFIED_MARGIN: f64 = 0.1;

/// The size of an update that counts as converged for velocities of size `vscale`: the
/// tolerance times `vscale`, times [`SIMPLIFIED_MARGIN`] for a `simplified` iteration.
pub(crate) fn tolerance_unit(tolerance: f64, simplified: bool, vscale: f64) -> f64 {
    let tolerance = if simplified {
        tolerance * SIMPLIFIED_MARGIN
    } else {
        tolerance
    };
    tolerance * vscale
}

/// The rounding level of velocity updates of size `vscale` in a system whose position rows
/// (`g/h`) round at `position_scale` (a length per unit of time): `64 ε (vscale +
/// position_scale)`.
pub(crate) fn rounding_floor(vscale: f64, position_scale: f64) -> f64 {
    64.0 * f64::EPSILON * (vscale + position_scale)
}

/// The relative accuracy of a solve with a matrix of condition number `condition`.
pub(crate) fn attainable(condition: f64) -> f64 {
    f64::EPSILON * condition.max(64.0)
}

/// Factor on the propagated rounding of the residual below which a full-Newton update that no
/// longer contracts counts as converged: near a configuration where the constraints lose
/// rank (a linkage's change point) rounding is amplified by the conditioning, and asking for
/// more than it allows makes the iteration stall above the tolerance.
pub(crate) const ATTAINABLE_MARGIN: f64 = 8.0;

/// A full-Newton stage solve whose attainable accuracy is this many times worse than the
/// tolerance fails with [`Error::IllConditioned`] instead of returning a step it cannot
/// resolve (tested on the parallelogram four-bar at its change point, `tests/suite/four_bar.rs`; the dense
/// coupled solves of `dense_newton` use the same bound).
pub(crate) const ILL_CONDITIONED: f64 = 1e4;

/// The error that sends a slowly converging simplified iteration to full Newton (and that the
/// caller sees when [`Options::full_newton_fallback`] is off): `residual` is the last update
/// in units of the tolerance (infinite when no simplified iteration could start).
pub(crate) fn slow(phase: Phase, iterations: u32, residual: f64) -> Error {
    Error::NoConvergence {
        phase,
        iterations,
        residual,
    }
}

/// Runs `solve(true)` (simplified Newton) when the options ask for it and, if that iteration
/// does not converge and `options.full_newton_fallback` allows, `solve(false)` (full Newton)
/// from the same start. Returns the solution and the iterations spent by the failed simplified
/// attempt (0 if none).
pub(crate) fn with_fallback<T>(
    options: &Options,
    mut solve: impl FnMut(bool) -> Result<T, Error>,
) -> Result<(T, u32), Error> {
    if options.simplified_newton {
        match solve(true) {
            Err(Error::NoConvergence { iterations, .. } | Error::Diverged { iterations, .. })
                if options.full_newton_fallback =>
            {
                Ok((solve(false)?, iterations))
            }
            other => other.map(|x| (x, 0)),
        }
    } else {
        solve(false).map(|x| (x, 0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quadratic_convergence_stops_early() {
        let mut m = Monitor::new(Phase::Stages, 20);
        assert_eq!(m.judge(1e6, 1e2).unwrap(), Verdict::Continue);
        assert_eq!(m.judge(1e3, 1e2).unwrap(), Verdict::Continue);
        assert_eq!(m.judge(1e-1, 1e2).unwrap(), Verdict::Converged);
    }

    #[test]
    fn stall_at_roundoff_is_accepted_and_growth_is_divergence() {
        let mut m = Monitor::new(Phase::Stages, 20);
        m.judge(1e3, 50.0).unwrap();
        m.judge(40.0, 50.0).unwrap();
        assert_eq!(m.judge(39.0, 50.0).unwrap(), Verdict::Converged);
        let mut m = Monitor::new(Phase::EndPoint, 20);
        m.judge(1e3, 1.0).unwrap();
        m.judge(1e4, 1.0).unwrap();
        assert!(matches!(m.judge(1e6, 1.0), Err(Error::Diverged { .. })));
        let mut m = Monitor::new(Phase::EndPoint, 3);
        m.judge(1e3, 1.0).unwrap();
        m.judge(9e2, 1.0).unwrap();
        assert!(matches!(
            m.judge(8e2, 1.0),
            Err(Error::NoConvergence { iterations: 3, .. })
        ));
    }

    /// An update at the rounding floor followed by a larger one within
    /// `ATTAINABLE_MARGIN` floors is rounding noise, not divergence; growth from above the
    /// floor, or beyond that band, still is divergence.
    #[test]
    fn noise_after_reaching_the_floor_is_convergence() {
        let mut m = Monitor::new(Phase::Stages, 20);
        m.judge(1e8, 160.0).unwrap();
        m.judge(3.5e4, 160.0).unwrap();
        m.judge(2.0e2, 160.0).unwrap();
        assert_eq!(m.judge(40.0, 160.0).unwrap(), Verdict::Continue);
        assert_eq!(m.judge(167.0, 160.0).unwrap(), Verdict::Converged);
        // The previous update above the floor: growth is divergence.
        let mut m = Monitor::new(Phase::Stages, 20);
        m.judge(1e8, 160.0).unwrap();
        m.judge(3.5e4, 160.0).unwrap();
        m.judge(2.0e2, 160.0).unwrap();
        assert!(matches!(m.judge(500.0, 160.0), Err(Error::Diverged { .. })));
        // At the floor, then far beyond the band: divergence.
        let mut m = Monitor::new(Phase::Stages, 20);
        m.judge(1e8, 160.0).unwrap();
        m.judge(3.5e4, 160.0).unwrap();
        m.judge(2.0e2, 160.0).unwrap();
        m.judge(40.0, 160.0).unwrap();
        assert!(matches!(
            m.judge(ATTAINABLE_MARGIN * 160.0 * 1.01, 160.0),
            Err(Error::Diverged { .. })
        ));
    }

    #[test]
    fn nan_is_divergence() {
        let mut m = Monitor::new(Phase::Stages, 20);
        assert!(matches!(
            m.judge(f64::NAN, 1.0),
            Err(Error::Diverged { .. })
        ));
    }
}

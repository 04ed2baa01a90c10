//! The adaptive drivers of [`Integrator`]: `step_with_estimate`, `advance_to` and `simulate`.

use crate::error::Error;
use crate::integrator::checks::{check_adaptive, check_time_step};
use crate::integrator::richardson::{richardson, Estimated};
use crate::integrator::{Advance, Integrator};
use crate::method::Method;
use crate::model::Model;
use crate::options::Options;

use super::controller::PiController;
use super::dense::Interpolate;
use super::events::{crosses, illinois, EventOn, ReportOn};

/// The estimated local error of a step ([`Integrator::step_with_estimate`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ErrorEstimate {
    /// The estimate in units of the tolerances, `max_i |e_i| / (atol + rtol · |y_i|)`: at most
    /// 1 means the step meets [`Options::rtol`] and [`Options::atol`].
    pub scaled: f64,
    /// The estimate `max_i |e_i|` in the units of the state's components.
    pub max_abs: f64,
}

/// What one call of an adaptive driver did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AdvanceStats {
    /// Accepted steps (each made of two half steps).
    pub accepted: u32,
    /// Rejected steps: error estimate above the tolerances, or a Newton failure.
    pub rejected: u32,
    /// Solves of the method's step equations, including the error estimates' and the event
    /// refinements': the driver's cost in units of one `step`.
    pub step_solves: u32,
    /// The largest scaled error estimate of an accepted step.
    pub max_error: f64,
    /// The terminal event that stopped the run, if one did.
    pub event: Option<usize>,
}

/// What the driver does with an accepted step besides taking it: `Some` stops the run at the
/// given state (a terminal event, by its index).
type Accepted<St> = Option<(St, usize)>;

/// The largest distance in time treated as "the same time": round-off of `t`.
fn time_resolution(t: f64) -> f64 {
    1e-13 * t.abs().max(1.0)
}

/// The settings of an adaptive run to `t_end`.
fn check_settings(o: &Options, t_end: f64) -> Result<(), Error> {
    check_adaptive(o)?;
    if !t_end.is_finite() {
        return Err(Error::InvalidTime {
            what: "the end time must be finite",
            t: t_end,
        });
    }
    Ok(())
}

/// Output times are finite and in the direction of integration `dir` (non-decreasing for
/// forward runs, non-increasing for backward ones).
fn check_outputs(outputs: &[f64], dir: f64) -> Result<(), Error> {
    let mut last = f64::NEG_INFINITY;
    for &t in outputs {
        if !t.is_finite() {
            return Err(Error::InvalidTime {
                what: "an output time is not finite",
                t,
            });
        }
        if t * dir < last {
            return Err(Error::InvalidTime {
                what: "the output times are not in the direction of integration (sort them)",
                t,
            });
        }
        last = t * dir;
    }
    Ok(())
}

impl<Sys: Model, Meth: Method> Integrator<Sys, Meth> {
    /// Advances `state` by the step size `h` as two steps of `h/2` and returns the estimated
    /// local error of the result (Richardson extrapolation against one step of `h`; the ratio
    /// to the true local error tends to 1 as `h → 0`). It costs three step solves, 1.5 times
    /// the two half steps. On error `state` is left exactly as it was.
    ///
    /// ```
    /// use spark::{GaussLobatto, Integrator, State};
    /// # spark::mechanics! {
    /// #     pub struct Pendulum {
    /// #         coordinates: [x, y],
    /// #         velocities: [vx, vy],
    /// #         parameters: [m = 1.0, l = 1.0, g = 9.81],
    /// #         lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y,
    /// #         holonomic: [x.powi(2) + y.powi(2) - l.powi(2)],
    /// #     }
    /// # }
    /// let mut sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.1).unwrap();
    /// let mut s = State::new(0.0, [1.0, 0.0], [0.0, 0.0]);
    /// let e = sim.step_with_estimate(&mut s).unwrap();
    /// assert!(e.max_abs > 0.0 && e.max_abs < 1e-4); // order 4: local error O(h⁵)
    /// assert!((s.t - 0.1).abs() < 1e-15);
    /// ```
    pub fn step_with_estimate<St, const M: usize, const K: usize>(
        &mut self,
        state: &mut St,
    ) -> Result<ErrorEstimate, Error>
    where
        St: Advance<Sys, M, K> + Copy,
    {
        let h = self.step_size();
        self.check_step(state, h)?;
        check_time_step(state.time(), 0.5 * h)?;
        let t = state.time() + h;
        let est = richardson::<Sys, St, Meth, M, K>(self.system(), h, self.options(), state)
            .map_err(|e| self.explain(e, h, state))?;
        let mut end = est.end;
        end.set_time(t);
        *state = end;
        Ok(ErrorEstimate {
            scaled: est.scaled,
            max_abs: est.max_abs,
        })
    }

    /// Advances `state` to `t_end` with adaptive steps: each step's local error is estimated
    /// ([`Integrator::step_with_estimate`]) and held below [`Options::rtol`] and
    /// [`Options::atol`] by a PI step-size controller within [`Options::min_step`] and
    /// [`Options::max_step`]; a step whose estimate is too large, or whose Newton iteration
    /// fails, is retried from the unchanged state with a smaller step. The first step tries
    /// the integrator's step size; on return the step size is the controller's proposal for
    /// the next step (so consecutive calls continue smoothly). Integrates backwards when
    /// `t_end` is before `state.t`.
    ///
    /// On error the state is left at the last accepted step (no accepted work is lost):
    /// [`Error::StepSizeTooSmall`], [`Error::TooManySteps`], or the error of a step that is not
    /// a Newton failure (inconsistent or non-finite state, non-finite parameter).
    ///
    /// ```
    /// use spark::{GaussLobatto, Integrator, Options, State};
    /// # spark::mechanics! {
    /// #     pub struct Pendulum {
    /// #         coordinates: [x, y],
    /// #         velocities: [vx, vy],
    /// #         parameters: [m = 1.0, l = 1.0, g = 9.81],
    /// #         lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y,
    /// #         holonomic: [x.powi(2) + y.powi(2) - l.powi(2)],
    /// #     }
    /// # }
    /// let tight = Options { rtol: 1e-10, atol: 1e-10, ..Options::default() };
    /// let mut sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01)
    ///     .unwrap()
    ///     .with_options(tight);
    /// let mut s = State::new(0.0, [1.0, 0.0], [0.0, 0.0]);
    /// let stats = sim.advance_to(&mut s, 2.0).unwrap();
    /// assert_eq!(s.t, 2.0);
    /// assert!(stats.accepted > 10 && stats.max_error <= 1.0);
    /// ```
    pub fn advance_to<St, const M: usize, const K: usize>(
        &mut self,
        state: &mut St,
        t_end: f64,
    ) -> Result<AdvanceStats, Error>
    where
        St: Advance<Sys, M, K> + Copy,
    {
        self.drive(state, t_end, |_, _, _, _| Ok(None))
    }

    /// [`Integrator::advance_to`], reporting the interpolated state at each time of `outputs`
    /// (in the direction of integration, within the run; the dense output of
    /// `docs/adaptive.md`: [`crate::simulate::DenseStep`] for Lagrangian states,
    /// [`crate::simulate::OdaeDense`] for Hamiltonian and DAE states) and locating the zeros of
    /// the `events` functions. Each is handed to `report` in time order
    /// ([`ReportOn::Output`], [`ReportOn::Event`]). A terminal event stops
    /// the run with `state` at the event and `AdvanceStats::event` naming it; the caller may
    /// change the state there (an impact law, a mode switch) and call again.
    ///
    /// ```
    /// use spark::simulate::{Direction, Event, Report};
    /// use spark::{GaussLobatto, Integrator, Options, State};
    /// # spark::mechanics! {
    /// #     pub struct Pendulum {
    /// #         coordinates: [x, y],
    /// #         velocities: [vx, vy],
    /// #         parameters: [m = 1.0, l = 1.0, g = 9.81],
    /// #         lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) - m * g * y,
    /// #         holonomic: [x.powi(2) + y.powi(2) - l.powi(2)],
    /// #     }
    /// # }
    /// let tight = Options { rtol: 1e-10, atol: 1e-10, ..Options::default() };
    /// let mut sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum::default(), 0.01)
    ///     .unwrap()
    ///     .with_options(tight);
    /// let mut s = State::new(0.0, [1.0, 0.0], [0.0, 0.0]);
    /// // Stop when the bob passes below the pivot (x falls through 0).
    /// let bottom = |s: &State<2>| s.q[0];
    /// let events = [Event { function: &bottom, direction: Direction::Falling, terminal: true }];
    /// let mut outputs = 0;
    /// let stats = sim
    ///     .simulate(&mut s, 5.0, &[0.1, 0.2, 0.3], &events, |r| {
    ///         if let Report::Output(_) = r {
    ///             outputs += 1;
    ///         }
    ///     })
    ///     .unwrap();
    /// assert_eq!(stats.event, Some(0));
    /// assert!(s.q[0].abs() < 1e-12 && outputs == 3);
    /// ```
    pub fn simulate<St, const M: usize, const K: usize>(
        &mut self,
        state: &mut St,
        t_end: f64,
        outputs: &[f64],
        events: &[EventOn<'_, St>],
        mut report: impl FnMut(ReportOn<'_, St>),
    ) -> Result<AdvanceStats, Error>
    where
        St: Interpolate<Sys, M, K>,
    {
        check_settings(self.options(), t_end)?;
        self.check_call(state)?;
        let t0 = state.time();
        let dir = if t_end >= t0 { 1.0 } else { -1.0 };
        check_outputs(outputs, dir)?;
        // Outputs behind the start are skipped; one at the start gets the start state.
        let mut next = 0;
        while next < outputs.len() && (outputs[next] - t0) * dir < 0.0 {
            next += 1;
        }
        while next < outputs.len() && outputs[next] == t0 {
            report(ReportOn::Output(state));
            next += 1;
        }
        // Reports the outputs up to `until` (inclusive or not) from the dense output.
        let flush = |sys: &Sys,
                     next: &mut usize,
                     report: &mut dyn FnMut(ReportOn<'_, St>),
                     dense: &St::Dense,
                     until: f64,
                     inclusive: bool| {
            while *next < outputs.len() {
                let t = outputs[*next];
                let d = (until - t) * dir;
                if d < 0.0 || (d == 0.0 && !inclusive) || (t - t_end) * dir > 0.0 {
                    break;
                }
                report(ReportOn::Output(&St::at(sys, dense, t)));
                *next += 1;
            }
        };
        let mut stop: Option<usize> = None;
        let stats = self.drive(state, t_end, |sim, start, est, end_time| {
            let mut end = est.end;
            end.set_time(end_time);
            let dense = St::interpolant(sim.system(), start, &est.mid, &end)?;
            let mut lower = start.time();
            let mut skip: Option<usize> = None;
            while let Some((index, t_dense)) =
                earliest_event(sim.system(), events, &dense, &est.mid, lower, skip, t0)?
            {
                let at = sim.refine_event(&events[index], index, &dense, start, t_dense)?;
                // Outputs before the event are reported first.
                flush(
                    sim.system(),
                    &mut next,
                    &mut report,
                    &dense,
                    at.time(),
                    false,
                );
                report(ReportOn::Event { index, state: &at });
                if events[index].terminal {
                    stop = Some(index);
                    return Ok(Some((at, index)));
                }
                lower = at.time();
                skip = Some(index);
            }
            flush(
                sim.system(),
                &mut next,
                &mut report,
                &dense,
                end.time(),
                true,
            );
            Ok(None)
        })?;
        debug_assert_eq!(stats.event, stop);
        Ok(stats)
    }

    /// The event time to `1e-13 · max(1, |t|)` and the state there, by Newton on the length
    /// of a real step (two half steps) from `start`, with the slope of the dense output.
    fn refine_event<St, const M: usize, const K: usize>(
        &self,
        event: &EventOn<'_, St>,
        event_index: usize,
        dense: &St::Dense,
        start: &St,
        t_guess: f64,
    ) -> Result<St, Error>
    where
        St: Interpolate<Sys, M, K>,
    {
        let e = event.function;
        let (span_start, span_end) = St::span(dense);
        let span = span_end - span_start;
        let delta = 1e-6 * span;
        let mut t = t_guess;
        let mut best: Option<(f64, St)> = None;
        for _ in 0..6 {
            let tau = t - start.time();
            let at = if tau == 0.0 {
                *start
            } else {
                let mut s =
                    richardson::<Sys, St, Meth, M, K>(self.system(), tau, self.options(), start)?
                        .end;
                s.set_time(t);
                s
            };
            let value = e(&at);
            if !value.is_finite() {
                return Err(Error::NonFiniteEvent {
                    index: event_index,
                    t,
                });
            }
            if best.is_none_or(|(b, _)| value.abs() < b) {
                best = Some((value.abs(), at));
            }
            let (after, before) = (
                e(&St::at(self.system(), dense, t + delta)),
                e(&St::at(self.system(), dense, t - delta)),
            );
            if !(after.is_finite() && before.is_finite()) {
                return Err(Error::NonFiniteEvent {
                    index: event_index,
                    t,
                });
            }
            let slope = (after - before) / (2.0 * delta);
            if !(slope.is_finite() && slope != 0.0 && value.is_finite()) {
                break;
            }
            let dt = -value / slope;
            t += dt;
            if dt.abs() <= time_resolution(t) {
                break;
            }
        }
        best.map(|(_, s)| s).ok_or(Error::NonFiniteState)
    }

    /// The adaptive loop shared by the drivers: `accepted(self, start, estimate, end_time)` sees
    /// every accepted step before it is taken and may stop the run at another state.
    fn drive<St, F, const M: usize, const K: usize>(
        &mut self,
        state: &mut St,
        t_end: f64,
        mut accepted: F,
    ) -> Result<AdvanceStats, Error>
    where
        St: Advance<Sys, M, K> + Copy,
        F: FnMut(&Self, &St, &Estimated<St>, f64) -> Result<Accepted<St>, Error>,
    {
        let o = *self.options();
        self.check_call(state)?;
        check_settings(&o, t_end)?;
        let mut stats = AdvanceStats::default();
        let dir = if t_end >= state.time() { 1.0 } else { -1.0 };
        // A span the time cannot resolve would be "reached" without a step.
        if t_end != state.time() {
            check_time_step(state.time(), t_end - state.time())?;
            let remaining = (t_end - state.time()).abs();
            if remaining <= 4.0 * f64::EPSILON * state.time().abs().max(t_end.abs()) {
                return Err(Error::TimeResolution {
                    t: state.time(),
                    h: t_end - state.time(),
                });
            }
        }
        let mut h = self.step_size().abs().clamp(o.min_step, o.max_step);
        let mut pi = PiController::new(Meth::ORDER);
        let mut after_reject = false;
        let result = loop {
            let t = state.time();
            let remaining = (t_end - t) * dir;
            if remaining <= 4.0 * f64::EPSILON * t.abs().max(t_end.abs()) {
                state.set_time(t_end);
                break Ok(());
            }
            if stats.accepted + stats.rejected >= o.max_steps {
                break Err(Error::TooManySteps { t });
            }
            let min_step = if o.min_step > 0.0 {
                o.min_step
            } else {
                1e-12 * t.abs().max(1.0)
            };
            let last = h >= remaining;
            let h_try = if last { remaining } else { h };
            if h_try < min_step && !last {
                break Err(Error::StepSizeTooSmall { t, h: h_try });
            }
            let end_time = if last { t_end } else { t + dir * h_try };
            if let Err(e) = check_time_step(t, dir * h_try).and_then(|()| self.check_mass(state)) {
                break Err(e);
            }
            stats.step_solves += 3;
            match richardson::<Sys, St, Meth, M, K>(self.system(), dir * h_try, &o, state) {
                Ok(est) if est.scaled <= 1.0 => {
                    stats.accepted += 1;
                    stats.max_error = stats.max_error.max(est.scaled);
                    let start = *state;
                    let factor = pi.accepted(est.scaled);
                    let factor = if after_reject {
                        factor.min(1.0)
                    } else {
                        factor
                    };
                    after_reject = false;
                    if !(last && h_try < h) {
                        h = (h_try * factor).min(o.max_step);
                    }
                    let mut end = est.end;
                    end.set_time(end_time);
                    match accepted(self, &start, &est, end_time) {
                        Ok(Some((at, index))) => {
                            *state = at;
                            stats.event = Some(index);
                            break Ok(());
                        }
                        Ok(None) => *state = end,
                        Err(e) => break Err(e),
                    }
                }
                Ok(est) => {
                    stats.rejected += 1;
                    h = h_try * pi.rejected(est.scaled);
                    after_reject = true;
                }
                Err(
                    Error::NoConvergence { .. }
                    | Error::Diverged { .. }
                    | Error::SingularJacobian { .. }
                    | Error::IllConditioned { .. },
                ) => {
                    // Out-of-range evaluations are no reason to shrink the step.
                    if let Some(cause) = St::diagnose(self.system(), dir * h_try, state) {
                        break Err(cause);
                    }
                    stats.rejected += 1;
                    h = h_try * 0.25;
                    after_reject = true;
                }
                Err(e) => break Err(e),
            }
            if h < min_step {
                break Err(Error::StepSizeTooSmall { t, h });
            }
        };
        if h > 0.0 && h.is_finite() {
            let _ = self.set_step_size(dir * h);
        }
        result.map(|()| stats)
    }
}

/// The earliest crossing of any event after `lower` within the step (`skip`: an event just
/// reported at `lower`, whose value there counts as zero), by Illinois on the dense output
/// between the step's start, midpoint and end; roots within round-off of the run's start
/// `t_run` are ignored (a run resumed at an event).
fn earliest_event<Sys, St: Interpolate<Sys, M, K>, const M: usize, const K: usize>(
    sys: &Sys,
    events: &[EventOn<'_, St>],
    dense: &St::Dense,
    mid: &St,
    lower: f64,
    skip: Option<usize>,
    t_run: f64,
) -> Result<Option<(usize, f64)>, Error> {
    let (t0, t1) = St::span(dense);
    let dir = if t1 >= t0 { 1.0 } else { -1.0 };
    let tm = mid.time();
    let mut best: Option<(usize, f64)> = None;
    for (index, event) in events.iter().enumerate() {
        // The first time at which the function was not finite, root finding included.
        let non_finite = core::cell::Cell::new(None);
        let e = |t: f64| {
            let value = (event.function)(&St::at(sys, dense, t));
            if !value.is_finite() && non_finite.get().is_none() {
                non_finite.set(Some(t));
            }
            value
        };
        let finite = |t: f64, value: f64| {
            if value.is_finite() {
                Ok(value)
            } else {
                Err(Error::NonFiniteEvent { index, t })
            }
        };
        let mut a = lower;
        let mut ea = if skip == Some(index) {
            0.0
        } else {
            finite(a, e(a))?
        };
        for b in [tm, t1] {
            if (b - a) * dir <= 0.0 {
                continue;
            }
            let eb = finite(b, e(b))?;
            if crosses(event.direction, ea, eb) {
                let root = illinois(e, a, ea, b, eb, 1e-15 * a.abs().max(1.0));
                if let Some(t) = non_finite.get() {
                    return Err(Error::NonFiniteEvent { index, t });
                }
                let after_start = (root - t_run).abs() > 4.0 * time_resolution(t_run);
                if after_start && best.is_none_or(|(_, t)| (root - t) * dir < 0.0) {
                    best = Some((index, root));
                }
                break;
            }
            a = b;
            ea = eb;
        }
    }
    Ok(best)
}

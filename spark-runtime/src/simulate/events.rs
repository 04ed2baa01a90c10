//! Events: user functions `e(state)` whose zeros the adaptive driver locates.
//!
//! A sign change of `e` is looked for between the three states of every accepted step (start,
//! midpoint, end), located on the dense output by the Illinois method, then refined with real
//! steps from the step's start (Newton on the step length with the slope of the dense output)
//! until the event time moves by less than `1e-13 · max(1, |t|)`: the reported state is a
//! state of the method (on the constraint manifold), not an interpolated one.

use crate::model::State;

/// Which sign changes of an event function count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// From negative to positive.
    Rising,
    /// From positive to negative.
    Falling,
    /// Both.
    Either,
}

/// An event: a function of the state whose zeros are located, the crossings that count, and
/// whether the driver stops there. `St` is the state kind: [`Event`] for Lagrangian states
/// (`e(t, q, v)`), `EventOn<'_, hamiltonian::State<N>>` (`e(t, q, p)`) and
/// `EventOn<'_, dae::State<N, M>>` for the others.
///
/// ```
/// use spark_runtime::simulate::{Direction, Event};
/// // The first coordinate passes 0.5 from below; the driver stops there.
/// let crossing = |s: &spark_runtime::State<2>| s.q[0] - 0.5;
/// let e = Event { function: &crossing, direction: Direction::Rising, terminal: true };
/// assert!(e.terminal);
/// ```
#[derive(Clone, Copy)]
pub struct EventOn<'a, St> {
    /// The event function of the state; an event is a zero of it. It should be smooth along
    /// the motion.
    pub function: &'a dyn Fn(&St) -> f64,
    /// The crossings that count.
    pub direction: Direction,
    /// Stop the driver at the event (the state is left there); otherwise report it and go on.
    pub terminal: bool,
}

/// An event of a Lagrangian state `(t, q, v)` (see [`EventOn`]).
pub type Event<'a, const N: usize> = EventOn<'a, State<N>>;

impl<St> core::fmt::Debug for EventOn<'_, St> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Event")
            .field("direction", &self.direction)
            .field("terminal", &self.terminal)
            .finish_non_exhaustive()
    }
}

/// What an adaptive driver reports to its caller while it runs, for the state kind `St`.
#[derive(Clone, Copy, Debug)]
pub enum ReportOn<'s, St> {
    /// The (interpolated) state at a requested output time.
    Output(&'s St),
    /// A non-terminal or terminal event: its index in the event list and the state there.
    Event {
        /// Index of the event in the slice given to the driver.
        index: usize,
        /// The state at the event (a state of the method, on the constraint manifold).
        state: &'s St,
    },
}

/// A report about a Lagrangian state (see [`ReportOn`]).
pub type Report<'s, const N: usize> = ReportOn<'s, State<N>>;

/// True when the values `a → b` of an event function are a crossing in `direction`
/// (`a = 0` is not: a zero at the left end was found before, or is where the run started).
pub(crate) fn crosses(direction: Direction, a: f64, b: f64) -> bool {
    let rising = a < 0.0 && b >= 0.0;
    let falling = a > 0.0 && b <= 0.0;
    match direction {
        Direction::Rising => rising,
        Direction::Falling => falling,
        Direction::Either => rising || falling,
    }
}

/// A zero of `f` in `[a, b]` where `f(a) = fa` and `f(b) = fb` have opposite signs (or
/// `fb = 0`), by the Illinois variant of regula falsi, to `tol` in the argument.
pub(crate) fn illinois(
    f: impl Fn(f64) -> f64,
    mut a: f64,
    mut fa: f64,
    mut b: f64,
    mut fb: f64,
    tol: f64,
) -> f64 {
    if fb == 0.0 {
        return b;
    }
    let mut side = 0i8;
    for _ in 0..200 {
        if (b - a).abs() <= tol {
            break;
        }
        let mut c = (a * fb - b * fa) / (fb - fa);
        if !c.is_finite() || (c - a) * (c - b) > 0.0 {
            c = 0.5 * (a + b);
        }
        let fc = f(c);
        if fc == 0.0 {
            return c;
        }
        if (fc > 0.0) == (fb > 0.0) {
            b = c;
            fb = fc;
            if side == 1 {
                fa *= 0.5;
            }
            side = 1;
        } else {
            a = c;
            fa = fc;
            if side == -1 {
                fb *= 0.5;
            }
            side = -1;
        }
    }
    if fa.abs() < fb.abs() {
        a
    } else {
        b
    }
}

#[cfg(test)]
mod tests {
    use super::{crosses, illinois, Direction};

    #[test]
    fn crossings_respect_direction_and_skip_a_zero_start() {
        assert!(crosses(Direction::Rising, -1.0, 1.0));
        assert!(!crosses(Direction::Rising, 1.0, -1.0));
        assert!(crosses(Direction::Falling, 1.0, 0.0));
        assert!(crosses(Direction::Either, 1.0, -1.0));
        assert!(!crosses(Direction::Either, 0.0, 1.0));
    }

    #[test]
    fn illinois_finds_roots_to_the_tolerance() {
        let f = |x: f64| libm::cos(x) - x;
        let r = illinois(f, 0.0, 1.0, 1.0, libm::cos(1.0) - 1.0, 1e-15);
        assert!((r - 0.739_085_133_215_160_6).abs() < 1e-14, "{r}");
        let g = |x: f64| (x - 0.3).powi(3) * 1e3;
        let r = illinois(g, 0.0, g(0.0), 2.0, g(2.0), 1e-14);
        assert!((r - 0.3).abs() < 1e-4, "{r}");
    }
}

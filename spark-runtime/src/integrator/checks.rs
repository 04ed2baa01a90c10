//! What the integrator's calls check before they compute anything: the options and the time
//! resolution of a step. Shared with the adaptive drivers of `crate::simulate`.

use crate::error::Error;
use crate::options::Options;

/// `Err(InvalidOptions)` for `field` unless `ok`.
fn require(ok: bool, field: &'static str, requirement: &'static str) -> Result<(), Error> {
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidOptions { field, requirement })
    }
}

/// Every field of `o` in its own domain (NaN fails every test below): checked by each call
/// that reads the options.
pub(crate) fn check_options(o: &Options) -> Result<(), Error> {
    require(
        o.tolerance > 0.0 && o.tolerance.is_finite(),
        "tolerance",
        "a positive finite number (the default is 1e-12)",
    )?;
    require(o.max_iterations >= 1, "max_iterations", "at least 1")?;
    require(
        o.consistency_tolerance >= 0.0,
        "consistency_tolerance",
        "a non-negative number, not NaN (the default is 1e-8)",
    )?;
    require(
        o.rtol >= 0.0 && o.rtol.is_finite(),
        "rtol",
        "a non-negative finite number",
    )?;
    require(
        o.atol >= 0.0 && o.atol.is_finite(),
        "atol",
        "a non-negative finite number",
    )?;
    require(
        o.min_step >= 0.0 && o.min_step.is_finite(),
        "min_step",
        "a non-negative finite number (0 for the round-off floor)",
    )?;
    require(
        o.max_step > 0.0,
        "max_step",
        "a positive number, not NaN (infinity for no bound)",
    )?;
    require(
        o.fixed_step_error_limit > 0.0,
        "fixed_step_error_limit",
        "a positive number, not NaN (infinity: fixed steps unchecked)",
    )?;
    Ok(())
}

/// `rtol` and `atol` usable as an error scale (the adaptive drivers and checked fixed steps),
/// after [`check_options`].
pub(crate) fn check_tolerances(o: &Options) -> Result<(), Error> {
    check_options(o)?;
    require(
        o.rtol + o.atol > 0.0,
        "atol",
        "positive where rtol is 0 (rtol and atol cannot both be 0)",
    )
}

/// The settings of the adaptive drivers: [`check_tolerances`] and step bounds in order.
pub(crate) fn check_adaptive(o: &Options) -> Result<(), Error> {
    check_tolerances(o)?;
    require(o.min_step <= o.max_step, "min_step", "at most max_step")
}

/// [`Error::TimeResolution`] when a step of `h` from the time `t` does not move the time by
/// `h` to within 1 % (`t + h` rounds to `t`, or far from `t + h`).
pub(crate) fn check_time_step(t: f64, h: f64) -> Result<(), Error> {
    let advanced = (t + h) - t;
    if (advanced - h).abs() <= 0.01 * h.abs() {
        Ok(())
    } else {
        Err(Error::TimeResolution { t, h })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_nan_or_negative_option_is_refused_by_name() {
        let d = Options::default();
        assert_eq!(check_options(&d), Ok(()));
        let cases: [(Options, &str); 9] = [
            (
                Options {
                    tolerance: 0.0,
                    ..d
                },
                "tolerance",
            ),
            (
                Options {
                    tolerance: f64::NAN,
                    ..d
                },
                "tolerance",
            ),
            (
                Options {
                    max_iterations: 0,
                    ..d
                },
                "max_iterations",
            ),
            (
                Options {
                    consistency_tolerance: -1e-8,
                    ..d
                },
                "consistency_tolerance",
            ),
            (
                Options {
                    rtol: f64::NAN,
                    ..d
                },
                "rtol",
            ),
            (Options { atol: -1.0, ..d }, "atol"),
            (
                Options {
                    min_step: f64::NAN,
                    ..d
                },
                "min_step",
            ),
            (
                Options {
                    max_step: f64::NAN,
                    ..d
                },
                "max_step",
            ),
            (
                Options {
                    fixed_step_error_limit: f64::NAN,
                    ..d
                },
                "fixed_step_error_limit",
            ),
        ];
        for (o, name) in cases {
            match check_options(&o) {
                Err(Error::InvalidOptions { field, .. }) => assert_eq!(field, name),
                other => panic!("{name}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_step_below_the_time_resolution_is_refused() {
        assert_eq!(check_time_step(0.3, 0.01), Ok(()));
        assert_eq!(check_time_step(1e8, -0.01), Ok(()));
        assert!(check_time_step(1e300, 0.01).is_err());
        // 1e17 + 10 rounds to 1e17 + 16: the time would move 60 % too far.
        assert!(check_time_step(1e17, 10.0).is_err());
        assert_eq!(check_time_step(1e17, 64.0), Ok(()));
    }
}

//! The scenario of `src/scenario.rs` on the host, for comparison with the Cortex-M4F run:
//! `cargo run --release --example host --target <host triple>` (the explicit `--target`
//! overrides the Cortex-M default in `.cargo/config.toml`). Prints the same lines as the
//! target, then the host's steps per second as `#` comment lines.

use std::fmt;
use std::io::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use spark_embedded::scenario;

/// Standard output as a `core::fmt::Write`, the interface the scenario prints to.
struct Stdout(std::io::StdoutLock<'static>);

impl fmt::Write for Stdout {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.write_all(s.as_bytes()).map_err(|_| fmt::Error)
    }
}

fn main() -> ExitCode {
    let mut out = Stdout(std::io::stdout().lock());
    let t0 = Instant::now();
    let runs = scenario::pendulum(&mut out).and_then(|p| {
        let t1 = Instant::now();
        let d = scenario::double_pendulum(&mut out)?;
        let t2 = Instant::now();
        let c = scenario::cartpole(&mut out)?;
        let tc = t2.elapsed();
        let t3 = Instant::now();
        let k = scenario::chain3d(&mut out)?;
        let tk = t3.elapsed();
        let z = scenario::chain3d_step()?;
        fmt::Write::write_fmt(&mut out, format_args!("chain3d_one_step done z {z:.16e}\n"))?;
        scenario::cartpole_jacobian(&mut out)?;
        // The NMPC hold, its control periods timed alone.
        let mut control_time = std::time::Duration::ZERO;
        let mut mpc = Box::new(scenario::nmpc_workspace());
        scenario::cartpole_nmpc(
            &mut out,
            &mut mpc,
            |hold| hold.plan(),
            |hold| {
                let t = Instant::now();
                let r = hold.control();
                control_time += t.elapsed();
                r
            },
        )?;
        Ok((p, t1 - t0, d, t2 - t1, c, tc, k, tk, control_time))
    });
    match runs {
        Ok((p, tp, d, td, c, tc, k, tk, tn)) => {
            println!(
                "# host pendulum {:.0} steps/s",
                f64::from(p.steps) / tp.as_secs_f64()
            );
            println!(
                "# host double_pendulum {:.0} steps/s",
                f64::from(d.steps) / td.as_secs_f64()
            );
            println!(
                "# host cartpole {:.0} steps/s",
                f64::from(c.steps) / tc.as_secs_f64()
            );
            println!(
                "# host chain3d {:.0} steps/s",
                f64::from(k.steps) / tk.as_secs_f64()
            );
            println!(
                "# host cartpole_nmpc {:.3} ms per control period",
                tn.as_secs_f64() * 1e3 / f64::from(scenario::NMPC_PERIODS)
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

//! spark's accelerations of Menagerie robots against MuJoCo's: per robot of
//! `$ACCEL_DIR/robots.tsv` (see `build.rs`), `Integrator::acceleration` at the 20 random states
//! of its CSV (`benches/menagerie/accelerations.py`) against MuJoCo's `qacc`, converted to
//! spark's coordinates as `tests/mechanisms/mjcf_features/harness.rs` does. Prints the largest
//! relative error per robot (or why it could not be measured). See README.md.

#[path = "../../../../tests/mechanisms/mjcf_features/harness.rs"]
#[allow(dead_code)]
mod harness;

include!(concat!(env!("OUT_DIR"), "/robots.rs"));

fn main() {
    let mut failed = false;
    for (name, csv, measure) in ROBOTS {
        let text = match std::fs::read_to_string(csv) {
            Ok(t) => t,
            Err(e) => {
                println!("{name}: cannot read {csv}: {e}");
                failed = true;
                continue;
            }
        };
        match measure(&text) {
            Ok(m) => println!(
                "{name}: {} states, largest relative error of the accelerations {:.1e} (row {})",
                m.rows, m.worst, m.row
            ),
            Err(e) => {
                println!("{name}: not measured: {e}");
                failed = true;
            }
        }
    }
    if failed {
        std::process::exit(1);
    }
}

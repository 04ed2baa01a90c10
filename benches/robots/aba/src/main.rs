//! spark's accelerations of example-robot-data URDFs read as shipped with `floating_base: true`
//! against Pinocchio's ABA on a free flyer: per robot of `$ABA_DIR/robots.tsv` (`build.rs`),
//! `Integrator::acceleration` at the 20 states of its CSV (`benches/robots/aba_reference.py`),
//! states and accelerations passed through `spark::convert` (Pinocchio's convention), nothing
//! reordered by hand. Prints the largest relative error per robot. See README.md.

use spark::convert::{self, Convention};
use spark::nalgebra::SVector;
use spark::{Dimensions, GaussLobatto, Integrator, State};

/// The columns `PREFIX0..PREFIXn` of one row of a CSV with `#` metadata lines and a header.
fn columns(header: &[&str], row: &[f64], prefix: &str, n: usize) -> Result<Vec<f64>, String> {
    (0..n)
        .map(|i| {
            let name = format!("{prefix}{i}");
            let k = header.iter().position(|h| *h == name);
            k.map(|k| row[k]).ok_or(format!("no column {name}"))
        })
        .collect()
}

/// `measure_fn!(Model, name)`: `fn name(csv text) -> (rows, largest relative error)`.
macro_rules! measure_fn {
    ($ty:ident, $f:ident) => {
        fn $f(text: &str) -> Result<(usize, f64), String> {
            const N: usize = $ty::COORDINATES;
            const PIN: Convention = Convention::Pinocchio;
            let mut lines = text.lines().filter(|l| !l.starts_with('#'));
            let header: Vec<&str> = lines.next().ok_or("empty CSV")?.split(',').collect();
            let (nq, nv) = $ty::PINOCCHIO_SIZES;
            let (mut rows, mut worst) = (0, 0.0f64);
            for line in lines.filter(|l| !l.trim().is_empty()) {
                let row: Vec<f64> = line.split(',').map(|x| x.parse().unwrap()).collect();
                let q_pin = columns(&header, &row, "q", nq)?;
                let v_pin = columns(&header, &row, "v", nv)?;
                let tau = columns(&header, &row, "tau", nv)?;
                let a_pin = columns(&header, &row, "a", nv)?;
                let (mut q, mut qd) = ([0.0; N], [0.0; N]);
                convert::state_from(PIN, &$ty::JOINT_LAYOUT, &q_pin, &v_pin, &mut q, &mut qd)
                    .map_err(|e| format!("{e:?}"))?;
                // Each input `tau_JOINT` takes the torque at its joint's velocity index.
                let mut inputs = [0.0; $ty::INPUTS];
                let mut iv = 0;
                for joint in &$ty::JOINT_LAYOUT {
                    let name = format!("tau_{}", joint.name);
                    if let Some(u) = $ty::INPUT_NAMES.iter().position(|n| *n == name) {
                        inputs[u] = tau[iv];
                    }
                    iv += joint.kind.size(PIN).1;
                }
                let mut model = $ty::default();
                model.set_inputs(&SVector::from(inputs));
                let sim = Integrator::<$ty, GaussLobatto<2>>::new(model, 1e-3)
                    .map_err(|e| format!("{e:?}"))?;
                let qdd = sim
                    .acceleration(&State::new(0.0, q, qd))
                    .map_err(|e| format!("{e:?}"))?;
                let mut a = vec![0.0; nv];
                convert::acceleration_to(PIN, &$ty::JOINT_LAYOUT, &q, &qd, qdd.as_slice(), &mut a)
                    .map_err(|e| format!("{e:?}"))?;
                let diff = a.iter().zip(&a_pin).map(|(x, y)| (x - y).powi(2)).sum::<f64>();
                let size = a_pin.iter().map(|y| y * y).sum::<f64>();
                worst = worst.max((diff / size.max(1e-300)).sqrt());
                rows += 1;
            }
            Ok((rows, worst))
        }
    };
}

include!(concat!(env!("OUT_DIR"), "/robots.rs"));

fn main() {
    let mut failed = false;
    for (name, csv, measure) in ROBOTS {
        let text = std::fs::read_to_string(csv).unwrap_or_else(|e| panic!("{csv}: {e}"));
        match measure(&text) {
            Ok((rows, worst)) => println!(
                "{name}: {rows} states, largest relative error of the accelerations {worst:.1e}"
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

//! Writes `$OUT_DIR/robots.rs`: one `spark::mechanics!` model per line of
//! `$ACCEL_DIR/robots.tsv` (default `/tmp/menagerie_accel/robots.tsv`, written by
//! `benches/menagerie/accelerations.py`: name, absolute path of the flag-patched copy of the
//! robot file under `$MENAGERIE`, reference CSV), and a table `ROBOTS` of (name, CSV path,
//! measuring function). `ACCEL_ROBOTS=ur5e,h1` keeps only those names.

use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-env-changed=ACCEL_DIR");
    println!("cargo:rerun-if-env-changed=ACCEL_ROBOTS");
    let dir =
        PathBuf::from(std::env::var("ACCEL_DIR").unwrap_or_else(|_| "/tmp/menagerie_accel".into()));
    let list = dir.join("robots.tsv");
    println!("cargo:rerun-if-changed={}", list.display());
    let text = std::fs::read_to_string(&list).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; run benches/menagerie/setup.sh and benches/menagerie/accelerations.py first",
            list.display()
        )
    });
    let only: Option<Vec<String>> = std::env::var("ACCEL_ROBOTS")
        .ok()
        .map(|s| s.split(',').map(|x| x.trim().to_string()).collect());
    let mut out = String::new();
    let mut table = String::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (name, model, csv) = (cols[0], cols[1], cols[2]);
        if only.as_ref().is_some_and(|o| !o.iter().any(|x| x == name)) {
            continue;
        }
        println!("cargo:rerun-if-changed={model}");
        // A type name from the robot's name: `leap_hand` → `LeapHand`.
        let ty: String = name
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(|w| {
                let mut c = w.chars();
                c.next().unwrap().to_ascii_uppercase().to_string() + c.as_str()
            })
            .collect();
        let ty = format!("Robot{ty}");
        let _ = writeln!(
            out,
            "spark::mechanics! {{\n    /// `{model}`\n    pub struct {ty} {{\n        \
             mjcf: {model:?},\n    }}\n}}\n"
        );
        let _ = writeln!(
            out,
            "fn measure_{id}(text: &str) -> Result<harness::Measured, String> {{\n    \
             let shown = harness::Shown {{\n        coordinates: &{ty}::COORDINATE_NAMES,\n        \
             inputs: &{ty}::INPUT_NAMES,\n        reference: &{ty}::REFERENCE_CONFIGURATION,\n    \
             }};\n    harness::measure({ty}::default(), &shown, text)\n}}\n",
            id = ty.to_ascii_lowercase()
        );
        let _ = writeln!(
            table,
            "    ({name:?}, {csv:?}, measure_{id}),",
            id = ty.to_ascii_lowercase()
        );
    }
    let _ = writeln!(
        out,
        "/// Measures one robot against the text of its reference CSV.\n\
         pub type Measure = fn(&str) -> Result<harness::Measured, String>;\n\n\
         /// (name, reference CSV, measuring function) per robot.\n\
         pub const ROBOTS: &[(&str, &str, Measure)] = &[\n{table}];"
    );
    let path = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("robots.rs");
    std::fs::write(path, out).unwrap();
}

//! Writes `$OUT_DIR/robots.rs`: per line of `$ABA_DIR/robots.tsv` (default `/tmp/robots_aba`,
//! written by `benches/robots/aba_reference.py`: name, URDF, reference CSV) a model of the URDF
//! on a free flyer with a torque input per joint, and its line of the table `ROBOTS`.
//! `ABA_ROBOTS=solo12` keeps only those names.

use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-env-changed=ABA_DIR");
    println!("cargo:rerun-if-env-changed=ABA_ROBOTS");
    let dir = PathBuf::from(std::env::var("ABA_DIR").unwrap_or_else(|_| "/tmp/robots_aba".into()));
    let list = dir.join("robots.tsv");
    println!("cargo:rerun-if-changed={}", list.display());
    let text = std::fs::read_to_string(&list).unwrap_or_else(|e| {
        panic!("{}: {e}; run benches/robots/aba_reference.py first", list.display())
    });
    let only: Option<Vec<String>> = std::env::var("ABA_ROBOTS")
        .ok()
        .map(|s| s.split(',').map(|x| x.trim().to_string()).collect());
    let (mut out, mut table) = (String::new(), String::new());
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (name, urdf, csv) = (cols[0], cols[1], cols[2]);
        if only.as_ref().is_some_and(|o| !o.iter().any(|x| x == name)) {
            continue;
        }
        // A type name: `solo12` → `RobotSolo12`.
        let mut chars = name.chars();
        let first = chars.next().map(|c| c.to_ascii_uppercase()).unwrap_or('X');
        let ty = format!("Robot{first}{}", chars.as_str());
        let _ = writeln!(
            out,
            "spark::mechanics! {{\n    /// `{urdf}`\n    \
             pub struct {ty} {{\n        urdf: {urdf:?},\n        floating_base: true,\n        \
             actuated: all,\n    }}\n}}\nmeasure_fn!({ty}, measure_{name});\n"
        );
        let _ = writeln!(table, "    ({name:?}, {csv:?}, measure_{name}),");
    }
    let _ = writeln!(
        out,
        "/// (name, reference CSV, measuring function) per robot.\n\
         pub const ROBOTS: &[(&str, &str, fn(&str) -> Result<(usize, f64), String>)] = \
         &[\n{table}];"
    );
    std::fs::write(PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("robots.rs"), out)
        .unwrap();
}

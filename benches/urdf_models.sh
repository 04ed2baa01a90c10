#!/usr/bin/env bash
# Issue 29's scale table: models from URDF files (the Panda and the UR5 of tests/models/, and
# serial chains of 5, 10, 20, 30 links written by benches/urdf_chain.py) in user crates.
#
#   bash benches/urdf_models.sh                   (all; REPS=3 rebuilds, the minimum is shown)
#   MODELS="panda chain5" bash benches/urdf_models.sh
#
# For each model it generates, under $WORK (default /tmp/spark-urdf), a binary crate depending
# on spark by path whose main holds `mechanics! { urdf: "<file>", actuated: all }` and times
# (2,2)-Gauss-Lobatto SPARK steps (h = 1e-3, 2000 steps from a bent, moving state, CPU time of
# the process, best of 5 runs) with `step` and with `step_with_jacobian` (which also gives the
# step's derivatives with respect to q, v and the inputs). Reported: the release build time of
# the crate after `touch src/main.rs` (wall, best of REPS: macro expansion + rustc on the
# generated code), its CPU time (user + system of cargo and rustc) and the two step times. The macro's expansion alone (outside rustc) and the
# size of the code: `cargo bench -p spark-macros --bench expansion -- files`.
# The machine may be shared: times are noisy, the minimum is the least disturbed.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
WORK=${WORK:-/tmp/spark-urdf}
REPS=${REPS:-3}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$WORK/target}
export CARGO_TERM_COLOR=never
MODELS=${MODELS:-"panda ur5 chain5 chain10 chain20 chain30"}

mkdir -p "$WORK"
members=""
for m in $MODELS; do
    case $m in
        panda) file="$ROOT/tests/models/panda/panda.urdf"; n=7 ;;
        ur5) file="$ROOT/tests/models/ur5/ur5_robot.urdf"; n=6 ;;
        chain*) n=${m#chain}; file="$WORK/$m.urdf"; python3 "$ROOT/benches/urdf_chain.py" "$n" >"$file" ;;
    esac
    d="$WORK/$m"
    mkdir -p "$d/src"
    cat >"$d/Cargo.toml" <<TOML
[package]
name = "urdf_$m"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
spark = { path = "$ROOT" }
TOML
    cat >"$d/src/main.rs" <<RS
use spark::{GaussLobatto, Integrator, State};

spark::mechanics! {
    /// The model under test.
    pub struct Arm {
        urdf: "$file",
        actuated: all,
    }
}

/// CPU time of this (single-threaded) process in seconds: the first field of
/// /proc/self/schedstat, nanoseconds on the CPU.
fn cpu() -> f64 {
    let s = std::fs::read_to_string("/proc/self/schedstat").unwrap_or_default();
    s.split_whitespace().next().and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0) * 1e-9
}

fn main() {
    const STEPS: usize = 2000;
    let q0: [f64; $n] = core::array::from_fn(|i| 0.3 + 0.1 * i as f64);
    let v0: [f64; $n] = core::array::from_fn(|i| 0.2 - 0.05 * i as f64);
    let mut best = [f64::INFINITY; 2];
    for _ in 0..5 {
        let mut sim = Integrator::<Arm, GaussLobatto<2>>::new(Arm::default(), 1e-3).unwrap();
        let mut s = State::new(0.0, q0, v0);
        let t0 = cpu();
        for _ in 0..STEPS {
            sim.step(&mut s).unwrap();
        }
        best[0] = best[0].min((cpu() - t0) / STEPS as f64);
        let mut s = State::new(0.0, q0, v0);
        let t0 = cpu();
        for _ in 0..STEPS / 4 {
            std::hint::black_box(sim.step_with_jacobian(&mut s).unwrap());
        }
        best[1] = best[1].min((cpu() - t0) / (STEPS / 4) as f64);
    }
    println!("{:.2} {:.2}", best[0] * 1e6, best[1] * 1e6);
}
RS
    members="$members \"$m\","
done
cat >"$WORK/Cargo.toml" <<TOML
[workspace]
members = [$members ]
resolver = "2"
TOML
[ -f "$WORK/Cargo.lock" ] || cp "$ROOT/Cargo.lock" "$WORK/Cargo.lock"

echo "== machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) ($(nproc) cores), loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
rustc --version
now() { date +%s.%N; }
echo "| model | n | build after a touch s (wall) | its CPU s | step µs | step_with_jacobian µs |"
echo "|---|---|---|---|---|---|"
for m in $MODELS; do
    case $m in panda) n=7 ;; ur5) n=6 ;; chain*) n=${m#chain} ;; esac
    (cd "$WORK" && cargo build --release --offline -p "urdf_$m" 2>&1 | tail -n 1) >&2
    b=1e9
    c=1e9
    for _ in $(seq "$REPS"); do
        touch "$WORK/$m/src/main.rs"
        t0=$(now)
        # CPU seconds (user + system) of the build and its children (rustc): less disturbed
        # than the wall time on a loaded machine.
        cpu=$( { /usr/bin/time -f '%U %S' bash -c "cd '$WORK' && cargo build --release --offline -p 'urdf_$m' >/dev/null 2>&1"; } 2>&1 | tail -n 1 | awk '{ print $1 + $2 }')
        t1=$(now)
        b=$(awk -v a="$t0" -v c="$t1" -v b="$b" 'BEGIN { d = c - a; print (d < b ? d : b) }')
        c=$(awk -v x="$cpu" -v c="$c" 'BEGIN { print (x < c ? x : c) }')
    done
    read -r st sj < <("$CARGO_TARGET_DIR/release/urdf_$m")
    printf '| %s | %s | %.1f | %.1f | %s | %s |\n' "$m" "$n" "$b" "$c" "$st" "$sj"
done

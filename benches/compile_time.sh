#!/usr/bin/env bash
# Compile time of user crates holding one spark model: the N-link chains (N = 1, 2, 4, 8, 16,
# examples/models/gen_chain.py), the seven-body mechanism (examples/models/seven_body.rs) and
# the 3D chains written with arrays (examples/models/chain3d.rs, `chain3dN`, sparse factors).
#
#   bash benches/compile_time.sh            (REPS=3 rebuilds per crate, the minimum is shown)
#   MODELS="chain3d10 chain3d40" bash benches/compile_time.sh     (a subset)
#
# For each model it generates, under $WORK (default /tmp/spark-compile), two one-file crates
# depending on spark by path:
#   <model>_model: the `mechanics!` invocation only (macro expansion + the generated trait impls);
#   <model>_step:  the model plus one `Integrator::<Model, GaussLobatto<2>>::step` instantiated
#                  (what a user crate that steps the model compiles).
# Each is built once (dependencies warm), then `touch src/lib.rs && cargo build --release -p ..`
# is timed (wall) REPS times: only that crate is recompiled. Then `cargo build --release` of
# chain_bench (all 5 chains x S = 1, 2, 3) after touching it, and the macro expansion alone,
# outside the compiler: `cargo bench -p spark-macros --bench expansion`.
# The machine is shared (2 cores): times are noisy, the minimum over REPS is the least disturbed.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
WORK=${WORK:-/tmp/spark-compile}
REPS=${REPS:-3}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-/tmp/target-bench}
export CARGO_TERM_COLOR=never
MODELS=${MODELS:-"chain1 chain2 chain4 chain8 chain16 seven_body chain3d10 chain3d40"}

mkdir -p "$WORK"
members=""
for m in $MODELS; do
    case $m in
        chain3d*) n=${m#chain3d}; ty="Chain3d$n"; dim=$((3 * n))
                printf 'include!("%s/examples/models/chain3d.rs");\nchain!(%s, %s);\n' \
                    "$ROOT" "$ty" "$n" >"$WORK/$m.rs" ;;
        chain*) n=${m#chain}; ty="Chain$n"; dim=$((2 * n))
                python3 "$ROOT/examples/models/gen_chain.py" "$n" >"$WORK/$m.rs" ;;
        seven_body) ty=SevenBody; dim=7; cp "$ROOT/examples/models/seven_body.rs" "$WORK/$m.rs" ;;
    esac
    for v in model step; do
        d="$WORK/${m}_$v"
        mkdir -p "$d/src"
        cat >"$d/Cargo.toml" <<EOF
[package]
name = "ct_${m}_$v"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
spark = { path = "$ROOT" }
EOF
        {
            echo "#![allow(dead_code)]"
            echo "include!(\"$WORK/$m.rs\");"
            if [ "$v" = step ]; then
                cat <<EOF

/// One step of (2,2)-Gauss-Lobatto SPARK, instantiated for this model.
pub fn run(s: &mut spark::State<$dim>) -> Result<(), spark::Error> {
    let mut sim = spark::Integrator::<$ty, spark::GaussLobatto<2>>::new($ty::default(), 0.01)?;
    sim.step(s)
}
EOF
            fi
        } >"$d/src/lib.rs"
        members="$members \"${m}_$v\","
    done
done
cat >"$WORK/Cargo.toml" <<EOF
[workspace]
members = [$members ]
resolver = "2"
EOF
[ -f "$WORK/Cargo.lock" ] || cp "$ROOT/Cargo.lock" "$WORK/Cargo.lock"

echo "== machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) ($(nproc) cores), loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
rustc --version
echo "== warm-up build of the dependencies"
(cd "$WORK" && cargo build --release --offline --workspace 2>&1 | tail -n 1)

now() { date +%s.%N; }
best() { # best wall seconds of REPS rebuilds of package $1 after touching $2
    local b=1e9 t0 t1
    for _ in $(seq "$REPS"); do
        touch "$2"
        t0=$(now)
        (cd "$WORK" && cargo build --release --offline -p "$1" >/dev/null 2>&1)
        t1=$(now)
        b=$(awk -v a="$t0" -v c="$t1" -v b="$b" 'BEGIN { d = c - a; print (d < b ? d : b) }')
    done
    echo "$b"
}

noop=1e9
for _ in $(seq "$REPS"); do
    first=${MODELS%% *}
    t0=$(now); (cd "$WORK" && cargo build --release --offline -p "ct_${first}_model" >/dev/null 2>&1); t1=$(now)
    noop=$(awk -v a="$t0" -v c="$t1" -v b="$noop" 'BEGIN { d = c - a; print (d < b ? d : b) }')
done
echo "cargo's own overhead (a no-op build, nothing touched): $noop s (included in every time below)"

RES="$WORK/results.txt"
: >"$RES"
echo "== rebuild of one user crate (release, wall s, best of $REPS)"
printf '| model | n | m | model only s | model + GaussLobatto<2> step s |\n|---|---|---|---|---|\n'
for m in $MODELS; do
    case $m in
        chain3d*) n=${m#chain3d}; dims="$((3 * n)) | $n" ;;
        chain*) n=${m#chain}; dims="$((2 * n)) | $n" ;;
        seven_body) dims="7 | 6" ;;
    esac
    a=$(best "ct_${m}_model" "$WORK/${m}_model/src/lib.rs")
    b=$(best "ct_${m}_step" "$WORK/${m}_step/src/lib.rs")
    printf '| %s | %s | %.2f | %.2f |\n' "$m" "$dims" "$a" "$b"
    echo "$m $a $b" >>"$RES"
done

python3 - "$RES" <<'EOF'
import math, sys
rows = {l.split()[0]: (float(l.split()[1]), float(l.split()[2])) for l in open(sys.argv[1])}
print('\nGrowth with N (local exponent p in t ~ N^p between successive chains; 2 = quadratic):')
ns = [1, 2, 4, 8, 16]
for k, label in ((0, 'model only'), (1, 'model + step')):
    ps = [math.log(rows[f'chain{b}'][k] / rows[f'chain{a}'][k]) / math.log(b / a)
          for a, b in zip(ns, ns[1:]) if f'chain{a}' in rows and f'chain{b}' in rows]
    print(f'  {label}: ' + ', '.join(f'{a}->{b}: {p:.2f}' for (a, b), p in zip(zip(ns, ns[1:]), ps)))
EOF

echo "== rebuild of chain_bench (5 chains x S = 1, 2, 3; release, wall s, best of $REPS)"
b=1e9
for _ in $(seq "$REPS"); do
    touch "$ROOT/examples/chain_bench.rs"
    t0=$(now)
    if ! cargo build --release --example chain_bench >/dev/null 2>&1; then
        echo "   (build failed: the tree is being edited?)"; b=nan; break
    fi
    t1=$(now)
    b=$(awk -v a="$t0" -v c="$t1" -v b="$b" 'BEGIN { d = c - a; print (d < b ? d : b) }')
done
echo "chain_bench: $b s"

echo "== macro expansion alone (outside rustc): cargo bench -p spark-macros --bench expansion"
cargo bench -p spark-macros --bench expansion 2>&1 | grep -E 'expansion median|error' || echo "   (failed)"

#!/usr/bin/env bash
# The Panda's work-precision beside Pinocchio (ABA + RK4) and MuJoCo (issue 29,
# docs/performance.md): spark's sweep (examples/panda_work_precision.rs, native, production
# profile), then the peers' and the joined tables (benches/panda_work_precision.py, which builds
# the C++ and C drivers). Both outputs are kept in benches/.
#
#   bash benches/panda_work_precision.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export RUSTFLAGS=${RUSTFLAGS:-"-C target-cpu=native"}
echo "== $(date -u '+%F %T') UTC, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) ($(nproc) cores), loadavg $(cut -d' ' -f1-3 /proc/loadavg)" >&2
cargo build --profile production -p spark-examples --example panda_work_precision >&2
cargo run --profile production -p spark-examples --example panda_work_precision \
    > benches/panda_work_precision_spark.txt
echo "== spark done $(date -u '+%T') UTC, loadavg $(cut -d' ' -f1-3 /proc/loadavg)" >&2
python3 benches/panda_work_precision.py > benches/panda_work_precision.txt
echo "== peers done $(date -u '+%T') UTC, loadavg $(cut -d' ' -f1-3 /proc/loadavg)" >&2

#!/usr/bin/env bash
# Runs spark's scenarios (pendulum, double pendulum, controlled cart-pole, 3D chain, the
# cart-pole's step Jacobian, the cart-pole's NMPC hold) on an emulated Cortex-M4F and checks
# them against the host. From a clean checkout: `bash embedded/run.sh`.
#
# 1. Installs what is missing: the thumbv7em-none-eabihf target (rustup) and qemu-system-arm
#    (apt; run as root, or with the package already installed).
# 2. Builds the Cortex-M binary and the host example of the same scenario, both in release mode.
# 3. Runs the binary under qemu-system-arm (mps2-an386, a Cortex-M4 with FPU), printing over
#    semihosting, with `-icount shift=0` (the virtual clock advances 1 ns per instruction, so the
#    binary counts the NMPC's instructions with SysTick), and the host example.
# 4. check.py compares every number (|target - host| / (1 + |host|) <= 1e-12, no line missing)
#    and prints flash/RAM use, steps per second under emulation, and the NMPC's instructions and
#    stack per control period (it fails if the instruction counter's calibration is off).
# Exits 0 when everything matched, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")"
export CARGO_TERM_COLOR=never

TARGET=thumbv7em-none-eabihf
MACHINE=mps2-an386
TIMEOUT_S=${SPARK_QEMU_TIMEOUT:-600}

echo "== toolchain"
if ! rustup target list --installed | grep -qx "$TARGET"; then
    rustup target add "$TARGET"
fi
if ! command -v qemu-system-arm >/dev/null 2>&1; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y qemu-system-arm
fi
if ! command -v python3 >/dev/null 2>&1; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y python3
fi
HOST=$(rustc -vV | sed -n 's/^host: //p')
qemu-system-arm --version | head -n 1

echo "== build (release): $TARGET binary, $HOST example"
cargo build --release --target "$TARGET"
cargo build --release --example host --target "$HOST"
ELF=target/$TARGET/release/spark-embedded
HOST_BIN=target/$HOST/release/examples/host

OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

echo "== $TARGET under qemu-system-arm -machine $MACHINE"
start=$(date +%s.%N)
set +e
timeout "$TIMEOUT_S" qemu-system-arm -machine "$MACHINE" -cpu cortex-m4 -nographic -icount shift=0 \
    -semihosting-config enable=on,target=native -kernel "$ELF" \
    </dev/null >"$OUT/target.txt"
status=$?
set -e
end=$(date +%s.%N)
cat "$OUT/target.txt"
if [ "$status" -ne 0 ]; then
    if [ "$status" -eq 124 ]; then
        echo "FAILED: qemu-system-arm did not finish within ${TIMEOUT_S} s" >&2
    else
        echo "FAILED: the $TARGET run exited with status $status" >&2
    fi
    exit 1
fi

echo "== $HOST"
"$HOST_BIN" >"$OUT/host.txt"
cat "$OUT/host.txt"

echo "== comparison and report"
wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
if python3 check.py "$OUT/target.txt" "$OUT/host.txt" "$ELF" "$wall"; then
    echo "OK: the $TARGET run printed the host's results to 1e-12"
else
    echo "FAILED: the $TARGET results differ from the host's" >&2
    exit 1
fi

#!/usr/bin/env bash
# Runs spark's scenarios (pendulum, double pendulum, controlled cart-pole, 3D chain, the
# cart-pole's step Jacobian, the cart-pole's NMPC hold) on an emulated Cortex-M4F and on an
# emulated Cortex-M7 with a double-precision FPU, and checks both against the host. From a clean
# checkout: `bash embedded/run.sh`.
#
# 1. Installs what is missing: the thumbv7em-none-eabihf target (rustup) and qemu-system-arm
#    (apt; run as root, or with the package already installed).
# 2. Builds the same Cortex-M binary twice, both in release mode: for the Cortex-M4F (the
#    target's default: FPv4-SP, single precision, so f64 is soft-float) and for the Cortex-M7
#    with FPv5-D16 (`-C target-cpu=cortex-m7 -C target-feature=+fp64`: f64 in hardware), the
#    second into its own target directory; and the host example of the same scenario.
# 3. Runs the binaries under qemu-system-arm (mps2-an386, a Cortex-M4 with FPU; mps2-an500, a
#    Cortex-M7 with FPU), printing over semihosting, with `-icount shift=0` (the virtual clock
#    advances 1 ns per instruction, so the binary counts the NMPC's instructions with SysTick),
#    and the host example.
# 4. check.py compares every number of each target (|target - host| / (1 + |host|) <= 1e-12, no
#    line missing) and prints flash/RAM use, steps per second under emulation, and the NMPC's
#    instructions and stack per control period (it fails if the instruction counter's
#    calibration is off), ending with `<cpu> nmpc instructions per period: median N, worst X`.
# Exits 0 when everything matched, 1 otherwise. SPARK_EMBEDDED_CPUS="cortex-m4f" (or
# "cortex-m7") runs one of the two only.
set -euo pipefail
cd "$(dirname "$0")"
export CARGO_TERM_COLOR=never

TARGET=thumbv7em-none-eabihf
TIMEOUT_S=${SPARK_QEMU_TIMEOUT:-600}
CPUS=${SPARK_EMBEDDED_CPUS:-"cortex-m4f cortex-m7"}
TARGET_DIR=${CARGO_TARGET_DIR:-target}
# The Cortex-M7 build: its own target directory, and these flags added to `.cargo/config.toml`'s
# (`-Tlink.x`). `fp64` turns on the double-precision half of FPv5-D16, which the
# thumbv7em-none-eabihf target turns off by default.
M7_DIR=$TARGET_DIR/cortex-m7
M7_FLAGS='target.thumbv7em-none-eabihf.rustflags = ["-C", "target-cpu=cortex-m7", "-C", "target-feature=+fp64"]'

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

echo "== build (release): $TARGET binaries ($CPUS), $HOST example"
for cpu in $CPUS; do
    case $cpu in
        cortex-m4f) cargo build --release --target "$TARGET" ;;
        cortex-m7) cargo build --release --target "$TARGET" --target-dir "$M7_DIR" --config "$M7_FLAGS" ;;
        *) echo "unknown cpu $cpu (cortex-m4f, cortex-m7)" >&2; exit 1 ;;
    esac
done
cargo build --release --example host --target "$HOST"
HOST_BIN=$TARGET_DIR/$HOST/release/examples/host

OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

echo "== $HOST"
"$HOST_BIN" >"$OUT/host.txt"
cat "$OUT/host.txt"

failed=0
for cpu in $CPUS; do
    case $cpu in
        cortex-m4f) machine=mps2-an386 qemu_cpu=cortex-m4 elf=$TARGET_DIR/$TARGET/release/spark-embedded ;;
        cortex-m7) machine=mps2-an500 qemu_cpu=cortex-m7 elf=$M7_DIR/$TARGET/release/spark-embedded ;;
    esac
    echo "== $cpu ($TARGET) under qemu-system-arm -machine $machine -cpu $qemu_cpu"
    start=$(date +%s.%N)
    set +e
    timeout "$TIMEOUT_S" qemu-system-arm -machine "$machine" -cpu "$qemu_cpu" -nographic -icount shift=0 \
        -semihosting-config enable=on,target=native -kernel "$elf" \
        </dev/null >"$OUT/$cpu.txt"
    status=$?
    set -e
    end=$(date +%s.%N)
    cat "$OUT/$cpu.txt"
    if [ "$status" -ne 0 ]; then
        if [ "$status" -eq 124 ]; then
            echo "FAILED: qemu-system-arm ($cpu) did not finish within ${TIMEOUT_S} s" >&2
        else
            echo "FAILED: the $cpu run exited with status $status" >&2
        fi
        failed=1
        continue
    fi
    echo "== $cpu: comparison with the host and report"
    wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
    if python3 check.py "$OUT/$cpu.txt" "$OUT/host.txt" "$elf" "$wall" "$cpu"; then
        echo "OK: the $cpu run printed the host's results to 1e-12"
    else
        echo "FAILED: the $cpu results differ from the host's" >&2
        failed=1
    fi
done
exit "$failed"

#!/usr/bin/env bash
# Issue 43's growth table: URDF serial chains of N links (benches/urdf_chain.py, the same chain as
# `urdf_chain` in spark-macros/benches/expansion.rs) expanded by the macro's own code outside the
# compiler, one process per chain: expansion time, peak memory of the process (`/usr/bin/time`,
# max RSS) and size of the generated code, with the growth exponent p (y ∝ N^p) between
# successive chains and fitted over all of them (least squares on the logarithms).
#
#   bash benches/chain_growth.sh              (N = 10 20 50 100)
#   SIZES="10 20 30" bash benches/chain_growth.sh
#
# Step and Jacobian times need each chain built into a program: `MODELS="chain10 chain20"
# bash benches/urdf_models.sh`. The machine may be shared: times are noisy.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${SIZES:-"10 20 50 100"}
export CARGO_TERM_COLOR=never
cargo bench -q -p spark-macros --bench expansion --no-run 2>/dev/null
out=$(mktemp)
for n in $SIZES; do
    line=$( { /usr/bin/time -f "peak %M" cargo bench -q -p spark-macros --bench expansion -- files "chain$n" 2>&1; } | grep -E "^chain$n: expansion|^peak")
    secs=$(echo "$line" | sed -n "s/^chain$n: expansion \([0-9.]*\) s.*/\1/p")
    chars=$(echo "$line" | sed -n "s/.* s, \([0-9]*\) characters.*/\1/p")
    peak=$(echo "$line" | sed -n "s/^peak \([0-9]*\)/\1/p")
    echo "$n $secs $peak $chars" >>"$out"
done
python3 - "$out" <<'PY'
import math, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
def fit(col):
    xs = [math.log(r[0]) for r in rows]; ys = [math.log(r[col]) for r in rows]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
print("| links | expansion (s) | peak memory (MB) | code (MB) | p: expansion, memory, code vs previous |")
print("|---|---|---|---|---|")
for i, r in enumerate(rows):
    if i == 0:
        growth = ""
    else:
        q = rows[i - 1]
        e = lambda c: math.log(r[c] / q[c]) / math.log(r[0] / q[0])
        growth = f"{e(1):.2f}, {e(2):.2f}, {e(3):.2f}"
    print(f"| {int(r[0])} | {r[1]:.2f} | {r[2] / 1024:.0f} | {r[3] / 1e6:.2f} | {growth} |")
if len(rows) > 1:
    print(f"\nfitted exponents over all sizes: expansion {fit(1):.2f}, memory {fit(2):.2f}, code {fit(3):.2f}")
PY
rm -f "$out"

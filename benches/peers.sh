#!/usr/bin/env bash
# spark beside the CasADi peers (../shared/peers/casadi), same machine, same run.
#
#   bash benches/peers.sh [short|long|all|report|jac]  (default: all; a few minutes on 2 cores;
#                                                   report: the tables of the last run again;
#                                                   jac: the step plus its Jacobian, spark's
#                                                   step_with_jacobian against CasADi's step_jac)
#
# 1. Builds the peers' drivers from the generated C in $PEERS/gen/{gauss4,rk4}_N{1,2,4,8}
#    with gcc -O3 -march=native into $OUT (default /tmp/spark-peers), exactly as the peers'
#    README says, plus `long`, a driver of this script's own (below) that runs the RK4 step for
#    T = 10^4 and samples the energy error and the constraint residuals every 10 steps, as
#    chain_bench does for spark.
# 2. short: for each N, runs the peers' drivers (gauss4 = Gauss-Legendre collocation of order 4
#    on the index-1 DAE, rk4 = explicit RK4 on the index-reduced ODE) at h = 0.02, 0.01, 0.005,
#    0.0025 (RK4 also at 0.08, 0.04), then `chain_bench short --n N` (spark, S = 1, 2, 3, h = 0.2
#    ... 0.0025), and prints one joined table, the cheapest run reaching each error and each
#    method's cost interpolated to exactly that error.
#    Generated C exists for N <= 8 only; N = 16 peer numbers and every gauss6 number (order 6,
#    no generated C shipped) are copied from $PEERS/results/tables.md, i.e. from another run on
#    another machine (an AMD EPYC; this one may differ), and are marked so.
# 3. long: spark S = 1, 2, 3 at h = 0.01 and RK4 (this script's driver) at h = 0.01, 0.0025,
#    0.001 (the smaller steps cost about what spark S = 1 and S = 2 cost at h = 0.01), T = 10^4,
#    N = 1, 2, 4.
#
# Times: process CPU time, best of several repetitions inside one invocation (>= 5 reps and
# >= 0.3 s for the peers' driver; >= 3 reps and >= 0.3 s for chain_bench), and in the short
# horizon the best over REPEAT (default 3) interleaved sweeps. The machine is shared: compare
# ratios from one run.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
PEERS=${SPARK_PEERS:-$(cd "$ROOT/../shared/peers/casadi" && pwd)}
OUT=${PEERS_BUILD:-/tmp/spark-peers}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-/tmp/target-bench}
# spark is built for this CPU too, like the peers' C (-march=native): like with like. And as
# one unit with whole-program LTO (the `production` profile of Cargo.toml), as the peers' C is
# one file; PROFILE=release measures the default release build (16 codegen units, no LTO; the
# profile of every measurement before session 13).
export RUSTFLAGS=${RUSTFLAGS:-"-C target-cpu=native"}
PROFILE=${PROFILE:-production}
export SPARK_PEERS=$PEERS
MODE=${1:-all}
NS_C="1 2 4 8"
HS="0.02 0.01 0.005 0.0025"
# RK4 also at larger steps in the short horizon, so that both sides' work-precision curves
# cover errors down from 1e-6 and the equal-error comparison need not extrapolate
RK4_SHORT_EXTRA_HS=${RK4_SHORT_EXTRA_HS:-"0.08 0.04"}
# RK4 also at smaller steps, to compare at (about) equal CPU time with spark S = 1, 2
RK4_LONG_HS=${RK4_LONG_HS:-"0.01 0.0025 0.001"}
# spark also at larger steps (an order-4 method reaches RK4's errors with far fewer steps)
SPARK_HS=${SPARK_HS:-"0.2 0.1 0.08 0.04 0.02 0.01 0.005 0.0025"}
SPARK_LONG_HS=${SPARK_LONG_HS:-"0.01 0.05 0.1"}
# Short-horizon sweeps; each configuration keeps its best time over them
REPEAT=${REPEAT:-3}
CFLAGS="-O3 -march=native"
mkdir -p "$OUT"

# ---- the long-horizon driver for the RK4 step -----------------------------------------------
cat >"$OUT/long.c" <<'EOF'
/* long H T: integrates the chain with the generated RK4 step (x -> x, p = h) for T/h steps and
 * samples, every 10 steps, |E - E0| (E = |v|^2/2 + 9.81 sum y_i), max|g_i| (g_i = (|d_i|^2-1)/2)
 * and max|d_i . (v_i - v_{i-1})| (the hidden constraint). Prints cpu seconds and the maxima. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "step.h"
static double cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}
static int N;
static double energy(const double *x) {
  double e = 0;
  for (int i = 0; i < 2 * N; i++) e += 0.5 * x[2 * N + i] * x[2 * N + i];
  for (int i = 0; i < N; i++) e += 9.81 * x[2 * i + 1];
  return e;
}
static void residual(const double *x, double *g, double *gv) {
  for (int i = 0; i < N; i++) {
    double dx = x[2 * i] - (i ? x[2 * i - 2] : 0), dy = x[2 * i + 1] - (i ? x[2 * i - 1] : 0);
    const double *v = x + 2 * N;
    double dvx = v[2 * i] - (i ? v[2 * i - 2] : 0), dvy = v[2 * i + 1] - (i ? v[2 * i - 1] : 0);
    double a = fabs(0.5 * (dx * dx + dy * dy - 1)), b = fabs(dx * dvx + dy * dvy);
    if (a > *g) *g = a;
    if (b > *gv) *gv = b;
  }
}
int main(int argc, char **argv) {
  if (argc < 3) { fprintf(stderr, "usage: %s H T\n", argv[0]); return 2; }
  double h = atof(argv[1]), T = atof(argv[2]);
  long steps = (long)floor(T / h + 0.5);
  casadi_int nx = step_sparsity_in(0)[0];
  N = (int)(nx / 4);
  casadi_int sz_arg, sz_res, sz_iw, sz_w;
  step_work(&sz_arg, &sz_res, &sz_iw, &sz_w);
  const casadi_real **arg = calloc(sz_arg, sizeof *arg);
  casadi_real **res = calloc(sz_res, sizeof *res);
  casadi_int *iw = calloc(sz_iw + 1, sizeof *iw);
  casadi_real *w = calloc(sz_w + 1, sizeof *w);
  double *x = calloc(nx, sizeof(double)), *xn = calloc(nx, sizeof(double));
  for (int i = 0; i < N; i++) {
    x[2 * i] = (i + 1) * sin(0.3);
    x[2 * i + 1] = -(i + 1) * cos(0.3);
  }
  double e0 = energy(x), de = 0, g = 0, gv = 0;
  step_incref();
  int mem = step_checkout(), status = 0;
  double c0 = cpu();
  for (long k = 0; k < steps; k++) {
    for (casadi_int i = 0; i < sz_arg; i++) arg[i] = 0;
    for (casadi_int i = 0; i < sz_res; i++) res[i] = 0;
    arg[0] = x; arg[2] = &h; res[0] = xn;
    status |= step(arg, res, iw, w, mem);
    double *t = x; x = xn; xn = t;
    if (k % 10 == 9) {
      double e = fabs(energy(x) - e0);
      if (e > de) de = e;
      residual(x, &g, &gv);
    }
  }
  double c = cpu() - c0;
  printf("N=%d h=%g T=%g steps=%ld status=%d cpu_s=%.6g max_de=%.3e max_g=%.3e max_gv=%.3e\n",
         N, h, T, steps, status, c, de, g, gv);
  return status;
}
EOF

echo "== building the peers' drivers into $OUT (gcc $CFLAGS)"
gcc --version | head -n 1
for m in gauss4 rk4; do
    for n in $NS_C; do
        d="$OUT/${m}_N$n"
        mkdir -p "$d"
        if [ ! -x "$d/bench" ] || [ "$PEERS/gen/${m}_N$n/step.c" -nt "$d/bench" ]; then
            gcc $CFLAGS -c "$PEERS/gen/${m}_N$n/step.c" -o "$d/step.o"
            gcc $CFLAGS -I"$PEERS/gen/${m}_N$n" -o "$d/bench" "$PEERS/driver.c" "$d/step.o" -lm
        fi
        if [ "$m" = rk4 ]; then
            gcc $CFLAGS -I"$PEERS/gen/${m}_N$n" -o "$d/long" "$OUT/long.c" "$d/step.o" -lm
        fi
    done
done

echo "== building chain_bench (profile $PROFILE)"
BENCH=$CARGO_TARGET_DIR/$PROFILE/examples/chain_bench
if ! cargo build --profile "$PROFILE" --example chain_bench >/dev/null 2>&1; then
    if [ -x "$BENCH" ]; then
        echo "warning: the build failed (the tree is being edited?); using the existing $BENCH" >&2
    else
        echo "FAILED: cannot build chain_bench" >&2
        exit 1
    fi
fi

echo "== machine"
grep -m1 'model name' /proc/cpuinfo || true
echo "cores: $(nproc); loadavg at start: $(cat /proc/loadavg); $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
rustc --version

if [ "$MODE" = jac ]; then
  # The step and its Jacobian with respect to the initial state: CasADi's generated step_jac of its
  # order-4 Gauss-Legendre collocation ($JAC_PEERS: generated C kept in ../shared/peers/casadi-jac,
  # F.factory('step_jac', ['x0','z0','p'], ['xf','jac:xf:x0'])) and spark's step_with_jacobian
  # (GaussLobatto<2>, order 4, the Jacobian with respect to (q, v) and the inputs), h = 0.01,
  # REPEAT interleaved rounds, best of each.
  JAC_PEERS=${SPARK_JAC_PEERS:-$(cd "$ROOT/../shared/peers/casadi-jac" && pwd)}
  cargo build --profile "$PROFILE" --example chain_bench >/dev/null
  for N in $NS_C; do
    mkdir -p "$OUT/jac/N$N"
    gcc $CFLAGS -c "$JAC_PEERS/gen/N$N/step_jac.c" -o "$OUT/jac/N$N/step_jac.o"
    gcc $CFLAGS -I"$JAC_PEERS/gen/N$N" -o "$OUT/jac/N$N/driver" "$JAC_PEERS/driver_jac.c" "$OUT/jac/N$N/step_jac.o" -lm
  done
  JLOG="$OUT/jac.log"
  : >"$JLOG"
  for r in $(seq "$REPEAT"); do
    for N in $NS_C; do
      "$OUT/jac/N$N/driver" 0.01 200 7 | sed 's/^/CASADI /' >>"$JLOG"
      "$BENCH" jacobian --n "$N" --s 2 | grep '^RESULT' >>"$JLOG"
    done
  done
  python3 - "$JLOG" <<'PYEOF'
import re, sys
casadi, spark = {}, {}
for line in open(sys.argv[1]):
    m = re.match(r'CASADI N=(\d+) step_us=([\d.]+) step_jac_us=([\d.]+)', line)
    if m:
        n = int(m[1]); a, b = float(m[2]), float(m[3])
        old = casadi.get(n, (1e99, 1e99)); casadi[n] = (min(old[0], a), min(old[1], b))
    m = re.match(r'RESULT kind=jacobian N=(\d+) S=2 step_us=([\d.]+) jac_us=([\d.]+)', line)
    if m:
        n = int(m[1]); a, b = float(m[2]), float(m[3])
        old = spark.get(n, (1e99, 1e99)); spark[n] = (min(old[0], a), min(old[1], b))
print('| N | spark step µs | spark step_with_jacobian µs | ratio | CasADi gauss4 step µs | CasADi step + Jacobian µs | CasADi / spark (step + Jacobian) |')
print('|---|---|---|---|---|---|---|')
for n in sorted(spark):
    s, c = spark[n], casadi.get(n, (float('nan'), float('nan')))
    print(f'| {n} | {s[0]:.3f} | {s[1]:.3f} | {s[1] / s[0]:.1f} | {c[0]:.3f} | {c[1]:.3f} | {c[1] / s[1]:.2f} |')
PYEOF
  exit 0
fi

LOG="$OUT/run.log"
# `report`: print the tables of the last run again (from $LOG) without measuring.
[ "$MODE" = report ] || : >"$LOG"

if [ "$MODE" = short ] || [ "$MODE" = all ]; then
  # The whole sweep REPEAT times, interleaving spark and the peers; the tables keep each
  # configuration's best time (the shared machine's load comes and goes).
  for rep in $(seq "$REPEAT"); do
    echo "== short horizon (T = 2), sweep $rep of $REPEAT"
    for n in 1 2 4 8 16; do
        if [ "$n" -le 8 ]; then
            for m in gauss4 rk4; do
                hs=$HS
                [ "$m" = rk4 ] && hs="$RK4_SHORT_EXTRA_HS $HS"
                for h in $hs; do
                    steps=$(awk -v h="$h" 'BEGIN { printf "%d", 2.0 / h + 0.5 }')
                    out=$("$OUT/${m}_N$n/bench" "$h" "$steps" 5 0.3)
                    echo "PEER method=$m $out" | tr '\n' ' ' >>"$LOG"
                    echo >>"$LOG"
                done
            done
        fi
        "$BENCH" short --n "$n" --h "${SPARK_HS// /,}" 2>/dev/null | grep '^RESULT' >>"$LOG"
        echo "   N = $n done ($(cat /proc/loadavg | cut -d' ' -f1-3))"
    done
  done
fi

if [ "$MODE" = long ] || [ "$MODE" = all ]; then
    echo "== long horizon (T = 1e4; spark h = $SPARK_LONG_HS; RK4 h = $RK4_LONG_HS)"
    for n in 1 2 4; do
        for h in $RK4_LONG_HS; do
            out=$("$OUT/rk4_N$n/long" "$h" 1e4)
            echo "LONGPEER method=rk4 $out" >>"$LOG"
        done
        "$BENCH" long --n "$n" --h "${SPARK_LONG_HS// /,}" | grep '^RESULT' >>"$LOG"
        echo "   N = $n done ($(cat /proc/loadavg | cut -d' ' -f1-3))"
    done
fi
echo "loadavg at end: $(cat /proc/loadavg)"

python3 - "$LOG" "$PEERS/results/reference.json" <<'EOF'
import json, math, re, sys
log, ref = sys.argv[1], json.load(open(sys.argv[2]))
kv = lambda s: dict(re.findall(r'(\w+)=(\S+)', s))
peer, spark, lpeer, lspark = {}, {}, {}, {}
for line in open(log):
    if line.startswith('PEER'):
        d = kv(line)
        n, h = int(d['N']), float(d['h'])
        q = [float(x) for x in re.search(r'qT=(\S+)', line).group(1).split(',')]
        err = max(abs(a - b) for a, b in zip(q, ref['N'][str(n)]['qT']))
        # A run shorter than the CPU clock's resolution reads 0 CPU seconds: use its wall time.
        cpu = float(d['best_cpu_s']) if float(d['best_cpu_s']) > 0 else float(d['best_s'])
        v = (cpu / float(d['steps']) * 1e6, err, float(d['maxg']))
        key = (d['method'], n, h)
        peer[key] = min(peer.get(key, v), v)
    elif line.startswith('RESULT kind=short'):
        d = kv(line)
        v = (float(d['us_per_step']), float(d['err']), float(d['maxg']))
        key = (int(d['S']), int(d['N']), float(d['h']))
        if math.isfinite(v[0]):
            spark[key] = min(spark.get(key, v), v)
    elif line.startswith('LONGPEER'):
        d = kv(line)
        lpeer.setdefault(int(d['N']), []).append(d)
    elif line.startswith('RESULT kind=long'):
        d = kv(line)
        lspark[(int(d['S']), int(d['N']), float(d['h']))] = d

# From ../shared/peers/casadi/results/tables.md (another run, another machine): cpu µs/step, err.
TABLES = {
    ('gauss4', 16, 0.02): (484, 1.26e-06), ('gauss4', 16, 0.01): (409, 7.92e-08),
    ('gauss4', 16, 0.005): (303, 4.96e-09), ('gauss4', 16, 0.0025): (302, 3.10e-10),
    ('rk4', 16, 0.02): (2.94, 7.32e-06), ('rk4', 16, 0.01): (2.92, 4.69e-07),
    ('rk4', 16, 0.005): (2.92, 2.97e-08), ('rk4', 16, 0.0025): (2.94, 1.86e-09),
    ('gauss6', 1, 0.01): (7.92, 1.74e-13), ('gauss6', 2, 0.01): (40.9, 4.37e-13),
    ('gauss6', 4, 0.01): (203, 9.74e-13), ('gauss6', 8, 0.01): (579, 6.06e-12),
    ('gauss6', 16, 0.01): (1160, 2.90e-11),
    ('gauss4', 1, 0.01): (4.24, 1.42e-10), ('gauss4', 2, 0.01): (17.1, 6.81e-09),
    ('gauss4', 4, 0.01): (58.5, 1.51e-08), ('gauss4', 8, 0.01): (148, 3.65e-08),
    ('rk4', 1, 0.01): (0.0884, 3.53e-09), ('rk4', 2, 0.01): (0.133, 4.06e-08),
    ('rk4', 4, 0.01): (0.365, 7.96e-08), ('rk4', 8, 0.01): (1.04, 2.37e-07),
}
def cell(v, mark=''):
    return f'{v[1]:.1e} / {v[0]:.3g}{mark}' if v else '-'

if spark:
    print('\n## Short horizon, T = 2: err / cpu µs per step (same run; * = copied from results/tables.md)\n')
    print('| N | h | spark S=1 (order 2) | spark S=2 (order 4) | CasADi gauss4 (order 4) | gauss4 / S=2 time | spark S=3 (order 6) | CasADi rk4 (ODE) |')
    print('|---|---|---|---|---|---|---|---|')
    for n in [1, 2, 4, 8, 16]:
        for h in [0.02, 0.01, 0.005, 0.0025]:
            g4 = peer.get(('gauss4', n, h)); m4 = ''
            if g4 is None and ('gauss4', n, h) in TABLES:
                g4, m4 = TABLES[('gauss4', n, h)], '*'
            rk = peer.get(('rk4', n, h)); mr = ''
            if rk is None and ('rk4', n, h) in TABLES:
                rk, mr = TABLES[('rk4', n, h)], '*'
            s1, s2, s3 = (spark.get((s, n, h)) for s in (1, 2, 3))
            ratio = f'{g4[0] / s2[0]:.1f}{m4}' if g4 and s2 else '-'
            print(f'| {n} | {h} | {cell(s1)} | {cell(s2)} | {cell(g4, m4)} | {ratio} | {cell(s3)} | {cell(rk, mr)} |')
    print('\n## h = 0.01: this run beside results/tables.md (machine factor = gauss4 here / gauss4 there)\n')
    print('| N | gauss4 here | gauss4 tables.md | machine factor | rk4 here | rk4 tables.md | gauss6 tables.md | gauss6 scaled to here (est.) | spark S=3 | gauss6 est. / S=3 |')
    print('|---|---|---|---|---|---|---|---|---|---|')
    for n in [1, 2, 4, 8, 16]:
        here = peer.get(('gauss4', n, 0.01)); there = TABLES[('gauss4', n, 0.01)]
        rh = peer.get(('rk4', n, 0.01)); rt = TABLES[('rk4', n, 0.01)]
        g6 = TABLES[('gauss6', n, 0.01)]; s3 = spark.get((3, n, 0.01))
        f = here[0] / there[0] if here else None
        est = g6[0] * f if f else None
        print(f"| {n} | {here[0]:.3g} | {there[0]:.3g} | {f:.2f} | {rh[0]:.3g} | {rt[0]:.3g} | {g6[0]:.3g} | {est:.3g} | {s3[0]:.3g} | {est / s3[0]:.1f} |"
              if here and rh and s3 else f'| {n} | - | {there[0]:.3g} | - | - | {rt[0]:.3g} | {g6[0]:.3g} | - | {s3[0]:.3g} | - |' if s3 else f'| {n} | - |')

if spark:
    print('\n## Short horizon at equal global error: cheapest run reaching it, cpu s per simulated second\n')
    print('| N | err <= | spark (S, h) | CasADi rk4 (ODE) (h) | spark / rk4 | CasADi gauss4 (h) |')
    print('|---|---|---|---|---|---|')
    def cheapest(runs, level):
        ok = [(c * 1e-6 / h, lab) for (c, e, h, lab) in runs if e <= level]
        return min(ok) if ok else None
    for n in [1, 2, 4, 8]:
        sp = [(v[0], v[1], h, f'S={s}, h={h}') for (s, nn, h), v in spark.items() if nn == n]
        rk = [(v[0], v[1], h, f'h={h}') for (m, nn, h), v in peer.items() if nn == n and m == 'rk4']
        g4 = [(v[0], v[1], h, f'h={h}') for (m, nn, h), v in peer.items() if nn == n and m == 'gauss4']
        for level in (1e-6, 1e-8, 1e-10):
            a, b, c = cheapest(sp, level), cheapest(rk, level), cheapest(g4, level)
            f = lambda x: f'{x[0]:.2e} ({x[1]})' if x else '-'
            r = f'{a[0] / b[0]:.2f}' if a and b else '-'
            print(f'| {n} | {level:.0e} | {f(a)} | {f(b)} | {r} | {f(c)} |')

    # Grid-free: each method's cost at exactly the target error, interpolated log-log between the
    # two runs of one method (and, for spark, one S) whose errors bracket it; no extrapolation.
    # A run already more accurate than the error also counts, at its own cost.
    def at_error(runs, level):
        best = None
        for key in sorted({lab for (_, _, _, lab) in runs}):
            pts = sorted((e, c * 1e-6 / h) for (c, e, h, lab) in runs if lab == key and e > 0 and math.isfinite(e))
            for (e0, w0), (e1, w1) in zip(pts, pts[1:]):
                if e0 <= level <= e1 and e0 < e1:
                    x = (math.log(level) - math.log(e0)) / (math.log(e1) - math.log(e0))
                    w = math.exp(math.log(w0) + x * (math.log(w1) - math.log(w0)))
                    best = min(best, (w, key)) if best else (w, key)
            for e, w in pts:
                if e <= level:
                    best = min(best, (w, key)) if best else (w, key)
        return best
    print('\n## Short horizon at equal global error, interpolated: cpu s per simulated second at exactly the error\n')
    print('Each method\'s cost at the error: interpolated (log-log) between its two runs bracketing it, or a run already more accurate where that is cheaper; spark: the cheapest S. "-": no run reaches the error.\n')
    print('| N | err | spark (S) | CasADi rk4 (ODE) | spark / rk4 | CasADi gauss4 | gauss4 / spark |')
    print('|---|---|---|---|---|---|---|')
    for n in [1, 2, 4, 8]:
        sp = [(v[0], v[1], h, f'S={s}') for (s, nn, h), v in spark.items() if nn == n]
        rk = [(v[0], v[1], h, 'rk4') for (m, nn, h), v in peer.items() if nn == n and m == 'rk4']
        g4 = [(v[0], v[1], h, 'gauss4') for (m, nn, h), v in peer.items() if nn == n and m == 'gauss4']
        for level in (1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10):
            a, b, c = at_error(sp, level), at_error(rk, level), at_error(g4, level)
            f = lambda x: f'{x[0]:.2e}' if x else '-'
            r = f'{a[0] / b[0]:.2f}' if a and b else '-'
            g = f'{c[0] / a[0]:.1f}' if a and c else '-'
            print(f'| {n} | {level:.0e} | {f(a)} ({a[1] if a else "-"}) | {f(b)} | {r} | {f(c)} | {g} |')

if lspark:
    print('\n## Long horizon, T = 1e4 (maxima sampled every 10 steps)\n')
    print('RK4 at equal energy error: its CPU time at spark\'s max|E - E0|, from a power law')
    print('cpu = a·err^b fitted through its two most accurate runs (x = extrapolated beyond them).\n')
    print('| N | method | h | cpu s | max\\|E - E0\\| | max\\|g\\| | max\\|g_t + G v\\| | RK4 cpu at equal error / this cpu |')
    print('|---|---|---|---|---|---|---|---|')
    for n in [1, 2, 4]:
        rk = sorted(lpeer.get(n, []), key=lambda p: float(p['max_de']))
        for p in lpeer.get(n, []):
            print(f"| {n} | CasADi rk4 (ODE) | {p['h']} | {float(p['cpu_s']):.2f} | {float(p['max_de']):.1e} | {float(p['max_g']):.1e} | {float(p['max_gv']):.1e} | |")
        fit = None
        if len(rk) >= 2:
            (e1, c1), (e2, c2) = [(float(p['max_de']), float(p['cpu_s'])) for p in rk[:2]]
            b = math.log(c2 / c1) / math.log(e2 / e1)
            fit = lambda e: (c1 * (e / e1) ** b, e < e1)
        for (s, nn, h), d in sorted(lspark.items()):
            if nn != n:
                continue
            de, cpu = float(d['max_de']), float(d['cpu_s'])
            ratio = '-'
            if fit:
                c, extra = fit(de)
                ratio = f"{c / cpu:.3g}{'x' if extra else ''}"
            print(f"| {n} | spark S={s} | {d['h']} | {cpu:.2f} | {de:.1e} | {float(d['max_g']):.1e} | {float(d['max_gv']):.1e} | {ratio} |")
EOF
echo "raw lines: $LOG"

"""The cart-pole swing-up of examples/cartpole_swingup.rs with CasADi + IPOPT (multiple shooting),
and the time-to-equal-cost comparison with spark's box-DDP in docs/performance.md.

The same problem: the Cartesian cart-pole (mc = 1, m = 0.2, l = 0.5, g = 9.81, c = 0.4) written
here in minimal coordinates (cart xc, lean theta from upright), 150 intervals of 20 ms, |u| <= 20 N,
from hanging at rest; the same costs, on the Cartesian state [xc, x, y, vc, vx, vy]:
stage 1/2 (x - x*)' Q_k (x - x*) + 1/2 r u^2 with Q_k = weights(0.01, 0, 0.001) for the first
1.5 s and weights(100, 1, 1) after, terminal weights(1e3, 10, 10), r = 2e-3 (weights() as in
examples/models/swingup.rs). Dynamics: RK4 with SUB substeps per interval (`check` compares its
accuracy with spark's one GaussLobatto<2> step per interval).

The NLP is written in SX (scalar expressions: the whole graph is inlined, the fastest CasADi
form for a problem this size), with the states and inputs interleaved, z_0 fixed by its bounds,
and solved by IPOPT (MUMPS, exact Hessian from CasADi), twice: on the SX functions (CasADi's
virtual machine) and on the same functions generated as C and compiled (gcc -O1) into a shared
library under examples/out (5 minutes of gcc here, once; reused while the C is unchanged).

Commands (run from the repository root):
  python3 benches/control/casadi_swingup.py guesses   # writes benches/control/swingup_guesses.txt
  python3 benches/control/casadi_swingup.py check     # RK4 substeps against spark's discretization
  python3 benches/control/casadi_swingup.py tune      # IPOPT options on three guesses
  python3 benches/control/casadi_swingup.py compare   # the table (runs both solvers)
  python3 benches/control/casadi_swingup.py warm      # IPOPT from spark's plan of the example
  python3 benches/control/casadi_swingup.py others    # fatrop beside IPOPT
  python3 benches/control/casadi_swingup.py sqp       # spark's SQP against IPOPT and fatrop
  python3 benches/control/casadi_swingup.py sqp --line-search   # the same, SQP with line search
`--sub N` (any command): RK4 with N substeps per interval instead of 1.
`compare` runs `cargo run --release -p spark-examples --example cartpole_swingup_bench` itself
(3 runs per guess), then IPOPT (SX, C) 3 times per guess without recording and 3 times with
an iteration callback recording (time, objective, max |g|); `check` and `warm` read what
`cartpole_swingup_bench` and `cartpole_swingup` wrote to examples/out.
`sqp` runs `cartpole_swingup_bench --method sqp` (spark's full-step Gauss-Newton SQP over
multiple shooting, 3 runs per start; the guess `interpolation` also from its interpolated nodes,
the start IPOPT uses), then IPOPT (SX, C) as `compare` does, and fatrop on SX and on its
functions compiled by CasADi's jit (gcc -O1, 1.5 minutes of gcc here, at every run),
3 runs per guess after a first untimed one, and prints the table of docs/performance.md:
final costs, iterations and the CPU time to come within 1e-6 of each solver's best cost, with
feasible iterates only (SQP: largest defect, IPOPT: max |g|, below 1e-8). fatrop calls no
iteration callback: its time to 1e-6 is the time of its whole solve, when its final point is
within 1e-6 and feasible. With `--line-search` the SQP is `cartpole_swingup_bench --method sqp
--line-search` (every iteration `SqpRti::iterate_with_line_search`, the l1-merit backtracking
line search), written to examples/out/swingup_sqp_ls.
"""

import hashlib
import math
import os
import statistics
import subprocess
import sys
import time

import casadi as ca
import numpy as np

MC, M, L, G, C = 1.0, 0.2, 0.5, 9.81, 0.4
H, TC = 150, 0.02
# RK4 substeps per interval (`--sub N`; 1 by default: `check` shows its one-interval error is
# about twice spark's GaussLobatto<2>, its optimal cost as close to the exact problem's).
SUB = int(sys.argv[sys.argv.index("--sub") + 1]) if "--sub" in sys.argv else 1
U_MAX = 20.0
HOLD_FROM = round(1.5 / TC)
GUESSES = "benches/control/swingup_guesses.txt"
SPARK_OUT = "examples/out/swingup_spark"
REPEATS = 3
FEASIBLE = 1e-8
# IPOPT: `tune` found mu_strategy monotone (the default) faster than adaptive here (fewer
# iterations from every guess tried, same optima); tol 1e-10 converges the cost to round-off.
OPTIONS = {"tol": 1e-10, "mu_strategy": "monotone", "print_level": 0, "sb": "yes"}


def f(z, u):
    xc, th, vc, om = z[0], z[1], z[2], z[3]
    s, c = ca.sin(th), ca.cos(th)
    # [[mc + m, m l c], [m l c, m l^2]] [xc''; th''] = [u - c vc + m l s om^2; m g l s]
    a11, a12, a22 = MC + M, M * L * c, M * L * L
    b1 = u - C * vc + M * L * s * om**2
    b2 = M * G * L * s
    det = a11 * a22 - a12 * a12
    acc = (a22 * b1 - a12 * b2) / det
    alpha = (a11 * b2 - a12 * b1) / det
    return ca.vertcat(vc, om, acc, alpha)


def rk4(z, u, sub):
    h = TC / sub
    for _ in range(sub):
        k1 = f(z, u)
        k2 = f(z + h / 2 * k1, u)
        k3 = f(z + h / 2 * k2, u)
        k4 = f(z + h * k3, u)
        z = z + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return z


def cost_x(z, w, w_cart, w_vel):
    xc, th, vc, om = z[0], z[1], z[2], z[3]
    dx, dy = L * ca.sin(th), L * ca.cos(th) - L
    vx, vy = vc + L * ca.cos(th) * om, -L * ca.sin(th) * om
    return 0.5 * (w * (dx**2 + dy**2) + w_cart * xc**2 + w_vel * (vc**2 + vx**2 + vy**2))


def stage_weights(k):
    return (0.01, 0.0, 0.001) if k < HOLD_FROM else (100.0, 1.0, 1.0)


HANGING = np.array([0.0, math.pi, 0.0, 0.0])


def step_function(sub):
    zs, us = ca.SX.sym("z", 4), ca.SX.sym("u")
    return ca.Function("step", [zs, us], [rk4(zs, us, sub)])


def rollout(inputs, sub=SUB):
    """States z_0 .. z_H and the cost of the inputs, open loop (numerically)."""
    step = step_function(sub)
    zk, zs, j = HANGING.copy(), [HANGING.copy()], 0.0
    for k in range(H):
        j += float(cost_x(zk, *stage_weights(k))) + 0.5 * 2e-3 * inputs[k] ** 2
        zk = np.array(step(zk, inputs[k])).flatten()
        zs.append(zk)
    j += float(cost_x(zk, 1e3, 10.0, 10.0))
    return np.array(zs), j


class Nlp:
    """The multiple-shooting NLP in SX: w = [z_0, u_0, z_1, u_1, ..., u_{H-1}, z_H]."""

    def __init__(self, sub=SUB):
        t0 = time.perf_counter()
        step = step_function(sub)
        w, lbw, ubw, g, j = [], [], [], [], 0
        zk = ca.SX.sym("z0", 4)
        w.append(zk)
        lbw += list(HANGING)
        ubw += list(HANGING)
        for k in range(H):
            uk = ca.SX.sym(f"u{k}")
            w.append(uk)
            lbw.append(-U_MAX)
            ubw.append(U_MAX)
            j += cost_x(zk, *stage_weights(k)) + 0.5 * 2e-3 * uk**2
            znext = ca.SX.sym(f"z{k + 1}", 4)
            w.append(znext)
            lbw += [-ca.inf] * 4
            ubw += [ca.inf] * 4
            g.append(znext - step(zk, uk))
            zk = znext
        j += cost_x(zk, 1e3, 10.0, 10.0)
        self.problem = {"x": ca.vertcat(*w), "f": j, "g": ca.vertcat(*g)}
        self.lbw, self.ubw = lbw, ubw
        self.ng = 4 * H
        self.built = time.perf_counter() - t0

    @staticmethod
    def pack(zs, us):
        w = list(zs[0])
        for k in range(H):
            w.append(us[k])
            w += list(zs[k + 1])
        return np.array(w)

    @staticmethod
    def unpack(w):
        w = np.asarray(w).flatten()
        zs = [w[0:4]]
        us = []
        for k in range(H):
            us.append(w[4 + 5 * k])
            zs.append(w[5 + 5 * k : 9 + 5 * k])
        return np.array(zs), np.array(us)

    def solver(self, options, callback=None):
        opts = {"print_time": False, "record_time": True, "ipopt": dict(options)}
        if callback is not None:
            opts["iteration_callback"] = callback
        return ca.nlpsol("swingup", "ipopt", self.problem, opts)

    def compiled(self, options, callback=None):
        """IPOPT on the NLP's functions generated as C and compiled (gcc -O1 -shared) into
        examples/out/swingup_nlp_<hash of the C>.so, kept and reused while the C is the same."""
        os.makedirs("examples/out", exist_ok=True)
        t0 = time.perf_counter()
        name = "swingup_nlp.c"
        ca.nlpsol("swingup", "ipopt", self.problem).generate_dependencies(name)
        generated = time.perf_counter() - t0
        with open(name, "rb") as fh:
            key = hashlib.sha1(fh.read()).hexdigest()[:10]
        so = os.path.abspath(f"examples/out/swingup_nlp_{key}.so")
        c = so[:-3] + ".c"
        os.replace(name, c)
        if not os.path.exists(so):
            t0 = time.perf_counter()
            subprocess.run(["gcc", "-O1", "-fPIC", "-shared", c, "-o", so], check=True)
            print(f"generated {c} in {generated:.1f} s, compiled it (gcc -O1) in "
                  f"{time.perf_counter() - t0:.1f} s", flush=True)
        else:
            print(f"generated {c} in {generated:.1f} s, compiled before", flush=True)
        opts = {"print_time": False, "record_time": True, "ipopt": dict(options)}
        if callback is not None:
            opts["iteration_callback"] = callback
        return ca.nlpsol("swingup", "ipopt", so, opts)


class Recorder(ca.Callback):
    """IPOPT's iteration callback: (wall seconds, process CPU seconds, objective, max |g|) per
    iterate, since `reset`, the time spent in the callback itself taken out."""

    def __init__(self, nx, ng):
        ca.Callback.__init__(self)
        self.nx, self.ng = nx, ng
        self.reset()
        self.construct("recorder", {})

    def reset(self, on=True):
        """Starts a new record; with `on` false, the callback returns at once (untimed runs)."""
        self.on = on
        self.start, self.cpu0, self.rows = time.perf_counter(), time.process_time(), []
        self.spent, self.spent_cpu = 0.0, 0.0

    def get_n_in(self):
        return ca.nlpsol_n_out()

    def get_n_out(self):
        return 1

    def get_name_in(self, i):
        return ca.nlpsol_out(i)

    def get_name_out(self, i):
        return "ret"

    def get_sparsity_in(self, i):
        n = ca.nlpsol_out(i)
        if n in ("f",):
            return ca.Sparsity.scalar()
        if n in ("x", "lam_x"):
            return ca.Sparsity.dense(self.nx)
        if n in ("g", "lam_g"):
            return ca.Sparsity.dense(self.ng)
        return ca.Sparsity(0, 0)

    def eval(self, arg):
        if not self.on:
            return [0]
        t, c = time.perf_counter(), time.process_time()
        g = np.asarray(arg[ca.nlpsol_out().index("g")]).flatten()
        viol = float(np.abs(g).max()) if g.size else 0.0
        self.rows.append((t - self.start - self.spent, c - self.cpu0 - self.spent_cpu,
                          float(arg[ca.nlpsol_out().index("f")]), viol))
        self.spent += time.perf_counter() - t
        self.spent_cpu += time.process_time() - c
        return [0]


def initial_point(name, inputs, sub=SUB):
    """The guess as an NLP point: the inputs rolled out, or for `interpolation` the lean
    interpolated linearly from hanging to upright over the swing (1.5 s), then upright."""
    if name == "interpolation":
        zs = np.zeros((H + 1, 4))
        for k in range(H + 1):
            s = min(k / HOLD_FROM, 1.0)
            zs[k, 1] = math.pi * (1.0 - s)
            zs[k, 3] = -math.pi / (HOLD_FROM * TC) if k < HOLD_FROM else 0.0
        return Nlp.pack(zs, inputs)
    zs, _ = rollout(inputs, sub)
    return Nlp.pack(zs, inputs)


def read_guesses(path):
    out = []
    with open(path) as fh:
        for line in fh:
            line = line.split("#")[0].strip()
            if line:
                words = line.split()
                vals = [float(v) for v in words[1:]]
                assert len(vals) == H, (words[0], len(vals))
                out.append((words[0], np.array(vals)))
    return out


def write_guesses():
    rows = []
    rows.append(("example", [10.0 * math.sin(2 * math.pi * k * TC) if k * TC < 1.0 else 0.0
                             for k in range(H)]))
    rows.append(("interpolation", [0.0] * H))
    for seed in range(1, 5):
        rng = np.random.default_rng(seed)
        rows.append((f"uniform{seed}", list(rng.uniform(-U_MAX, U_MAX, H))))
    for seed in range(5, 9):
        rng = np.random.default_rng(seed)
        knots = rng.uniform(-U_MAX, U_MAX, H // 10 + 1)
        rows.append((f"smooth{seed}", list(np.interp(np.arange(H) / 10.0,
                                                     np.arange(knots.size), knots))))
    with open(GUESSES, "w") as fh:
        fh.write("# First guesses of the swing-up comparison (benches/control/casadi_swingup.py "
                 "guesses):\n# a name, then the 150 inputs (N). example: the example's push; "
                 "interpolation: zero input\n# (IPOPT's states: the lean interpolated from "
                 "hanging to upright over 1.5 s; box-DDP can\n# only roll the inputs out); "
                 "uniformS: i.i.d. uniform in [-20, 20] N, numpy seed S; smoothS: uniform\n"
                 "# knots every 10 intervals, linearly interpolated, seed S.\n")
        for name, u in rows:
            fh.write(name + " " + " ".join(f"{v:.17e}" for v in u) + "\n")
    print(f"wrote {GUESSES} ({len(rows)} guesses)")


def read_states(path, name):
    zs = []
    with open(path) as fh:
        for line in fh:
            w = line.split()
            if w[0] == name:
                zs.append([float(v) for v in w[2:6]])
    return np.array(zs)


def wrap(d):
    d = d.copy()
    d[..., 1] = (d[..., 1] + math.pi) % (2 * math.pi) - math.pi
    return d


def check():
    """The discretizations compared on box-DDP's plan from the example's guess (written by
    `cartpole_swingup_bench`): the one-interval error of spark's GaussLobatto<2> step (its
    planned z_(k+1) against RK4 x 256 from its z_k) and of RK4 x n from the same z_k; then the
    optimal cost of the RK4 x n problem (IPOPT from the plan) against spark's."""
    zs = read_states(SPARK_OUT + "_states.txt", "example")
    plan = dict(read_guesses(SPARK_OUT + "_plans.txt"))["example"]
    j_spark = read_spark_trace(SPARK_OUT + "_trace.txt")["example"][0][-1][2]
    ref = step_function(256)
    exact = np.array([np.array(ref(zs[k], plan[k])).flatten() for k in range(H)])
    err = np.abs(wrap(zs[1:] - exact)).max(axis=0)
    print(f"one-interval error along the plan, max over k of |z_(k+1) - exact| per component "
          f"(xc, th, vc, om):\n  spark GaussLobatto<2>: {' '.join(f'{e:.1e}' for e in err)}")
    for sub in (1, 2, 4, 16):
        step = step_function(sub)
        z1 = np.array([np.array(step(zs[k], plan[k])).flatten() for k in range(H)])
        err = np.abs(wrap(z1 - exact)).max(axis=0)
        nlp = Nlp(sub)
        r = solve(nlp, nlp.solver(OPTIONS), initial_point("warm", plan, sub))
        print(f"  RK4 x {sub:2d}: {' '.join(f'{e:.1e}' for e in err)}; optimal cost from the "
              f"plan {r['cost']:.9e} (spark {j_spark:.9e}, rel. diff "
              f"{(r['cost'] - j_spark) / j_spark:+.1e}), {r['iters']} it")


def solve(nlp, solver, w0, recorder=None, record=True):
    if recorder is not None:
        recorder.reset(record)
    t0 = time.perf_counter()
    r = solver(x0=w0, lbx=nlp.lbw, ubx=nlp.ubw, lbg=0, ubg=0)
    wall = time.perf_counter() - t0
    st = solver.stats()
    return {
        "cost": float(r["f"]),
        "w": np.array(r["x"]).flatten(),
        "viol": float(np.abs(np.array(r["g"])).max()),
        "iters": st["iter_count"],
        "status": st["return_status"],
        "wall": wall,
        "t_wall_total": st.get("t_wall_total", float("nan")),
        "t_proc_total": st.get("t_proc_total", float("nan")),
        "trace": list(recorder.rows) if recorder is not None and record else None,
    }


def tune():
    nlp = Nlp()
    guesses = dict(read_guesses(GUESSES))
    for opts in ({"mu_strategy": "monotone"}, {"mu_strategy": "adaptive"}):
        o = dict(OPTIONS)
        o.update(opts)
        for tol in (1e-8, 1e-10):
            o["tol"] = tol
            solver = nlp.solver(o)
            for name in ("example", "smooth5", "uniform1"):
                runs = [solve(nlp, solver, initial_point(name, guesses[name]))
                        for _ in range(REPEATS)]
                r = runs[0]
                print(f"{opts} tol {tol:.0e} {name}: {r['iters']} it, cost {r['cost']:.9e}, "
                      f"median t_proc_total "
                      f"{statistics.median(x['t_proc_total'] for x in runs) * 1e3:.0f} ms, "
                      f"t_wall_total {statistics.median(x['t_wall_total'] for x in runs) * 1e3:.0f}"
                      f" ms, {r['status']}", flush=True)


def first_within(trace, target, rel):
    """The first (wall, cpu) time at which a trace's (wall, cpu, cost[, viol]) rows reach a
    feasible cost <= target (1 + rel); None if never."""
    for row in trace:
        if (len(row) < 4 or row[3] < FEASIBLE) and row[2] <= target * (1 + rel):
            return row[0], row[1]
    return None


def read_spark_trace(path):
    runs = {}
    with open(path) as fh:
        for line in fh:
            name, rep, it, t, c, j = line.split()
            runs.setdefault(name, {}).setdefault(int(rep), []).append(
                (float(t), float(c), float(j)))
    return runs


def run_spark(guesses_path, out, repeats):
    cmd = ["cargo", "run", "--release", "-q", "-p", "spark-examples", "--example",
           "cartpole_swingup_bench", "--", "--guesses", guesses_path, "--out", out,
           "--repeats", str(repeats)]
    print("$ " + " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)
    return read_spark_trace(out + "_trace.txt"), dict(read_guesses(out + "_plans.txt"))


def medians(values):
    """Median (wall, cpu) of the runs that reached; None if any did not."""
    if any(v is None for v in values):
        return None
    return tuple(statistics.median(v[i] for v in values) for i in range(2))


def fmt(t):
    """`CPU / wall` in ms."""
    return "never" if t is None else f"{t[1] * 1e3:.0f} / {t[0] * 1e3:.0f}"


def compare():
    guesses = read_guesses(GUESSES)
    spark_traces, spark_plans = run_spark(GUESSES, SPARK_OUT, REPEATS)
    nlp = Nlp()
    recorder = Recorder(nlp.problem["x"].numel(), nlp.ng)
    t0 = time.perf_counter()
    builds = {"SX": nlp.solver(OPTIONS, recorder)}
    created = time.perf_counter() - t0
    t0 = time.perf_counter()
    builds["C"] = nlp.compiled(OPTIONS, recorder)
    print(f"CasADi {ca.__version__}: SX NLP (RK4 x {SUB}) built in {nlp.built * 1e3:.0f} ms, "
          f"IPOPT on SX created in {created * 1e3:.0f} ms, on the compiled C loaded in "
          f"{(time.perf_counter() - t0) * 1e3:.0f} ms; options {OPTIONS}", flush=True)
    # ipopt[build][name] = (untraced runs, traced runs)
    ipopt = {b: {} for b in builds}
    for name, u in guesses:
        w0 = initial_point(name, u)
        for b, solver in builds.items():
            runs = [solve(nlp, solver, w0, recorder, False) for _ in range(REPEATS)]
            runs_t = [solve(nlp, solver, w0, recorder) for _ in range(REPEATS)]
            ipopt[b][name] = (runs, runs_t)
            r = runs[0]
            zs, us = Nlp.unpack(r["w"])
            print(f"  IPOPT ({b}) {name}: {r['iters']} it, cost {r['cost']:.9e}, max|g| "
                  f"{r['viol']:.1e}, final lean {wrap(zs[-1:])[0, 1]:+.2e} rad, "
                  f"{int(np.sum(np.abs(us) > U_MAX - 1e-6))} inputs at a bound, t_proc_total "
                  f"{statistics.median(x['t_proc_total'] for x in runs) * 1e3:.0f} ms, "
                  f"t_wall_total {statistics.median(x['t_wall_total'] for x in runs) * 1e3:.0f} "
                  f"ms, {r['status']}", flush=True)
    # The best cost found by either solver, in each one's own discretization: each solver's best
    # final point is polished by the other (IPOPT from box-DDP's inputs rolled out, box-DDP
    # from IPOPT's inputs).
    final_s = {n: spark_traces[n][0][-1][2] for n in spark_traces}
    final_i = {n: ipopt["SX"][n][0][0]["cost"] for n in ipopt["SX"]}
    best_s, best_i = min(final_s, key=final_s.get), min(final_i, key=final_i.get)
    polish_i = solve(nlp, builds["SX"], initial_point("polish", spark_plans[best_s]), recorder,
                     False)
    _, ui = Nlp.unpack(ipopt["SX"][best_i][0][0]["w"])
    path = SPARK_OUT + "_from_ipopt.txt"
    with open(path, "w") as fh:
        fh.write("ipopt_best " + " ".join(f"{v:.17e}" for v in ui) + "\n")
    polish_traces, _ = run_spark(path, SPARK_OUT + "_polish", 1)
    polish_s = polish_traces["ipopt_best"][0][-1][2]
    target_s = min(final_s[best_s], polish_s)
    target_i = min(final_i[best_i], polish_i["cost"])
    print(f"best: box-DDP {final_s[best_s]:.9e} (from {best_s}), IPOPT {final_i[best_i]:.9e} "
          f"(from {best_i}); IPOPT from box-DDP's best {polish_i['cost']:.9e} "
          f"({polish_i['iters']} it), box-DDP from IPOPT's best {polish_s:.9e} "
          f"({len(polish_traces['ipopt_best'][0]) - 1} it)")
    print(f"targets: box-DDP (GaussLobatto<2>) {target_s:.9e}, IPOPT (RK4 x {SUB}) "
          f"{target_i:.9e}, relative difference {(target_i - target_s) / target_s:+.2e}")
    print()
    print("times in ms: CPU / wall, medians of 3 runs; IPOPT: t_proc_total / t_wall_total, on SX "
          "and on the compiled C; `to 1e-3`, `to 1e-6`: first (feasible) iterate within that "
          "relative distance of the target, from the runs with the iteration callback")
    print("| guess | box-DDP: cost | iterations | time | to 1e-3 | to 1e-6 "
          "| IPOPT: cost | iterations | time SX | time C | to 1e-3 SX; C | to 1e-6 SX; C |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    totals = {"box-DDP": [0.0, 0.0], "SX": [0.0, 0.0], "C": [0.0, 0.0]}

    def ipopt_time(b, name):
        runs = ipopt[b][name][0]
        t = medians([(r["t_wall_total"], r["t_proc_total"]) for r in runs])
        totals[b][0] += t[0]
        totals[b][1] += t[1]
        return fmt(t)

    def reach(b, name, rel):
        return "; ".join(fmt(medians([first_within(r["trace"], target_i, rel)
                                      for r in ipopt[b][name][1]])) for b in builds)

    for name, _ in guesses:
        sr = spark_traces[name]
        s_time = medians([sr[r][-1][:2] for r in sr])
        totals["box-DDP"][0] += s_time[0]
        totals["box-DDP"][1] += s_time[1]
        print(f"| {name} | {final_s[name]:.6f} | {len(sr[0]) - 1} | {fmt(s_time)} | "
              f"{fmt(medians([first_within(sr[r], target_s, 1e-3) for r in sr]))} | "
              f"{fmt(medians([first_within(sr[r], target_s, 1e-6) for r in sr]))} | "
              f"{final_i[name]:.6f} | {ipopt['SX'][name][0][0]['iters']} | "
              f"{ipopt_time('SX', name)} | {ipopt_time('C', name)} | "
              f"{reach('SX', name, 1e-3)} | {reach('SX', name, 1e-6)} |")
    print("\nall 10 guesses, sums of the medians: " + ", ".join(
        f"{k} {fmt((v[0], v[1]))}" for k, v in totals.items()))
    for b in builds:
        walls = sum(statistics.median(r["wall"] for r in ipopt[b][n][0]) for n, _ in guesses)
        traced = sum(statistics.median(r["trace"][-1][0] for r in ipopt[b][n][1])
                     for n, _ in guesses)
        print(f"IPOPT ({b}): solve calls {walls * 1e3:.0f} ms wall in all (t_wall_total "
              f"{totals[b][0] * 1e3:.0f} ms); with the callback recording (its own time out), "
              f"at the last iterate {traced * 1e3:.0f} ms")


def other_solvers():
    """fatrop (the OCP-structured interior-point solver shipped with CasADi) on the same NLP,
    beside IPOPT, from every guess (medians of 3)."""
    guesses = read_guesses(GUESSES)
    nlp = Nlp()
    rows = []
    t0 = time.perf_counter()
    fatrop = ca.nlpsol("swingup", "fatrop", nlp.problem, {
        "print_time": False, "record_time": True, "structure_detection": "auto",
        "equality": [True] * nlp.ng, "fatrop": {"print_level": 0, "tol": 1e-10}})
    rows.append(("fatrop", fatrop, time.perf_counter() - t0))
    rows.append(("IPOPT", nlp.solver(OPTIONS), 0.0))
    for label, solver, setup in rows:
        print(f"{label} (setup {setup:.1f} s):", flush=True)
        for i, (name, u) in enumerate(guesses):
            w0 = initial_point(name, u)
            first = solve(nlp, solver, w0)
            if i == 0:
                print(f"  first call {first['wall']:.1f} s wall", flush=True)
            runs = [solve(nlp, solver, w0) for _ in range(REPEATS)]
            r = runs[0]
            print(f"  {name}: {r['iters']} it, cost {r['cost']:.9e}, max|g| {r['viol']:.1e}, "
                  f"t_proc_total {statistics.median(x['t_proc_total'] for x in runs) * 1e3:.0f} "
                  f"ms, t_wall_total "
                  f"{statistics.median(x['t_wall_total'] for x in runs) * 1e3:.0f} ms",
                  flush=True)


LINE_SEARCH = "--line-search" in sys.argv
SQP_OUT = "examples/out/swingup_sqp_ls" if LINE_SEARCH else "examples/out/swingup_sqp"


def read_sqp_trace(path):
    """runs[start][repeat] = [(wall, cpu, cost, defect, step, QP iterations, alpha, trials)]
    from `--method sqp`'s trace."""
    runs = {}
    with open(path) as fh:
        for line in fh:
            name, rep, it, *vals = line.split()
            runs.setdefault(name, {}).setdefault(int(rep), []).append(tuple(map(float, vals)))
    return runs


def sqp_first_within(trace, target, rel):
    """The first (wall, cpu) of an SQP trace whose plan has defect < FEASIBLE and cost <=
    target (1 + rel); None if never."""
    for wall, cpu, cost, defect, *_ in trace:
        if defect < FEASIBLE and cost <= target * (1 + rel):
            return wall, cpu
    return None


def sqp():
    """spark's SQP against IPOPT (SX, C) and fatrop (SX, jit C), time to equal cost."""
    guesses = read_guesses(GUESSES)
    cmd = ["cargo", "run", "--release", "-q", "-p", "spark-examples", "--example",
           "cartpole_swingup_bench", "--", "--method", "sqp", "--guesses", GUESSES, "--out",
           SQP_OUT, "--repeats", str(REPEATS)] + (["--line-search"] if LINE_SEARCH else [])
    print("$ " + " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)
    traces = read_sqp_trace(SQP_OUT + "_trace.txt")
    nlp = Nlp()
    recorder = Recorder(nlp.problem["x"].numel(), nlp.ng)
    builds = {"IPOPT SX": nlp.solver(OPTIONS, recorder),
              "IPOPT C": nlp.compiled(OPTIONS, recorder)}
    fatrop_opts = {"print_time": False, "record_time": True, "structure_detection": "auto",
                   "equality": [True] * nlp.ng, "fatrop": {"print_level": 0, "tol": 1e-10}}
    builds["fatrop SX"] = ca.nlpsol("swingup", "fatrop", nlp.problem, fatrop_opts)
    t0 = time.perf_counter()
    jit = dict(fatrop_opts, jit=True, compiler="shell", jit_options={"flags": ["-O1"]})
    builds["fatrop C"] = ca.nlpsol("swingup", "fatrop", nlp.problem, jit)
    print(f"CasADi {ca.__version__}, RK4 x {SUB}; fatrop's jit (gcc -O1) took "
          f"{time.perf_counter() - t0:.0f} s; IPOPT options {OPTIONS}", flush=True)
    # res[build][name] = (untraced runs, traced runs or None)
    res = {b: {} for b in builds}
    for name, u in guesses:
        w0 = initial_point(name, u)
        for b, solver in builds.items():
            if b.startswith("fatrop"):
                solve(nlp, solver, w0)
                res[b][name] = ([solve(nlp, solver, w0) for _ in range(REPEATS)], None)
            else:
                runs = [solve(nlp, solver, w0, recorder, False) for _ in range(REPEATS)]
                runs_t = [solve(nlp, solver, w0, recorder) for _ in range(REPEATS)]
                res[b][name] = (runs, runs_t)
            r = res[b][name][0][0]
            print(f"  {b} {name}: {r['iters']} it, cost {r['cost']:.9e}, max|g| "
                  f"{r['viol']:.1e}, t_proc_total "
                  f"{statistics.median(x['t_proc_total'] for x in res[b][name][0]) * 1e3:.0f} "
                  f"ms, {r['status']}", flush=True)
    feasible = [row[2] for runs in traces.values() for tr in runs.values() for row in tr
                if row[3] < FEASIBLE]
    target_s = min(feasible)
    target_i = min(r[0][0]["cost"] for b in builds for r in res[b].values()
                   if r[0][0]["viol"] < FEASIBLE)
    print(f"targets: SQP (GaussLobatto<2>) {target_s:.9e}, IPOPT/fatrop (RK4 x {SUB}) "
          f"{target_i:.9e}")

    def reach(b, name):
        """Median CPU time (ms) to 1e-6 of target_i, or None."""
        runs, runs_t = res[b][name]
        if runs_t is not None:
            t = medians([first_within(r["trace"], target_i, 1e-6) for r in runs_t])
        else:
            t = medians([(r["t_wall_total"], r["t_proc_total"])
                         if r["viol"] < FEASIBLE and r["cost"] <= target_i * (1 + 1e-6)
                         else None for r in runs])
        return None if t is None else t[1] * 1e3

    def ms(t):
        return "never" if t is None else f"{t:.0f}" if t >= 10 else f"{t:.1f}"

    print("\nCPU ms, medians of 3; `to 1e-6`: first feasible iterate within 1e-6 of the target "
          "(fatrop: its whole solve)")
    print("| start | SQP: cost | iterations | outcome | to 1e-6 | IPOPT: cost | iterations "
          "| to 1e-6, SX; C | fatrop: cost | iterations | to 1e-6, SX; C |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    with open(SQP_OUT + "_trace.txt") as fh:
        ends = {}
        for line in fh:
            w = line.split()
            ends[(w[0], int(w[1]))] = w
    starts = [(n, n) for n, _ in guesses] + [("interpolation_nodes", "interpolation")]
    order = [n for n, _ in guesses]
    starts.sort(key=lambda s: (order.index(s[1]), s[0] != s[1]))
    for start, guess in starts:
        tr = traces[start]
        last = tr[0][-1]
        converged = last[3] < 1e-11 and last[4] < 1e-9
        iters = len(tr[0])
        outcome = "converged" if converged else ("cap" if iters >= 200 else "failed")
        t = medians([sqp_first_within(tr[r], target_s, 1e-6) for r in tr])
        row = [start, f"{last[2]:.6f}" + ("" if last[3] < FEASIBLE else f" (defect {last[3]:.0e})"),
               str(iters), outcome, ms(None if t is None else t[1] * 1e3)]
        nodes_row = start == "interpolation_nodes"
        if guess == "interpolation" and not nodes_row:
            row += ["(IPOPT starts from the nodes)", "", "", "", "", ""]
        else:
            for solver in ("IPOPT", "fatrop"):
                r = res[f"{solver} SX"][guess][0][0]
                row += [f"{r['cost']:.6f}", str(r["iters"]),
                        f"{ms(reach(solver + ' SX', guess))}; {ms(reach(solver + ' C', guess))}"]
        print("| " + " | ".join(row) + " |")


def warm():
    with open("examples/out/cartpole_swingup_plan.txt") as fh:
        plan = np.array([float(v) for v in fh.read().split()])
    nlp = Nlp()
    r = solve(nlp, nlp.solver(OPTIONS), initial_point("warm", plan))
    zs, us = Nlp.unpack(r["w"])
    print(f"IPOPT from spark's plan: {r['iters']} iterations, {r['t_wall_total'] * 1e3:.1f} ms, "
          f"cost {r['cost']:.9e}, {r['status']}; final lean "
          f"{zs[-1, 1] - 2 * math.pi * round(zs[-1, 1] / (2 * math.pi)):.2e} rad, inputs at a "
          f"bound {int(np.sum(np.abs(us) > U_MAX - 1e-6))}")


if __name__ == "__main__":
    {"guesses": write_guesses, "check": check, "tune": tune, "compare": compare,
     "warm": warm, "others": other_solvers, "sqp": sqp}[sys.argv[1] if len(sys.argv) > 1 else "compare"]()

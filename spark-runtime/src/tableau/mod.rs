//! Coefficient tableaux, computed at compile time.
//!
//! Everything here is a `const fn`: the nodes are found by safeguarded Newton iteration on the
//! Legendre three-term recurrence, the weights and collocation matrices by integrating the
//! Lagrange basis polynomials exactly with a Gauss rule (never through a Vandermonde solve, which
//! loses digits quickly as the number of stages grows). A tableau is therefore a compile-time
//! constant:
//!
//! ```
//! use spark_runtime::tableau::GaussLobattoTableau;
//! const T: GaussLobattoTableau<3> = GaussLobattoTableau::new();
//! // or, equivalently, in any expression context:
//! let b = GaussLobattoTableau::<3>::TABLEAU.b;
//! assert!((b[1] - 4.0 / 9.0).abs() < 1e-15);
//! assert_eq!(T, GaussLobattoTableau::<3>::TABLEAU);
//! ```
//!
//! All nodes live on `[0, 1]`. Conventions: `ℓ_j` is the Lagrange basis polynomial of node `j`
//! of the node set at hand; "collocation" coefficients are `a_ij = ∫_0^{τ_i} ℓ_j(τ) dτ`, weights
//! are `b_j = ∫_0^1 ℓ_j(τ) dτ`.
//!
//! Accuracy: entries agree with 50-digit references to within 3e-16 for `s ≤ 12`; the order
//! and existence conditions hold to ≤ 2e-15 up to `s = 20` and ≤ 5e-14 at `s = 64` (see
//! `spark-runtime/tests/suite/tableau.rs`).
//! Cost: compile-time evaluation grows like `s³`; `s = 64` evaluates in a few seconds, while
//! around `s = 100` rustc's `long_running_const_eval` lint stops the constant —
//! `#[allow(long_running_const_eval)]` on the constant item lifts it.
//!
//! Reference: L. O. Jay, *Specialized partitioned additive Runge–Kutta methods for systems of
//! overdetermined DAEs with holonomic constraints*, SIAM J. Numer. Anal. 45 (2007), §3.3
//! (construction), (3.3a–d) (existence conditions) and (4.1a–c) (symplecticity).

mod emprk;
mod index2;
mod scheme;
mod spark;

pub use emprk::EmprkTableau;
pub use index2::Index2Tableau;
pub use scheme::{Refusals, Scheme};
pub use spark::{KroneckerCoefficients, SparkTableau};

use core::f64::consts::PI;

/// Upper bound on root-finding iterations (Newton converges in a handful; bisection fallback
/// steps are bounded by the bit length of the bracket).
const MAX_ROOT_STEPS: usize = 200;

/// Legendre polynomials on `[-1, 1]` by the three-term recurrence
/// `(k+1) P_{k+1}(x) = (2k+1) x P_k(x) − k P_{k−1}(x)`, `P_0 = 1`, `P_1 = x`.
///
/// Returns `(P_n(x), P_{n−1}(x))` (with `P_{−1} := 0` for `n = 0`).
pub const fn legendre(n: usize, x: f64) -> (f64, f64) {
    if n == 0 {
        return (1.0, 0.0);
    }
    let mut p_prev = 1.0;
    let mut p = x;
    let mut k = 1;
    while k < n {
        let kf = k as f64;
        let next = ((2.0 * kf + 1.0) * x * p - kf * p_prev) / (kf + 1.0);
        p_prev = p;
        p = next;
        k += 1;
    }
    (p, p_prev)
}

/// `cos θ` for `θ ∈ [0, π]` (Taylor series after reduction to `[0, π/2]`); only used for
/// initial guesses and brackets, which need a few digits.
const fn cos_0_pi(theta: f64) -> f64 {
    let (t, sign) = if theta > 0.5 * PI {
        (PI - theta, -1.0)
    } else {
        (theta, 1.0)
    };
    let t2 = t * t;
    let mut term = 1.0;
    let mut sum = 1.0;
    let mut k = 1;
    while k <= 15 {
        term *= -t2 / (((2 * k - 1) * (2 * k)) as f64);
        sum += term;
        k += 1;
    }
    sign * sum
}

/// For `derivative == false`: `(P_n(x), P_n(x) / P_n'(x))`; for `derivative == true`:
/// `(P_{n−1}(x) − x P_n(x), P_n'(x) / P_n''(x))`, the first entry having the sign of `P_n'` in
/// `(-1, 1)`. Uses `(1 − x²) P_n' = n (P_{n−1} − x P_n)` and Legendre's equation
/// `(1 − x²) P_n'' = 2x P_n' − n(n+1) P_n`.
const fn newton_data(n: usize, derivative: bool, x: f64) -> (f64, f64) {
    let (p, p_prev) = legendre(n, x);
    let nf = n as f64;
    let one_m_x2 = (1.0 - x) * (1.0 + x);
    let g = p_prev - x * p;
    let dp = nf * g / one_m_x2;
    if derivative {
        (g, dp * one_m_x2 / (2.0 * x * dp - nf * (nf + 1.0) * p))
    } else {
        (p, p / dp)
    }
}

/// The root in `(lo, hi)` of `P_n` (or of `P_n'` if `derivative`), which must change sign there
/// exactly once, starting from `x`: Newton's method, falling back to bisection whenever a step
/// would leave the current bracket. Once a Newton step is below `1e-9` the iterate is in the
/// quadratic regime near the bracketed root; three more plain Newton steps reach rounding level.
const fn find_root(n: usize, derivative: bool, mut lo: f64, mut hi: f64, mut x: f64) -> f64 {
    let lo_positive = newton_data(n, derivative, lo).0 > 0.0;
    let mut polish = 0;
    let mut step = 0;
    while step < MAX_ROOT_STEPS {
        let (f, dx) = newton_data(n, derivative, x);
        if f == 0.0 || !dx.is_finite() && polish > 0 {
            return x;
        }
        let next = x - dx;
        if polish > 0 || dx.abs() < 1e-9 {
            x = next;
            polish += 1;
            if polish >= 3 {
                break;
            }
        } else {
            if (f > 0.0) == lo_positive {
                lo = x;
            } else {
                hi = x;
            }
            // `!(a && b)` also catches a NaN step.
            x = if next > lo && next < hi {
                next
            } else {
                0.5 * (lo + hi)
            };
        }
        step += 1;
    }
    x
}

/// Makes the first `n` entries of `x` (increasing points of `[-1, 1]`) exactly antisymmetric:
/// `x_{n−1−k} = −x_k`, with the middle point of an odd count set to 0.
const fn antisymmetrize<const L: usize>(x: &mut [f64; L], n: usize) {
    let mut k = 0;
    while k < n / 2 {
        let v = 0.5 * (x[k] - x[n - 1 - k]);
        x[k] = v;
        x[n - 1 - k] = -v;
        k += 1;
    }
    if n % 2 == 1 {
        x[n / 2] = 0.0;
    }
}

/// Roots of `P_n` on `[-1, 1]`, increasing, in the first `n` entries of the buffer (`n ≤ L`).
///
/// Writing the `k`-th largest root as `cos θ_k`, Bruns' inequality
/// `(k − 1/2) π / (n + 1/2) < θ_k < k π / (n + 1/2)` brackets each root on its own (the brackets
/// are disjoint); Newton starts from `θ = (k − 1/4) π / (n + 1/2)`.
const fn legendre_roots<const L: usize>(n: usize) -> [f64; L] {
    assert!(n <= L, "buffer too short for the requested Legendre roots");
    let mut x = [0.0; L];
    let h = PI / (n as f64 + 0.5);
    // Brackets are widened by this much to absorb the rounding of `cos_0_pi`; they stay
    // disjoint since consecutive ones are `π/(2n+1)` apart in θ.
    let slack = 1e-12;
    let mut k = 1;
    while k <= n {
        let kf = k as f64;
        let lo = cos_0_pi(kf * h) - slack;
        let hi = cos_0_pi((kf - 0.5) * h) + slack;
        let guess = cos_0_pi((kf - 0.25) * h);
        x[n - k] = find_root(n, false, lo, hi, guess);
        k += 1;
    }
    antisymmetrize(&mut x, n);
    x
}

/// Roots of `P_n'` on `(-1, 1)` (the `n − 1` interior Lobatto points of the `(n+1)`-point rule),
/// increasing, in the first `n − 1` entries of the buffer (`1 ≤ n ≤ L`). They interlace the roots
/// of `P_n`, which bracket them.
const fn legendre_derivative_roots<const L: usize>(n: usize) -> [f64; L] {
    let g = legendre_roots::<L>(n);
    let mut x = [0.0; L];
    let mut i = 0;
    while i + 1 < n {
        x[i] = find_root(n, true, g[i], g[i + 1], 0.5 * (g[i] + g[i + 1]));
        i += 1;
    }
    if n >= 1 {
        antisymmetrize(&mut x, n - 1);
    }
    x
}

/// Maps increasing, antisymmetric points of `[-1, 1]` to `[0, 1]` by `t = (1 + x)/2`, computing
/// the lower half and mirroring it so that `t_{n+1−i} = 1 − t_i` holds exactly.
const fn to_unit_interval<const L: usize>(x: &[f64; L], n: usize) -> [f64; L] {
    let mut t = [0.0; L];
    let mut k = 0;
    while k < n / 2 {
        // 1 + x is exact for x in [-1, -1/2] (Sterbenz).
        let v = 0.5 * (1.0 + x[k]);
        t[k] = v;
        t[n - 1 - k] = 1.0 - v;
        k += 1;
    }
    if n % 2 == 1 {
        t[n / 2] = 0.5;
    }
    t
}

/// Gauss–Legendre nodes on `[0, 1]`: the zeros `c_1 < … < c_S` of the shifted Legendre polynomial
/// `P_S(2x − 1)`. Symmetric to rounding: `c_{S+1−i} = 1 − c_i`.
pub const fn gauss_nodes<const S: usize>() -> [f64; S] {
    let x = legendre_roots::<S>(S);
    to_unit_interval(&x, S)
}

/// Gauss–Legendre weights on `[0, 1]`, `b_i = ∫_0^1 ℓ_i`, in the closed form
/// `b_i = 1 / ((1 − x_i²) P_S'(x_i)²) = (1 − x_i²) / (S² (P_{S−1}(x_i) − x_i P_S(x_i))²)` with
/// `x_i = 2 c_i − 1` (the rule is exact for polynomials of degree `2S − 1`, i.e. `B(2S)`).
pub const fn gauss_weights<const S: usize>() -> [f64; S] {
    gauss_rule::<S>().1
}

/// Gauss nodes and weights on `[0, 1]` ([`gauss_nodes`], [`gauss_weights`]) in one pass.
pub const fn gauss_rule<const S: usize>() -> ([f64; S], [f64; S]) {
    let c = gauss_nodes::<S>();
    let n = S as f64;
    let mut b = [0.0; S];
    let mut i = 0;
    while i < S {
        let x = 2.0 * c[i] - 1.0;
        let (p, p_prev) = legendre(S, x);
        // n (P_{n−1} − x P_n) = (1 − x²) P_n'; keeping the (tiny) x P_n term makes the formula
        // stationary to first order in the rounding error of the root.
        let d = p_prev - x * p;
        // 1 − x² = 4 c (1 − c), computed without cancellation.
        b[i] = 4.0 * c[i] * (1.0 - c[i]) / (n * n * d * d);
        i += 1;
    }
    // Enforce the symmetry b_{S+1−i} = b_i.
    let mut k = 0;
    while k < S / 2 {
        let v = 0.5 * (b[k] + b[S - 1 - k]);
        b[k] = v;
        b[S - 1 - k] = v;
        k += 1;
    }
    (c, b)
}

/// All `N` Lobatto nodes on `[0, 1]`, increasing: `0`, the zeros of `P_{N−1}'(2x − 1)`, and `1`
/// (the nodes of the `N`-stage Lobatto IIIA/IIIB/IIIC methods). Requires `N ≥ 2`.
pub const fn lobatto_nodes<const N: usize>() -> [f64; N] {
    assert!(N >= 2, "a Lobatto rule has at least the two end points");
    let interior = legendre_derivative_roots::<N>(N - 1);
    let t = to_unit_interval(&interior, N - 2);
    let mut c = [0.0; N];
    let mut i = 1;
    while i + 1 < N {
        c[i] = t[i - 1];
        i += 1;
    }
    c[N - 1] = 1.0;
    c
}

/// The `S + 1` Lobatto nodes `c~_0 = 0 < c~_1 < … < c~_S = 1` without the leading `c~_0 = 0`:
/// returns `[c~_1, …, c~_S]` (the zeros of `P_S'(2x − 1)` followed by 1). This is the node set of
/// the constraint stages of the `(S, S)`-Gauss–Lobatto SPARK method. Requires `S ≥ 1`.
pub const fn lobatto_nodes_after_zero<const S: usize>() -> [f64; S] {
    assert!(S >= 1, "at least one stage is needed");
    let interior = legendre_derivative_roots::<S>(S);
    let t = to_unit_interval(&interior, S - 1);
    let mut c = [0.0; S];
    let mut i = 0;
    while i + 1 < S {
        c[i] = t[i];
        i += 1;
    }
    c[S - 1] = 1.0;
    c
}

/// Barycentric weights `w_j = 1 / ∏_{m≠j} (x_j − x_m)` of the node set `nodes` (or
/// `{0} ∪ nodes` if `with_zero`); returns `(w of the node 0, [w_j])` (the first entry is unused
/// without `with_zero`).
const fn barycentric_weights<const N: usize>(nodes: &[f64; N], with_zero: bool) -> (f64, [f64; N]) {
    let mut w = [0.0; N];
    let mut w0 = 1.0;
    let mut j = 0;
    while j < N {
        let mut p = if with_zero { nodes[j] } else { 1.0 };
        let mut m = 0;
        while m < N {
            if m != j {
                p *= nodes[j] - nodes[m];
            }
            m += 1;
        }
        w[j] = 1.0 / p;
        w0 *= -nodes[j];
        j += 1;
    }
    (1.0 / w0, w)
}

/// All Lagrange basis polynomials at `x`, `ℓ_j(x) = ℓ(x) w_j / (x − x_j)` with
/// `ℓ(x) = ∏_m (x − x_m)` (the "modified Lagrange" form, backward stable); exact `δ_jk` at a node.
/// Returns `(ℓ of the node 0, [ℓ_j(x)])` (the first entry is 0 without `with_zero`).
const fn basis_values<const N: usize>(
    nodes: &[f64; N],
    with_zero: bool,
    bw: &(f64, [f64; N]),
    x: f64,
) -> (f64, [f64; N]) {
    let mut l = [0.0; N];
    let mut big = if with_zero { x } else { 1.0 };
    let mut j = 0;
    while j < N {
        if x == nodes[j] {
            l[j] = 1.0;
            return (0.0, l);
        }
        big *= x - nodes[j];
        j += 1;
    }
    if with_zero && x == 0.0 {
        return (1.0, l);
    }
    j = 0;
    while j < N {
        l[j] = big * bw.1[j] / (x - nodes[j]);
        j += 1;
    }
    let l0 = if with_zero { big * bw.0 / x } else { 0.0 };
    (l0, l)
}

/// `(∫_0^{τ_i} ℓ_0, [∫_0^{τ_i} ℓ_j])` for every target `τ_i`, by the `N`-point Gauss rule `g`
/// scaled to `[0, τ_i]`; exact up to rounding because every `ℓ_j` has degree `≤ N ≤ 2N − 1`.
const fn integrate_basis<const N: usize, const M: usize>(
    nodes: &[f64; N],
    with_zero: bool,
    targets: &[f64; M],
    g: &([f64; N], [f64; N]),
) -> ([f64; M], [[f64; N]; M]) {
    let bw = barycentric_weights(nodes, with_zero);
    let mut a0 = [0.0; M];
    let mut a = [[0.0; N]; M];
    let mut i = 0;
    while i < M {
        let tau = targets[i];
        let mut k = 0;
        while k < N {
            let (l0, l) = basis_values(nodes, with_zero, &bw, tau * g.0[k]);
            a0[i] += g.1[k] * l0;
            let mut j = 0;
            while j < N {
                a[i][j] += g.1[k] * l[j];
                j += 1;
            }
            k += 1;
        }
        a0[i] *= tau;
        let mut j = 0;
        while j < N {
            a[i][j] *= tau;
            j += 1;
        }
        i += 1;
    }
    (a0, a)
}

/// Collocation coefficients `a_ij = ∫_0^{τ_i} ℓ_j(τ) dτ` (`ℓ_j` the Lagrange basis on the
/// distinct `nodes`, `τ_i = targets[i]`); row `i` is `targets[i]`, column `j` is `nodes[j]`.
///
/// Equivalently `Σ_j a_ij x_j^{k−1} = τ_i^k / k`, `k = 1..N` (condition `C(N)` when
/// `targets = nodes`). Examples: `collocation_matrix(&gauss_nodes(), &gauss_nodes())` is the
/// Gauss collocation matrix, `collocation_matrix(&lobatto_nodes(), &lobatto_nodes())` is
/// Lobatto IIIA, and with Gauss nodes and Lobatto targets it gives Jay's `Ā`.
pub const fn collocation_matrix<const N: usize, const M: usize>(
    nodes: &[f64; N],
    targets: &[f64; M],
) -> [[f64; N]; M] {
    integrate_basis(nodes, false, targets, &gauss_rule::<N>()).1
}

/// [`collocation_matrix`] for the node set `{0} ∪ nodes` (the nonzero `nodes` given without the
/// leading 0, as arrays of length `N + 1` cannot be written generically). Returns
/// `(a_{·0}, [a_{·j}]_{j=1..N})`: the column of the node 0 and the columns of `nodes`.
pub const fn collocation_matrix_with_zero<const N: usize, const M: usize>(
    nodes: &[f64; N],
    targets: &[f64; M],
) -> ([f64; M], [[f64; N]; M]) {
    integrate_basis(nodes, true, targets, &gauss_rule::<N>())
}

/// Interpolatory quadrature weights on `[0, 1]`: `b_j = ∫_0^1 ℓ_j` for the distinct `nodes`
/// (`Σ_j b_j x_j^{k−1} = 1/k`, `k = 1..N`, condition `B(N)`).
pub const fn quadrature_weights<const N: usize>(nodes: &[f64; N]) -> [f64; N] {
    collocation_matrix(nodes, &[1.0])[0]
}

/// [`quadrature_weights`] for the node set `{0} ∪ nodes`; returns `(b_0, [b_1, …, b_N])`.
pub const fn quadrature_weights_with_zero<const N: usize>(nodes: &[f64; N]) -> (f64, [f64; N]) {
    let (a0, a) = collocation_matrix_with_zero(nodes, &[1.0]);
    (a0[0], a[0])
}

/// Symplectic conjugate of a tableau: `â_ij = w_j (1 − a_ji / v_i)`, where `a` has rows weighted
/// by `w` and columns weighted by `v` (the solved form of `v_j â_ji + w_i a_ij − w_i v_j = 0`,
/// Jay 2007 (4.1b,c)). With `a = A`, `w = v = b` it gives `Â` of a symplectic partitioned pair
/// (Lobatto IIIB from IIIA); with `a = Ā` (rows `1..s`), `w = b~`, `v = b` it gives `Ã`.
pub const fn symplectic_conjugate<const N: usize, const M: usize>(
    a: &[[f64; N]; M],
    w: &[f64; M],
    v: &[f64; N],
) -> [[f64; M]; N] {
    let mut r = [[0.0; M]; N];
    let mut i = 0;
    while i < N {
        let mut j = 0;
        while j < M {
            r[i][j] = w[j] * (1.0 - a[j][i] / v[i]);
            j += 1;
        }
        i += 1;
    }
    r
}

/// `ℓ_j(x)` for the Lagrange basis on the node set `nodes` without the node `skip` (product
/// form; `ℓ_skip := 0`).
const fn basis_without(nodes: &[f64], skip: usize, j: usize, x: f64) -> f64 {
    if j == skip {
        return 0.0;
    }
    let mut p = 1.0;
    let mut m = 0;
    while m < nodes.len() {
        if m != j && m != skip {
            p *= (x - nodes[m]) / (nodes[j] - nodes[m]);
        }
        m += 1;
    }
    p
}

/// `a_ij = ∫_0^{c_i} ℓ_j − w ℓ_j(0)` with `ℓ_j` the Lagrange basis on the `S` nodes `c` without
/// the node `skip` (column `skip` is zero), integrated exactly by the `S`-point Gauss rule
/// (`ℓ_j` has degree `S − 2`).
const fn collocation_without<const S: usize>(c: &[f64; S], skip: usize, w: f64) -> [[f64; S]; S] {
    let (x, gw) = gauss_rule::<S>();
    let mut a = [[0.0; S]; S];
    let mut i = 0;
    while i < S {
        let mut j = 0;
        while j < S {
            if j != skip {
                let mut sum = 0.0;
                let mut k = 0;
                while k < S {
                    sum += gw[k] * basis_without(c, skip, j, c[i] * x[k]);
                    k += 1;
                }
                a[i][j] = c[i] * sum - w * basis_without(c, skip, j, 0.0);
            }
            j += 1;
        }
        i += 1;
    }
    a
}

/// The `S` Lobatto nodes `c` on `[0, 1]` and their weights `b` (`B(2S − 2)`). `S ≥ 2`.
pub const fn lobatto_rule<const S: usize>() -> ([f64; S], [f64; S]) {
    let c = lobatto_nodes::<S>();
    let b = quadrature_weights(&c);
    (c, b)
}

/// Lobatto IIIA with `S ≥ 2` stages: the collocation matrix on the Lobatto nodes (`C(S)`),
/// `a[i-1][j-1] = a_ij`.
pub const fn lobatto_iiia<const S: usize>() -> [[f64; S]; S] {
    let c = lobatto_nodes::<S>();
    collocation_matrix(&c, &c)
}

/// Lobatto IIIB with `S ≥ 2` stages: the symplectic conjugate of IIIA,
/// `â_ij = b_j (1 − a_ji / b_i)` (`D(S)`; last column zero, first column `b_1`).
pub const fn lobatto_iiib<const S: usize>() -> [[f64; S]; S] {
    let (_, b) = lobatto_rule::<S>();
    symplectic_conjugate(&lobatto_iiia::<S>(), &b, &b)
}

/// Lobatto IIIC with `S ≥ 2` stages: `a_i1 = b_1` for every `i`, the other entries from
/// `C(S − 1)`, i.e. `a_ij = ∫_0^{c_i} ℓ_j − b_1 ℓ_j(0)` (`j ≥ 2`) with `ℓ_j` the Lagrange basis on
/// the nodes `c_2..c_S`. `S = 2`: `[[1/2, −1/2], [1/2, 1/2]]`.
pub const fn lobatto_iiic<const S: usize>() -> [[f64; S]; S] {
    let (c, b) = lobatto_rule::<S>();
    let mut a = collocation_without(&c, 0, b[0]);
    let mut i = 0;
    while i < S {
        a[i][0] = b[0];
        i += 1;
    }
    a
}

/// Lobatto IIIC* with `S ≥ 2` stages: `a_iS = 0` for every `i`, the other entries from
/// `C(S − 1)`, i.e. `a_ij = ∫_0^{c_i} ℓ_j` with `ℓ_j` the Lagrange basis on the nodes
/// `c_1..c_{S−1}`. `S = 2`: `[[0, 0], [1, 0]]`.
pub const fn lobatto_iiic_star<const S: usize>() -> [[f64; S]; S] {
    let c = lobatto_nodes::<S>();
    collocation_without(&c, S - 1, 0.0)
}

/// Lobatto IIID := (IIIC + IIIC*)/2 with `S ≥ 2` stages (Jay's reaction tableau of the
/// Lobatto IIIA-B-D SPARK method; `S = 2`: `[[1/4, −1/4], [3/4, 1/4]]`). Symmetric in the
/// sense of (6.3d) and its own symplectic conjugate.
pub const fn lobatto_iiid<const S: usize>() -> [[f64; S]; S] {
    let x = lobatto_iiic::<S>();
    let y = lobatto_iiic_star::<S>();
    let mut a = [[0.0; S]; S];
    let mut i = 0;
    while i < S {
        let mut j = 0;
        while j < S {
            a[i][j] = 0.5 * (x[i][j] + y[i][j]);
            j += 1;
        }
        i += 1;
    }
    a
}

/// `(s,s)`-Gauss–Lobatto SPARK coefficients (Jay, SIAM J. Numer. Anal. 45 (2007), §3.3), `s = S`,
/// stored without const-generic arithmetic: the Lobatto index 0 is split out because arrays of
/// length `S + 1` cannot be written generically.
///
/// Construction (all computed by [`GaussLobattoTableau::new`] in a `const` context):
/// 1. `c_1 < … < c_s`: Gauss nodes (zeros of `P_s(2x − 1)`); `b_j = ∫_0^1 ℓ_j`;
///    `a_ij = ∫_0^{c_i} ℓ_j` (Gauss collocation, `B(2s)`, `C(s)`, `D(s)`); `Â = A`, `b̂ = b`.
/// 2. `c~_0 = 0 < c~_1 < … < c~_s = 1`: the `s + 1` Lobatto nodes; `b~_j` their weights (`B(2s)`).
/// 3. `ā_ij = ∫_0^{c~_i} ℓ_j` (`ℓ_j` on the Gauss nodes), `i = 0..s`, `j = 1..s`, i.e.
///    `Σ_j ā_ij c_j^{k−1} = c~_i^k / k`, `k = 1..s`; hence `ā_0j = 0` (3.3a), `ā_sj = b_j` (3.3b).
/// 4. `ã_ij = b~_j (1 − ā_ji / b_i)`, `i = 1..s`, `j = 0..s` — (4.1c) solved for `ã`; hence
///    `ã_i0 = b~_0` (4.2), `ã_is = 0` (4.3), `Σ_{j=0..s} ã_ij = c_i`.
///
/// The conditions (3.3a–d) and (4.1a–c) then hold; the method has order `2s` (Cor. 5.4).
/// `ā_0j = 0` and `ā_sj = b_j`, `ã_i0 = b~_0`, `ã_is = 0` hold exactly in the stored values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GaussLobattoTableau<const S: usize> {
    /// Gauss nodes `c_1..c_s` on `[0, 1]`, increasing.
    pub c: [f64; S],
    /// Gauss weights `b_1..b_s` (`= b̂`).
    pub b: [f64; S],
    /// Gauss collocation matrix `A = Â`, `a[i-1][j-1] = a_ij`.
    pub a: [[f64; S]; S],
    /// Lobatto nodes `c~_1..c~_s` (`c~_0 = 0` is implied, `c~_s = 1`).
    pub c_lob: [f64; S],
    /// Lobatto weight `b~_0` of the node `c~_0 = 0`.
    pub b_lob0: f64,
    /// Lobatto weights `b~_1..b~_s`.
    pub b_lob: [f64; S],
    /// `ā_ij` for `i = 1..s`, `j = 1..s`, as `a_bar[i-1][j-1]` (row `i = 0` is identically zero).
    pub a_bar: [[f64; S]; S],
    /// `ã_i0` for `i = 1..s` (all equal to `b~_0`).
    pub a_til0: [f64; S],
    /// `ã_ij` for `i = 1..s`, `j = 1..s`, as `a_til[i-1][j-1]` (column `j = s` is zero).
    pub a_til: [[f64; S]; S],
}

impl<const S: usize> GaussLobattoTableau<S> {
    /// The tableau as an associated constant, so that `GaussLobattoTableau::<S>::TABLEAU` is
    /// always evaluated at compile time, whatever the context.
    pub const TABLEAU: Self = Self::new();

    /// Computes the coefficients (Jay 2007, §3.3; see the type's documentation). Meant to be
    /// called in a `const` context: `const T: GaussLobattoTableau<3> = GaussLobattoTableau::new();`.
    /// Panics (at compile time in a `const` context) if `S == 0`.
    pub const fn new() -> Self {
        assert!(S >= 1, "the (s,s)-Gauss-Lobatto SPARK method needs s >= 1");
        // One Gauss rule serves as nodes/weights and as the quadrature for every integral below.
        let g = gauss_rule::<S>();
        let (c, b) = g;
        let a = integrate_basis(&c, false, &c, &g).1;
        let c_lob = lobatto_nodes_after_zero::<S>();
        let (b_lob0, b_lob) = integrate_basis(&c_lob, true, &[1.0], &g);
        let (b_lob0, mut b_lob) = (b_lob0[0], b_lob[0]);
        // Lobatto weights are symmetric: b~_{s−j} = b~_j (b~_0 = b~_s).
        let mut k = 0;
        while 2 * k + 1 < S {
            let v = 0.5 * (b_lob[k] + b_lob[S - 2 - k]);
            b_lob[k] = v;
            b_lob[S - 2 - k] = v;
            k += 1;
        }
        b_lob[S - 1] = b_lob0;
        let mut a_bar = integrate_basis(&c, false, &c_lob, &g).1;
        // (3.3b): c~_s = 1, so the last row is exactly the Gauss weights.
        a_bar[S - 1] = b;
        // (4.1c) solved for ã (columns j = 1..s); (4.2): ã_i0 = b~_0 since ā_0j = 0.
        let a_til = symplectic_conjugate(&a_bar, &b_lob, &b);
        let a_til0 = [b_lob0; S];
        Self {
            c,
            b,
            a,
            c_lob,
            b_lob0,
            b_lob,
            a_bar,
            a_til0,
            a_til,
        }
    }
}

impl<const S: usize> Default for GaussLobattoTableau<S> {
    fn default() -> Self {
        Self::TABLEAU
    }
}

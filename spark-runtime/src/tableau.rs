//! Coefficient tableaux, computed at compile time.
//!
//! Everything here is a `const fn`: the nodes are found by bisection on the Legendre three-term
//! recurrence, the weights and collocation matrices by integrating the Lagrange basis
//! polynomials exactly with a Gauss rule (never through a Vandermonde solve, which loses digits
//! quickly as the number of stages grows). A tableau is therefore a compile-time constant:
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
//! Reference: L. O. Jay, *Specialized partitioned additive Runge–Kutta methods for systems of
//! overdetermined DAEs with holonomic constraints*, SIAM J. Numer. Anal. 45 (2007), §3.3
//! (construction), (3.3a–d) (existence conditions) and (4.1a–c) (symplecticity).

/// Upper bound on bisection steps; the loop stops earlier as soon as the bracket cannot shrink.
const MAX_BISECTION_STEPS: usize = 300;

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

/// `P_n(x)` if `derivative` is false, else `P_{n−1}(x) − x P_n(x) = (1 − x²) P_n'(x) / n`, which
/// has the sign of `P_n'` inside `(-1, 1)`.
const fn legendre_fn(n: usize, derivative: bool, x: f64) -> f64 {
    let (p, p_prev) = legendre(n, x);
    if derivative {
        p_prev - x * p
    } else {
        p
    }
}

/// The root of `legendre_fn(n, derivative, ·)` in the bracket `(lo, hi)` (exactly one sign
/// change assumed), by bisection down to adjacent floating-point numbers.
const fn bisect(n: usize, derivative: bool, mut lo: f64, mut hi: f64) -> f64 {
    let f_lo = legendre_fn(n, derivative, lo);
    let mut step = 0;
    while step < MAX_BISECTION_STEPS {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        let f_mid = legendre_fn(n, derivative, mid);
        if f_mid == 0.0 {
            return mid;
        }
        if (f_mid > 0.0) == (f_lo > 0.0) {
            lo = mid;
        } else {
            hi = mid;
        }
        step += 1;
    }
    0.5 * (lo + hi)
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
/// The roots of `P_m` strictly interlace those of `P_{m−1}`, so each is bracketed by two
/// consecutive roots of `P_{m−1}` (or by `±1`); the degrees are raised one at a time.
const fn legendre_roots<const L: usize>(n: usize) -> [f64; L] {
    assert!(n <= L, "buffer too short for the requested Legendre roots");
    let mut x = [0.0; L];
    let mut m = 1;
    while m <= n {
        // x[0..m-1] holds the roots of P_{m-1}; fill x[0..m] with those of P_m, last first so
        // that the brackets are read before being overwritten.
        let mut k = m;
        while k > 0 {
            let i = k - 1;
            let lo = if i == 0 { -1.0 } else { x[i - 1] };
            let hi = if i == m - 1 { 1.0 } else { x[i] };
            x[i] = bisect(m, false, lo, hi);
            k -= 1;
        }
        antisymmetrize(&mut x, m);
        m += 1;
    }
    x
}

/// Roots of `P_n'` on `(-1, 1)` (the `n − 1` interior Lobatto points of the `(n+1)`-point rule),
/// increasing, in the first `n − 1` entries of the buffer (`1 ≤ n ≤ L`). They interlace the roots
/// of `P_n`.
const fn legendre_derivative_roots<const L: usize>(n: usize) -> [f64; L] {
    let g = legendre_roots::<L>(n);
    let mut x = [0.0; L];
    let mut i = 0;
    while i + 1 < n {
        x[i] = bisect(n, true, g[i], g[i + 1]);
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
/// `b_i = (1 − x_i²) / (S² P_{S−1}(x_i)²)` with `x_i = 2 c_i − 1` (the rule is exact for
/// polynomials of degree `2S − 1`, i.e. `B(2S)`).
pub const fn gauss_weights<const S: usize>() -> [f64; S] {
    let c = gauss_nodes::<S>();
    let n = S as f64;
    let mut b = [0.0; S];
    let mut i = 0;
    while i < S {
        let x = 2.0 * c[i] - 1.0;
        let (_, p_prev) = legendre(S, x);
        // 1 − x² = 4 c (1 − c), computed without cancellation.
        b[i] = 4.0 * c[i] * (1.0 - c[i]) / (n * n * p_prev * p_prev);
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
    b
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

/// Lagrange basis polynomial `ℓ_j(x)` of the node set `nodes` (if `with_zero`, of the node set
/// `{0} ∪ nodes`, where index `j = N` denotes the node 0), by the product formula.
const fn lagrange<const N: usize>(nodes: &[f64; N], with_zero: bool, j: usize, x: f64) -> f64 {
    let xj = if j == N { 0.0 } else { nodes[j] };
    let mut v = 1.0;
    let mut m = 0;
    while m < N {
        if m != j {
            v *= (x - nodes[m]) / (xj - nodes[m]);
        }
        m += 1;
    }
    if with_zero && j != N {
        v *= x / xj;
    }
    v
}

/// `∫_0^τ ℓ_j`, by the `N`-point Gauss rule scaled to `[0, τ]`; exact (up to rounding) because
/// `ℓ_j` has degree at most `N ≤ 2N − 1`.
const fn integrate_basis<const N: usize>(
    nodes: &[f64; N],
    with_zero: bool,
    j: usize,
    tau: f64,
    gauss_c: &[f64; N],
    gauss_b: &[f64; N],
) -> f64 {
    let mut sum = 0.0;
    let mut k = 0;
    while k < N {
        sum += gauss_b[k] * lagrange(nodes, with_zero, j, tau * gauss_c[k]);
        k += 1;
    }
    tau * sum
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
    let gc = gauss_nodes::<N>();
    let gb = gauss_weights::<N>();
    let mut a = [[0.0; N]; M];
    let mut i = 0;
    while i < M {
        let mut j = 0;
        while j < N {
            a[i][j] = integrate_basis(nodes, false, j, targets[i], &gc, &gb);
            j += 1;
        }
        i += 1;
    }
    a
}

/// [`collocation_matrix`] for the node set `{0} ∪ nodes` (the nonzero `nodes` given without the
/// leading 0, as arrays of length `N + 1` cannot be written generically). Returns
/// `(a_{·0}, [a_{·j}]_{j=1..N})`: the column of the node 0 and the columns of `nodes`.
pub const fn collocation_matrix_with_zero<const N: usize, const M: usize>(
    nodes: &[f64; N],
    targets: &[f64; M],
) -> ([f64; M], [[f64; N]; M]) {
    let gc = gauss_nodes::<N>();
    let gb = gauss_weights::<N>();
    let mut a0 = [0.0; M];
    let mut a = [[0.0; N]; M];
    let mut i = 0;
    while i < M {
        a0[i] = integrate_basis(nodes, true, N, targets[i], &gc, &gb);
        let mut j = 0;
        while j < N {
            a[i][j] = integrate_basis(nodes, true, j, targets[i], &gc, &gb);
            j += 1;
        }
        i += 1;
    }
    (a0, a)
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
        let c = gauss_nodes::<S>();
        let b = gauss_weights::<S>();
        let a = collocation_matrix(&c, &c);
        let c_lob = lobatto_nodes_after_zero::<S>();
        let (b_lob0, mut b_lob) = quadrature_weights_with_zero(&c_lob);
        // Lobatto weights are symmetric: b~_{s−j} = b~_j (b~_0 = b~_s).
        let mut k = 0;
        while k + 1 < S - k {
            let v = 0.5 * (b_lob[k] + b_lob[S - 2 - k]);
            b_lob[k] = v;
            b_lob[S - 2 - k] = v;
            k += 1;
        }
        b_lob[S - 1] = b_lob0;
        let mut a_bar = collocation_matrix(&c, &c_lob);
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

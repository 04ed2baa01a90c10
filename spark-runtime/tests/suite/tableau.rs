//! Tests of the (s,s)-Gauss–Lobatto SPARK tableaux (Jay, SINUM 45 (2007) §3.3) and of the
//! `const fn` helpers in `spark_runtime::tableau`.
//!
//! Equation numbers refer to Jay 2007 ((3.3a–d), (4.1a–c), (4.2), (4.3)) unless stated
//! otherwise; `B(p)`, `C(q)` are the usual simplifying assumptions. Index conventions follow the
//! paper: Gauss stages `i, j = 1..s`, Lobatto stages `0..s`.
//!
//! Run `cargo test -p spark-runtime --test suite tableau:: -- --nocapture` to see the measured residuals.

// Index loops mirror the paper's subscripts (and the LU below); iterator rewrites obscure them.
#![allow(clippy::needless_range_loop)]

use spark_runtime::tableau::{
    collocation_matrix, legendre, lobatto_nodes, lobatto_nodes_after_zero, quadrature_weights,
    quadrature_weights_with_zero, symplectic_conjugate, GaussLobattoTableau,
};

// Computed at compile time: these are `const` items, and the `const _` assertions below are
// evaluated by the compiler.
const T1: GaussLobattoTableau<1> = GaussLobattoTableau::new();
const T2: GaussLobattoTableau<2> = GaussLobattoTableau::new();
const T3: GaussLobattoTableau<3> = GaussLobattoTableau::new();
const _: () = assert!(T3.b[1] > 0.4444 && T3.b[1] < 0.4445 && T3.c[1] == 0.5);

/// Tolerance on every residual for `S ≤ 4` (the brief's target); larger `S` are held to the same
/// bound too, as the measured residuals stay below it (see `report_residuals`).
const TOL: f64 = 1e-14;

fn tol(_s: usize) -> f64 {
    TOL
}

fn close(x: f64, y: f64, what: &str) {
    assert!(
        (x - y).abs() <= TOL,
        "{what}: {x:e} vs {y:e} (diff {:e})",
        (x - y).abs()
    );
}

// ------------------------------------------------------------------------------------------
// Paper-indexed accessors.

/// `c~_i`, `i = 0..s`.
fn ct<const S: usize>(t: &GaussLobattoTableau<S>, i: usize) -> f64 {
    if i == 0 {
        0.0
    } else {
        t.c_lob[i - 1]
    }
}
/// `b~_i`, `i = 0..s`.
fn bt<const S: usize>(t: &GaussLobattoTableau<S>, i: usize) -> f64 {
    if i == 0 {
        t.b_lob0
    } else {
        t.b_lob[i - 1]
    }
}
/// `ā_ij`, `i = 0..s`, `j = 1..s`.
fn abar<const S: usize>(t: &GaussLobattoTableau<S>, i: usize, j: usize) -> f64 {
    if i == 0 {
        0.0
    } else {
        t.a_bar[i - 1][j - 1]
    }
}
/// `ã_ij`, `i = 1..s`, `j = 0..s`.
fn atil<const S: usize>(t: &GaussLobattoTableau<S>, i: usize, j: usize) -> f64 {
    if j == 0 {
        t.a_til0[i - 1]
    } else {
        t.a_til[i - 1][j - 1]
    }
}
/// `a_ij`, `i, j = 1..s`.
fn a<const S: usize>(t: &GaussLobattoTableau<S>, i: usize, j: usize) -> f64 {
    t.a[i - 1][j - 1]
}
/// `c_i`, `b_i`, `i = 1..s`.
fn c<const S: usize>(t: &GaussLobattoTableau<S>, i: usize) -> f64 {
    t.c[i - 1]
}
fn b<const S: usize>(t: &GaussLobattoTableau<S>, i: usize) -> f64 {
    t.b[i - 1]
}

// ------------------------------------------------------------------------------------------
// Residuals (each returns the max absolute residual of one equation).

/// `Σ b_i = 1`.
fn res_sum_b<const S: usize>(t: &GaussLobattoTableau<S>) -> f64 {
    (t.b.iter().sum::<f64>() - 1.0).abs()
}

/// `B(2s)` for Gauss: `Σ_i b_i c_i^{k−1} = 1/k`, `k = 1..2s`.
fn res_gauss_b2s<const S: usize>(t: &GaussLobattoTableau<S>) -> f64 {
    let mut r: f64 = 0.0;
    for k in 1..=2 * S {
        let q: f64 = (1..=S).map(|i| b(t, i) * c(t, i).powi(k as i32 - 1)).sum();
        r = r.max((q - 1.0 / k as f64).abs());
    }
    r
}

/// `B(2s)` for Lobatto: `Σ_{i=0..s} b~_i c~_i^{k−1} = 1/k`, `k = 1..2s` (`c~_0 = 0`).
fn res_lobatto_b2s<const S: usize>(t: &GaussLobattoTableau<S>) -> f64 {
    let mut r: f64 = 0.0;
    for k in 1..=2 * S {
        let q: f64 = (0..=S)
            .map(|i| bt(t, i) * ct(t, i).powi(k as i32 - 1))
            .sum();
        r = r.max((q - 1.0 / k as f64).abs());
    }
    r
}

/// `C(s)`: `Σ_j a_ij c_j^{k−1} = c_i^k / k`, `i = 1..s`, `k = 1..s`.
fn res_c_s<const S: usize>(t: &GaussLobattoTableau<S>) -> f64 {
    let mut r: f64 = 0.0;
    for i in 1..=S {
        for k in 1..=S {
            let q: f64 = (1..=S)
                .map(|j| a(t, i, j) * c(t, j).powi(k as i32 - 1))
                .sum();
            r = r.max((q - c(t, i).powi(k as i32) / k as f64).abs());
        }
    }
    r
}

/// `C̄(s)` (Jay §3.3, thesis (3.14)): `Σ_j ā_ij c_j^{k−1} = c~_i^k / k`, `i = 0..s`, `k = 1..s`.
fn res_cbar_s<const S: usize>(t: &GaussLobattoTableau<S>) -> f64 {
    let mut r: f64 = 0.0;
    for i in 0..=S {
        for k in 1..=S {
            let q: f64 = (1..=S)
                .map(|j| abar(t, i, j) * c(t, j).powi(k as i32 - 1))
                .sum();
            r = r.max((q - ct(t, i).powi(k as i32) / k as f64).abs());
        }
    }
    r
}

/// `C~(s)` (thesis Lemma 3.2.3): `Σ_{j=0..s} ã_ij c~_j^{k−1} = c_i^k / k`, `i = 1..s`,
/// `k = 1..s`; `k = 1` is the row-sum condition `Σ_j ã_ij = c_i`.
fn res_ctil_s<const S: usize>(t: &GaussLobattoTableau<S>) -> f64 {
    let mut r: f64 = 0.0;
    for i in 1..=S {
        for k in 1..=S {
            let q: f64 = (0..=S)
                .map(|j| atil(t, i, j) * ct(t, j).powi(k as i32 - 1))
                .sum();
            r = r.max((q - c(t, i).powi(k as i32) / k as f64).abs());
        }
    }
    r
}

/// Row sums `Σ_{j=0..s} ã_ij = c_i`, `i = 1..s`.
fn res_row_sums_atil<const S: usize>(t: &GaussLobattoTableau<S>) -> f64 {
    let mut r: f64 = 0.0;
    for i in 1..=S {
        let q: f64 = (0..=S).map(|j| atil(t, i, j)).sum();
        r = r.max((q - c(t, i)).abs());
    }
    r
}

/// (3.3a) `ā_0j = 0` holds by storage; checked here: `ā_ij` row `i = 0` from
/// `collocation_matrix` with target `c~_0 = 0` is zero.
fn res_3_3a<const S: usize>(t: &GaussLobattoTableau<S>) -> f64 {
    let row = collocation_matrix(&t.c, &[0.0]);
    row[0].iter().fold(0.0f64, |m, x| m.max(x.abs()))
}

/// (3.3b) `ā_sj = b_j`.
fn res_3_3b<const S: usize>(t: &GaussLobattoTableau<S>) -> f64 {
    (1..=S).fold(0.0f64, |m, j| m.max((abar(t, S, j) - b(t, j)).abs()))
}

/// (3.3c) `Σ_j ā_ij c_j = Σ_j Σ_k ā_ij a_jk = Σ_j Σ_{k=0..s} ā_ij ã_jk = c~_i² / 2`, `i = 0..s`.
fn res_3_3c<const S: usize>(t: &GaussLobattoTableau<S>) -> f64 {
    let mut r: f64 = 0.0;
    for i in 0..=S {
        let target = ct(t, i) * ct(t, i) / 2.0;
        let s1: f64 = (1..=S).map(|j| abar(t, i, j) * c(t, j)).sum();
        let s2: f64 = (1..=S)
            .flat_map(|j| (1..=S).map(move |k| (j, k)))
            .map(|(j, k)| abar(t, i, j) * a(t, j, k))
            .sum();
        let s3: f64 = (1..=S)
            .flat_map(|j| (0..=S).map(move |k| (j, k)))
            .map(|(j, k)| abar(t, i, j) * atil(t, j, k))
            .sum();
        for v in [s1, s2, s3] {
            r = r.max((v - target).abs());
        }
    }
    r
}

const MAXN: usize = 24;

/// Determinant of the leading `n × n` block by LU with partial pivoting.
fn det(mut m: [[f64; MAXN]; MAXN], n: usize) -> f64 {
    let mut d = 1.0;
    for k in 0..n {
        let p = (k..n)
            .max_by(|&x, &y| m[x][k].abs().total_cmp(&m[y][k].abs()))
            .unwrap();
        if m[p][k] == 0.0 {
            return 0.0;
        }
        if p != k {
            m.swap(p, k);
            d = -d;
        }
        d *= m[k][k];
        for i in k + 1..n {
            let f = m[i][k] / m[k][k];
            for j in k..n {
                m[i][j] -= f * m[k][j];
            }
        }
    }
    d
}

/// (3.3d): `Ā Ã = [0; N]` (first row zero) and `det [N; b~ᵀ]`, `N` the rows `1..s` of `ĀÃ`.
/// Returns `(max |row 0 of ĀÃ|, det)`.
fn det_3_3d<const S: usize>(t: &GaussLobattoTableau<S>) -> (f64, f64) {
    let mut m = [[0.0; MAXN]; MAXN];
    let mut row0: f64 = 0.0;
    for i in 0..=S {
        for j in 0..=S {
            let v: f64 = (1..=S).map(|k| abar(t, i, k) * atil(t, k, j)).sum();
            if i == 0 {
                row0 = row0.max(v.abs());
            } else {
                m[i - 1][j] = v;
            }
        }
    }
    for j in 0..=S {
        m[S][j] = bt(t, j);
    }
    (row0, det(m, S + 1))
}

/// (4.1b) `b_i a_ij + b_j â_ji − b_i b_j = 0` with `Â = A`, `b̂ = b` ((4.1a)).
fn res_4_1b<const S: usize>(t: &GaussLobattoTableau<S>) -> f64 {
    let mut r: f64 = 0.0;
    for i in 1..=S {
        for j in 1..=S {
            r = r.max((b(t, i) * a(t, i, j) + b(t, j) * a(t, j, i) - b(t, i) * b(t, j)).abs());
        }
    }
    r
}

/// (4.1c) `b~_i ā_ij + b_j ã_ji − b~_i b_j = 0`, `i = 0..s`, `j = 1..s` (`ā_0j = 0`).
fn res_4_1c<const S: usize>(t: &GaussLobattoTableau<S>) -> f64 {
    let mut r: f64 = 0.0;
    for i in 0..=S {
        for j in 1..=S {
            let v = bt(t, i) * abar(t, i, j) + b(t, j) * atil(t, j, i) - bt(t, i) * b(t, j);
            r = r.max(v.abs());
        }
    }
    r
}

/// (4.2) `ã_i0 = b~_0` and (4.3) `ã_is = 0`, `i = 1..s` (exact by construction).
fn res_4_2_4_3<const S: usize>(t: &GaussLobattoTableau<S>) -> f64 {
    (1..=S).fold(0.0f64, |m, i| {
        m.max((atil(t, i, 0) - t.b_lob0).abs())
            .max(atil(t, i, S).abs())
    })
}

/// Symmetry of the node sets and weights: `c_i + c_{s+1−i} = 1`, `b_i = b_{s+1−i}`,
/// `c~_i + c~_{s−i} = 1`, `b~_i = b~_{s−i}`, and the closed form `b~_0 = 1/(s(s+1))`.
fn res_symmetry<const S: usize>(t: &GaussLobattoTableau<S>) -> f64 {
    let mut r: f64 = 0.0;
    for i in 1..=S {
        r = r.max((c(t, i) + c(t, S + 1 - i) - 1.0).abs());
        r = r.max((b(t, i) - b(t, S + 1 - i)).abs());
    }
    for i in 0..=S {
        r = r.max((ct(t, i) + ct(t, S - i) - 1.0).abs());
        r = r.max((bt(t, i) - bt(t, S - i)).abs());
    }
    r.max((t.b_lob0 - 1.0 / (S * (S + 1)) as f64).abs())
}

/// Nodes are roots: `P_s(2c_i − 1) = 0`, `P_s'(2c~_i − 1) = 0` (interior), up to the
/// conditioning of the evaluation, and strictly increasing.
fn res_roots<const S: usize>(t: &GaussLobattoTableau<S>) -> f64 {
    let mut r: f64 = 0.0;
    for i in 1..=S {
        r = r.max(legendre(S, 2.0 * c(t, i) - 1.0).0.abs());
        if i > 1 {
            assert!(c(t, i) > c(t, i - 1));
        }
    }
    for i in 1..S {
        let x = 2.0 * ct(t, i) - 1.0;
        let (p, pm) = legendre(S, x);
        r = r.max((pm - x * p).abs());
    }
    for i in 1..=S {
        assert!(ct(t, i) > ct(t, i - 1));
    }
    r
}

// ------------------------------------------------------------------------------------------
// Per-S instantiation.

type Check<const S: usize> = fn(&GaussLobattoTableau<S>) -> f64;

fn checks<const S: usize>() -> [(&'static str, Check<S>); 16] {
    [
        ("sum b = 1", res_sum_b::<S>),
        ("Gauss B(2s)", res_gauss_b2s::<S>),
        ("Lobatto B(2s)", res_lobatto_b2s::<S>),
        ("C(s)", res_c_s::<S>),
        ("Cbar(s)", res_cbar_s::<S>),
        ("Ctil(s)", res_ctil_s::<S>),
        ("row sums atil = c", res_row_sums_atil::<S>),
        ("(3.3a)", res_3_3a::<S>),
        ("(3.3b)", res_3_3b::<S>),
        ("(3.3c)", res_3_3c::<S>),
        ("(3.3d) row 0", |t| det_3_3d(t).0),
        ("(4.1b)", res_4_1b::<S>),
        ("(4.1c)", res_4_1c::<S>),
        ("(4.2),(4.3)", res_4_2_4_3::<S>),
        ("symmetry", res_symmetry::<S>),
        ("roots", res_roots::<S>),
    ]
}

fn run_check<const S: usize>(name: &str) {
    let t = GaussLobattoTableau::<S>::TABLEAU;
    let (_, f) = checks::<S>().into_iter().find(|(n, _)| *n == name).unwrap();
    let r = f(&t);
    assert!(r <= tol(S), "s = {S}: {name} residual {r:e} > {:e}", tol(S));
}

/// `(max residual over all checks except "roots", name of the worst check, det [N; b~ᵀ])`.
fn max_residual<const S: usize>() -> (f64, &'static str, f64) {
    let t = GaussLobattoTableau::<S>::TABLEAU;
    let (worst, r) = checks::<S>()
        .iter()
        .filter(|(n, _)| *n != "roots")
        .map(|(n, f)| (*n, f(&t)))
        .fold(("", 0.0f64), |m, x| if x.1 > m.1 { x } else { m });
    (r, worst, det_3_3d(&t).1)
}

macro_rules! per_s {
    ($($m:ident: $s:literal),* $(,)?) => {$(
        mod $m {
            use super::*;
            #[test] fn sum_b() { run_check::<$s>("sum b = 1") }
            #[test] fn gauss_quadrature_b2s() { run_check::<$s>("Gauss B(2s)") }
            #[test] fn lobatto_quadrature_b2s() { run_check::<$s>("Lobatto B(2s)") }
            #[test] fn collocation_c_s() { run_check::<$s>("C(s)") }
            #[test] fn abar_cbar_s() { run_check::<$s>("Cbar(s)") }
            #[test] fn atil_ctil_s() { run_check::<$s>("Ctil(s)") }
            #[test] fn atil_row_sums() { run_check::<$s>("row sums atil = c") }
            #[test] fn eq_3_3a() { run_check::<$s>("(3.3a)") }
            #[test] fn eq_3_3b() { run_check::<$s>("(3.3b)") }
            #[test] fn eq_3_3c() { run_check::<$s>("(3.3c)") }
            #[test] fn eq_3_3d_first_row_zero() { run_check::<$s>("(3.3d) row 0") }
            #[test] fn eq_4_1b() { run_check::<$s>("(4.1b)") }
            #[test] fn eq_4_1c() { run_check::<$s>("(4.1c)") }
            #[test] fn eq_4_2_and_4_3() { run_check::<$s>("(4.2),(4.3)") }
            #[test] fn symmetry_and_b_lob0() { run_check::<$s>("symmetry") }
            #[test] fn nodes_are_roots() { run_check::<$s>("roots") }
            /// (3.3d): `[N; b~ᵀ]` is invertible.
            #[test] fn eq_3_3d_invertible() {
                let d = det_3_3d(&GaussLobattoTableau::<$s>::TABLEAU).1;
                assert!(d.is_finite() && d.abs() > 0.0, "s = {}: det = {d:e}", $s);
            }
        }
    )*};
}

per_s!(s1: 1, s2: 2, s3: 3, s4: 4, s5: 5, s6: 6, s7: 7, s8: 8, s9: 9, s10: 10);

/// (3.3d): `det [N; b~ᵀ]` = 0.25, 3.47e-3, 2.32e-5, 8.86e-8 for s = 1..4 (guide §3.8; exactly
/// 1/4, 1/288, 1/43200 for s = 1..3, thesis §3.1), to 1 %.
#[test]
fn eq_3_3d_determinants_match_guide() {
    let d = [
        det_3_3d(&GaussLobattoTableau::<1>::TABLEAU).1,
        det_3_3d(&GaussLobattoTableau::<2>::TABLEAU).1,
        det_3_3d(&GaussLobattoTableau::<3>::TABLEAU).1,
        det_3_3d(&GaussLobattoTableau::<4>::TABLEAU).1,
    ];
    let expected = [0.25, 3.47e-3, 2.32e-5, 8.86e-8];
    for (s, (got, want)) in d.iter().zip(expected).enumerate() {
        assert!(
            (got.abs() - want).abs() <= 0.01 * want,
            "s = {}: det {got:e}, expected {want:e}",
            s + 1
        );
    }
    assert!((d[0] - 0.25).abs() < 1e-15);
    assert!((d[1].abs() - 1.0 / 288.0).abs() < 1e-15);
    assert!((d[2].abs() - 1.0 / 43200.0).abs() < 1e-17);
}

/// Prints the max residual over all checks, and `det [N; b~ᵀ]`, per `S`.
#[test]
fn report_residuals() {
    let rows = [
        (1, max_residual::<1>()),
        (2, max_residual::<2>()),
        (3, max_residual::<3>()),
        (4, max_residual::<4>()),
        (5, max_residual::<5>()),
        (6, max_residual::<6>()),
        (7, max_residual::<7>()),
        (8, max_residual::<8>()),
        (9, max_residual::<9>()),
        (10, max_residual::<10>()),
        (12, max_residual::<12>()),
        (16, max_residual::<16>()),
        (20, max_residual::<20>()),
    ];
    for (s, (r, worst, d)) in rows {
        println!("s = {s:2}: max residual {r:.2e} ({worst})   det[N; b~^T] = {d:.3e}");
        if s <= 10 {
            assert!(r <= tol(s));
        }
    }
}

// ------------------------------------------------------------------------------------------
// Printed tables.

/// (1,1)-Gauss–Lobatto, Jay 2007 §3.3 (guide-papers §3.3): c = 1/2, A = 1/2, b = 1,
/// Ã = [1/2, 0], b~ = (1/2, 1/2), c~ = (0, 1), Ā = [0; 1].
#[test]
fn printed_table_s1() {
    let t = T1;
    close(t.c[0], 0.5, "c");
    close(t.b[0], 1.0, "b");
    close(t.a[0][0], 0.5, "A");
    close(t.c_lob[0], 1.0, "c~_1");
    close(t.b_lob0, 0.5, "b~_0");
    close(t.b_lob[0], 0.5, "b~_1");
    close(t.a_bar[0][0], 1.0, "ā_11");
    close(t.a_til0[0], 0.5, "ã_10");
    close(t.a_til[0][0], 0.0, "ã_11");
}

/// (2,2)-Gauss–Lobatto, Jay 2007 §3.3 (guide-papers §3.3).
#[test]
#[rustfmt::skip]
fn printed_table_s2() {
    let t = T2;
    let r3 = 3f64.sqrt();
    close(t.c[0], 0.5 - r3 / 6.0, "c_1");
    close(t.c[1], 0.5 + r3 / 6.0, "c_2");
    close(t.b[0], 0.5, "b_1");
    close(t.b[1], 0.5, "b_2");
    let a = [[0.25, 0.25 - r3 / 6.0], [0.25 + r3 / 6.0, 0.25]];
    let at = [[1.0 / 6.0, 1.0 / 3.0 - r3 / 6.0, 0.0], [1.0 / 6.0, 1.0 / 3.0 + r3 / 6.0, 0.0]];
    let ab = [[0.25 + r3 / 8.0, 0.25 - r3 / 8.0], [0.5, 0.5]];
    for i in 0..2 {
        for j in 0..2 {
            close(t.a[i][j], a[i][j], "A");
            close(t.a_bar[i][j], ab[i][j], "Ā");
            close(t.a_til[i][j], at[i][j + 1], "Ã");
        }
        close(t.a_til0[i], at[i][0], "Ã col 0");
    }
    close(t.b_lob0, 1.0 / 6.0, "b~_0");
    close(t.b_lob[0], 2.0 / 3.0, "b~_1");
    close(t.b_lob[1], 1.0 / 6.0, "b~_2");
    close(t.c_lob[0], 0.5, "c~_1");
    close(t.c_lob[1], 1.0, "c~_2");
}

/// (3,3)-Gauss–Lobatto: guide-thesis §3.5 / guide-papers §3.5 (exact c, b, A, c~, b~; Ā and Ã
/// to 16 printed digits).
#[test]
#[rustfmt::skip]
fn printed_table_s3() {
    let t = T3;
    let r15 = 15f64.sqrt();
    let r5 = 5f64.sqrt();
    let c = [0.5 - r15 / 10.0, 0.5, 0.5 + r15 / 10.0];
    let b = [5.0 / 18.0, 4.0 / 9.0, 5.0 / 18.0];
    let a = [
        [5.0 / 36.0,              2.0 / 9.0 - r15 / 15.0, 5.0 / 36.0 - r15 / 30.0],
        [5.0 / 36.0 + r15 / 24.0, 2.0 / 9.0,              5.0 / 36.0 - r15 / 24.0],
        [5.0 / 36.0 + r15 / 30.0, 2.0 / 9.0 + r15 / 15.0, 5.0 / 36.0],
    ];
    let c_lob = [0.5 - r5 / 10.0, 0.5 + r5 / 10.0, 1.0];
    let b_lob = [1.0 / 12.0, 5.0 / 12.0, 5.0 / 12.0, 1.0 / 12.0];
    let a_bar = [
        [0.2555657338874706, 0.023460624222240916, -0.0026331558596905057],
        [0.2804109336374683, 0.42098382022220354,   0.02221204389030716],
        [5.0 / 18.0,         4.0 / 9.0,             5.0 / 18.0],
    ];
    let a_til = [
        [1.0 / 12.0, 0.033318065835460736, -0.003949733789535758, 0.0],
        [1.0 / 12.0, 0.3946723314583158,    0.021994335208350858, 0.0],
        [1.0 / 12.0, 0.4206164004562024,    0.3833486008312059,   0.0],
    ];
    close(t.b_lob0, b_lob[0], "b~_0");
    for i in 0..3 {
        close(t.c[i], c[i], "c");
        close(t.b[i], b[i], "b");
        close(t.c_lob[i], c_lob[i], "c~");
        close(t.b_lob[i], b_lob[i + 1], "b~");
        close(t.a_til0[i], a_til[i][0], "ã_i0");
        for j in 0..3 {
            close(t.a[i][j], a[i][j], "A");
            close(t.a_bar[i][j], a_bar[i][j], "Ā");
            close(t.a_til[i][j], a_til[i][j + 1], "Ã");
        }
    }
}

// ------------------------------------------------------------------------------------------
// Helpers reused by other methods.

/// `lobatto_nodes` / `quadrature_weights` / `collocation_matrix` reproduce Lobatto IIIA for
/// s = 3 (guide-papers §3.5), and `symplectic_conjugate` gives Lobatto IIIB.
#[test]
#[rustfmt::skip]
fn lobatto_iiia_iiib_s3() {
    const C: [f64; 3] = lobatto_nodes::<3>();
    const B: [f64; 3] = quadrature_weights(&C);
    const A: [[f64; 3]; 3] = collocation_matrix(&C, &C);
    const AH: [[f64; 3]; 3] = symplectic_conjugate(&A, &B, &B);
    let c = [0.0, 0.5, 1.0];
    let b = [1.0 / 6.0, 2.0 / 3.0, 1.0 / 6.0];
    let iiia = [[0.0, 0.0, 0.0], [5.0 / 24.0, 1.0 / 3.0, -1.0 / 24.0], [1.0 / 6.0, 2.0 / 3.0, 1.0 / 6.0]];
    let iiib = [[1.0 / 6.0, -1.0 / 6.0, 0.0], [1.0 / 6.0, 1.0 / 3.0, 0.0], [1.0 / 6.0, 5.0 / 6.0, 0.0]];
    for i in 0..3 {
        close(C[i], c[i], "Lobatto c");
        close(B[i], b[i], "Lobatto b");
        for j in 0..3 {
            close(A[i][j], iiia[i][j], "IIIA");
            close(AH[i][j], iiib[i][j], "IIIB");
        }
    }
}

/// The split Lobatto helpers agree with the full ones: `lobatto_nodes_after_zero::<S>()` is
/// `lobatto_nodes::<S+1>()` without its first entry, and `quadrature_weights_with_zero` agrees
/// with `quadrature_weights`; Lobatto weights are positive.
#[test]
fn split_helpers_agree() {
    const FULL: [f64; 6] = lobatto_nodes::<6>();
    const TAIL: [f64; 5] = lobatto_nodes_after_zero::<5>();
    let w_full = quadrature_weights(&FULL);
    let (w0, w_tail) = quadrature_weights_with_zero(&TAIL);
    assert_eq!(FULL[0], 0.0);
    close(w_full[0], w0, "b~_0");
    for i in 0..5 {
        close(FULL[i + 1], TAIL[i], "c~");
        close(w_full[i + 1], w_tail[i], "b~");
    }
    let q = quadrature_weights(&lobatto_nodes::<7>());
    assert!(q.iter().all(|&w| w > 0.0));
    close(q.iter().sum(), 1.0, "sum of Lobatto weights");
}

// ---------------------------------------------------------------------------------------------
// Lobatto IIIA, IIIB, IIIC, IIIC*, IIID and the Lagrange-d'Alembert SPARK conditions (Jay,
// Lagrange-d'Alembert SPARK integrators, (6.2a,b) and (6.3a-d)).
// ---------------------------------------------------------------------------------------------

mod lobatto_family {
    use spark_runtime::tableau::{
        lobatto_iiia, lobatto_iiib, lobatto_iiic, lobatto_iiic_star, lobatto_iiid, lobatto_rule,
    };
    use spark_runtime::{LobattoIIIAB, LobattoIIIABD, SparkTableau};

    fn same<const S: usize>(what: &str, got: &[[f64; S]; S], want: &[[f64; S]; S]) {
        for i in 0..S {
            for j in 0..S {
                assert!(
                    (got[i][j] - want[i][j]).abs() <= 1e-15,
                    "{what}[{i}][{j}] = {} instead of {}",
                    got[i][j],
                    want[i][j]
                );
            }
        }
    }

    #[test]
    fn s2_and_s3_match_the_printed_values() {
        // guide §3.4 (004's printed s = 2 tables) and §3.5 (s = 3).
        same("IIIA2", &lobatto_iiia::<2>(), &[[0.0, 0.0], [0.5, 0.5]]);
        same("IIIB2", &lobatto_iiib::<2>(), &[[0.5, 0.0], [0.5, 0.0]]);
        same("IIIC2", &lobatto_iiic::<2>(), &[[0.5, -0.5], [0.5, 0.5]]);
        same(
            "IIIC*2",
            &lobatto_iiic_star::<2>(),
            &[[0.0, 0.0], [1.0, 0.0]],
        );
        same(
            "IIID2",
            &lobatto_iiid::<2>(),
            &[[0.25, -0.25], [0.75, 0.25]],
        );
        let (c, b) = lobatto_rule::<3>();
        assert_eq!(c, [0.0, 0.5, 1.0]);
        assert!((b[0] - 1.0 / 6.0).abs() < 1e-15 && (b[1] - 2.0 / 3.0).abs() < 1e-15);
        let (x, y, z) = (1.0 / 6.0, 1.0 / 3.0, 1.0 / 12.0);
        same(
            "IIIA3",
            &lobatto_iiia::<3>(),
            &[
                [0.0, 0.0, 0.0],
                [5.0 / 24.0, y, -1.0 / 24.0],
                [x, 2.0 / 3.0, x],
            ],
        );
        same(
            "IIIB3",
            &lobatto_iiib::<3>(),
            &[[x, -x, 0.0], [x, y, 0.0], [x, 5.0 / 6.0, 0.0]],
        );
        same(
            "IIIC3",
            &lobatto_iiic::<3>(),
            &[[x, -y, x], [x, 5.0 / 12.0, -z], [x, 2.0 / 3.0, x]],
        );
        same(
            "IIIC*3",
            &lobatto_iiic_star::<3>(),
            &[[0.0, 0.0, 0.0], [0.25, 0.25, 0.0], [0.0, 1.0, 0.0]],
        );
        same(
            "IIID3",
            &lobatto_iiid::<3>(),
            &[[z, -x, z], [5.0 / 24.0, y, -1.0 / 24.0], [z, 5.0 / 6.0, z]],
        );
    }

    /// Max residual of (6.2a,b) and (6.3a-d) for a Lagrange-d'Alembert SPARK tableau.
    fn conditions<const S: usize>(t: &SparkTableau<S>) -> (f64, f64) {
        let mut r62 = 0.0f64;
        let mut r63 = 0.0f64;
        // (6.2a) b̂ = b holds by storage (one vector); (6.2b):
        for i in 0..S {
            for j in 0..S {
                r62 =
                    r62.max((t.b[i] * t.a[i][j] + t.b[j] * t.a_hat[j][i] - t.b[i] * t.b[j]).abs());
            }
        }
        for i in 0..S {
            let ii = S - 1 - i;
            r63 = r63.max((t.c[ii] + t.c[i] - 1.0).abs());
            // b̃ (b_nh) = b̂ = b: (6.3b-d) then share the right-hand side b_j.
            r63 = r63.max((t.b_nh[i] - t.b[i]).abs());
            for j in 0..S {
                let jj = S - 1 - j;
                r63 = r63.max((t.a[ii][jj] + t.a[i][j] - t.b[j]).abs());
                r63 = r63.max((t.a_hat[ii][jj] + t.a_hat[i][j] - t.b[j]).abs());
                r63 = r63.max((t.a_nh[ii][jj] + t.a_nh[i][j] - t.b_nh[j]).abs());
            }
            // Stiffly accurate IIIA: last row b (and the step end sits at c_S = 1).
            r63 = r63.max((t.a[S - 1][i] - t.b[i]).abs());
        }
        (r62, r63)
    }

    fn check<const S: usize>() {
        for (name, t) in [
            ("IIIA-B", LobattoIIIAB::<S>::TABLEAU),
            ("IIIA-B-D", LobattoIIIABD::<S>::TABLEAU),
        ] {
            let (r62, r63) = conditions(&t);
            eprintln!("{name} S={S}: (6.2) residual {r62:e}, (6.3) residual {r63:e}");
            assert!(r62 < 1e-15 && r63 < 1e-15, "{name} S={S}: {r62:e} {r63:e}");
            // Row sums of IIID and IIIC, IIIC* are c (C(1)); IIIB has row sums c for S ≥ 3.
            for i in 0..S {
                let sum: f64 = t.a_nh[i].iter().sum();
                if name == "IIIA-B-D" || S >= 3 {
                    assert!((sum - t.c[i]).abs() < 1e-15, "{name} S={S} row {i}: {sum}");
                }
            }
        }
    }

    #[test]
    fn conditions_6_2_and_6_3_hold_for_s_2_3_4() {
        check::<2>();
        check::<3>();
        check::<4>();
    }

    #[test]
    fn iiic_and_iiic_star_satisfy_c_s_minus_1_for_s_up_to_6() {
        fn one<const S: usize>() {
            let (c, b) = lobatto_rule::<S>();
            let (x, y) = (lobatto_iiic::<S>(), lobatto_iiic_star::<S>());
            for i in 0..S {
                assert!((x[i][0] - b[0]).abs() < 1e-15 && y[i][S - 1] == 0.0);
                for k in 1..S {
                    let want = c[i].powi(k as i32) / k as f64;
                    let sx: f64 = (0..S).map(|j| x[i][j] * c[j].powi(k as i32 - 1)).sum();
                    let sy: f64 = (0..S).map(|j| y[i][j] * c[j].powi(k as i32 - 1)).sum();
                    assert!((sx - want).abs() < 1e-14 && (sy - want).abs() < 1e-14);
                }
            }
        }
        one::<2>();
        one::<3>();
        one::<4>();
        one::<5>();
        one::<6>();
    }
}

//! The coefficients of an (s, s̃)-SPARK method (Jay 2007, Definition 3.1) in the storage the
//! steps use, and the coefficients derived from them at compile time.

/// Coefficients of an (s, s̃)-SPARK method in the storage the step uses.
///
/// Arrays have `S` slots; the Lobatto-type quantities use the first `s_tilde` of them. Index 0 of
/// the constraint nodes is split out (`c̃_0 = 0`, `ā_0j = 0`): `b_lob0 = b̃_0`, `a_til0[i] = ã_i0`,
/// `c_lob[i] = c̃_{i+1}`, `b_lob[i] = b̃_{i+1}`, `a_bar[i][j] = ā_{i+1,j}`, `a_til[i][j] = ã_{i,j+1}`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SparkTableau<const S: usize> {
    /// Stage times `c_i` (row sums of `A`).
    pub c: [f64; S],
    /// Weights `b_j` (= `b̂_j`, (4.1a)).
    pub b: [f64; S],
    /// `A`: stage positions `Q_i = q0 + h Σ a_ij V_j`.
    pub a: [[f64; S]; S],
    /// `Â`: the forces in the stage momenta.
    pub a_hat: [[f64; S]; S],
    /// `s̃`: the constraint nodes are `c̃_0 = 0 < ... < c̃_s̃ = 1`; `s̃ ∈ {S - 1, S}`.
    pub s_tilde: usize,
    /// `c̃_1..c̃_s̃`.
    pub c_lob: [f64; S],
    /// `b̃_0`.
    pub b_lob0: f64,
    /// `b̃_1..b̃_s̃`.
    pub b_lob: [f64; S],
    /// `ā_ij`, `i = 1..s̃`.
    pub a_bar: [[f64; S]; S],
    /// `ã_i0`.
    pub a_til0: [f64; S],
    /// `ã_ij`, `j = 1..s̃`.
    pub a_til: [[f64; S]; S],
    /// Reaction tableau of the nonholonomic constraints (Jay's Lagrange-d'Alembert SPARK
    /// methods, (6.1b)): the stage momenta contain `h Σ_j a_nh[i][j] R_j` with
    /// `R_j = −k_v(T_j, Q_j, V_j)ᵀ Ψ_j`. `A` for Gauss-Lobatto SPARK, Lobatto IIIB for the
    /// Lobatto IIIA-B methods, Lobatto IIID for IIIA-B-D. Unused by the holonomic steps.
    pub a_nh: [[f64; S]; S],
    /// Weights of the nonholonomic reactions in the end momentum (`b̃` of (6.1d)); `b` for
    /// every method provided.
    pub b_nh: [f64; S],
    /// Derived from the fields above by [`SparkTableau::derive`]: what the block-structured
    /// simplified Newton iteration of the holonomic step needs.
    pub kron: KroneckerCoefficients<S>,
}

/// Coefficients of the block-structured simplified Newton matrix of the holonomic stage system
/// (see the `stage_matrix` module): the reaction weights `Ã'_ij` (`ã_i0` for `j = 0`, `ã_ij`
/// for `1 ≤ j < s̃`, zero beyond) and the inverse of `P = Ā'Ã'` (`s̃ × s̃`, zero beyond).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KroneckerCoefficients<const S: usize> {
    /// `Ã'`.
    pub a_til: [[f64; S]; S],
    /// `(Ā'Ã')⁻¹`.
    pub p_inv: [[f64; S]; S],
    /// `false` when `Ā'Ã'` is singular (the step then uses full Newton).
    pub invertible: bool,
}

impl<const S: usize> KroneckerCoefficients<S> {
    /// Placeholder for a tableau literal; [`SparkTableau::derive`] fills it in.
    pub const UNSET: Self = Self {
        a_til: [[0.0; S]; S],
        p_inv: [[0.0; S]; S],
        invertible: false,
    };
}

impl<const S: usize> SparkTableau<S> {
    /// Computes the derived coefficients ([`SparkTableau::kron`]) from the others; `const`, so
    /// method types evaluate it at compile time.
    pub const fn derive(mut self) -> Self {
        let st = self.s_tilde;
        let mut a_til = [[0.0; S]; S];
        let mut i = 0;
        while i < S {
            a_til[i][0] = self.a_til0[i];
            let mut j = 1;
            while j < st {
                a_til[i][j] = self.a_til[i][j - 1];
                j += 1;
            }
            i += 1;
        }
        let mut p = [[0.0; S]; S];
        i = 0;
        while i < st {
            let mut j = 0;
            while j < st {
                let mut k = 0;
                while k < S {
                    p[i][j] += self.a_bar[i][k] * a_til[k][j];
                    k += 1;
                }
                j += 1;
            }
            i += 1;
        }
        // Gauss-Jordan with partial pivoting on the leading s̃ × s̃ block.
        let mut inv = [[0.0; S]; S];
        i = 0;
        while i < st {
            inv[i][i] = 1.0;
            i += 1;
        }
        let mut invertible = st >= 1;
        let mut k = 0;
        while k < st && invertible {
            let mut piv = k;
            let mut r = k + 1;
            while r < st {
                if p[r][k].abs() > p[piv][k].abs() {
                    piv = r;
                }
                r += 1;
            }
            if p[piv][k].abs() <= 1e-14 {
                invertible = false;
            } else {
                let (rp, ri) = (p[piv], inv[piv]);
                p[piv] = p[k];
                inv[piv] = inv[k];
                p[k] = rp;
                inv[k] = ri;
                let d = 1.0 / p[k][k];
                let mut c = 0;
                while c < st {
                    p[k][c] *= d;
                    inv[k][c] *= d;
                    c += 1;
                }
                r = 0;
                while r < st {
                    if r != k {
                        let f = p[r][k];
                        c = 0;
                        while c < st {
                            p[r][c] -= f * p[k][c];
                            inv[r][c] -= f * inv[k][c];
                            c += 1;
                        }
                    }
                    r += 1;
                }
            }
            k += 1;
        }
        self.kron = KroneckerCoefficients {
            a_til,
            p_inv: inv,
            invertible,
        };
        self
    }
}

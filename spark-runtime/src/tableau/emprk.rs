//! The coefficients of the (s,s)-Gauss-Lobatto EMPRK method (Small 2011, §6.2.1).

use crate::tableau::spark::SparkTableau;

/// Coefficients of the (s,s)-Gauss-Lobatto EMPRK method: those of the (s,s)-Gauss-Lobatto SPARK
/// method plus `Ǎ`, the Lobatto IIIA matrix on the nodes `c̃_0 = 0 < c̃_1 < … < c̃_s = 1`
/// (thesis §6.2.1: `ǎ_ij = ∫_0^{c̃_i} ℓ̃_j`, `ℓ̃_j` the Lagrange basis on the Lobatto nodes).
///
/// Row `i = 0` of `Ǎ` is zero (6.6c) and is not stored; row `s` equals the Lobatto weights
/// `b̃` exactly (6.6d); the row sums are `c̃_i` (6.7e).
///
/// ```
/// use spark_runtime::Emprk;
/// let t = Emprk::<2>::TABLEAU;
/// // Lobatto IIIA with three stages: row c̃_1 = 1/2 is (5/24, 1/3, −1/24).
/// assert!((t.a_chk0[0] - 5.0 / 24.0).abs() < 1e-15);
/// assert!((t.a_chk[0][0] - 1.0 / 3.0).abs() < 1e-15);
/// assert!((t.a_chk[0][1] + 1.0 / 24.0).abs() < 1e-15);
/// assert_eq!((t.a_chk0[1], t.a_chk[1]), (t.spark.b_lob0, t.spark.b_lob));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EmprkTableau<const S: usize> {
    /// The (s,s)-Gauss-Lobatto SPARK coefficients (`A`, `b`, `c`, `Ā`, `Ã`, `b̃`, `c̃`).
    pub spark: SparkTableau<S>,
    /// `ǎ_i0`, `i = 1..s`, as `a_chk0[i-1]`.
    pub a_chk0: [f64; S],
    /// `ǎ_ij`, `i = 1..s`, `j = 1..s`, as `a_chk[i-1][j-1]`.
    pub a_chk: [[f64; S]; S],
}

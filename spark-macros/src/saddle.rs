//! Sparse factorization of the holonomic step's simplified Newton blocks, planned at macro time.
//!
//! The runtime's block elimination (`spark_runtime::model::saddle`) needs `L⁻¹x` for the mass
//! matrix `L = ∂²L/∂v²`, `G x` and `Gᵀy` for the constraint Jacobian, and `S⁻¹y` for the Schur
//! complement `S = G L⁻¹ Gᵀ`. The macro knows which entries of `L` and `G` are identically zero,
//! so it plans everything here on patterns alone:
//!
//! 1. a fill-reducing elimination order of `L` (minimum degree), and the pattern of its
//!    `LDLᵀ` factor;
//! 2. the pattern of `Y = L_f⁻¹ Pᵀ Gᵀ` and of `S = Yᵀ D⁻¹ Y`;
//! 3. a minimum-degree order of `S` and the pattern of its `LDLᵀ` factor.
//!
//! Then it emits straight-line code that carries out the numeric factorization and the solves
//! by running the dense algorithms on a matrix of [`Sym`] values: an operation with a structural
//! zero operand emits nothing, so the code does exactly the work the sparsity requires. The
//! factors' values live in the runtime's `SaddleStore`, one slot per nonzero.

// The algorithms index rows and columns the way the matrix formulas write them.
#![allow(clippy::needless_range_loop)]

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// How many slots the runtime's `SaddleStore` has per coordinate and per constraint
/// (`spark_runtime::model::saddle::SADDLE_WIDTH`).
pub const WIDTH: usize = 8;

/// A fill-reducing elimination order of the symmetric pattern `pattern` (minimum degree,
/// ties to the lowest index): `order[k]` is the original index eliminated `k`-th.
pub fn minimum_degree(pattern: &[Vec<bool>]) -> Vec<usize> {
    let n = pattern.len();
    let mut adj: Vec<Vec<bool>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| i != j && (pattern[i][j] || pattern[j][i]))
                .collect()
        })
        .collect();
    let mut done = vec![false; n];
    let mut order = Vec::with_capacity(n);
    for _ in 0..n {
        let degree = |i: usize| (0..n).filter(|&j| !done[j] && adj[i][j]).count();
        let pick = (0..n)
            .filter(|&i| !done[i])
            .min_by_key(|&i| (degree(i), i))
            .expect("a node is left");
        let nbrs: Vec<usize> = (0..n).filter(|&j| !done[j] && adj[pick][j]).collect();
        for &a in &nbrs {
            for &b in &nbrs {
                if a != b {
                    adj[a][b] = true;
                }
            }
        }
        done[pick] = true;
        order.push(pick);
    }
    order
}

/// The lower-triangular pattern (diagonal included) of the `LDLᵀ` factor of the symmetric
/// pattern `pattern` permuted by `order` (row/column `k` is original `order[k]`).
#[cfg(test)]
fn factor_pattern(pattern: &[Vec<bool>], order: &[usize]) -> Vec<Vec<bool>> {
    let n = order.len();
    let mut a: Vec<Vec<bool>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| {
                    let (oi, oj) = (order[i], order[j]);
                    i == j || pattern[oi][oj] || pattern[oj][oi]
                })
                .collect()
        })
        .collect();
    for k in 0..n {
        for i in k + 1..n {
            if !a[i][k] {
                continue;
            }
            for j in k + 1..=i {
                if a[j][k] {
                    a[i][j] = true;
                    a[j][i] = true;
                }
            }
        }
    }
    (0..n)
        .map(|i| (0..n).map(|j| j <= i && a[i][j]).collect())
        .collect()
}

/// A value in the symbolic run of a dense algorithm: identically zero, or the expression
/// (a local or a store slot) that holds it at run time.
#[derive(Clone)]
enum Sym {
    Zero,
    Val(TokenStream),
}

impl Sym {
    fn is_zero(&self) -> bool {
        matches!(self, Sym::Zero)
    }
}

/// Straight-line code being emitted, with fresh local names.
struct Code {
    out: TokenStream,
    next: usize,
}

impl Code {
    fn new() -> Self {
        Self {
            out: TokenStream::new(),
            next: 0,
        }
    }

    /// `let __sK = e;` and the new local.
    fn bind(&mut self, e: TokenStream) -> TokenStream {
        let id = format_ident!("__s{}", self.next);
        self.next += 1;
        self.out.extend(quote!(let #id = #e;));
        quote!(#id)
    }

    /// `acc − a·b`, skipping structural zeros.
    fn sub_mul(&mut self, acc: Sym, a: &Sym, b: &Sym) -> Sym {
        match (a, b) {
            (Sym::Val(a), Sym::Val(b)) => match acc {
                Sym::Zero => Sym::Val(self.bind(quote!(-(#a * #b)))),
                Sym::Val(c) => Sym::Val(self.bind(quote!(#c - #a * #b))),
            },
            _ => acc,
        }
    }

    /// `acc + a·b`, skipping structural zeros.
    fn add_mul(&mut self, acc: Sym, a: &Sym, b: &Sym) -> Sym {
        match (a, b) {
            (Sym::Val(a), Sym::Val(b)) => match acc {
                Sym::Zero => Sym::Val(self.bind(quote!(#a * #b))),
                Sym::Val(c) => Sym::Val(self.bind(quote!(#c + #a * #b))),
            },
            _ => acc,
        }
    }
}

/// Slots of the store: the first `WIDTH · n` in `store.n`, the rest in `store.m`.
struct Slots {
    n_room: usize,
    used: usize,
}

impl Slots {
    /// The next free slot, as an expression.
    fn take(&mut self) -> TokenStream {
        let k = self.used;
        self.used += 1;
        if k < self.n_room {
            quote!(store.n[#k])
        } else {
            let j = k - self.n_room;
            quote!(store.m[#j])
        }
    }
}

/// A symmetric matrix factored as `Pᵀ A P = L_f D L_fᵀ`: where each factor value is stored.
struct Factor {
    order: Vec<usize>,
    /// `1/d_k`.
    inv_d: Vec<TokenStream>,
    /// Strictly lower entries of `L_f`, by column: `(row, slot)`.
    lower: Vec<Vec<(usize, TokenStream)>>,
}

/// Emits the numeric `LDLᵀ` factorization of the symmetric matrix `a` (lower triangle read,
/// in original numbering) in the order `order`; every pivot is checked positive and finite
/// into `ok`, and the pivots are collected into `pivots`.
fn factor(
    code: &mut Code,
    slots: &mut Slots,
    a: &[Vec<Sym>],
    order: &[usize],
    pivots: &mut Vec<TokenStream>,
) -> Factor {
    let n = order.len();
    let mut w: Vec<Vec<Sym>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| {
                    let (oi, oj) = (order[i].max(order[j]), order[i].min(order[j]));
                    a[oi][oj].clone()
                })
                .collect()
        })
        .collect();
    let mut inv_d = Vec::with_capacity(n);
    let mut lower = Vec::with_capacity(n);
    for k in 0..n {
        let d = match &w[k][k] {
            Sym::Val(d) => d.clone(),
            Sym::Zero => quote!(0.0),
        };
        let d = code.bind(d);
        code.out.extend(quote!(ok &= #d > 0.0 && #d <= f64::MAX;));
        pivots.push(d.clone());
        let inv_slot = slots.take();
        code.out.extend(quote!(#inv_slot = 1.0 / #d;));
        let inv = code.bind(inv_slot.clone());
        inv_d.push(inv_slot);
        let mut col = Vec::new();
        let mut scaled: Vec<Sym> = vec![Sym::Zero; n];
        for (i, s) in scaled.iter_mut().enumerate().skip(k + 1) {
            if let Sym::Val(x) = &w[i][k] {
                let slot = slots.take();
                code.out.extend(quote!(#slot = #x * #inv;));
                *s = Sym::Val(code.bind(slot.clone()));
                col.push((i, slot));
            }
        }
        // Right-looking update of the trailing lower triangle: a_ij −= l_ik a_jk.
        for i in k + 1..n {
            if scaled[i].is_zero() {
                continue;
            }
            for j in k + 1..=i {
                let ajk = w[j][k].clone();
                let acc = std::mem::replace(&mut w[i][j], Sym::Zero);
                w[i][j] = code.sub_mul(acc, &scaled[i], &ajk);
            }
        }
        lower.push(col);
    }
    Factor {
        order: order.to_vec(),
        inv_d,
        lower,
    }
}

/// Emits `x ← A⁻¹ x` with the factor `f`, `x` an `SVector` named `x`.
fn solve(f: &Factor) -> TokenStream {
    let n = f.order.len();
    let mut code = Code::new();
    let mut y: Vec<TokenStream> = f.order.iter().map(|&o| code.bind(quote!(x[#o]))).collect();
    // L_f z = Pᵀ x.
    for k in 0..n {
        for (i, l) in &f.lower[k] {
            let (yi, yk) = (&y[*i], &y[k]);
            y[*i] = code.bind(quote!(#yi - #l * #yk));
        }
    }
    for k in 0..n {
        let (yk, inv) = (&y[k], &f.inv_d[k]);
        y[k] = code.bind(quote!(#yk * #inv));
    }
    // L_fᵀ w = D⁻¹ z.
    for k in (0..n).rev() {
        for (i, l) in &f.lower[k] {
            let (yi, yk) = (&y[*i], &y[k]);
            y[k] = code.bind(quote!(#yk - #l * #yi));
        }
    }
    let mut out = code.out;
    for (k, &o) in f.order.iter().enumerate() {
        let yk = &y[k];
        out.extend(quote!(x[#o] = #yk;));
    }
    out
}

/// The emitted bodies of the five `Lagrangian` saddle methods, or `None` when the factors do not
/// fit the store (the dense path is used).
pub struct Emitted {
    /// `saddle_factor`'s body after `lv` (the nonzeros of `L`, lower triangle, row by row) and
    /// `gv` (the nonzeros of `G`, row by row) are bound as arrays.
    pub factor: TokenStream,
    pub mass_solve: TokenStream,
    pub schur_solve: TokenStream,
    pub g: TokenStream,
    pub g_tr: TokenStream,
    /// Slots used, out of `WIDTH · (N + M)`.
    pub slots: usize,
}

/// Plans and emits the sparse factorization for the patterns of `L` (`n × n`, symmetric) and
/// `G` (`m × n`).
pub fn emit(l_pat: &[Vec<bool>], g_pat: &[Vec<bool>]) -> Option<Emitted> {
    let n = l_pat.len();
    let m = g_pat.len();
    let mut slots = Slots {
        n_room: WIDTH * n,
        used: 0,
    };
    let mut code = Code::new();
    // The inputs as symbols.
    let mut lv_k = 0usize;
    let l_sym: Vec<Vec<Sym>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| {
                    if j <= i && (l_pat[i][j] || l_pat[j][i]) {
                        let e = quote!(lv[#lv_k]);
                        lv_k += 1;
                        Sym::Val(e)
                    } else {
                        Sym::Zero
                    }
                })
                .collect()
        })
        .collect();
    // G's nonzeros go to the store (the solves use them).
    let mut gv_k = 0usize;
    let mut g_sym: Vec<Vec<Sym>> = Vec::with_capacity(m);
    for row in g_pat {
        let mut r = Vec::with_capacity(n);
        for &nz in row {
            if nz {
                let slot = slots.take();
                code.out.extend(quote!(#slot = gv[#gv_k];));
                gv_k += 1;
                r.push(Sym::Val(slot));
            } else {
                r.push(Sym::Zero);
            }
        }
        g_sym.push(r);
    }
    let mut l_pivots = Vec::new();
    let l_order = minimum_degree(l_pat);
    let lf = factor(&mut code, &mut slots, &l_sym, &l_order, &mut l_pivots);
    // Y = L_f⁻¹ Pᵀ Gᵀ (n × m, permuted rows), by forward substitution on every column.
    let mut y: Vec<Vec<Sym>> = (0..n)
        .map(|k| (0..m).map(|c| g_sym[c][l_order[k]].clone()).collect())
        .collect();
    for k in 0..n {
        for (i, l) in &lf.lower[k] {
            let l = Sym::Val(l.clone());
            for c in 0..m {
                let ykc = y[k][c].clone();
                let acc = std::mem::replace(&mut y[*i][c], Sym::Zero);
                y[*i][c] = code.sub_mul(acc, &l, &ykc);
            }
        }
    }
    // S = Yᵀ D⁻¹ Y, lower triangle.
    let mut s: Vec<Vec<Sym>> = vec![vec![Sym::Zero; m]; m];
    for k in 0..n {
        let inv = Sym::Val(lf.inv_d[k].clone());
        let scaled: Vec<Sym> = (0..m)
            .map(|c| match &y[k][c] {
                Sym::Zero => Sym::Zero,
                v => code.add_mul(Sym::Zero, v, &inv),
            })
            .collect();
        for a in 0..m {
            for b in 0..=a {
                let acc = std::mem::replace(&mut s[a][b], Sym::Zero);
                s[a][b] = code.add_mul(acc, &scaled[a], &y[k][b]);
            }
        }
    }
    let s_pat: Vec<Vec<bool>> = (0..m)
        .map(|a| (0..m).map(|b| !s[a.max(b)][a.min(b)].is_zero()).collect())
        .collect();
    let s_order = minimum_degree(&s_pat);
    let mut s_pivots = Vec::new();
    let sf = factor(&mut code, &mut slots, &s, &s_order, &mut s_pivots);
    if slots.used > WIDTH * (n + m) {
        return None;
    }
    let factor_code = code.out;
    let pivots = &s_pivots;
    let factor = quote! {
        let mut ok = true;
        #factor_code
        let mut lo = f64::INFINITY;
        let mut hi = 0.0f64;
        for d in [#(#pivots),*] {
            lo = lo.min(d);
            hi = hi.max(d);
        }
        // No constraints, no Schur complement: nothing to be ill-conditioned.
        store.condition = if lo.is_finite() { hi / lo } else { 1.0 };
        ok
    };
    // G x and Gᵀ y from the stored nonzeros.
    let mut g_rows = Vec::with_capacity(m);
    let mut g_cols: Vec<Vec<TokenStream>> = vec![Vec::new(); n];
    for (r, row) in g_sym.iter().enumerate() {
        let mut terms = Vec::new();
        for (c, e) in row.iter().enumerate() {
            if let Sym::Val(slot) = e {
                terms.push(quote!(#slot * x[#c]));
                g_cols[c].push(quote!(#slot * y[#r]));
            }
        }
        g_rows.push(if terms.is_empty() {
            quote!(0.0)
        } else {
            quote!(#(#terms)+*)
        });
    }
    let g_cols: Vec<TokenStream> = g_cols
        .into_iter()
        .map(|t| {
            if t.is_empty() {
                quote!(0.0)
            } else {
                quote!(#(#t)+*)
            }
        })
        .collect();
    Some(Emitted {
        factor,
        mass_solve: solve(&lf),
        schur_solve: solve(&sf),
        g: quote!([#(#g_rows),*]),
        g_tr: quote!([#(#g_cols),*]),
        slots: slots.used,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(n: usize, nz: &[(usize, usize)]) -> Vec<Vec<bool>> {
        let mut p = vec![vec![false; n]; n];
        for i in 0..n {
            p[i][i] = true;
        }
        for &(a, b) in nz {
            p[a][b] = true;
            p[b][a] = true;
        }
        p
    }

    /// An arrow matrix (node 0 joined to all) eliminated hub-first fills completely; minimum
    /// degree takes the leaves first and keeps the factor as sparse as the matrix.
    #[test]
    fn minimum_degree_avoids_the_arrow_fill() {
        let n = 6;
        let p = pattern(n, &(1..n).map(|i| (0, i)).collect::<Vec<_>>());
        let order = minimum_degree(&p);
        assert!(order.iter().position(|&i| i == 0).unwrap() >= n - 2);
        let nnz = |f: &Vec<Vec<bool>>| f.iter().flatten().filter(|&&x| x).count();
        assert_eq!(nnz(&factor_pattern(&p, &order)), 2 * n - 1);
        let natural: Vec<usize> = (0..n).collect();
        assert_eq!(nnz(&factor_pattern(&p, &natural)), n * (n + 1) / 2);
    }

    /// A tridiagonal pattern factors without fill in the minimum-degree order.
    #[test]
    fn tridiagonal_has_no_fill() {
        let n = 10;
        let p = pattern(n, &(1..n).map(|i| (i - 1, i)).collect::<Vec<_>>());
        let order = minimum_degree(&p);
        let f = factor_pattern(&p, &order);
        assert_eq!(f.iter().flatten().filter(|&&x| x).count(), 2 * n - 1);
    }

    /// A dense block does not fit when it is large, and the diagonal always does.
    #[test]
    fn store_budget_decides() {
        let n = 20;
        let dense = vec![vec![true; n]; n];
        let g = vec![vec![true; n]; 1];
        assert!(emit(&dense, &g).is_none());
        let diag = pattern(n, &[]);
        let e = emit(&diag, &g).expect("fits");
        assert_eq!(e.slots, 2 * n + 1);
    }
}

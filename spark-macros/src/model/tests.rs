//! Property tests of the whole pipeline on random valid models: token stream (`quote!`) →
//! `parse` → `model::build` (every check must pass: no false positives) → the derivatives of
//! `expand.rs` → `Arena::eval`, against hyper-dual numbers (num-dual) evaluating the same
//! random expressions independently. Constraints have a known solution `q_k = x_k(t)`, at
//! which the engine's `g` and `g_t + G v` must vanish to round-off.

use num_dual::{DualNum, HyperDual64};
use proc_macro2::TokenStream;
use proptest::prelude::*;
use quote::{format_ident, quote};

use crate::expand::derivatives;
use crate::model::{build, Model};
use crate::params::Vars;
use crate::parse::ModelInput;

type D = HyperDual64;

/// The functions of random expressions.
#[derive(Clone, Copy, Debug)]
enum Fun {
    Sin,
    Cos,
    Atan,
    Tanh,
    Sinh,
    Exp,
}

/// A random expression over `t`, the coordinates and the parameters (velocities enter the
/// Lagrangian through its fixed, regular structure; see [`RandomModel`]).
#[derive(Clone, Debug)]
enum E {
    T,
    Q(usize),
    P(usize),
    C(f64),
    Add(Box<E>, Box<E>),
    Sub(Box<E>, Box<E>),
    Mul(Box<E>, Box<E>),
    /// `a / (1 + b^2)`: a division that cannot hit zero.
    Div(Box<E>, Box<E>),
    Powi(Box<E>, i32),
    /// `(1 + a^2).powf(b)`: a real power of a positive base.
    Powf(Box<E>, Box<E>),
    /// `(1 + a^2).sqrt()` and `(2 + a.cos()).ln()`: inside their domains.
    Sqrt(Box<E>),
    Ln(Box<E>),
    /// `atan2(a, 2 + b^2)`.
    Atan2(Box<E>, Box<E>),
    /// A function; `true`: method syntax `a.f()`, `false`: call syntax `f(a)`.
    Fun(Fun, Box<E>, bool),
}

/// Values of the symbols at one point, as hyper-dual numbers.
struct Point {
    t: D,
    q: Vec<D>,
    p: Vec<f64>,
}

impl E {
    fn tokens(&self) -> TokenStream {
        match self {
            E::T => quote!(t),
            E::Q(i) => {
                let q = format_ident!("q{}", i);
                quote!(#q)
            }
            E::P(k) => {
                let p = format_ident!("p{}", k);
                quote!(#p)
            }
            E::C(c) => literal(*c),
            E::Add(a, b) => {
                let (a, b) = (a.tokens(), b.tokens());
                quote!((#a + #b))
            }
            E::Sub(a, b) => {
                let (a, b) = (a.tokens(), b.tokens());
                quote!((#a - #b))
            }
            E::Mul(a, b) => {
                let (a, b) = (a.tokens(), b.tokens());
                quote!((#a * #b))
            }
            E::Div(a, b) => {
                let (a, b) = (a.tokens(), b.tokens());
                quote!((#a / (1.0 + #b.powi(2))))
            }
            E::Powi(a, n) => {
                let a = a.tokens();
                quote!(#a.powi(#n))
            }
            E::Powf(a, b) => {
                let (a, b) = (a.tokens(), b.tokens());
                quote!((1.0 + #a.powi(2)).powf(#b))
            }
            E::Sqrt(a) => {
                let a = a.tokens();
                quote!(sqrt(1.0 + #a.powi(2)))
            }
            E::Ln(a) => {
                let a = a.tokens();
                quote!((2.0 + #a.cos()).ln())
            }
            E::Atan2(a, b) => {
                let (a, b) = (a.tokens(), b.tokens());
                quote!(atan2(#a, 2.0 + #b.powi(2)))
            }
            E::Fun(f, a, method) => {
                let a = a.tokens();
                let name = format_ident!("{}", format!("{f:?}").to_lowercase());
                if *method {
                    quote!(#a.#name())
                } else {
                    quote!(#name(#a))
                }
            }
        }
    }

    fn eval(&self, x: &Point) -> D {
        let one = D::from_re(1.0);
        match self {
            E::T => x.t,
            E::Q(i) => x.q[*i],
            E::P(k) => D::from_re(x.p[*k]),
            E::C(c) => D::from_re(*c),
            E::Add(a, b) => a.eval(x) + b.eval(x),
            E::Sub(a, b) => a.eval(x) - b.eval(x),
            E::Mul(a, b) => a.eval(x) * b.eval(x),
            E::Div(a, b) => a.eval(x) / (one + b.eval(x).powi(2)),
            E::Powi(a, n) => a.eval(x).powi(*n),
            E::Powf(a, b) => (b.eval(x) * (one + a.eval(x).powi(2)).ln()).exp(),
            E::Sqrt(a) => (one + a.eval(x).powi(2)).sqrt(),
            E::Ln(a) => (D::from_re(2.0) + a.eval(x).cos()).ln(),
            E::Atan2(a, b) => a.eval(x).atan2(D::from_re(2.0) + b.eval(x).powi(2)),
            E::Fun(f, a, _) => {
                let a = a.eval(x);
                match f {
                    Fun::Sin => a.sin(),
                    Fun::Cos => a.cos(),
                    Fun::Atan => a.atan(),
                    Fun::Tanh => a.tanh(),
                    Fun::Sinh => a.sinh(),
                    Fun::Exp => a.exp(),
                }
            }
        }
    }
}

/// A literal token; negative values as `(-c)` so that the tokens are what a user writes.
fn literal(c: f64) -> TokenStream {
    let lit = proc_macro2::Literal::f64_unsuffixed(c.abs());
    if c < 0.0 {
        quote!((-#lit))
    } else {
        quote!(#lit)
    }
}

/// A constraint with the known solution `q_pivot = c + a·sin(t)`.
#[derive(Clone, Debug)]
struct Constraint {
    form: u8,
    c: f64,
    a: f64,
    /// The other coordinate of the coupled form.
    other: usize,
}

impl Constraint {
    fn x(&self) -> E {
        E::Add(
            Box::new(E::C(self.c)),
            Box::new(E::Mul(
                Box::new(E::C(self.a)),
                Box::new(E::Fun(Fun::Sin, Box::new(E::T), true)),
            )),
        )
    }

    /// `g(t, q)` for the pivot coordinate `k`.
    fn expr(&self, k: usize) -> E {
        let q = Box::new(E::Q(k));
        let x = Box::new(self.x());
        let b = Box::new;
        match self.form % 5 {
            0 => E::Sub(q, x),
            1 => E::Sub(b(E::Fun(Fun::Sin, q, true)), b(E::Fun(Fun::Sin, x, false))),
            2 => E::Sub(b(E::Powi(q, 3)), b(E::Powi(x, 3))),
            3 => E::Sub(b(E::Fun(Fun::Exp, q, true)), b(E::Fun(Fun::Exp, x, true))),
            _ => E::Mul(
                b(E::Sub(q, x)),
                b(E::Add(b(E::C(1.0)), b(E::Powi(b(E::Q(self.other)), 2)))),
            ),
        }
    }
}

/// A random model with a Lagrangian that is regular by construction:
/// `L = Σ ½ m_i (1 + s_i(q)²/10) v_i² + Σ c_ab(q) v_a v_b + Σ h_i(q, t) v_i − U(q, t)`.
#[derive(Clone, Debug)]
struct RandomModel {
    n: usize,
    params: Vec<f64>,
    masses: Vec<f64>,
    shapes: Vec<E>,
    cross: Vec<(usize, usize, E)>,
    gyro: Vec<E>,
    potential: E,
    constraints: Vec<Constraint>,
}

impl RandomModel {
    fn tokens(&self) -> TokenStream {
        let qs: Vec<_> = (0..self.n).map(|i| format_ident!("q{}", i)).collect();
        let vs: Vec<_> = (0..self.n).map(|i| format_ident!("v{}", i)).collect();
        let params = self.params.iter().enumerate().map(|(k, d)| {
            let p = format_ident!("p{}", k);
            let d = literal(*d);
            quote!(#p = #d)
        });
        let mut terms = Vec::new();
        for ((mass, shape), v) in self.masses.iter().zip(&self.shapes).zip(&vs) {
            let m = literal(*mass);
            let s = shape.tokens();
            terms.push(quote!(0.5 * #m * (1.0 + 0.1 * #s.powi(2)) * #v.powi(2)));
        }
        for (a, b, c) in &self.cross {
            let (va, vb, c) = (&vs[*a], &vs[*b], c.tokens());
            terms.push(quote!(#c * #va * #vb));
        }
        for (i, h) in self.gyro.iter().enumerate() {
            let (v, h) = (&vs[i], h.tokens());
            terms.push(quote!(#h * #v));
        }
        // The kinetic energy goes through `definitions`, the potential through a block.
        let u = self.potential.tokens();
        let constraints = self
            .constraints
            .iter()
            .enumerate()
            .map(|(k, c)| c.expr(k).tokens());
        quote! {
            /// A random model.
            pub struct Random {
                coordinates: [#(#qs),*],
                velocities: [#(#vs),*],
                parameters: [#(#params),*],
                definitions: { let kinetic = #(#terms)+*; },
                lagrangian: { let potential = #u; kinetic - potential },
                holonomic: [#(#constraints),*],
            }
        }
    }

    /// The Lagrangian at a point with velocities `v`.
    fn lagrangian(&self, x: &Point, v: &[D]) -> D {
        let half = D::from_re(0.5);
        let mut l = D::from_re(0.0);
        for ((mass, shape), vi) in self.masses.iter().zip(&self.shapes).zip(v) {
            let w = D::from_re(1.0) + shape.eval(x).powi(2) * 0.1;
            l += half * *mass * w * vi.powi(2);
        }
        for (a, b, c) in &self.cross {
            l += c.eval(x) * v[*a] * v[*b];
        }
        for (i, h) in self.gyro.iter().enumerate() {
            l += h.eval(x) * v[i];
        }
        l - self.potential.eval(x)
    }
}

fn expr(n: usize, np: usize) -> impl Strategy<Value = E> {
    let leaf = prop_oneof![
        (0..n).prop_map(E::Q),
        Just(E::T),
        (-8i32..=8).prop_map(|k| E::C(f64::from(k) * 0.25)),
        (0..np.max(1)).prop_map(move |k| if np == 0 { E::C(1.5) } else { E::P(k) }),
    ];
    leaf.prop_recursive(3, 12, 2, |inner| {
        let b = Box::new;
        let fun = prop_oneof![
            Just(Fun::Sin),
            Just(Fun::Cos),
            Just(Fun::Atan),
            Just(Fun::Tanh),
            Just(Fun::Sinh),
            Just(Fun::Exp),
        ];
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(move |(x, y)| E::Add(b(x), b(y))),
            (inner.clone(), inner.clone()).prop_map(move |(x, y)| E::Sub(b(x), b(y))),
            (inner.clone(), inner.clone()).prop_map(move |(x, y)| E::Mul(b(x), b(y))),
            (inner.clone(), inner.clone()).prop_map(move |(x, y)| E::Div(b(x), b(y))),
            (inner.clone(), 2..=3i32).prop_map(move |(x, k)| E::Powi(b(x), k)),
            (inner.clone(), inner.clone()).prop_map(move |(x, y)| E::Powf(b(x), b(y))),
            inner.clone().prop_map(move |x| E::Sqrt(b(x))),
            inner.clone().prop_map(move |x| E::Ln(b(x))),
            (inner.clone(), inner.clone()).prop_map(move |(x, y)| E::Atan2(b(x), b(y))),
            (fun, inner, any::<bool>()).prop_map(move |(f, x, m)| E::Fun(f, b(x), m)),
        ]
    })
}

fn random_model() -> impl Strategy<Value = RandomModel> {
    (1..=3usize, 0..=2usize).prop_flat_map(|(n, np)| {
        let pairs: Vec<(usize, usize)> = (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
            .collect();
        let cross = pairs
            .into_iter()
            .map(|(a, b)| expr(n, np).prop_map(move |c| (a, b, c)))
            .collect::<Vec<_>>();
        let constraint =
            (0..5u8, -4i32..=4, -4i32..=4, 0..n).prop_map(|(form, c, a, other)| Constraint {
                form,
                c: f64::from(c) * 0.25,
                a: f64::from(a) * 0.125,
                other,
            });
        (
            prop::collection::vec((1..=8i32).prop_map(|k| f64::from(k) * 0.25), np),
            prop::collection::vec((1..=8i32).prop_map(|k| f64::from(k) * 0.5), n),
            prop::collection::vec(expr(n, np), n),
            cross,
            prop::collection::vec(expr(n, np), n),
            expr(n, np),
            prop::collection::vec(constraint, 0..n),
        )
            .prop_map(
                move |(params, masses, shapes, cross, gyro, potential, constraints)| {
                    // The coupled form needs another coordinate than its pivot.
                    let constraints = constraints
                        .into_iter()
                        .enumerate()
                        .map(|(k, mut c)| {
                            if c.other == k {
                                c.other = (k + 1) % n;
                            }
                            if n == 1 && c.form % 5 == 4 {
                                c.form = 0;
                            }
                            c
                        })
                        .collect();
                    RandomModel {
                        n,
                        params,
                        masses,
                        shapes,
                        cross,
                        gyro,
                        potential,
                        constraints,
                    }
                },
            )
    })
}

/// Builds the model through the macro's own front end; every check must pass. On failure:
/// the error messages and the tokens.
fn build_model(rm: &RandomModel) -> Result<Model, (Vec<String>, TokenStream)> {
    let tokens = rm.tokens();
    let input: ModelInput =
        syn::parse2(tokens.clone()).map_err(|e| (vec![format!("parse: {e}")], tokens.clone()))?;
    if !input.errors.is_empty() {
        let msgs = input.errors.iter().map(|e| format!("parse: {e}")).collect();
        return Err((msgs, tokens));
    }
    build(input).map_err(|failed| {
        let msgs = failed.0.into_iter().map(|e| e.to_string()).collect();
        (msgs, tokens)
    })
}

/// [`build_model`] for the property tests: a model whose constant subexpressions overflow
/// (`exp(exp(exp(2)))` cubed, say) is rightly rejected by the macro, and skipped here; any
/// other error is a false positive of the checks.
fn build_or_reject(rm: &RandomModel) -> Result<Model, TestCaseError> {
    build_model(rm).map_err(|(msgs, tokens)| {
        let overflow = |m: &String| m.contains("is not a finite number") || m.contains("overflows");
        if msgs.iter().all(overflow) {
            TestCaseError::reject("constants overflow")
        } else {
            TestCaseError::fail(format!(
                "the checks reject a valid model: {msgs:?}\n{tokens}"
            ))
        }
    })
}

/// Largest value compared; random compositions of `exp`, `sinh` and powers can overflow.
const MAX_MAGNITUDE: f64 = 1e6;

/// `got` agrees with `want` to 1e-9 relative to the magnitude of the quantity.
fn close(got: f64, want: f64) -> bool {
    (got - want).abs() <= 1e-9 * (1.0 + want.abs())
}

fn check_equal(what: &str, got: f64, want: f64, rm: &RandomModel) -> Result<(), TestCaseError> {
    if !want.is_finite() || want.abs() > MAX_MAGNITUDE {
        // Rounding noise of huge intermediate values would swamp the comparison.
        return Err(TestCaseError::reject("values too large to compare"));
    }
    if close(got, want) {
        Ok(())
    } else {
        Err(TestCaseError::fail(format!(
            "{what}: engine {got} vs hyper-dual {want}\n{}",
            rm.tokens()
        )))
    }
}

/// A hyper-dual point with `eps1` on the coordinate/velocity/time slots `d1` and `eps2` on
/// `d2` (slots numbered as in [`Vars`]).
fn seeds(vals: &[f64], d1: &[(usize, f64)], d2: &[(usize, f64)]) -> Vec<D> {
    let mut out: Vec<D> = vals.iter().map(|&x| D::from_re(x)).collect();
    for &(i, s) in d1 {
        out[i].eps1 += s;
    }
    for &(i, s) in d2 {
        out[i].eps2 += s;
    }
    out
}

/// Compares every derivative the runtime uses at the point `vals` (slots of [`Vars`]:
/// time, coordinates, velocities, then parameters) with multipliers `mu`.
fn compare_at(
    rm: &RandomModel,
    model: &mut Model,
    vals: &[f64],
    mu: &[f64],
) -> Result<(), TestCaseError> {
    let n = rm.n;
    let vars: Vars = model.vars;
    let d = derivatives(model);
    let ar = &model.arena;
    let lookup = |i: usize| -> f64 {
        if i < vals.len() {
            vals[i]
        } else {
            mu[i - vars.mu(0)]
        }
    };
    let eval = |id| ar.eval(id, &lookup);
    // Hyper-dual evaluation of the Lagrangian / the constraints with seeded slots.
    let at = |x: &[D]| -> (Point, Vec<D>) {
        let point = Point {
            t: x[Vars::TIME],
            q: (0..n).map(|i| x[vars.q(i)]).collect(),
            p: rm.params.clone(),
        };
        let v = (0..n).map(|i| x[vars.v(i)]).collect();
        (point, v)
    };
    let lag = |d1: &[(usize, f64)], d2: &[(usize, f64)]| {
        let x = seeds(vals, d1, d2);
        let (point, v) = at(&x);
        rm.lagrangian(&point, &v)
    };
    let con = |k: usize, d1: &[(usize, f64)], d2: &[(usize, f64)]| {
        let x = seeds(vals, d1, d2);
        let (point, _) = at(&x);
        rm.constraints[k].expr(k).eval(&point)
    };

    check_equal(
        "L",
        ar.eval(model.lagrangian, &lookup),
        lag(&[], &[]).re,
        rm,
    )?;
    for a in 0..n {
        let (qa, va) = (vars.q(a), vars.v(a));
        check_equal("L_v", eval(d.p[a]), lag(&[(va, 1.0)], &[]).eps1, rm)?;
        check_equal("L_q", eval(d.f[a]), lag(&[(qa, 1.0)], &[]).eps1, rm)?;
        for b in 0..n {
            let (qb, vb) = (vars.q(b), vars.v(b));
            let want = lag(&[(va, 1.0)], &[(vb, 1.0)]).eps1eps2;
            check_equal("L_vv", eval(d.lvv[a][b]), want, rm)?;
            let want = lag(&[(va, 1.0)], &[(qb, 1.0)]).eps1eps2;
            check_equal("L_vq", eval(d.lvq[a][b]), want, rm)?;
            let want = lag(&[(qa, 1.0)], &[(qb, 1.0)]).eps1eps2;
            check_equal("L_qq", eval(d.lqq[a][b]), want, rm)?;
        }
    }
    // `w = g_t + G v` is the derivative along (t, q) ↦ (t + s, q + s v).
    let along: Vec<(usize, f64)> = std::iter::once((Vars::TIME, 1.0))
        .chain((0..n).map(|a| (vars.q(a), vals[vars.v(a)])))
        .collect();
    for k in 0..rm.constraints.len() {
        check_equal("g", eval(d.g[k]), con(k, &[], &[]).re, rm)?;
        check_equal("w", eval(d.w[k]), con(k, &along, &[]).eps1, rm)?;
        for a in 0..n {
            let qa = vars.q(a);
            check_equal("g_q", eval(d.gq[k][a]), con(k, &[(qa, 1.0)], &[]).eps1, rm)?;
            let want = con(k, &along, &[(qa, 1.0)]).eps1eps2;
            check_equal("w_q", eval(d.wq[k][a]), want, rm)?;
        }
    }
    for a in 0..n {
        for b in 0..n {
            let (qa, qb) = (vars.q(a), vars.q(b));
            let want: f64 = (0..rm.constraints.len())
                .map(|k| mu[k] * con(k, &[(qa, 1.0)], &[(qb, 1.0)]).eps1eps2)
                .sum();
            check_equal("Σ μ_k ∇²g_k", eval(d.hess_mu[a][b]), want, rm)?;
        }
    }
    Ok(())
}

/// Slot values: time, coordinates, velocities from `raw`, then the parameter defaults.
fn slots(rm: &RandomModel, raw: &[f64]) -> Vec<f64> {
    let mut vals: Vec<f64> = raw[..1 + 2 * rm.n].to_vec();
    vals.extend(&rm.params);
    vals
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Random valid models pass every check, and every derivative the runtime uses equals
    /// the hyper-dual one at random points.
    #[test]
    fn derivatives_of_random_models_match_hyper_duals(
        rm in random_model(),
        raw in prop::collection::vec(-1.0..1.0f64, 7),
        mu in prop::collection::vec(-2.0..2.0f64, 3),
    ) {
        let mut model = build_or_reject(&rm)?;
        let vals = slots(&rm, &raw);
        compare_at(&rm, &mut model, &vals, &mu)?;
    }

    /// At the known solution `q_k = x_k(t)`, `v_k = x_k'(t)` of the constraints (the other
    /// coordinates and velocities arbitrary), the engine's `g` and `g_t + G v` vanish.
    #[test]
    fn constraints_vanish_on_their_known_solution(
        rm in random_model(),
        raw in prop::collection::vec(-1.0..1.0f64, 7),
    ) {
        let mut model = build_or_reject(&rm)?;
        let vars = model.vars;
        let mut vals = slots(&rm, &raw);
        let t = vals[Vars::TIME];
        for (k, c) in rm.constraints.iter().enumerate() {
            vals[vars.q(k)] = c.c + c.a * t.sin();
            vals[vars.v(k)] = c.a * t.cos();
        }
        let d = derivatives(&mut model);
        let lookup = |i: usize| vals[i];
        for k in 0..rm.constraints.len() {
            let g = model.arena.eval(d.g[k], &lookup);
            let w = model.arena.eval(d.w[k], &lookup);
            prop_assert!(g.abs() < 1e-13, "g_{} = {} at the solution\n{}", k, g, rm.tokens());
            prop_assert!(w.abs() < 1e-13, "w_{} = {} at the solution\n{}", k, w, rm.tokens());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// `dt(e)` of a random expression `e(t, q, p)` is its derivative along
    /// `(t, q) ↦ (t + s, q + s v)`, as hyper-dual numbers give it.
    #[test]
    fn dt_is_the_total_time_derivative(
        e in expr(3, 2),
        raw in prop::collection::vec(-1.0..1.0f64, 7),
    ) {
        let n = 3;
        let qs: Vec<_> = (0..n).map(|i| format_ident!("q{}", i)).collect();
        let vs: Vec<_> = (0..n).map(|i| format_ident!("v{}", i)).collect();
        let zeros = (1..n).map(|_| quote!(0.0));
        let body = e.tokens();
        let tokens = quote! {
            pub struct Rate {
                coordinates: [#(#qs),*],
                velocities: [#(#vs),*],
                parameters: [p0 = 0.75, p1 = 1.25],
                lagrangian: 0.5 * (#(#vs.powi(2))+*),
                forces: [dt(#body), #(#zeros),*],
            }
        };
        let input: ModelInput = syn::parse2(tokens.clone()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let model = match build(input) {
            Ok(m) => m,
            Err(failed) => {
                let msgs: Vec<String> = failed.0.into_iter().map(|e| e.to_string()).collect();
                if msgs.iter().all(|m| m.contains("is not a finite number") || m.contains("overflows")) {
                    return Err(TestCaseError::reject("constants overflow"));
                }
                return Err(TestCaseError::fail(format!("{msgs:?}\n{tokens}")));
            }
        };
        let vars = model.vars;
        let mut vals: Vec<f64> = raw[..1 + 2 * n].to_vec();
        vals.extend([0.75, 1.25]);
        let along: Vec<(usize, f64)> = std::iter::once((Vars::TIME, 1.0))
            .chain((0..n).map(|a| (vars.q(a), vals[vars.v(a)])))
            .collect();
        let x = seeds(&vals, &along, &[]);
        let point = Point {
            t: x[Vars::TIME],
            q: (0..n).map(|i| x[vars.q(i)]).collect(),
            p: vec![0.75, 1.25],
        };
        let want = e.eval(&point).eps1;
        let got = model.arena.eval(model.forces[0], &|i| vals[i]);
        if !want.is_finite() || want.abs() > MAX_MAGNITUDE {
            return Err(TestCaseError::reject("values too large to compare"));
        }
        prop_assert!(close(got, want), "dt: engine {} vs hyper-dual {}\n{}", got, want, tokens);
    }
}

/// The generated tokens of a fixed model, to see what the property tests feed the macro.
#[test]
fn a_random_model_reads_like_a_user_model() {
    let rm = RandomModel {
        n: 2,
        params: vec![1.5],
        masses: vec![1.0, 2.0],
        shapes: vec![E::Q(1), E::C(0.0)],
        cross: vec![(0, 1, E::Fun(Fun::Cos, Box::new(E::Q(0)), false))],
        gyro: vec![E::C(0.0), E::T],
        potential: E::Mul(Box::new(E::P(0)), Box::new(E::Q(1))),
        constraints: vec![Constraint {
            form: 1,
            c: 0.5,
            a: -0.25,
            other: 1,
        }],
    };
    let shown = rm.tokens().to_string();
    for piece in [
        "coordinates : [q0 , q1]",
        "p0 = 1.5",
        "cos (q0) * v0 * v1",
        "(- 0.25)",
    ] {
        assert!(shown.contains(piece), "{piece} not in {shown}");
    }
    let mut model = build_model(&rm).map_err(|e| e.0).expect("valid");
    let vals = [0.3, 0.2, -0.4, 0.7, -0.1, 1.5];
    compare_at(&rm, &mut model, &vals, &[0.5]).expect("derivatives agree");
}

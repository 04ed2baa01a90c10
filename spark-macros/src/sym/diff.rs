//! Symbolic differentiation: one rule per node kind, memoized per (node, variable).

use std::collections::{HashMap, HashSet};

use super::expr::Arena;
use super::node::{Id, Node};

impl Arena {
    /// `∂e/∂x_var`, simplified by the smart constructors.
    ///
    /// Memoized per (node, variable), so differentiating a DAG costs time linear in its size,
    /// and differentiating again (Hessians, several outputs) reuses earlier work. Iterative:
    /// the nodes are processed children first, so deep expressions cannot overflow the stack.
    pub fn diff(&mut self, e: Id, var: usize) -> Id {
        let todo = self.reachable(&[e], |id| self.diff_memo.contains_key(&(id, var)));
        for id in todo {
            let d = self.derivative_of_node(id, var);
            self.diff_memo.insert((id, var), d);
        }
        self.derivative_of_child(e, var)
    }

    /// `[∂e/∂x_v for v in vars]` by one reverse (adjoint) sweep over the DAG of `e`.
    ///
    /// Forward differentiation ([`Arena::diff`]) builds one derivative DAG per variable, each as
    /// large as the part of `e` that depends on it; for a Lagrangian whose bodies all depend
    /// on the first joints that is `O(n · |e|)` nodes, and the second derivatives taken from
    /// them `O(n² · |e|)`. The adjoint sweep builds the whole gradient in `O(|e|)` nodes, and
    /// the gradient's entries share them, so the second derivatives cost `O(n · |e|)`.
    ///
    /// Every node's local partial derivatives are those of [`Arena::diff`]'s rules (the
    /// child's derivative set to one, the others to zero), so both give the same values.
    /// Iterative, like `diff`.
    pub fn gradient(&mut self, e: Id, vars: &[usize]) -> Vec<Id> {
        let order = self.reachable(&[e], |_| false);
        let wanted: HashMap<usize, usize> = vars.iter().enumerate().map(|(k, &v)| (v, k)).collect();
        // Which nodes depend on a wanted variable (children come first in `order`).
        let mut depends: HashSet<Id> = HashSet::new();
        for &id in &order {
            let d = match self.node(id) {
                Node::Var(v) => wanted.contains_key(v),
                node => node.children().iter().any(|c| depends.contains(c)),
            };
            if d {
                depends.insert(id);
            }
        }
        let zero = self.constant(0.0);
        let mut out = vec![zero; vars.len()];
        if !depends.contains(&e) {
            return out;
        }
        let mut contributions: HashMap<Id, Vec<Id>> = HashMap::new();
        contributions.insert(e, vec![self.constant(1.0)]);
        for &id in order.iter().rev() {
            if !depends.contains(&id) {
                continue;
            }
            let adjoint = match contributions.remove(&id) {
                Some(terms) => self.sum(&terms),
                None => continue,
            };
            if self.is_zero(adjoint) {
                continue;
            }
            if let Node::Var(v) = *self.node(id) {
                out[wanted[&v]] = adjoint;
                continue;
            }
            let children: Vec<Id> = self.node(id).children().to_vec();
            let mut seen: Vec<Id> = Vec::with_capacity(children.len());
            for &c in &children {
                if !depends.contains(&c) || seen.contains(&c) {
                    continue;
                }
                seen.push(c);
                let local = self.partial(id, c, &children);
                if self.is_zero(local) {
                    continue;
                }
                let term = self.mul(adjoint, local);
                contributions.entry(c).or_default().push(term);
            }
        }
        out
    }

    /// The directional derivative `Σ_v seed_v · ∂e/∂x_v` by one forward sweep (a Jacobian
    /// applied to a vector without building the Jacobian): `O(|e|)` nodes where summing the
    /// `diff`s costs one derivative DAG per seeded variable.
    pub fn directional(&mut self, e: Id, seeds: &[(usize, Id)]) -> Id {
        // A private variable index per sweep, so the memo entries never meet `diff`'s.
        self.directions += 1;
        let key = usize::MAX - self.directions;
        for &(v, seed) in seeds {
            let x = self.var(v);
            self.diff_memo.insert((x, key), seed);
        }
        self.diff(e, key)
    }

    /// `∂ node / ∂ child` with the other children held fixed, by the forward rule of the node
    /// with the child's derivative one and the others' zero (a private variable index).
    fn partial(&mut self, id: Id, child: Id, children: &[Id]) -> Id {
        const LOCAL: usize = usize::MAX;
        debug_assert!(self.directions < usize::MAX / 2);
        let one = self.constant(1.0);
        let zero = self.constant(0.0);
        for &c in children {
            self.diff_memo
                .insert((c, LOCAL), if c == child { one } else { zero });
        }
        let d = self.derivative_of_node(id, LOCAL);
        for &c in children {
            self.diff_memo.remove(&(c, LOCAL));
        }
        d
    }

    /// The memoized derivative of a node whose derivative has been computed.
    fn derivative_of_child(&mut self, c: Id, var: usize) -> Id {
        match self.diff_memo.get(&(c, var)) {
            Some(&d) => d,
            // Unreachable: `diff` processes children before parents. Recomputing keeps this
            // total without a panic path.
            None => self.diff(c, var),
        }
    }

    /// The derivative of one node, given the derivatives of its children (the chain rule is
    /// applied here). Exactly one arm per node kind.
    fn derivative_of_node(&mut self, id: Id, var: usize) -> Id {
        let node = self.node(id).clone();
        match node {
            Node::Const(_) => self.constant(0.0),
            Node::Var(v) => self.constant(if v == var { 1.0 } else { 0.0 }),
            Node::Add(terms) => {
                let ds: Vec<Id> = terms
                    .iter()
                    .map(|&t| self.derivative_of_child(t, var))
                    .collect();
                self.sum(&ds)
            }
            Node::Mul(factors) => {
                // Product rule: Σ_i f_i' · Π_{j≠i} f_j.
                let mut terms = Vec::new();
                for (i, &f) in factors.iter().enumerate() {
                    let df = self.derivative_of_child(f, var);
                    if self.is_zero(df) {
                        continue;
                    }
                    let mut parts: Vec<Id> = Vec::with_capacity(factors.len());
                    parts.extend(factors[..i].iter().copied());
                    parts.extend(factors[i + 1..].iter().copied());
                    parts.push(df);
                    terms.push(self.product(&parts));
                }
                self.sum(&terms)
            }
            Node::Pow(a, n) => {
                // n · a^(n-1) · a'
                let da = self.derivative_of_child(a, var);
                if self.is_zero(da) {
                    return da;
                }
                let lower = match n.checked_sub(1) {
                    Some(m) => self.powi(a, m),
                    None => {
                        let p = self.powi(a, n);
                        let inv = self.powi(a, -1);
                        self.mul(p, inv)
                    }
                };
                let n = self.constant(f64::from(n));
                self.product(&[n, lower, da])
            }
            Node::Powf([a, b]) => {
                // b · a^(b-1) · a' + a^b · ln(a) · b'. The ln term is only built when b' ≠ 0,
                // so `powf(x, 2.5)` stays differentiable where ln(x) is NaN.
                let da = self.derivative_of_child(a, var);
                let db = self.derivative_of_child(b, var);
                let mut terms = Vec::with_capacity(2);
                if !self.is_zero(da) {
                    let one = self.constant(1.0);
                    let b1 = self.sub(b, one);
                    let p = self.powf(a, b1);
                    terms.push(self.product(&[b, p, da]));
                }
                if !self.is_zero(db) {
                    let ln = self.ln(a);
                    terms.push(self.product(&[id, ln, db]));
                }
                self.sum(&terms)
            }
            Node::Atan2([y, x]) => {
                // (x·y' - y·x') / (x² + y²)
                let dy = self.derivative_of_child(y, var);
                let dx = self.derivative_of_child(x, var);
                if self.is_zero(dy) && self.is_zero(dx) {
                    return dy;
                }
                let xdy = self.mul(x, dy);
                let ydx = self.mul(y, dx);
                let num = self.sub(xdy, ydx);
                let x2 = self.powi(x, 2);
                let y2 = self.powi(y, 2);
                let den = self.add(x2, y2);
                self.div(num, den)
            }
            Node::Sqrt(a) => {
                // a' / (2·sqrt(a))
                let da = self.derivative_of_child(a, var);
                self.chain(da, |s| vec![s.constant(0.5), s.powi(id, -1)])
            }
            Node::Exp(a) => {
                let da = self.derivative_of_child(a, var);
                self.chain(da, |_| vec![id])
            }
            Node::Ln(a) => {
                // a' / a
                let da = self.derivative_of_child(a, var);
                self.chain(da, |s| vec![s.powi(a, -1)])
            }
            Node::Sin(a) => {
                let da = self.derivative_of_child(a, var);
                self.chain(da, |s| vec![s.cos(a)])
            }
            Node::Cos(a) => {
                let da = self.derivative_of_child(a, var);
                self.chain(da, |s| vec![s.constant(-1.0), s.sin(a)])
            }
            Node::Tan(a) => {
                // (1 + tan²(a)) · a', reusing the tan node.
                let da = self.derivative_of_child(a, var);
                self.chain(da, |s| {
                    let one = s.constant(1.0);
                    let t2 = s.powi(id, 2);
                    vec![s.add(one, t2)]
                })
            }
            Node::Asin(a) => {
                // a' / sqrt(1 - a²)
                let da = self.derivative_of_child(a, var);
                self.chain(da, |s| vec![s.inv_sqrt_one_minus_square(a)])
            }
            Node::Acos(a) => {
                // -a' / sqrt(1 - a²)
                let da = self.derivative_of_child(a, var);
                self.chain(da, |s| {
                    vec![s.constant(-1.0), s.inv_sqrt_one_minus_square(a)]
                })
            }
            Node::Atan(a) => {
                // a' / (1 + a²)
                let da = self.derivative_of_child(a, var);
                self.chain(da, |s| {
                    let one = s.constant(1.0);
                    let a2 = s.powi(a, 2);
                    let den = s.add(one, a2);
                    vec![s.powi(den, -1)]
                })
            }
            Node::Sinh(a) => {
                let da = self.derivative_of_child(a, var);
                self.chain(da, |s| vec![s.cosh(a)])
            }
            Node::Cosh(a) => {
                let da = self.derivative_of_child(a, var);
                self.chain(da, |s| vec![s.sinh(a)])
            }
            Node::Tanh(a) => {
                // a' / cosh²(a): `1 - tanh²(a)` would cancel catastrophically for large |a|.
                let da = self.derivative_of_child(a, var);
                self.chain(da, |s| {
                    let cosh = s.cosh(a);
                    vec![s.powi(cosh, -2)]
                })
            }
        }
    }

    /// Chain rule for functions of one argument: `inner' · Π outer`, or `0` without building
    /// anything when `inner' = 0`.
    fn chain(&mut self, inner: Id, outer: impl FnOnce(&mut Self) -> Vec<Id>) -> Id {
        if self.is_zero(inner) {
            return inner;
        }
        let mut parts = outer(self);
        parts.push(inner);
        self.product(&parts)
    }

    /// `(1 - a²)^(-1/2)` as `sqrt(1 - a²)^-1`.
    fn inv_sqrt_one_minus_square(&mut self, a: Id) -> Id {
        let one = self.constant(1.0);
        let a2 = self.powi(a, 2);
        let d = self.sub(one, a2);
        let s = self.sqrt(d);
        self.powi(s, -1)
    }
}

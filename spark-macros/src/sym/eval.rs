//! Numeric (f64) evaluation of expressions, for checks and tests.

use std::collections::HashMap;

use super::expr::Arena;
use super::node::{Id, Node};

impl Arena {
    /// Value of `e` with variable `i` set to `vars(i)`. `vars` is only called for variables
    /// that `e` mentions.
    pub fn eval(&self, e: Id, vars: &dyn Fn(usize) -> f64) -> f64 {
        self.eval_many(&[e], vars).pop().unwrap_or(f64::NAN)
    }

    /// Values of all `outputs` (one pass over their shared subexpressions).
    pub fn eval_many(&self, outputs: &[Id], vars: &dyn Fn(usize) -> f64) -> Vec<f64> {
        let mut values: HashMap<Id, f64> = HashMap::new();
        for id in self.reachable(outputs, |_| false) {
            let v = self.eval_node(self.node(id), &values, vars);
            values.insert(id, v);
        }
        outputs
            .iter()
            .map(|o| values.get(o).copied().unwrap_or(f64::NAN))
            .collect()
    }

    /// [`Arena::eval_many`] with every node's value multiplied by `1 + delta`: how much the
    /// outputs move under relative rounding-sized perturbations of every intermediate value
    /// (the rounding noise of this particular expression, for tests that compare it).
    #[cfg(test)]
    pub fn eval_many_perturbed(
        &self,
        outputs: &[Id],
        vars: &dyn Fn(usize) -> f64,
        delta: f64,
    ) -> Vec<f64> {
        let mut values: HashMap<Id, f64> = HashMap::new();
        for id in self.reachable(outputs, |_| false) {
            let v = self.eval_node(self.node(id), &values, vars) * (1.0 + delta);
            values.insert(id, v);
        }
        outputs
            .iter()
            .map(|o| values.get(o).copied().unwrap_or(f64::NAN))
            .collect()
    }

    /// Value of one node from the values of its children.
    fn eval_node(
        &self,
        node: &Node,
        values: &HashMap<Id, f64>,
        vars: &dyn Fn(usize) -> f64,
    ) -> f64 {
        // Children are evaluated first (topological order), so the lookup cannot miss.
        let v = |c: &Id| values.get(c).copied().unwrap_or(f64::NAN);
        match node {
            Node::Const(bits) => f64::from_bits(*bits),
            Node::Var(i) => vars(*i),
            Node::Add(ts) => ts.iter().map(v).sum(),
            Node::Mul(fs) => fs.iter().map(v).product(),
            Node::Pow(a, n) => v(a).powi(*n),
            Node::Powf([a, b]) => v(a).powf(v(b)),
            Node::Atan2([y, x]) => v(y).atan2(v(x)),
            Node::Sqrt(a) => v(a).sqrt(),
            Node::Exp(a) => v(a).exp(),
            Node::Ln(a) => v(a).ln(),
            Node::Sin(a) => v(a).sin(),
            Node::Cos(a) => v(a).cos(),
            Node::Tan(a) => v(a).tan(),
            Node::Asin(a) => v(a).asin(),
            Node::Acos(a) => v(a).acos(),
            Node::Atan(a) => v(a).atan(),
            Node::Sinh(a) => v(a).sinh(),
            Node::Cosh(a) => v(a).cosh(),
            Node::Tanh(a) => v(a).tanh(),
        }
    }
}

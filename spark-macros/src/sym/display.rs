//! Compact s-expression rendering of expressions, for tests and debugging.
//!
//! Syntax: `(+ a b ..)`, `(* a b ..)`, `(^ a n)` (integer power), `(pow a b)` (real power),
//! `(atan2 y x)`, `(sin a)` etc. for the other functions; variables 0, 1, 2, 3 print as
//! `x`, `y`, `z`, `w` and variable `i ≥ 4` as `v<i>`; constants print with `f64`'s `Display`
//! (shortest round-trip form). Shared subexpressions are printed in full at every use.

use std::collections::HashMap;
use std::fmt::Write;

use super::expr::Arena;
use super::node::{Id, Node};

/// Name of variable `i` in s-expressions.
pub fn var_name(i: usize) -> String {
    match i {
        0 => "x".into(),
        1 => "y".into(),
        2 => "z".into(),
        3 => "w".into(),
        _ => format!("v{i}"),
    }
}

impl Arena {
    /// The s-expression of `e` (see the module documentation). Built bottom-up, without
    /// recursion; the text can be exponentially longer than the DAG.
    pub fn show(&self, e: Id) -> String {
        let mut text: HashMap<Id, String> = HashMap::new();
        for id in self.reachable(&[e], |_| false) {
            let s = self.show_node(self.node(id), &text);
            text.insert(id, s);
        }
        text.remove(&e).unwrap_or_default()
    }

    fn show_node(&self, node: &Node, text: &HashMap<Id, String>) -> String {
        let t = |c: &Id| text.get(c).map_or("?", String::as_str);
        let list = |head: &str, xs: &[Id]| {
            let mut s = format!("({head}");
            for x in xs {
                // Writing to a String cannot fail.
                let _ = write!(s, " {}", t(x));
            }
            s.push(')');
            s
        };
        if let Some((name, a)) = node.unary() {
            return format!("({name} {})", t(&a));
        }
        match node {
            Node::Const(bits) => format!("{}", f64::from_bits(*bits)),
            Node::Var(i) => var_name(*i),
            Node::Add(ts) => list("+", ts),
            Node::Mul(fs) => list("*", fs),
            Node::Pow(a, n) => format!("(^ {} {n})", t(a)),
            Node::Powf(xs) => list("pow", xs),
            Node::Atan2(xs) => list("atan2", xs),
            _ => String::from("?"),
        }
    }
}

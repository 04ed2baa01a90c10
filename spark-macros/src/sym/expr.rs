//! The arena: a flat, topologically ordered node vector with hash-consing.
//!
//! Nodes are only created through [`Arena::intern`], which returns the existing id of a
//! structurally equal node if there is one. Equal subexpressions therefore share one id, and
//! comparing ids compares expressions (modulo the canonical form of `simplify.rs`).

use std::collections::{HashMap, HashSet};

use super::node::{Id, Node};

/// Owner of all expression nodes; see the module documentation of `sym`.
#[derive(Default, Debug)]
pub struct Arena {
    /// Nodes in creation order: every child precedes its parents.
    nodes: Vec<Node>,
    /// Hash-consing memo: node → its id.
    memo: HashMap<Node, Id>,
    /// Derivative memo: (node, variable) → derivative.
    pub(super) diff_memo: HashMap<(Id, usize), Id>,
    /// Directional derivatives taken so far (each gets its own key in `diff_memo`).
    pub(super) directions: usize,
}

impl Arena {
    /// An empty arena.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of nodes created so far.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether no node has been created yet.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The node behind `id`.
    ///
    /// `id` must come from this arena (ids of another arena may be out of range).
    pub fn node(&self, id: Id) -> &Node {
        &self.nodes[id.index()]
    }

    /// The id of `node`, creating it if it does not exist yet. No simplification happens
    /// here: callers (the smart constructors) are responsible for the canonical form.
    pub(super) fn intern(&mut self, node: Node) -> Id {
        if let Some(&id) = self.memo.get(&node) {
            return id;
        }
        let id = Id(u32::try_from(self.nodes.len()).expect("more than u32::MAX symbolic nodes"));
        debug_assert!(
            node.children().iter().all(|c| c.index() < self.nodes.len()),
            "children must precede their parents"
        );
        self.nodes.push(node.clone());
        self.memo.insert(node, id);
        id
    }

    /// Symbolic variable number `index` (the caller maps names to indices).
    pub fn var(&mut self, index: usize) -> Id {
        self.intern(Node::Var(index))
    }

    /// The constant `x`; `-0.0` is normalised to `0.0`.
    ///
    /// `x` should be finite. A non-finite `x` is stored as is (no panic), but the
    /// simplification rules are only exact for finite constants.
    pub fn constant(&mut self, x: f64) -> Id {
        let x = if x == 0.0 { 0.0 } else { x };
        self.intern(Node::Const(x.to_bits()))
    }

    /// `Some(value)` if `e` is (folded to) a constant.
    pub fn as_const(&self, e: Id) -> Option<f64> {
        self.node(e).as_const()
    }

    /// Whether `e` is the constant zero.
    pub(super) fn is_zero(&self, e: Id) -> bool {
        self.as_const(e) == Some(0.0)
    }

    /// Whether `e` mentions variable `var` (structurally: `x - x` folds to `0` and so does not
    /// depend on `x`, but `x * x^-1` does).
    /// Whether any of `roots` contains a variable for which `pick` is true (one traversal of
    /// the shared sub-DAG).
    pub fn any_depends_on(&self, roots: &[Id], pick: impl Fn(usize) -> bool) -> bool {
        let mut seen: HashSet<Id> = roots.iter().copied().collect();
        let mut stack: Vec<Id> = seen.iter().copied().collect();
        while let Some(id) = stack.pop() {
            let node = self.node(id);
            if let Node::Var(i) = *node {
                if pick(i) {
                    return true;
                }
            }
            for &c in node.children() {
                if seen.insert(c) {
                    stack.push(c);
                }
            }
        }
        false
    }

    pub fn depends_on(&self, e: Id, var: usize) -> bool {
        let mut seen = HashSet::new();
        let mut stack = vec![e];
        seen.insert(e);
        while let Some(id) = stack.pop() {
            let node = self.node(id);
            if *node == Node::Var(var) {
                return true;
            }
            for &c in node.children() {
                if seen.insert(c) {
                    stack.push(c);
                }
            }
        }
        false
    }

    /// All nodes reachable from `roots` (roots included), in increasing id order, i.e.
    /// children before parents. Nodes for which `prune` is true are left out together with
    /// everything only reachable through them. Iterative, so deep expressions cannot overflow
    /// the stack.
    pub(super) fn reachable(&self, roots: &[Id], prune: impl Fn(Id) -> bool) -> Vec<Id> {
        let mut seen = HashSet::new();
        let mut stack = Vec::new();
        let mut out = Vec::new();
        for &r in roots {
            if !prune(r) && seen.insert(r) {
                stack.push(r);
            }
        }
        while let Some(id) = stack.pop() {
            out.push(id);
            for &c in self.node(id).children() {
                if !prune(c) && seen.insert(c) {
                    stack.push(c);
                }
            }
        }
        out.sort_unstable();
        out
    }
}

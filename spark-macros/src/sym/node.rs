//! Node handles ([`Id`]) and the node type ([`Node`]) of the expression DAG.

use std::fmt;

/// Handle of a node in an [`Arena`](super::Arena).
///
/// Ids are only meaningful for the arena that produced them. A child always has a smaller id
/// than its parents, so ordering ids orders nodes topologically.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Id(pub(super) u32);

impl Id {
    /// Position of the node in the arena's node vector.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// One node of the hash-consed expression DAG.
///
/// The canonical form maintained by the smart constructors (see `simplify.rs`) is:
/// * subtraction is `a + (-1)·b`, negation is `(-1)·a`, division is `a · b^-1`;
/// * [`Node::Add`] and [`Node::Mul`] are n-ary (at least two operands), with constants first
///   and the other operands sorted by id; an operand is a sum (product) of the same kind only
///   if that one is large (more than `FLATTEN_LIMIT` operands, see `simplify.rs`);
/// * a sum holds at most one constant (non-zero) and at most one term per "rest"
///   (`2·x + 3·x` is `5·x`); a product holds at most one constant coefficient (not `1`,
///   never `0`) and combines equal bases whose exponents have the same sign;
/// * [`Node::Pow`] has an exponent outside `{0, 1}` and a base that is neither a product nor a
///   power (those are distributed / multiplied out).
///
/// The only exceptions are folds that would overflow (`i32` exponents, non-finite constants):
/// those are left unfolded rather than changing the value.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Node {
    /// A finite constant, stored as its bit pattern (`-0.0` is normalised to `0.0`).
    Const(u64),
    /// Symbolic variable number `n`.
    Var(usize),
    /// Sum of two or more terms.
    Add(Box<[Id]>),
    /// Product of two or more factors.
    Mul(Box<[Id]>),
    /// `base^n` with an integer exponent.
    Pow(Id, i32),
    /// `[base, exponent]`: real power `base^exponent`.
    Powf([Id; 2]),
    /// `[y, x]`: the four-quadrant arctangent `atan2(y, x)`.
    Atan2([Id; 2]),
    /// Square root.
    Sqrt(Id),
    /// Exponential.
    Exp(Id),
    /// Natural logarithm.
    Ln(Id),
    /// Sine.
    Sin(Id),
    /// Cosine.
    Cos(Id),
    /// Tangent.
    Tan(Id),
    /// Arcsine.
    Asin(Id),
    /// Arccosine.
    Acos(Id),
    /// Arctangent.
    Atan(Id),
    /// Hyperbolic sine.
    Sinh(Id),
    /// Hyperbolic cosine.
    Cosh(Id),
    /// Hyperbolic tangent.
    Tanh(Id),
}

impl Node {
    /// The operands of the node, in storage order.
    pub fn children(&self) -> &[Id] {
        match self {
            Node::Const(_) | Node::Var(_) => &[],
            Node::Add(xs) | Node::Mul(xs) => xs,
            Node::Powf(xs) | Node::Atan2(xs) => xs,
            Node::Pow(a, _)
            | Node::Sqrt(a)
            | Node::Exp(a)
            | Node::Ln(a)
            | Node::Sin(a)
            | Node::Cos(a)
            | Node::Tan(a)
            | Node::Asin(a)
            | Node::Acos(a)
            | Node::Atan(a)
            | Node::Sinh(a)
            | Node::Cosh(a)
            | Node::Tanh(a) => std::slice::from_ref(a),
        }
    }

    /// For the elementary functions of one argument: their name (which is also the name of
    /// the function in the emitted `math` module) and their argument.
    pub fn unary(&self) -> Option<(&'static str, Id)> {
        let named = match *self {
            Node::Sqrt(a) => ("sqrt", a),
            Node::Exp(a) => ("exp", a),
            Node::Ln(a) => ("ln", a),
            Node::Sin(a) => ("sin", a),
            Node::Cos(a) => ("cos", a),
            Node::Tan(a) => ("tan", a),
            Node::Asin(a) => ("asin", a),
            Node::Acos(a) => ("acos", a),
            Node::Atan(a) => ("atan", a),
            Node::Sinh(a) => ("sinh", a),
            Node::Cosh(a) => ("cosh", a),
            Node::Tanh(a) => ("tanh", a),
            Node::Const(_)
            | Node::Var(_)
            | Node::Add(_)
            | Node::Mul(_)
            | Node::Pow(..)
            | Node::Powf(_)
            | Node::Atan2(_) => return None,
        };
        Some(named)
    }

    /// The value of a [`Node::Const`].
    pub fn as_const(&self) -> Option<f64> {
        match *self {
            Node::Const(bits) => Some(f64::from_bits(bits)),
            _ => None,
        }
    }
}

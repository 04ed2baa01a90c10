//! Test helpers: an s-expression reader and random expression trees.

use proptest::prelude::*;

use crate::sym::{Arena, Id};

/// An arena whose first nodes are the variables `x, y, z, w` (indices 0..4), so that
/// variables sort before anything built later and the tables below read naturally.
pub fn arena() -> Arena {
    let mut a = Arena::new();
    for i in 0..4 {
        a.var(i);
    }
    a
}

/// Reads an s-expression through the smart constructors (so the result is simplified).
///
/// Forms: `(+ a ..)`, `(* a ..)`, `(- a)`, `(- a b)`, `(/ a b)`, `(^ a n)` (integer),
/// `(pow a b)`, `(atan2 y x)`, `(f a)` for the functions of one argument; atoms `x y z w`,
/// `v<i>` and numbers. Panics on malformed input (test helper).
pub fn read(arena: &mut Arena, text: &str) -> Id {
    let spaced = text.replace('(', " ( ").replace(')', " ) ");
    let tokens: Vec<&str> = spaced.split_whitespace().collect();
    let mut pos = 0;
    let e = read_at(arena, &tokens, &mut pos);
    assert_eq!(pos, tokens.len(), "trailing input in {text:?}");
    e
}

/// `read` on a fresh [`arena`], returning the arena's rendering of the result.
pub fn simplified(text: &str) -> String {
    let mut a = arena();
    let e = read(&mut a, text);
    a.show(e)
}

fn read_at(a: &mut Arena, tokens: &[&str], pos: &mut usize) -> Id {
    let tok = tokens[*pos];
    *pos += 1;
    if tok != "(" {
        return match tok {
            "x" => a.var(0),
            "y" => a.var(1),
            "z" => a.var(2),
            "w" => a.var(3),
            v if v.starts_with('v') => a.var(v[1..].parse().expect("variable index")),
            num => a.constant(num.parse().expect("number")),
        };
    }
    let head = tokens[*pos];
    *pos += 1;
    if head == "^" {
        let base = read_at(a, tokens, pos);
        let n: i32 = tokens[*pos].parse().expect("integer exponent");
        *pos += 2; // exponent and ")"
        return a.powi(base, n);
    }
    let mut args = Vec::new();
    while tokens[*pos] != ")" {
        args.push(read_at(a, tokens, pos));
    }
    *pos += 1;
    match (head, args.as_slice()) {
        ("+", xs) => a.sum(xs),
        ("*", xs) => a.product(xs),
        ("-", &[x]) => a.neg(x),
        ("-", &[x, y]) => a.sub(x, y),
        ("/", &[x, y]) => a.div(x, y),
        ("pow", &[x, y]) => a.powf(x, y),
        ("atan2", &[y, x]) => a.atan2(y, x),
        ("sqrt", &[x]) => a.sqrt(x),
        ("exp", &[x]) => a.exp(x),
        ("ln", &[x]) => a.ln(x),
        ("sin", &[x]) => a.sin(x),
        ("cos", &[x]) => a.cos(x),
        ("tan", &[x]) => a.tan(x),
        ("asin", &[x]) => a.asin(x),
        ("acos", &[x]) => a.acos(x),
        ("atan", &[x]) => a.atan(x),
        ("sinh", &[x]) => a.sinh(x),
        ("cosh", &[x]) => a.cosh(x),
        ("tanh", &[x]) => a.tanh(x),
        _ => panic!("bad form ({head} ..) with {} operands", args.len()),
    }
}

/// Functions of one argument, for random trees.
#[derive(Clone, Copy, Debug)]
pub enum Fun {
    Sqrt,
    Exp,
    Ln,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
}

/// A random expression tree over the variables 0, 1, 2, using every constructor.
#[derive(Clone, Debug)]
pub enum Tree {
    Var(usize),
    Const(f64),
    Add(Box<Tree>, Box<Tree>),
    Sub(Box<Tree>, Box<Tree>),
    Mul(Box<Tree>, Box<Tree>),
    Div(Box<Tree>, Box<Tree>),
    Neg(Box<Tree>),
    Powi(Box<Tree>, i32),
    /// Real power with a constant exponent.
    PowfC(Box<Tree>, f64),
    Powf(Box<Tree>, Box<Tree>),
    Atan2(Box<Tree>, Box<Tree>),
    Fun(Fun, Box<Tree>),
}

impl Tree {
    /// Builds the tree in `a` through the public constructors.
    pub fn build(&self, a: &mut Arena) -> Id {
        match self {
            Tree::Var(i) => a.var(*i),
            Tree::Const(c) => a.constant(*c),
            Tree::Add(x, y) => bin(a, x, y, Arena::add),
            Tree::Sub(x, y) => bin(a, x, y, Arena::sub),
            Tree::Mul(x, y) => bin(a, x, y, Arena::mul),
            Tree::Div(x, y) => bin(a, x, y, Arena::div),
            Tree::Powf(x, y) => bin(a, x, y, Arena::powf),
            Tree::Atan2(x, y) => bin(a, x, y, Arena::atan2),
            Tree::Neg(x) => {
                let x = x.build(a);
                a.neg(x)
            }
            Tree::Powi(x, n) => {
                let x = x.build(a);
                a.powi(x, *n)
            }
            Tree::PowfC(x, c) => {
                let x = x.build(a);
                let c = a.constant(*c);
                a.powf(x, c)
            }
            Tree::Fun(f, x) => {
                let x = x.build(a);
                let g = match f {
                    Fun::Sqrt => Arena::sqrt,
                    Fun::Exp => Arena::exp,
                    Fun::Ln => Arena::ln,
                    Fun::Sin => Arena::sin,
                    Fun::Cos => Arena::cos,
                    Fun::Tan => Arena::tan,
                    Fun::Asin => Arena::asin,
                    Fun::Acos => Arena::acos,
                    Fun::Atan => Arena::atan,
                    Fun::Sinh => Arena::sinh,
                    Fun::Cosh => Arena::cosh,
                    Fun::Tanh => Arena::tanh,
                };
                g(a, x)
            }
        }
    }
}

fn bin(a: &mut Arena, x: &Tree, y: &Tree, f: fn(&mut Arena, Id, Id) -> Id) -> Id {
    let x = x.build(a);
    let y = y.build(a);
    f(a, x, y)
}

fn fun() -> impl Strategy<Value = Fun> {
    prop_oneof![
        Just(Fun::Sqrt),
        Just(Fun::Exp),
        Just(Fun::Ln),
        Just(Fun::Sin),
        Just(Fun::Cos),
        Just(Fun::Tan),
        Just(Fun::Asin),
        Just(Fun::Acos),
        Just(Fun::Atan),
        Just(Fun::Sinh),
        Just(Fun::Cosh),
        Just(Fun::Tanh),
    ]
}

/// Random trees of depth ≤ 5 over three variables.
pub fn tree() -> impl Strategy<Value = Tree> {
    let constant = prop_oneof![
        Just(0.0),
        Just(1.0),
        Just(-1.0),
        Just(2.0),
        Just(0.5),
        -3.0..3.0f64,
    ];
    let leaf = prop_oneof![
        3 => (0..3usize).prop_map(Tree::Var),
        1 => constant.prop_map(Tree::Const),
    ];
    leaf.prop_recursive(5, 48, 2, |inner| {
        let exponent = prop_oneof![
            Just(0.5),
            Just(1.5),
            Just(2.0),
            Just(2.5),
            Just(-0.5),
            Just(3.0),
            -3.0..3.0f64
        ];
        let b = |f: fn(Box<Tree>, Box<Tree>) -> Tree| {
            (inner.clone(), inner.clone()).prop_map(move |(x, y)| f(Box::new(x), Box::new(y)))
        };
        prop_oneof![
            3 => b(Tree::Add),
            2 => b(Tree::Sub),
            3 => b(Tree::Mul),
            2 => b(Tree::Div),
            1 => b(Tree::Powf),
            1 => b(Tree::Atan2),
            1 => inner.clone().prop_map(|x| Tree::Neg(Box::new(x))),
            2 => (inner.clone(), -3..=4i32).prop_map(|(x, n)| Tree::Powi(Box::new(x), n)),
            1 => (inner.clone(), exponent).prop_map(|(x, c)| Tree::PowfC(Box::new(x), c)),
            4 => (fun(), inner).prop_map(|(f, x)| Tree::Fun(f, Box::new(x))),
        ]
    })
}

//! Code emission: common-subexpression elimination and straight-line Rust code.
//!
//! Every node reachable from the outputs is either *named* (one `let __tK: f64 = ...;`) or
//! *inlined* into its single user. A node is named when it is used more than once across all
//! outputs, when it is the base of an integer power `|n| ≥ 2` (expanded into products of
//! the base), or when inlining it would nest expressions too deeply. Constants and variables
//! are never named.
//!
//! Expressions are first built as a small operator tree ([`Ex`]) and then printed with
//! minimal parentheses: sums with negative terms become subtractions, products with `^-n`
//! factors become one division, a coefficient `-1` becomes a unary minus, and integer powers
//! become products by repeated squaring. Elementary functions are called as `#math::f(..)`,
//! never as inherent `f64` methods, so the code also compiles in `#![no_std]` crates.

use std::collections::{HashMap, HashSet};

use proc_macro2::{Delimiter, Group, Ident, Literal, Span, TokenStream, TokenTree};
use quote::{format_ident, quote};

use super::expr::Arena;
use super::node::{Id, Node};

/// Emits straight-line code computing `outputs`.
///
/// `var_expr(i)` gives the tokens of variable `i`; they must form a primary or postfix
/// expression (`q[0]`, `self.m`, a path, a call) because they are used as operands without
/// parentheses. `math` is the path of the module providing the elementary functions
/// (`sin`, `cos`, `tan`, `asin`, `acos`, `atan`, `atan2(y, x)`, `sinh`, `cosh`, `tanh`,
/// `sqrt`, `exp`, `ln`, `powf(x, y)`, all on `f64`, and `sin_cos(x)`, both at once).
///
/// Returns the `let` statements (topologically ordered; one per shared node, plus the
/// intermediate squares of large integer powers) and one expression per output. Every `let`
/// is used, and no expression carries parentheses the compiler would call unnecessary.
pub fn emit(
    arena: &Arena,
    outputs: &[Id],
    var_expr: &dyn Fn(usize) -> TokenStream,
    math: &TokenStream,
) -> (TokenStream, Vec<TokenStream>) {
    let order = arena.reachable(outputs, |_| false);

    // Use counts over the whole DAG reachable from the outputs.
    let mut uses: HashMap<Id, usize> = HashMap::new();
    let mut forced: HashSet<Id> = HashSet::new();
    for &id in &order {
        let node = arena.node(id);
        for &c in node.children() {
            *uses.entry(c).or_default() += 1;
        }
        if let Node::Pow(b, n) = *node {
            if n.unsigned_abs() >= 2 {
                forced.insert(b);
            }
        }
    }
    for &o in outputs {
        *uses.entry(o).or_default() += 1;
    }
    let mut named: HashSet<Id> = HashSet::new();
    // Nesting depth of inlined expressions; deeper ones are cut by naming the node, which
    // keeps the printer's recursion (and the code) shallow.
    let mut depth: HashMap<Id, usize> = HashMap::new();
    for &id in &order {
        let node = arena.node(id);
        if matches!(node, Node::Const(_) | Node::Var(_)) {
            continue;
        }
        let d = 1 + node
            .children()
            .iter()
            .map(|c| depth.get(c).copied().unwrap_or(0))
            .max()
            .unwrap_or(0);
        if uses.get(&id).copied().unwrap_or(0) >= 2 || forced.contains(&id) || d > MAX_INLINE_DEPTH
        {
            named.insert(id);
        } else {
            depth.insert(id, d);
        }
    }

    // Sines and cosines of one argument: both named, computed together by one
    // `sin_cos` (one argument reduction instead of two; the same values as `sin` and `cos`).
    let mut sines: HashMap<Id, Id> = HashMap::new();
    let mut cosines: HashMap<Id, Id> = HashMap::new();
    for &id in &order {
        match *arena.node(id) {
            Node::Sin(a) => {
                sines.insert(a, id);
            }
            Node::Cos(a) => {
                cosines.insert(a, id);
            }
            _ => {}
        }
    }
    let mut pairs: HashMap<Id, (Id, Id)> = HashMap::new();
    for (a, &sin) in &sines {
        if let Some(&cos) = cosines.get(a) {
            named.insert(sin);
            named.insert(cos);
            pairs.insert(sin, (sin, cos));
            pairs.insert(cos, (sin, cos));
        }
    }

    let mut emitter = Emitter {
        arena,
        var_expr,
        math,
        named,
        names: HashMap::new(),
        inline: HashMap::new(),
        powers: HashMap::new(),
        lets: TokenStream::new(),
        counter: 0,
    };
    for &id in &order {
        if matches!(arena.node(id), Node::Const(_) | Node::Var(_)) {
            continue;
        }
        if let Some(&(sin, cos)) = pairs.get(&id) {
            if !emitter.names.contains_key(&id) {
                emitter.bind_sin_cos(sin, cos);
            }
            continue;
        }
        let positive_power = match *arena.node(id) {
            Node::Pow(b, n) if n > 0 => Some((b, n.unsigned_abs())),
            _ => None,
        };
        if emitter.named.contains(&id) {
            // Already computed as an intermediate square of another power?
            if let Some(name) = positive_power.and_then(|p| emitter.powers.get(&p)) {
                let name = name.clone();
                emitter.names.insert(id, name);
                continue;
            }
        }
        let ex = emitter.build(id);
        if emitter.named.contains(&id) {
            let name = emitter.bind(&ex);
            if let Some(p) = positive_power {
                emitter.powers.insert(p, name.clone());
            }
            emitter.names.insert(id, name);
        } else {
            emitter.inline.insert(id, ex);
        }
    }
    let exprs = outputs
        .iter()
        .map(|&o| emitter.operand(o).to_tokens())
        .collect();
    (emitter.lets, exprs)
}

/// Inlined expressions nest at most this deep before a node is named anyway.
const MAX_INLINE_DEPTH: usize = 24;

/// State of one emission.
struct Emitter<'a> {
    arena: &'a Arena,
    var_expr: &'a dyn Fn(usize) -> TokenStream,
    math: &'a TokenStream,
    /// Nodes that get a `let`.
    named: HashSet<Id>,
    /// Names of the named nodes emitted so far.
    names: HashMap<Id, Ident>,
    /// Expressions of inlined nodes, waiting for their single user.
    inline: HashMap<Id, Ex>,
    /// The `let` statements so far.
    lets: TokenStream,
    /// Number of `let`s so far (for fresh names).
    counter: usize,
    /// Named positive powers `(base, n) → name`, from named `Pow` nodes and from the
    /// intermediate squares of repeated squaring, so powers reuse each other.
    powers: HashMap<(Id, u32), Ident>,
}

impl Emitter<'_> {
    /// Emits `let __tK: f64 = ex;` and returns `__tK`.
    fn bind(&mut self, ex: &Ex) -> Ident {
        let name = format_ident!("__t{}", self.counter, span = Span::mixed_site());
        self.counter += 1;
        let value = ex.to_tokens();
        self.lets.extend(quote!(let #name: f64 = #value;));
        name
    }

    /// Emits `let (__tK, __tL) = #math::sin_cos(a);` for the nodes `sin = Sin(a)` and
    /// `cos = Cos(a)` and names them.
    fn bind_sin_cos(&mut self, sin: Id, cos: Id) {
        let Node::Sin(a) = *self.arena.node(sin) else {
            return;
        };
        let s = format_ident!("__t{}", self.counter, span = Span::mixed_site());
        let c = format_ident!("__t{}", self.counter + 1, span = Span::mixed_site());
        self.counter += 2;
        let a = self.operand(a).to_tokens();
        let math = self.math;
        self.lets
            .extend(quote!(let (#s, #c): (f64, f64) = #math::sin_cos(#a);));
        self.names.insert(sin, s);
        self.names.insert(cos, c);
    }

    /// The expression of an operand: its name, a constant or variable, or its inlined
    /// expression (taken: an inlined node has exactly one user).
    fn operand(&mut self, id: Id) -> Ex {
        if let Some(name) = self.names.get(&id) {
            return Ex::Atom(quote!(#name));
        }
        match *self.arena.node(id) {
            Node::Const(bits) => constant(f64::from_bits(bits)),
            Node::Var(i) => Ex::Atom((self.var_expr)(i)),
            // Only reachable if an inlined node had several users, which the use counts
            // exclude; rebuilding keeps the output correct anyway.
            _ => match self.inline.remove(&id) {
                Some(ex) => ex,
                None => self.build(id),
            },
        }
    }

    /// The expression of a node in terms of its operands.
    fn build(&mut self, id: Id) -> Ex {
        let node = self.arena.node(id);
        if let Some((name, a)) = node.unary() {
            let f = Ident::new(name, Span::call_site());
            let a = self.operand(a).to_tokens();
            let math = self.math;
            return Ex::Atom(quote!(#math::#f(#a)));
        }
        match node {
            Node::Const(bits) => constant(f64::from_bits(*bits)),
            Node::Var(i) => Ex::Atom((self.var_expr)(*i)),
            Node::Add(terms) => self.build_sum(terms),
            Node::Mul(factors) => self.build_product(factors),
            &Node::Pow(b, n) => {
                let powers = self.power_factors(b, n.unsigned_abs());
                if n > 0 {
                    Ex::product(powers, Vec::new())
                } else {
                    Ex::product(Vec::new(), powers)
                }
            }
            &Node::Powf([a, b]) => self.call2("powf", a, b),
            &Node::Atan2([y, x]) => self.call2("atan2", y, x),
            // Unary functions were handled above.
            _ => Ex::Atom(TokenStream::new()),
        }
    }

    /// `#math::name(a, b)`.
    fn call2(&mut self, name: &str, a: Id, b: Id) -> Ex {
        let f = Ident::new(name, Span::call_site());
        let a = self.operand(a).to_tokens();
        let b = self.operand(b).to_tokens();
        let math = self.math;
        Ex::Atom(quote!(#math::#f(#a, #b)))
    }

    /// A sum: non-constant terms first (constant last), a positive term in front if there is
    /// one, negative terms as subtractions.
    fn build_sum(&mut self, terms: &[Id]) -> Ex {
        let (consts, others): (Vec<Id>, Vec<Id>) = terms
            .iter()
            .partition(|&&t| self.arena.as_const(t).is_some());
        let exs: Vec<Ex> = others
            .into_iter()
            .chain(consts)
            .map(|t| match self.operand(t) {
                // A negated sum as a term: `a - (b + c)` rather than `a + (-b - c)`.
                Ex::Sum(ts) if ts.iter().all(|t| matches!(t, Ex::Neg(_))) => {
                    Ex::Neg(Box::new(Ex::Sum(ts).negated()))
                }
                ex => ex,
            })
            .collect();
        Ex::sum(exs)
    }

    /// A product: `-c * a * b / (d * e)` from coefficient, positive and negative powers.
    fn build_product(&mut self, factors: &[Id]) -> Ex {
        let mut coefficient = None;
        let mut num = Vec::new();
        let mut den = Vec::new();
        // Bases appearing with a positive power: a negative power of the same base is kept as
        // its own `(1.0 / b)` factor so the code never reads `b / b`.
        let positive_bases: HashSet<Id> = factors
            .iter()
            .filter_map(|&f| match *self.arena.node(f) {
                Node::Pow(b, n) if n > 0 => Some(b),
                Node::Pow(..) => None,
                _ => Some(f),
            })
            .collect();
        for (k, &f) in factors.iter().enumerate() {
            if k == 0 {
                if let Some(c) = self.arena.as_const(f) {
                    coefficient = Some(c);
                    continue;
                }
            }
            let keep_whole = match *self.arena.node(f) {
                Node::Pow(b, n) => n < 0 && positive_bases.contains(&b),
                _ => false,
            };
            match self.operand(f) {
                Ex::Product(n, d) if !keep_whole => {
                    num.extend(n);
                    den.extend(d);
                }
                ex => num.push(ex),
            }
        }
        let coefficient = coefficient.unwrap_or(1.0);
        let magnitude = coefficient.abs();
        if magnitude != 1.0 {
            num.insert(0, constant(magnitude));
        }
        let ex = Ex::product(num, den);
        if coefficient < 0.0 {
            ex.negated()
        } else {
            ex
        }
    }

    /// The factors of `b^m` (`m ≥ 1`) by repeated squaring: `b^6 → [s, s, s]` after
    /// `let s = b * b;`. Squares used more than once are named here.
    fn power_factors(&mut self, b: Id, m: u32) -> Vec<Ex> {
        if let Some(name) = self.powers.get(&(b, m)) {
            return vec![Ex::Atom(quote!(#name))];
        }
        let base = self.operand(b);
        if m <= 1 {
            return vec![base];
        }
        // squares[k] = b^(2^k) for k < top; the top square b^(2^top) is used once, as the
        // product of two copies of squares[top - 1] (unless it is already named).
        let top = m.ilog2();
        let mut squares = vec![base];
        for k in 1..top {
            let name = match self.powers.get(&(b, 1 << k)) {
                Some(name) => name.clone(),
                None => {
                    let prev = &squares[k as usize - 1];
                    let sq = Ex::product(vec![prev.clone(), prev.clone()], Vec::new());
                    let name = self.bind(&sq);
                    self.powers.insert((b, 1 << k), name.clone());
                    name
                }
            };
            squares.push(Ex::Atom(quote!(#name)));
        }
        let mut out = Vec::new();
        for (k, sq) in squares.iter().enumerate() {
            if m & (1 << k) != 0 {
                out.push(sq.clone());
            }
        }
        if let Some(name) = self.powers.get(&(b, 1 << top)) {
            out.push(Ex::Atom(quote!(#name)));
        } else {
            let last = &squares[top as usize - 1];
            out.push(last.clone());
            out.push(last.clone());
        }
        out
    }
}

/// The expression of a constant: a suffixed literal (`-` in front of negative ones), or the
/// `core::f64::consts` name of a constant clippy would otherwise flag as approximate.
fn constant(x: f64) -> Ex {
    let x = if x == 0.0 { 0.0 } else { x };
    if x < 0.0 {
        return Ex::Neg(Box::new(constant(-x)));
    }
    if x.is_nan() {
        return Ex::Atom(quote!(f64::NAN));
    }
    if x.is_infinite() {
        return Ex::Atom(quote!(f64::INFINITY));
    }
    use std::f64::consts;
    let named: [(f64, &str); 18] = [
        (consts::E, "E"),
        (consts::FRAC_1_PI, "FRAC_1_PI"),
        (consts::FRAC_1_SQRT_2, "FRAC_1_SQRT_2"),
        (consts::FRAC_2_PI, "FRAC_2_PI"),
        (consts::FRAC_2_SQRT_PI, "FRAC_2_SQRT_PI"),
        (consts::FRAC_PI_2, "FRAC_PI_2"),
        (consts::FRAC_PI_3, "FRAC_PI_3"),
        (consts::FRAC_PI_4, "FRAC_PI_4"),
        (consts::FRAC_PI_6, "FRAC_PI_6"),
        (consts::FRAC_PI_8, "FRAC_PI_8"),
        (consts::LN_10, "LN_10"),
        (consts::LN_2, "LN_2"),
        (consts::LOG10_E, "LOG10_E"),
        (consts::LOG2_E, "LOG2_E"),
        (consts::LOG2_10, "LOG2_10"),
        (consts::LOG10_2, "LOG10_2"),
        (consts::PI, "PI"),
        (consts::SQRT_2, "SQRT_2"),
    ];
    if let Some((_, name)) = named.iter().find(|(v, _)| v.to_bits() == x.to_bits()) {
        let name = Ident::new(name, Span::call_site());
        return Ex::Atom(quote!(::core::f64::consts::#name));
    }
    if x.to_bits() == consts::TAU.to_bits() {
        return Ex::Atom(quote!(::core::f64::consts::TAU));
    }
    // `{:?}` is the shortest round-trip form and switches to exponent notation for very
    // large / small magnitudes (`1e300`), which `f64_suffixed` would spell out in full.
    let lit = format!("{x:?}_f64")
        .parse::<Literal>()
        .unwrap_or_else(|_| Literal::f64_suffixed(x));
    Ex::Atom(TokenTree::Literal(lit).into())
}

/// Operator tree of an emitted expression, printed with minimal parentheses.
#[derive(Clone, Debug)]
enum Ex {
    /// Needs no parentheses anywhere: name, literal, variable, call.
    Atom(TokenStream),
    /// `-x`; a negated product prints as `-a * b` (the minus on its first factor).
    Neg(Box<Ex>),
    /// `a + b - c`: a term that is an [`Ex::Neg`] is subtracted.
    Sum(Vec<Ex>),
    /// `a * b / (c * d)`; an empty numerator prints as `1.0`.
    Product(Vec<Ex>, Vec<Ex>),
}

/// Binding strength of the printed forms.
const PREC_SUM: u8 = 1;
const PREC_PRODUCT: u8 = 2;
const PREC_UNARY: u8 = 3;
const PREC_ATOM: u8 = 4;

impl Ex {
    /// A product, collapsed to its single factor if it has only one.
    fn product(mut num: Vec<Ex>, den: Vec<Ex>) -> Ex {
        if den.is_empty() && num.len() == 1 {
            if let Some(x) = num.pop() {
                return x;
            }
        }
        Ex::Product(num, den)
    }

    /// A sum, with a positive term moved to the front if there is one (`b - a`, not
    /// `-a + b`).
    fn sum(mut terms: Vec<Ex>) -> Ex {
        if let Some(k) = terms.iter().position(|e| !matches!(e, Ex::Neg(_))) {
            let first = terms.remove(k);
            terms.insert(0, first);
        }
        Ex::Sum(terms)
    }

    /// `-self`, pushed into sums (`-(a - b)` is `b - a`, exactly: IEEE rounding is symmetric)
    /// and cancelling a negation.
    fn negated(self) -> Ex {
        match self {
            Ex::Neg(x) => *x,
            Ex::Sum(terms) => Ex::sum(terms.into_iter().map(Ex::negated).collect()),
            x => Ex::Neg(Box::new(x)),
        }
    }

    /// How strongly the printed form binds.
    fn prec(&self) -> u8 {
        match self {
            Ex::Atom(_) => PREC_ATOM,
            Ex::Neg(x) => match **x {
                Ex::Product(..) => PREC_PRODUCT,
                _ => PREC_UNARY,
            },
            Ex::Sum(ts) if ts.len() == 1 => ts[0].prec(),
            Ex::Sum(_) => PREC_SUM,
            Ex::Product(num, den) if den.is_empty() && num.len() == 1 => num[0].prec(),
            Ex::Product(..) => PREC_PRODUCT,
        }
    }

    /// Printed at the top level (a `let` initializer, a function argument, an output).
    fn to_tokens(&self) -> TokenStream {
        let mut out = TokenStream::new();
        self.print(0, &mut out);
        out
    }

    /// Prints `self`, in parentheses if it binds less strongly than `min`.
    fn print(&self, min: u8, out: &mut TokenStream) {
        if self.prec() < min {
            let inner = self.to_tokens();
            out.extend([TokenTree::Group(Group::new(Delimiter::Parenthesis, inner))]);
            return;
        }
        match self {
            Ex::Atom(t) => out.extend(t.clone()),
            Ex::Neg(x) => print_negated(x, out),
            Ex::Sum(terms) => {
                for (k, t) in terms.iter().enumerate() {
                    match (k, t) {
                        (0, t) => t.print(PREC_SUM, out),
                        (_, Ex::Neg(x)) => {
                            out.extend(quote!(-));
                            // `a - -b` would read as a double negation.
                            let min = if matches!(**x, Ex::Neg(_)) {
                                PREC_ATOM
                            } else {
                                PREC_PRODUCT
                            };
                            x.print(min, out);
                        }
                        (_, t) => {
                            out.extend(quote!(+));
                            t.print(PREC_PRODUCT, out);
                        }
                    }
                }
            }
            Ex::Product(num, den) => print_product(None, num, den, out),
        }
    }
}

/// Prints `-x` so that it parses back as the negation of `x`.
fn print_negated(x: &Ex, out: &mut TokenStream) {
    match x {
        Ex::Product(num, den) => {
            let (first, rest) = match num.split_first() {
                Some((first, rest)) => (Some(first), rest),
                None => (None, &[][..]),
            };
            print_product(Some(first), rest, den, out);
        }
        // `- -x` would be a double negation: parenthesize the inner one.
        Ex::Neg(_) => {
            out.extend(quote!(-));
            x.print(PREC_ATOM, out);
        }
        _ => {
            out.extend(quote!(-));
            x.print(PREC_UNARY, out);
        }
    }
}

/// Prints `a * b / (c * d)`. `negated_first = Some(f)` prints `-f * a * b / ...` (with
/// `f = None` standing for `1.0`).
fn print_product(
    negated_first: Option<Option<&Ex>>,
    num: &[Ex],
    den: &[Ex],
    out: &mut TokenStream,
) {
    let one = constant(1.0);
    let mut factors: Vec<&Ex> = Vec::new();
    let negate = negated_first.is_some();
    if let Some(first) = negated_first {
        factors.push(first.unwrap_or(&one));
    }
    factors.extend(num.iter());
    if factors.is_empty() {
        factors.push(&one);
    }
    for (k, f) in factors.iter().enumerate() {
        if k > 0 {
            out.extend(quote!(*));
        }
        if k == 0 && negate {
            out.extend(quote!(-));
            let min = if matches!(f, Ex::Neg(_)) {
                PREC_ATOM
            } else {
                PREC_UNARY
            };
            f.print(min, out);
        } else {
            f.print(PREC_UNARY, out);
        }
    }
    match den {
        [] => {}
        [d] => {
            out.extend(quote!(/));
            d.print(PREC_UNARY, out);
        }
        _ => {
            out.extend(quote!(/));
            Ex::Product(den.to_vec(), Vec::new()).print(PREC_ATOM, out);
        }
    }
}

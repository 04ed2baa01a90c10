//! Lowering user expressions (syn) into the symbolic engine's arena, with scoped `let` names.
//!
//! Every mistake is recorded in the [`Ctxt`] on the user's tokens and replaced by the
//! placeholder variable [`POISON`], so that lowering goes on and later checks can tell which
//! expressions are not to be trusted ([`Arena::depends_on`]`(e, POISON)`).

use std::collections::HashMap;

use proc_macro2::Span;
use syn::{BinOp, Expr, Lit, Pat, Stmt, UnOp};

use crate::ctxt::Ctxt;
use crate::sym::{Arena, Id};

/// Functions of one argument, callable as `x.f()` or `f(x)`.
pub const UNARY_FUNCTIONS: &[&str] = &[
    "sqrt", "exp", "ln", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
];
/// Functions of two arguments, callable as `x.f(y)` or `f(x, y)`.
pub const BINARY_FUNCTIONS: &[&str] = &["powi", "powf", "atan2"];

/// The variable standing for an expression that could not be lowered. It never reaches code
/// generation: an expansion with a placeholder has an error.
pub const POISON: usize = usize::MAX;

/// The `help:` of every "not supported" error.
pub const SUPPORTED_SYNTAX: &str = "a model is written with numbers, names, `+ - * /`, \
    parentheses, `{ let a = ...; a }` blocks, `PI` and the supported functions";

/// The supported functions, for messages.
pub const SUPPORTED_FUNCTIONS: &str = "`powi` (integer literal exponent), `powf`, `sqrt`, \
    `exp`, `ln`, `sin`, `cos`, `tan`, `asin`, `acos`, `atan`, `atan2`, `sinh`, `cosh`, `tanh`, \
    as methods (`x.sin()`, `y.atan2(x)`) or calls (`sin(x)`, `atan2(y, x)`), and the time \
    derivative `dt(e)`";

/// Whether `name` cannot be declared because the DSL gives it a meaning already.
pub fn reserved(name: &str) -> Option<&'static str> {
    if name == "t" {
        Some("`t` is time")
    } else if name == "PI" {
        Some("`PI` is the constant π")
    } else if UNARY_FUNCTIONS.contains(&name) || BINARY_FUNCTIONS.contains(&name) {
        Some("it is a supported function")
    } else {
        None
    }
}

/// Names visible in an expression, mapped to their nodes.
#[derive(Clone, Default)]
pub struct Scope {
    names: HashMap<String, Id>,
}

impl Scope {
    /// Binds `name` (shadowing any earlier binding).
    pub fn bind(&mut self, name: String, id: Id) {
        self.names.insert(name, id);
    }

    /// The node bound to `name`.
    pub fn get(&self, name: &str) -> Option<Id> {
        self.names.get(name).copied()
    }

    fn nearest(&self, name: &str) -> Option<String> {
        let mut candidates: Vec<&str> = self.names.keys().map(String::as_str).collect();
        candidates.push("PI");
        nearest(name, candidates)
    }
}

/// The candidate closest to `name` when one is close enough to be a likely typo: equal up to
/// case, one edit away (for names of two or more characters), or two edits away (when both
/// have at least four). Ties go to a candidate with the same first character.
pub fn nearest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    candidates
        .into_iter()
        .filter(|k| *k != name)
        .filter_map(|k| {
            let d = if k.eq_ignore_ascii_case(name) {
                0
            } else {
                edit_distance(k, name)
            };
            let (short, long) = (k.len().min(name.len()), k.len().max(name.len()));
            let close = d == 0 || (d == 1 && long >= 2) || (d == 2 && short >= 4);
            let other_start = k.chars().next() != name.chars().next();
            close.then_some((d, other_start, k))
        })
        .min()
        .map(|(_, _, k)| k.to_string())
}

/// Levenshtein distance (insertions, deletions and substitutions of characters).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for j in 0..b.len() {
            let cur = row[j + 1];
            row[j + 1] = if ca == b[j] {
                prev
            } else {
                1 + prev.min(cur).min(row[j])
            };
            prev = cur;
        }
    }
    row[b.len()]
}

/// A hint for functions that users commonly reach for but the DSL spells differently.
fn function_hint(name: &str) -> Option<&'static str> {
    Some(match name {
        "log" | "log10" | "log2" => "the natural logarithm is `ln`, e.g. `x.ln()`",
        "pow" => "use `x.powi(2)` for an integer exponent or `x.powf(y)` for a real one",
        "abs" => "`abs` has no derivative at 0; write `x.powi(2).sqrt()` if `x` stays away from 0",
        "signum" => {
            "`signum` jumps at 0 (dry friction, for instance) and has no derivative there; \
             smooth it, e.g. `(vx / eps).tanh()` with a small parameter `eps`"
        }
        "hypot" => "write `(x.powi(2) + y.powi(2)).sqrt()`",
        "sin_cos" => "call `sin` and `cos` separately",
        "square" => "write `x.powi(2)`",
        "cbrt" => "write `x.powf(1.0 / 3.0)` (for `x > 0`)",
        "exp2" => "write `2.0.powf(x)` or `(x * 2.0.ln()).exp()`",
        _ => return None,
    })
}

/// What `dt(e)` needs: the variables of time, of every coordinate and of its velocity.
pub struct Rates {
    /// The variable of `t`.
    pub time: usize,
    /// `(coordinate, velocity)` variable pairs, one per coordinate.
    pub pairs: Vec<(usize, usize)>,
}

/// Lowers expressions of one model; errors are recorded and the placeholder [`POISON`] is
/// returned, so that every mistake in the model is reported in one go.
pub struct Lowerer<'a> {
    pub cx: &'a mut Ctxt,
    pub arena: &'a mut Arena,
    /// The coordinates and velocities that `dt(e)` differentiates along; `None` in the forms
    /// without velocities (Hamiltonian, DAE), where `dt` is an error.
    pub rates: Option<Rates>,
}

impl Lowerer<'_> {
    /// The placeholder for an expression that has an error.
    pub fn placeholder(&mut self) -> Id {
        self.arena.var(POISON)
    }

    /// Lowers `e` in `scope`. Recursive, but bounded: past
    /// [`crate::depth::MAX_LOWERED_DEPTH`] levels the rest is an error (`unroll` has cut
    /// deeper expressions already, so this only guards the stack).
    pub fn expr(&mut self, scope: &Scope, e: &Expr) -> Id {
        let Some(_level) = crate::depth::Entered::enter(crate::depth::MAX_LOWERED_DEPTH) else {
            self.cx.push(crate::depth::too_deep_expanded(e));
            return self.placeholder();
        };
        self.expr_at_level(scope, e)
    }

    /// [`Lowerer::expr`] once the level is counted.
    fn expr_at_level(&mut self, scope: &Scope, e: &Expr) -> Id {
        match e {
            Expr::Lit(lit) => self.literal(&lit.lit),
            Expr::Paren(p) => self.expr(scope, &p.expr),
            Expr::Group(g) => self.expr(scope, &g.expr),
            Expr::Unary(u) => match u.op {
                UnOp::Neg(_) => {
                    let a = self.expr(scope, &u.expr);
                    self.arena.neg(a)
                }
                UnOp::Not(tok) => self.unsupported(&tok, "the operator `!`", SUPPORTED_SYNTAX),
                UnOp::Deref(tok) => self.unsupported(&tok, "dereferencing", SUPPORTED_SYNTAX),
                _ => self.unsupported(&u.op, "this operator", SUPPORTED_SYNTAX),
            },
            Expr::Binary(b) => self.binary(scope, b),
            // Where `unroll` already reported an error.
            Expr::Path(p) if p.path.is_ident(crate::unroll::REPORTED) => self.placeholder(),
            Expr::Path(p) => self.path(scope, p),
            Expr::MethodCall(m) => {
                if let Some(turbofish) = &m.turbofish {
                    return self.unsupported(turbofish, "generic arguments", SUPPORTED_SYNTAX);
                }
                let name = m.method.to_string();
                let mut args: Vec<&Expr> = vec![&m.receiver];
                args.extend(m.args.iter());
                self.call(scope, e, &m.method, &name, &args, true)
            }
            Expr::Call(c) => {
                let func = match &*c.func {
                    Expr::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
                        &p.path.segments[0].ident
                    }
                    Expr::Path(p) => {
                        let last = p.path.segments.last().map(|s| s.ident.to_string());
                        let help = match last {
                            Some(f)
                                if UNARY_FUNCTIONS.contains(&f.as_str())
                                    || BINARY_FUNCTIONS.contains(&f.as_str()) =>
                            {
                                format!("call the function without a path: `{f}(...)`")
                            }
                            _ => format!("the supported functions are {SUPPORTED_FUNCTIONS}"),
                        };
                        return self.unsupported(&c.func, "a function path", help);
                    }
                    other => {
                        let callee = self.expr(scope, other);
                        for a in &c.args {
                            self.expr(scope, a);
                        }
                        if self.arena.depends_on(callee, POISON) {
                            return self.placeholder();
                        }
                        return self.unsupported(
                            other,
                            "calling this expression",
                            SUPPORTED_SYNTAX,
                        );
                    }
                };
                let args: Vec<&Expr> = c.args.iter().collect();
                self.call(scope, e, func, &func.to_string(), &args, false)
            }
            Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => {
                self.block(scope, &b.block)
            }
            Expr::Block(b) => self.unsupported(b, "a labelled block", SUPPORTED_SYNTAX),
            Expr::If(x) => self.unsupported(&x.if_token, "`if`", SUPPORTED_SYNTAX),
            Expr::Match(x) => self.unsupported(&x.match_token, "`match`", SUPPORTED_SYNTAX),
            Expr::ForLoop(x) => self.unsupported(&x.for_token, "a `for` loop", SUPPORTED_SYNTAX),
            Expr::While(x) => self.unsupported(&x.while_token, "a `while` loop", SUPPORTED_SYNTAX),
            Expr::Loop(x) => self.unsupported(&x.loop_token, "`loop`", SUPPORTED_SYNTAX),
            Expr::Closure(x) => self.unsupported(x, "a closure", SUPPORTED_SYNTAX),
            Expr::Macro(x) => {
                let name = x
                    .mac
                    .path
                    .segments
                    .last()
                    .map_or_else(String::new, |s| s.ident.to_string());
                let path = &x.mac.path;
                let bang = &x.mac.bang_token;
                self.unsupported(
                    &quote::quote!(#path #bang),
                    format!("the macro `{name}!`"),
                    "macros are not expanded inside a model; write the expression itself",
                )
            }
            Expr::Index(x) => self.unsupported(
                x,
                "indexing",
                "give every coordinate, velocity and parameter its own name",
            ),
            Expr::Cast(x) => self.unsupported(
                x,
                "an `as` cast",
                "every value in a model is already an `f64`; remove the cast",
            ),
            Expr::Field(x) => {
                let help = match (&*x.base, &x.member) {
                    (Expr::Path(p), syn::Member::Named(m)) if p.path.is_ident("self") => {
                        format!("use the parameter by its name: `{m}`")
                    }
                    _ => "give every coordinate, velocity and parameter its own name".into(),
                };
                self.unsupported(x, "field access", help)
            }
            _ => self.unsupported(e, "this expression", SUPPORTED_SYNTAX),
        }
    }

    fn unsupported(
        &mut self,
        node: &impl quote::ToTokens,
        what: impl std::fmt::Display,
        help: impl std::fmt::Display,
    ) -> Id {
        self.cx
            .error_spanned_help(node, format!("{what} is not supported in a model"), help);
        self.placeholder()
    }

    fn literal(&mut self, lit: &Lit) -> Id {
        let value = match lit {
            Lit::Float(f) => f.base10_parse::<f64>(),
            Lit::Int(i) => i.base10_parse::<f64>(),
            _ => {
                self.cx.error_spanned_help(
                    lit,
                    "only numeric literals are supported in a model",
                    "write a number such as `1.0`",
                );
                return self.placeholder();
            }
        };
        match value {
            Ok(x) if x.is_finite() => self.arena.constant(x),
            Ok(_) => {
                self.cx.error_spanned_help(
                    lit,
                    "this literal is not a finite `f64`",
                    "the largest finite `f64` is about `1.8e308`",
                );
                self.placeholder()
            }
            Err(err) => {
                self.cx.error(lit.span(), err);
                self.placeholder()
            }
        }
    }

    fn binary(&mut self, scope: &Scope, b: &syn::ExprBinary) -> Id {
        let l = self.expr(scope, &b.left);
        let r = self.expr(scope, &b.right);
        let op = match b.op {
            BinOp::Add(_) | BinOp::Sub(_) | BinOp::Mul(_) | BinOp::Div(_) => b.op,
            BinOp::BitXor(tok) => {
                return self.unsupported(
                    &tok,
                    "the operator `^`",
                    "`^` is not a power in Rust; write `x.powi(2)` or `x.powf(y)`",
                )
            }
            op => {
                let shown = quote::ToTokens::to_token_stream(&op).to_string();
                return self.unsupported(
                    &op,
                    format!("the operator `{shown}`"),
                    "the arithmetic operators are `+`, `-`, `*` and `/`",
                );
            }
        };
        let out = match op {
            BinOp::Add(_) => self.arena.add(l, r),
            BinOp::Sub(_) => self.arena.sub(l, r),
            BinOp::Mul(_) => self.arena.mul(l, r),
            _ => {
                if self.arena.as_const(r) == Some(0.0) {
                    self.cx
                        .error_spanned(&b.right, "division by zero: the divisor simplifies to `0`");
                    return self.placeholder();
                }
                self.arena.div(l, r)
            }
        };
        if let (Some(x), Some(y), None) = (
            self.arena.as_const(l),
            self.arena.as_const(r),
            self.arena.as_const(out),
        ) {
            self.cx.error_spanned(
                b,
                format!(
                    "this arithmetic on the constants `{}` and `{}` overflows `f64`",
                    show(x),
                    show(y)
                ),
            );
            return self.placeholder();
        }
        out
    }

    fn path(&mut self, scope: &Scope, p: &syn::ExprPath) -> Id {
        let segs: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        let segs: Vec<&str> = segs.iter().map(String::as_str).collect();
        if p.qself.is_none() && p.path.leading_colon.is_none() {
            if let [single] = segs.as_slice() {
                if let Some(id) = scope.get(single) {
                    return id;
                }
            }
            if matches!(
                segs.as_slice(),
                ["PI"]
                    | ["f64", "consts", "PI"]
                    | ["consts", "PI"]
                    | ["core", "f64", "consts", "PI"]
                    | ["std", "f64", "consts", "PI"]
            ) {
                return self.arena.constant(core::f64::consts::PI);
            }
        }
        match segs.as_slice() {
            [name] => {
                let msg = format!("cannot find `{name}` in this model");
                match scope.nearest(name) {
                    Some(near) => self.cx.error_spanned_help(
                        p,
                        msg,
                        format!("a name with a similar spelling exists: `{near}`"),
                    ),
                    None => self.cx.error_spanned_help(
                        p,
                        msg,
                        format!(
                            "names are `t`, the coordinates, velocities, parameters and inputs, \
                             and `let` bindings; to use a constant `{name}`, add it to \
                             `parameters` (or to `inputs` if it changes between steps)"
                        ),
                    ),
                }
            }
            [.., last] if ["INFINITY", "NEG_INFINITY", "NAN"].contains(last) => {
                self.cx.error_spanned_help(
                    p,
                    format!("`{}` is not a finite number", segs.join("::")),
                    "every constant of a model must be finite",
                );
            }
            _ => {
                self.cx.error_spanned_help(
                    p,
                    "paths are not supported in a model",
                    "the only constant is `PI` (also `core::f64::consts::PI`); use coordinates, \
                     velocities, parameters and `let` bindings by their plain names",
                );
            }
        }
        self.placeholder()
    }

    fn block(&mut self, scope: &Scope, block: &syn::Block) -> Id {
        let mut inner = scope.clone();
        let mut result = None;
        for (k, stmt) in block.stmts.iter().enumerate() {
            let last = k + 1 == block.stmts.len();
            match stmt {
                Stmt::Local(local) => {
                    if let Some((name, value)) = self.local(&inner, local) {
                        inner.bind(name.to_string(), value);
                    }
                }
                Stmt::Expr(e, None) if last => result = Some(self.expr(&inner, e)),
                Stmt::Expr(e, Some(semi)) if last => {
                    // Lower it anyway to report the errors inside it.
                    self.expr(&inner, e);
                    self.cx.error_help(
                        semi.span,
                        "this block ends with `;`, so it has no value",
                        "remove the `;` after the last expression",
                    );
                    return self.placeholder();
                }
                Stmt::Expr(e, _) => {
                    // Report what is wrong inside first (a loop, say); only a statement that
                    // lowers cleanly gets the generic error.
                    let value = self.expr(&inner, e);
                    if !self.arena.depends_on(value, POISON) {
                        self.unsupported(
                            e,
                            "an expression statement",
                            "only `let` statements can come before the block's final expression",
                        );
                    }
                }
                Stmt::Macro(m) => {
                    self.unsupported(
                        m,
                        "a macro",
                        "macros are not expanded inside a model; write the expression itself",
                    );
                }
                Stmt::Item(item) => {
                    self.unsupported(
                        item,
                        "an item",
                        "only `let` statements can come before the block's final expression",
                    );
                }
            }
        }
        match result {
            Some(id) => id,
            None => {
                self.cx.error_spanned_help(
                    block,
                    "this block has no final expression, so it has no value",
                    "end it with the value, without `;`: `{ let ke = ...; ke - pe }`",
                );
                self.placeholder()
            }
        }
    }

    /// Lowers `let name = value;`, checking the name. `None` when there is nothing to bind
    /// (the pattern is not a name, or the name is reserved).
    pub fn local(&mut self, scope: &Scope, local: &syn::Local) -> Option<(syn::Ident, Id)> {
        let ident = match &local.pat {
            Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => pi.ident.clone(),
            Pat::Type(pt) => {
                let ty = &pt.ty;
                self.cx.error_spanned_help(
                    &pt.ty,
                    "a `let` binding in a model takes no type annotation",
                    format!(
                        "every value is an `f64`; remove `: {}`",
                        quote::ToTokens::to_token_stream(ty)
                    ),
                );
                match &*pt.pat {
                    Pat::Ident(pi) => pi.ident.clone(),
                    _ => return None,
                }
            }
            other => {
                self.unsupported(other, "this pattern", "bind one name: `let a = ...;`");
                return None;
            }
        };
        let reserved_name = reserved(&ident.to_string());
        if let Some(why) = reserved_name {
            self.cx.error_help(
                ident.span(),
                format!("`{ident}` cannot be bound with `let`: {why}"),
                "choose another name",
            );
        }
        let value = match &local.init {
            Some(syn::LocalInit {
                expr,
                diverge: None,
                ..
            }) => self.expr(scope, expr),
            Some(syn::LocalInit {
                diverge: Some((els, _)),
                ..
            }) => {
                self.cx.error_spanned_help(
                    els,
                    "`let ... else` is not supported in a model",
                    "bind a value: `let a = ...;`",
                );
                self.placeholder()
            }
            None => {
                self.cx.error_spanned_help(
                    local,
                    "this `let` has no value",
                    format!("give it one: `let {ident} = ...;`"),
                );
                self.placeholder()
            }
        };
        // A reserved name keeps its meaning: binding it would only cause follow-up errors.
        reserved_name.is_none().then_some((ident, value))
    }

    /// `dt(e)`: the total time derivative `∂e/∂t + Σ_i ∂e/∂q_i v_i` of an expression of `t`,
    /// the coordinates and the parameters (the velocity of a point, of an angle, ...).
    fn time_derivative(&mut self, scope: &Scope, whole: &Expr, args: &[&Expr]) -> Id {
        let values: Vec<Id> = args.iter().map(|a| self.expr(scope, a)).collect();
        if values.len() != 1 {
            self.cx.error_spanned_help(
                whole,
                format!("`dt` takes 1 argument but {} were given", values.len()),
                "write `dt(e)` for the time derivative of `e`",
            );
            return self.placeholder();
        }
        let e = values[0];
        if self.arena.depends_on(e, POISON) {
            return self.placeholder();
        }
        let Some(rates) = &self.rates else {
            self.cx.error_spanned_help(
                whole,
                "`dt` is supported in the Lagrangian form only",
                "`dt(e)` needs the velocities of the coordinates; write the time derivative out",
            );
            return self.placeholder();
        };
        let (time, pairs) = (rates.time, rates.pairs.clone());
        if self
            .arena
            .any_depends_on(&[e], |i| pairs.iter().any(|&(_, v)| v == i))
        {
            self.cx.error_spanned_help(
                args[0],
                "the argument of `dt` depends on a velocity, so its time derivative needs \
                 accelerations",
                "`dt(e)` differentiates an expression of `t`, the coordinates and the \
                 parameters (a position, an angle); write the velocity terms yourself",
            );
            return self.placeholder();
        }
        let mut terms = vec![self.arena.diff(e, time)];
        for (q, v) in pairs {
            let d = self.arena.diff(e, q);
            let vel = self.arena.var(v);
            terms.push(self.arena.mul(d, vel));
        }
        self.arena.sum(&terms)
    }

    fn call(
        &mut self,
        scope: &Scope,
        whole: &Expr,
        func: &syn::Ident,
        name: &str,
        args: &[&Expr],
        method: bool,
    ) -> Id {
        if name == "dt" && !method {
            return self.time_derivative(scope, whole, args);
        }
        let arity = if UNARY_FUNCTIONS.contains(&name) {
            1
        } else if BINARY_FUNCTIONS.contains(&name) {
            2
        } else {
            let what = if method {
                format!("the method `{name}`")
            } else {
                format!("the function `{name}`")
            };
            let candidates = UNARY_FUNCTIONS.iter().chain(BINARY_FUNCTIONS).copied();
            let list = format!("the supported functions are {SUPPORTED_FUNCTIONS}");
            let help = match (function_hint(name), nearest(name, candidates)) {
                (Some(hint), _) => format!("{hint}\nnote: {list}"),
                (None, Some(near)) => format!(
                    "a supported function with a similar name exists: `{near}`\nnote: {list}"
                ),
                (None, None) => list,
            };
            // Still lower the arguments, to report their errors too.
            for a in args {
                self.expr(scope, a);
            }
            return self.unsupported(func, what, help);
        };
        if args.len() != arity {
            let (expected, given, form) = if method {
                let form = match name {
                    "powi" => "`x.powi(2)`".to_string(),
                    "powf" => "`x.powf(y)`".to_string(),
                    "atan2" => "`y.atan2(x)`".to_string(),
                    _ => format!("`x.{name}()`"),
                };
                (arity - 1, args.len() - 1, form)
            } else {
                let form = match name {
                    "powi" => "`powi(x, 2)`".to_string(),
                    "powf" => "`powf(x, y)`".to_string(),
                    "atan2" => "`atan2(y, x)`".to_string(),
                    _ => format!("`{name}(x)`"),
                };
                (arity, args.len(), form)
            };
            let plural = |k: usize| if k == 1 { "" } else { "s" };
            self.cx.error_spanned_help(
                whole,
                format!(
                    "`{name}` takes {expected} argument{} but {given} {} given",
                    plural(expected),
                    if given == 1 { "was" } else { "were" }
                ),
                format!("write {form}"),
            );
            return self.placeholder();
        }
        if name == "powi" {
            let x = self.expr(scope, args[0]);
            let Some(n) = integer_literal(args[1]) else {
                self.expr(scope, args[1]);
                self.cx.error_spanned_help(
                    args[1],
                    "the exponent of `powi` must be an integer literal",
                    "use `powf` for a non-integer or symbolic exponent",
                );
                return self.placeholder();
            };
            if n < 0 && self.arena.as_const(x) == Some(0.0) {
                self.cx.error_spanned(
                    whole,
                    "division by zero: the base of `powi` simplifies to `0` and the exponent \
                     is negative",
                );
                return self.placeholder();
            }
            return self.finite_or_error(whole, name, &[x], |ar| ar.powi(x, n));
        }
        let a = self.expr(scope, args[0]);
        if arity == 2 {
            let b = self.expr(scope, args[1]);
            if let Some(msg) = self.binary_domain(name, a, b) {
                self.cx.error_spanned(whole, msg);
                return self.placeholder();
            }
            return self.finite_or_error(whole, name, &[a, b], |ar| match name {
                "powf" => ar.powf(a, b),
                _ => ar.atan2(a, b),
            });
        }
        if let Some(c) = self.arena.as_const(a) {
            if let Some(msg) = unary_domain(name, c) {
                self.cx.error_spanned(whole, msg);
                return self.placeholder();
            }
        }
        self.finite_or_error(whole, name, &[a], |ar| match name {
            "sqrt" => ar.sqrt(a),
            "exp" => ar.exp(a),
            "ln" => ar.ln(a),
            "sin" => ar.sin(a),
            "cos" => ar.cos(a),
            "tan" => ar.tan(a),
            "asin" => ar.asin(a),
            "acos" => ar.acos(a),
            "atan" => ar.atan(a),
            "sinh" => ar.sinh(a),
            "cosh" => ar.cosh(a),
            _ => ar.tanh(a),
        })
    }

    /// Builds a function node; when every argument is a constant the result must fold to a
    /// finite constant (the engine folds only finite results).
    fn finite_or_error(
        &mut self,
        whole: &Expr,
        name: &str,
        args: &[Id],
        build: impl FnOnce(&mut Arena) -> Id,
    ) -> Id {
        let out = build(self.arena);
        let consts: Option<Vec<f64>> = args.iter().map(|&a| self.arena.as_const(a)).collect();
        if let (Some(consts), None) = (consts, self.arena.as_const(out)) {
            let shown: Vec<String> = consts.iter().map(|c| format!("`{}`", show(*c))).collect();
            self.cx.error_spanned(
                whole,
                format!("`{name}` of {} is not a finite number", shown.join(" and ")),
            );
            return self.placeholder();
        }
        out
    }

    /// Arguments of `powf` / `atan2` at which the function or its derivative does not exist.
    fn binary_domain(&self, name: &str, a: Id, b: Id) -> Option<String> {
        let (ca, cb) = (self.arena.as_const(a), self.arena.as_const(b));
        let integer_exponent = cb.is_some_and(|e| e.fract() == 0.0);
        match (name, ca) {
            ("powf", Some(x)) if x < 0.0 && !integer_exponent => Some(format!(
                "the base of `powf` simplifies to `{}`, where `powf` is not defined for \
                 non-integer exponents",
                show(x)
            )),
            ("powf", Some(x)) if x == 0.0 && cb.is_none() => Some(
                "the base of `powf` simplifies to `0`, where `powf` has no derivative with \
                 respect to its exponent"
                    .into(),
            ),
            ("atan2", Some(y)) if y == 0.0 && cb == Some(0.0) => {
                Some("both arguments of `atan2` simplify to `0`, where it is not defined".into())
            }
            _ => None,
        }
    }
}

/// A constant argument `c` of the function `name` at which it or its derivative does not
/// exist: the message.
fn unary_domain(name: &str, c: f64) -> Option<String> {
    let c_shown = show(c);
    let undefined = || {
        format!("the argument of `{name}` simplifies to `{c_shown}`, where `{name}` is not defined")
    };
    let singular = || {
        format!(
            "the argument of `{name}` simplifies to `{c_shown}`, where `{name}` is not \
             differentiable"
        )
    };
    match name {
        "sqrt" if c < 0.0 => Some(undefined()),
        "sqrt" if c == 0.0 => Some(singular()),
        "ln" if c <= 0.0 => Some(undefined()),
        "asin" | "acos" if c.abs() > 1.0 => Some(undefined()),
        "asin" | "acos" if c.abs() == 1.0 => Some(singular()),
        _ => None,
    }
}

/// A constant as messages show it: plain for moderate magnitudes, in exponent form otherwise.
pub fn show(c: f64) -> String {
    if c != 0.0 && !(1e-4..1e6).contains(&c.abs()) {
        format!("{c:e}")
    } else {
        format!("{c}")
    }
}

/// The value of an integer literal, possibly negated and parenthesised (`2`, `-3`, `(-1)`).
fn integer_literal(mut e: &Expr) -> Option<i32> {
    let mut negative = false;
    loop {
        match e {
            Expr::Lit(syn::ExprLit {
                lit: Lit::Int(i), ..
            }) => {
                let n = i.base10_parse::<i32>().ok()?;
                return if negative { n.checked_neg() } else { Some(n) };
            }
            Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => {
                negative = !negative;
                e = &u.expr;
            }
            Expr::Paren(p) => e = &p.expr,
            Expr::Group(g) => e = &g.expr,
            _ => return None,
        }
    }
}

/// The span of the first occurrence of the identifier `name` in `tokens`, if any (depth
/// first, without recursion).
pub fn find_ident(tokens: proc_macro2::TokenStream, name: &str) -> Option<Span> {
    let mut stack = vec![tokens.into_iter()];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(proc_macro2::TokenTree::Ident(id)) if id == name => return Some(id.span()),
            Some(proc_macro2::TokenTree::Group(g)) => stack.push(g.stream().into_iter()),
            Some(_) => {}
            None => {
                stack.pop();
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_counts_single_edits() {
        assert_eq!(edit_distance("vx", "vy"), 1);
        assert_eq!(edit_distance("theta", "thta"), 1);
        assert_eq!(edit_distance("abc", "abc"), 0);
        assert_eq!(edit_distance("", "ab"), 2);
    }

    #[test]
    fn nearest_names() {
        let names = ["theta", "omega", "vx", "vy", "m"];
        assert_eq!(nearest("thta", names).as_deref(), Some("theta"));
        assert_eq!(nearest("vz", names).as_deref(), Some("vx"));
        assert_eq!(nearest("pi", ["PI", "x"]).as_deref(), Some("PI"));
        assert_eq!(nearest("yy", ["vy", "y"]).as_deref(), Some("y"));
        assert_eq!(nearest("lenght", ["length"]).as_deref(), Some("length"));
        // Too far, or too short to tell.
        assert_eq!(nearest("alpha", names), None);
        assert_eq!(nearest("k", names), None);
    }
}

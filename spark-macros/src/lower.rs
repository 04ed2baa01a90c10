//! Lowering user expressions (syn) into the symbolic engine's arena, with scoped `let` names.

use std::collections::HashMap;

use syn::{BinOp, Expr, Lit, Pat, Stmt, UnOp};

use crate::ctxt::Ctxt;
use crate::sym::{Arena, Id};

/// Functions of one argument, callable as `x.f()` or `f(x)`.
pub const UNARY_FUNCTIONS: &[&str] = &[
    "sqrt", "exp", "ln", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
];
/// Functions of two arguments, callable as `x.f(y)` or `f(x, y)`.
pub const BINARY_FUNCTIONS: &[&str] = &["powi", "powf", "atan2"];

const SUPPORTED: &str = "supported: numeric literals, `+ - * /`, unary `-`, parentheses, \
    blocks with `let`, `PI`, and the functions `powi` (integer literal exponent), `powf`, \
    `sqrt`, `exp`, `ln`, `sin`, `cos`, `tan`, `asin`, `acos`, `atan`, `atan2`, `sinh`, `cosh`, \
    `tanh` as methods (`x.sin()`) or calls (`sin(x)`)";

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

    /// True when `name` is bound.
    pub fn contains(&self, name: &str) -> bool {
        self.names.contains_key(name)
    }

    fn nearest(&self, name: &str) -> Option<&str> {
        self.names
            .keys()
            .map(|k| (edit_distance(k, name), k))
            .filter(|(d, k)| *d <= 2 && *d < k.len().max(name.len()))
            .min()
            .map(|(_, k)| k.as_str())
    }
}

fn edit_distance(a: &str, b: &str) -> usize {
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

/// Lowers expressions of one model; errors are recorded and a placeholder `0` is returned, so
/// that every mistake in the model is reported in one go.
pub struct Lowerer<'a> {
    pub cx: &'a mut Ctxt,
    pub arena: &'a mut Arena,
}

impl Lowerer<'_> {
    fn placeholder(&mut self) -> Id {
        self.arena.constant(0.0)
    }

    /// Lowers `e` in `scope`.
    pub fn expr(&mut self, scope: &Scope, e: &Expr) -> Id {
        match e {
            Expr::Lit(lit) => self.literal(&lit.lit),
            Expr::Paren(p) => self.expr(scope, &p.expr),
            Expr::Group(g) => self.expr(scope, &g.expr),
            Expr::Unary(u) => match u.op {
                UnOp::Neg(_) => {
                    let a = self.expr(scope, &u.expr);
                    self.arena.neg(a)
                }
                _ => self.unsupported(e, "this unary operator"),
            },
            Expr::Binary(b) => {
                let l = self.expr(scope, &b.left);
                let r = self.expr(scope, &b.right);
                match b.op {
                    BinOp::Add(_) => self.arena.add(l, r),
                    BinOp::Sub(_) => self.arena.sub(l, r),
                    BinOp::Mul(_) => self.arena.mul(l, r),
                    BinOp::Div(_) => self.arena.div(l, r),
                    _ => self.unsupported(e, "this operator"),
                }
            }
            Expr::Path(p) => self.path(scope, p),
            Expr::MethodCall(m) => {
                let name = m.method.to_string();
                let mut args: Vec<&Expr> = vec![&m.receiver];
                args.extend(m.args.iter());
                if m.turbofish.is_some() {
                    return self.unsupported(e, "generic arguments");
                }
                self.call(scope, e, &name, &args)
            }
            Expr::Call(c) => {
                let name = match &*c.func {
                    Expr::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
                        p.path.segments[0].ident.to_string()
                    }
                    _ => return self.unsupported(&c.func, "this function"),
                };
                let args: Vec<&Expr> = c.args.iter().collect();
                self.call(scope, e, &name, &args)
            }
            Expr::Block(b) if b.label.is_none() => self.block(scope, &b.block),
            Expr::If(_) => self.unsupported(e, "`if`"),
            Expr::Match(_) => self.unsupported(e, "`match`"),
            Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => self.unsupported(e, "loops"),
            Expr::Closure(_) => self.unsupported(e, "closures"),
            Expr::Macro(_) => self.unsupported(e, "macros"),
            Expr::Index(_) => self.unsupported(e, "indexing"),
            Expr::Cast(_) => self.unsupported(e, "`as` casts"),
            _ => self.unsupported(e, "this expression"),
        }
    }

    fn unsupported(&mut self, node: &impl quote::ToTokens, what: &str) -> Id {
        self.cx.error_spanned(
            node,
            format!("{what} is not supported in a model; {SUPPORTED}"),
        );
        self.placeholder()
    }

    fn literal(&mut self, lit: &Lit) -> Id {
        let value = match lit {
            Lit::Float(f) => f.base10_parse::<f64>(),
            Lit::Int(i) => i.base10_parse::<f64>(),
            _ => {
                self.cx
                    .error_spanned(lit, "only numeric literals can appear in a model");
                return self.placeholder();
            }
        };
        match value {
            Ok(x) if x.is_finite() => self.arena.constant(x),
            Ok(_) => {
                self.cx
                    .error_spanned(lit, "this literal is not a finite f64");
                self.placeholder()
            }
            Err(err) => {
                self.cx.error(lit.span(), err);
                self.placeholder()
            }
        }
    }

    fn path(&mut self, scope: &Scope, p: &syn::ExprPath) -> Id {
        let segs: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        let is_pi = matches!(
            segs.iter()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .as_slice(),
            ["PI"]
                | ["f64", "consts", "PI"]
                | ["core", "f64", "consts", "PI"]
                | ["std", "f64", "consts", "PI"]
        );
        if segs.len() == 1 && scope.contains(&segs[0]) {
            return scope.names[&segs[0]];
        }
        if is_pi && p.qself.is_none() {
            return self.arena.constant(core::f64::consts::PI);
        }
        if segs.len() == 1 {
            let name = &segs[0];
            let msg = match scope.nearest(name) {
                Some(near) => format!(
                    "cannot find `{name}` in this model\n\
                     help: a name with a similar spelling exists: `{near}`"
                ),
                None => format!(
                    "cannot find `{name}` in this model; names must be `t`, a coordinate, a \
                     velocity, a parameter or a `let` binding"
                ),
            };
            self.cx.error_spanned(p, msg);
        } else {
            self.cx.error_spanned(
                p,
                "paths are not supported in a model, except `PI` and `core::f64::consts::PI`",
            );
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
                    let name = match &local.pat {
                        Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                            pi.ident.clone()
                        }
                        Pat::Type(pt) => match &*pt.pat {
                            Pat::Ident(pi) => pi.ident.clone(),
                            other => {
                                self.unsupported(other, "this pattern");
                                continue;
                            }
                        },
                        other => {
                            self.unsupported(other, "this pattern");
                            continue;
                        }
                    };
                    let value = match &local.init {
                        Some(init) if init.diverge.is_none() => self.expr(&inner, &init.expr),
                        _ => {
                            self.cx.error_spanned(
                                local,
                                "a `let` in a model needs a value: `let x = ...;`",
                            );
                            self.placeholder()
                        }
                    };
                    inner.bind(name.to_string(), value);
                }
                Stmt::Expr(e, None) if last => result = Some(self.expr(&inner, e)),
                other => {
                    self.unsupported(other, "this statement");
                }
            }
        }
        match result {
            Some(id) => id,
            None => {
                if !self.cx.has_errors() {
                    self.cx.error_spanned(
                        block,
                        "this block has no final expression; end it with the value, without `;`",
                    );
                }
                self.placeholder()
            }
        }
    }

    fn call(&mut self, scope: &Scope, whole: &Expr, name: &str, args: &[&Expr]) -> Id {
        let arity = if UNARY_FUNCTIONS.contains(&name) {
            1
        } else if BINARY_FUNCTIONS.contains(&name) {
            2
        } else {
            return self.unsupported(whole, &format!("the function `{name}`"));
        };
        if args.len() != arity {
            self.cx.error_spanned(
                whole,
                format!(
                    "`{name}` takes {} argument{}",
                    arity,
                    if arity == 1 { "" } else { "s" }
                ),
            );
            return self.placeholder();
        }
        if name == "powi" {
            let x = self.expr(scope, args[0]);
            return match integer_literal(args[1]) {
                Some(n) => self.arena.powi(x, n),
                None => {
                    self.cx.error_spanned(
                        args[1],
                        "the exponent of `powi` must be an integer literal\n\
                         help: use `powf` for a non-integer or symbolic exponent",
                    );
                    self.placeholder()
                }
            };
        }
        let a = self.expr(scope, args[0]);
        if arity == 2 {
            let b = self.expr(scope, args[1]);
            return match name {
                "powf" => self.arena.powf(a, b),
                _ => self.arena.atan2(a, b),
            };
        }
        match name {
            "sqrt" => self.arena.sqrt(a),
            "exp" => self.arena.exp(a),
            "ln" => self.arena.ln(a),
            "sin" => self.arena.sin(a),
            "cos" => self.arena.cos(a),
            "tan" => self.arena.tan(a),
            "asin" => self.arena.asin(a),
            "acos" => self.arena.acos(a),
            "atan" => self.arena.atan(a),
            "sinh" => self.arena.sinh(a),
            "cosh" => self.arena.cosh(a),
            _ => self.arena.tanh(a),
        }
    }
}

/// The value of an integer literal, possibly negated and parenthesised (`2`, `-3`, `(-1)`).
fn integer_literal(e: &Expr) -> Option<i32> {
    match e {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Int(i), ..
        }) => i.base10_parse::<i32>().ok(),
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => integer_literal(&u.expr).map(|n| -n),
        Expr::Paren(p) => integer_literal(&p.expr),
        Expr::Group(g) => integer_literal(&g.expr),
        _ => None,
    }
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
}

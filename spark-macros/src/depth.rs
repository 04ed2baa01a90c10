//! A pre-scan of the macro's input that bounds how deeply any later pass can recurse.
//!
//! syn's parser, the `Clone`, `Drop` and visitors of `syn::Expr`, and the lowering into the
//! symbolic arena all recurse once per level of an expression. Inside rustc a proc macro runs
//! unoptimized on the compiler's 8 MiB stack, where 3000 nested parentheses, 4000 unary
//! minuses or a chain of 8000 `+` overflow it (rustc dies with SIGSEGV). This scan walks the
//! token trees *iteratively* before anything parses them and reports, with a spanned error:
//!
//! * brackets (`(`, `[`, `{`) nested more than [`MAX_NESTING`] deep;
//! * an expression deeper than [`MAX_DEPTH`] levels, counted conservatively from the tokens:
//!   each operator or other punctuation (`+`, `-`, `.`, `::`, ...), each `as` and each
//!   bracketed group in a comma- or semicolon-separated segment counts one level, and the
//!   levels of the segments enclosing a group add up. This bounds the depth of the syntax tree
//!   syn builds (a chain of `n` binary operators, `n` prefix operators, `n` method calls or `n`
//!   call or index postfixes nest `n` deep).
//!
//! The offending group or segment is replaced by the name [`REPORTED`], which
//! lowering turns into its placeholder: the rest of the model is still parsed and checked,
//! so every other mistake is reported too and the model's struct still exists.
//!
//! Sums of many terms are not affected: `(0..n).map(|i| ...).sum()` is a handful of tokens,
//! and `unroll` folds it into a balanced tree (depth `log2 n`).

use std::cell::Cell;

/// The name that stands for an expression whose error `depth` or `unroll` has reported
/// (it starts with `unroll::PREFIX`): lowering turns it into its placeholder, so that no later
/// check reports the same mistake again.
pub const REPORTED: &str = "__spark_reported";

use proc_macro2::{Delimiter, Group, Ident, Spacing, Span, TokenStream, TokenTree};

/// The deepest bracket nesting accepted. Unoptimized, syn needs about 11 KiB of stack per
/// nested parenthesis (a 1000-deep nest overflowed rustc's 8 MiB; 500 did not).
pub const MAX_NESTING: usize = 128;

/// The deepest expression accepted, in levels counted as in the module documentation.
/// Unoptimized, a level costs up to about 3 KiB of stack (4000 prefix minuses overflowed
/// rustc's 8 MiB, 2000 did not), so together with [`MAX_NESTING`] the expansion stays well
/// inside it.
pub const MAX_DEPTH: usize = 512;

/// The deepest expression, in `syn::Expr` levels, that the recursive passes after the scan
/// (unrolling, lowering) enter. Helpers inlined into each other can nest deeper than any
/// expression of the input; past this depth the rest becomes the placeholder, with an error.
/// Unoptimized, these passes need at most about 2 KiB of stack per level (a chain of 4000
/// `+` expanded inside rustc, 8000 did not).
pub const MAX_EXPANDED_DEPTH: usize = 1024;

/// The limit of lowering, which only guards the stack: `unroll` has cut every expression at
/// [`MAX_EXPANDED_DEPTH`] already, but it does not count the blocks of inlined helpers and
/// the parentheses of folded sums, which lowering enters too.
pub const MAX_LOWERED_DEPTH: usize = MAX_EXPANDED_DEPTH + 512;

thread_local! {
    /// The `syn::Expr` levels entered so far (see [`Entered`]).
    static ENTERED: Cell<usize> = const { Cell::new(0) };
}

/// One level of a recursive pass over an expression, counted until it is dropped.
pub struct Entered(());

impl Entered {
    /// Enters one more level, or `None` past `limit` levels (then the caller reports
    /// [`too_deep_expanded`] and does not recurse).
    pub fn enter(limit: usize) -> Option<Entered> {
        ENTERED.with(|n| {
            let depth = n.get();
            (depth < limit).then(|| {
                n.set(depth + 1);
                Entered(())
            })
        })
    }
}

impl Drop for Entered {
    fn drop(&mut self) {
        ENTERED.with(|n| n.set(n.get().saturating_sub(1)));
    }
}

/// The error for an expression that nests more than [`MAX_EXPANDED_DEPTH`] deep once
/// helpers and sums are expanded, spanned on the part that is cut off.
pub fn too_deep_expanded(node: &impl quote::ToTokens) -> syn::Error {
    syn::Error::new_spanned(
        node,
        crate::ctxt::with_help(
            format!(
                "this expression nests more than {MAX_EXPANDED_DEPTH} levels deep once its \
                 helpers are inlined; the limit is {MAX_EXPANDED_DEPTH}"
            ),
            "split the helpers' bodies with `let` bindings, or let fewer helpers call each other",
        ),
    )
}

/// The input with every too-deep part replaced by the placeholder name, and one error per
/// replaced part (none when the input is within the limits, in which case it is returned
/// unchanged).
pub fn scan(input: TokenStream) -> (TokenStream, Vec<syn::Error>) {
    scan_with(input, MAX_NESTING, MAX_DEPTH)
}

/// One bracketed level being rebuilt: its tokens, how far they have been handled, and the
/// tokens handed on so far.
struct Level {
    /// The group this level is the inside of (`None` for the whole input).
    group: Option<Group>,
    tokens: Vec<TokenTree>,
    /// For each token, the depth of the segment it belongs to (enclosing levels included).
    seg_depth: Vec<usize>,
    /// For each token: `Some(end)` if a too-deep segment starts here and runs to `end`.
    replace: Vec<Option<usize>>,
    pos: usize,
    out: Vec<TokenTree>,
    /// Whether anything inside this level was replaced (otherwise the group is kept as is,
    /// with its original spans).
    changed: bool,
}

/// [`scan`] with the given limits (the unit tests use small ones).
fn scan_with(
    input: TokenStream,
    max_nesting: usize,
    max_depth: usize,
) -> (TokenStream, Vec<syn::Error>) {
    let mut errors = Vec::new();
    let mut stack = vec![Level::new(None, input, 0, max_depth, &mut errors)];
    loop {
        let nesting = stack.len();
        let Some(top) = stack.last_mut() else {
            // Unreachable: the outermost level is only taken off below, when it is done.
            return (TokenStream::new(), errors);
        };
        if top.pos == top.tokens.len() {
            let done = stack.pop().map(Level::finish);
            match (done, stack.last_mut()) {
                (Some((tree, changed)), Some(parent)) => {
                    parent.changed |= changed;
                    parent.out.push(tree);
                    continue;
                }
                (Some((TokenTree::Group(g), _)), None) => return (g.stream(), errors),
                // Unreachable: the outermost level finishes as a group.
                _ => return (TokenStream::new(), errors),
            }
        }
        let k = top.pos;
        if let Some(end) = top.replace[k] {
            // A too-deep segment: its error is recorded; it becomes the placeholder.
            let first = top.tokens[k].span();
            top.out.push(TokenTree::Ident(placeholder(first)));
            top.pos = end;
            top.changed = true;
            continue;
        }
        top.pos += 1;
        match &top.tokens[k] {
            TokenTree::Group(g) if nesting > max_nesting => {
                errors.push(syn::Error::new(
                    g.span(),
                    crate::ctxt::with_help(
                        format!("brackets nest {nesting} deep here; the limit is {max_nesting}"),
                        "split the expression with `let` bindings in a block: `{ let a = ...; a * a }`",
                    ),
                ));
                let mut inner = Group::new(
                    g.delimiter(),
                    TokenTree::Ident(placeholder(g.span())).into(),
                );
                inner.set_span(g.span());
                top.out.push(TokenTree::Group(inner));
                top.changed = true;
            }
            TokenTree::Group(g) => {
                let g = g.clone();
                let base = top.seg_depth[k];
                stack.push(Level::new(
                    Some(g.clone()),
                    g.stream(),
                    base,
                    max_depth,
                    &mut errors,
                ));
            }
            other => {
                let t = other.clone();
                top.out.push(t);
            }
        }
    }
}

impl Level {
    /// Splits `stream` into its segments and records the too-deep ones (with their errors).
    /// `base` is the depth of the segment enclosing this level.
    fn new(
        group: Option<Group>,
        stream: TokenStream,
        base: usize,
        max_depth: usize,
        errors: &mut Vec<syn::Error>,
    ) -> Level {
        let tokens: Vec<TokenTree> = stream.into_iter().collect();
        let mut seg_depth = vec![0; tokens.len()];
        let mut replace = vec![None; tokens.len()];
        let mut start = 0;
        while start < tokens.len() {
            // A segment ends at a separator (which belongs to no segment) or, between the
            // items of the input's top level (`fn f() { ... }`), after a `{ ... }` body.
            let (end, next) = match tokens[start..].iter().position(|t| {
                is_separator(t)
                    || (group.is_none()
                        && matches!(t, TokenTree::Group(g) if g.delimiter() == Delimiter::Brace))
            }) {
                Some(p) if is_separator(&tokens[start + p]) => (start + p, start + p + 1),
                Some(p) => (start + p + 1, start + p + 1),
                None => (tokens.len(), tokens.len()),
            };
            let levels = tokens[start..end].iter().filter(|t| counts(t)).count();
            let depth = base + levels;
            seg_depth[start..end].fill(depth);
            if depth > max_depth && start < end {
                let from = start + kept_prefix(&tokens[start..end]);
                if from < end {
                    let shown: TokenStream = [tokens[from].clone(), tokens[end - 1].clone()]
                        .into_iter()
                        .collect();
                    errors.push(syn::Error::new_spanned(
                        shown,
                        crate::ctxt::with_help(
                            format!(
                                "this expression is nested {depth} levels deep (each operator, \
                                 method call, `as` and bracket counts a level); the limit is \
                                 {max_depth}"
                            ),
                            "split it with `let` bindings in a block (`{ let a = ...; a * a }`), \
                             and write a long sum as `(0..n).map(|i| ...).sum()`",
                        ),
                    ));
                    replace[from] = Some(end);
                }
            }
            start = next;
        }
        Level {
            group,
            tokens,
            seg_depth,
            replace,
            pos: 0,
            out: Vec::new(),
            changed: false,
        }
    }

    /// This level as one token tree (a group; the outermost level as an undelimited one),
    /// and whether anything in it was replaced.
    fn finish(self) -> (TokenTree, bool) {
        let tree = match self.group {
            Some(g) if !self.changed => TokenTree::Group(g),
            Some(g) => {
                let mut new = Group::new(g.delimiter(), self.out.into_iter().collect());
                new.set_span(g.span());
                TokenTree::Group(new)
            }
            None => TokenTree::Group(Group::new(Delimiter::None, self.out.into_iter().collect())),
        };
        (tree, self.changed)
    }
}

/// The placeholder name lowering skips (its error is already reported).
fn placeholder(span: Span) -> Ident {
    Ident::new(REPORTED, span)
}

/// `,` and `;`: the end of a list item, a field or a statement.
fn is_separator(t: &TokenTree) -> bool {
    matches!(t, TokenTree::Punct(p) if p.as_char() == ',' || p.as_char() == ';')
}

/// Whether a token may add a level to the syntax tree of the segment it is in.
fn counts(t: &TokenTree) -> bool {
    match t {
        TokenTree::Punct(p) => !matches!(p.as_char(), '#' | '\''),
        TokenTree::Group(_) => true,
        TokenTree::Ident(id) => id == "as",
        TokenTree::Literal(_) => false,
    }
}

/// How many leading tokens of a too-deep segment are kept when it is replaced: a field's
/// `name:` and a statement's `let name =`, so that what remains still parses.
fn kept_prefix(seg: &[TokenTree]) -> usize {
    let is_punct = |t: Option<&TokenTree>, c: char, alone: bool| {
        matches!(t, Some(TokenTree::Punct(p))
            if p.as_char() == c && (!alone || p.spacing() == Spacing::Alone))
    };
    match seg.first() {
        Some(TokenTree::Ident(id)) if id == "let" => {
            // Up to the first `=` that is not part of `==`, `=>`, `<=`, ...
            for (k, t) in seg.iter().enumerate() {
                if is_punct(Some(t), '=', true)
                    && !(k > 0
                        && matches!(&seg[k - 1], TokenTree::Punct(p) if p.spacing() == Spacing::Joint))
                {
                    return k + 1;
                }
            }
            0
        }
        Some(TokenTree::Ident(_))
            if is_punct(seg.get(1), ':', true)
                && !matches!(seg.get(2), Some(TokenTree::Punct(p)) if p.as_char() == ':') =>
        {
            2
        }
        _ => 0,
    }
}

#[cfg(test)]
#[path = "depth/tests.rs"]
mod tests;

#[cfg(test)]
#[path = "depth/cases.rs"]
mod cases;

#[cfg(test)]
#[path = "depth/generated.rs"]
mod generated;

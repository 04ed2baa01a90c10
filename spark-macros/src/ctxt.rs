//! Collects every error of an expansion so that all of them are reported at once.
//!
//! Policy (as in serde_derive's `internals/ctxt.rs`): parsers and checks never stop at the
//! first mistake. They push an error here, return a value or a placeholder, and go on; the
//! caller folds everything with [`Ctxt::finish`] at the end. A mistake that involves two tokens
//! (a name declared twice) pushes one error on each.
//!
//! Wording: one lower-case sentence without a trailing period, DSL tokens in backticks. Where
//! there is a fix it follows on a second line starting with `help: ` (stable proc macros cannot
//! attach a real `help` sub-diagnostic; rustc prints the second line indented under the first).

use proc_macro2::Span;
use std::fmt::Display;

/// An error collector: checks push errors and go on; `finish` folds them into one.
///
/// Dropping a `Ctxt` without calling [`Ctxt::finish`] panics (in a non-panicking thread): the
/// errors would otherwise be lost silently.
#[derive(Default)]
pub struct Ctxt {
    errors: Option<Vec<syn::Error>>,
}

/// `msg`, followed by `help: {help}` on its own line.
pub fn with_help(msg: impl Display, help: impl Display) -> String {
    format!("{msg}\nhelp: {help}")
}

impl Ctxt {
    fn errors(&mut self) -> &mut Vec<syn::Error> {
        self.errors.get_or_insert_with(Vec::new)
    }

    /// Records an error at `span`.
    pub fn error(&mut self, span: Span, msg: impl Display) {
        self.errors().push(syn::Error::new(span, msg));
    }

    /// Records an error at `span` with a `help:` line.
    pub fn error_help(&mut self, span: Span, msg: impl Display, help: impl Display) {
        self.error(span, with_help(msg, help));
    }

    /// Records an error spanning the tokens of `node` (from its first to its last token).
    pub fn error_spanned(&mut self, node: &impl quote::ToTokens, msg: impl Display) {
        self.errors().push(syn::Error::new_spanned(node, msg));
    }

    /// Records an error spanning the tokens of `node`, with a `help:` line.
    pub fn error_spanned_help(
        &mut self,
        node: &impl quote::ToTokens,
        msg: impl Display,
        help: impl Display,
    ) {
        self.error_spanned(node, with_help(msg, help));
    }

    /// Records an error that was built elsewhere (by a parser).
    pub fn push(&mut self, err: syn::Error) {
        self.errors().push(err);
    }

    /// All recorded errors combined, or `Ok` when there were none. An error recorded again at
    /// the same tokens with the same message (the copies of one mistake that unrolling a loop
    /// made) is reported once.
    pub fn finish(mut self) -> Result<(), syn::Error> {
        let errors = self.errors.take().unwrap_or_default();
        let mut seen = std::collections::HashSet::new();
        let mut iter = errors
            .into_iter()
            .filter(|e| seen.insert((format!("{:?}", e.span()), e.to_string())));
        match iter.next() {
            None => Ok(()),
            Some(mut first) => {
                for e in iter {
                    first.combine(e);
                }
                Err(first)
            }
        }
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if self.errors.as_ref().is_some_and(|e| !e.is_empty()) && !std::thread::panicking() {
            panic!("spark-macros: a Ctxt with errors was dropped without `finish`");
        }
    }
}

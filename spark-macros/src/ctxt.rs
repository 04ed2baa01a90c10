//! Collects every error of an expansion so that all of them are reported at once.

use proc_macro2::Span;
use std::fmt::Display;

/// An error collector: checks push errors and go on; `finish` folds them into one.
#[derive(Default)]
pub struct Ctxt {
    errors: Vec<syn::Error>,
}

impl Ctxt {
    /// Records an error at `span`.
    pub fn error(&mut self, span: Span, msg: impl Display) {
        self.errors.push(syn::Error::new(span, msg));
    }

    /// Records an error spanning the tokens of `node`.
    pub fn error_spanned(&mut self, node: &impl quote::ToTokens, msg: impl Display) {
        self.errors.push(syn::Error::new_spanned(node, msg));
    }

    /// True when an error has been recorded.
    pub fn has_errors(&self) -> bool {
        !self.errors.is_empty()
    }

    /// All recorded errors combined, or `Ok` when there were none.
    pub fn finish(self) -> Result<(), syn::Error> {
        let mut iter = self.errors.into_iter();
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

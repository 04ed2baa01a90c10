//! The `mechanics!` macro of spark (being written).
extern crate proc_macro;
mod sym;

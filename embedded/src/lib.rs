//! The scenario shared by the Cortex-M4F binary (`src/main.rs`) and the host example
//! (`examples/host.rs`): the same models, the same runs, the same printed lines.
#![no_std]

pub mod scenario;

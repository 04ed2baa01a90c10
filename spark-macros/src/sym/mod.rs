//! The symbolic engine (being written).

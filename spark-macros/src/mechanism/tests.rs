//! Unit tests of the file readers and the lowering.

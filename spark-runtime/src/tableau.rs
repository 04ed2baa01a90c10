//! Coefficient tableaux (placeholder, being written).

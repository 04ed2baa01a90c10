//! spark (being written).

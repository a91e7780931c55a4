//! Sampling tests (filled below).

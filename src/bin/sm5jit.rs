//! The `sm5jit` command line (stub; being written).
fn main() {}

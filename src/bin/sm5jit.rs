//! The `sm5jit` command line; everything is in [`sm5jit::cli`].

fn main() {
    std::process::exit(sm5jit::cli::main());
}

//! The `sm5jit` command line; everything is in [`sm5jit_tools::cli`].

fn main() {
    std::process::exit(sm5jit_tools::cli::main());
}

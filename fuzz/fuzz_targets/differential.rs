//! A seed from the input: the generated program must give the same bytes on
//! the reference interpreter and the JIT.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    use sm5jit_tools::fuzz::{harness, run};
    harness::differential_target(data, run::DEFAULT_ENGINES);
});

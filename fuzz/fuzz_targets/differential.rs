//! A seed from the input: the generated program must give the same bytes on
//! the reference interpreter and the JIT.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    sm5jit::fuzz::harness::differential_target(data, sm5jit::fuzz::run::DEFAULT_ENGINES);
});

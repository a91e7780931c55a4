//! A seed from the input: the generated program on two engines must agree.
//! Change the engine pair here once the JIT lands (`["interp", "jit"]`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    sm5jit::fuzz::harness::differential_target(data, ["interp", "interp2"]);
});

//! Arbitrary text through the assembly parser, printer and parser again.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    sm5jit_tools::fuzz::harness::parse_target(data);
});

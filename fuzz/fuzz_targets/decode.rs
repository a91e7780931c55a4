//! Arbitrary bytes through the DXBC container reader and the token decoder.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    sm5jit_tools::fuzz::harness::decode_target(data);
});

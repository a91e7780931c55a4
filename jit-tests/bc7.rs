//! DirectXTex's GPU BC7 encoder (four fxc-compiled `cs_4_0` shaders from
//! the corpus) run end to end through the example's pipeline
//! (`examples/bc7/pipeline.rs`): the JIT and the interpreter must produce
//! identical blocks, and the blocks must decode (sm5jit's BC7 decoder) to
//! within 35 dB PSNR of the original image.

#[path = "../examples/bc7/pipeline.rs"]
#[allow(dead_code)]
mod pipeline;

use pipeline::{decode, psnr, test_image, Encoder, Engine};

fn corpus() -> std::path::PathBuf {
    crate::corpus_dir()
}

#[test]
fn bc7_encoder_blocks_agree_across_engines_and_decode_above_35_db() {
    // Both engines on a 16x16 image (16 blocks; the interpreter takes a
    // few seconds), the JIT alone on 64x64 (256 blocks, four batches of
    // 64) for the quality bound.
    let small = test_image(16, 16);
    let jit = Encoder::new(&corpus(), Engine::Jit).expect("JIT compiles the four shaders");
    let interp = Encoder::new(&corpus(), Engine::Interp).expect("interpreter prepares them");
    let a = jit.compress(&small).expect("JIT run");
    let b = interp.compress(&small).expect("interpreter run");
    assert_eq!(a.len(), 16 * 16);
    if let Some(k) = (0..16).find(|&k| a[16 * k..16 * k + 16] != b[16 * k..16 * k + 16]) {
        panic!(
            "block {k}: JIT {:02x?}, interpreter {:02x?}",
            &a[16 * k..16 * k + 16],
            &b[16 * k..16 * k + 16]
        );
    }
    let image = test_image(64, 64);
    let blocks = jit.compress(&image).expect("JIT run");
    assert!(
        blocks.chunks(16).all(|b| b[0] != 0),
        "a block has the reserved mode"
    );
    let decoded = decode(&blocks, image.width, image.height);
    let db = psnr(&image, &decoded);
    assert!(db >= 35.0, "PSNR {db:.2} dB");
}

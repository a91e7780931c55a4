//! BC7 compression on the CPU with DirectXTex's GPU encoder.
//!
//! `cargo run --release --example bc7 -- [OUT_DIR] [--size N] [--engine jit|interp|both] [--corpus DIR]`
//!
//! Generates a procedural RGBA8 test image (`--size`, default 64), runs
//! DirectXTex's four BC7 compute shaders (fxc-compiled `cs_4_0` DXBC read
//! from the shared corpus) through sm5jit's JIT and its interpreter,
//! checks that both engines produce the same blocks, decodes them with
//! sm5jit's BC7 decoder, prints the PSNR against the original and the
//! times, and writes `original.png` and `decoded.png` to OUT_DIR (default
//! `target/bc7`).

mod pipeline;

use std::error::Error;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use pipeline::{Encoder, Engine, Image};

struct Args {
    out: PathBuf,
    size: u32,
    corpus: PathBuf,
    engines: Vec<Engine>,
}

const USAGE: &str = "usage: bc7 [OUT_DIR] [--size N] [--engine jit|interp|both] [--corpus DIR]";

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        out: PathBuf::from("target/bc7"),
        size: 64,
        corpus: pipeline::default_corpus(),
        engines: vec![Engine::Jit, Engine::Interp],
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value\n{USAGE}"));
        match a.as_str() {
            "--size" => {
                let v = value("--size")?;
                args.size = v
                    .parse()
                    .ok()
                    .filter(|s| (4..=4096).contains(s))
                    .ok_or(format!(
                        "--size {v}: expected a whole number from 4 to 4096"
                    ))?;
            }
            "--corpus" => args.corpus = PathBuf::from(value("--corpus")?),
            "--engine" => {
                args.engines = match value("--engine")?.as_str() {
                    "jit" => vec![Engine::Jit],
                    "interp" => vec![Engine::Interp],
                    "both" => vec![Engine::Jit, Engine::Interp],
                    v => return Err(format!("--engine {v}: expected jit, interp or both")),
                }
            }
            "-h" | "--help" => return Err(USAGE.to_string()),
            s if s.starts_with('-') => return Err(format!("unknown option {s}\n{USAGE}")),
            s => args.out = PathBuf::from(s),
        }
    }
    Ok(args)
}

fn write_png(path: &std::path::Path, image: &Image) -> Result<(), Box<dyn Error>> {
    let file =
        std::fs::File::create(path).map_err(|e| format!("writing {}: {e}", path.display()))?;
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), image.width, image.height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&image.rgba)?;
    writer.finish()?;
    Ok(())
}

fn run(args: &Args) -> Result<(), Box<dyn Error>> {
    let image = pipeline::test_image(args.size, args.size);
    let blocks = args.size.div_ceil(4).pow(2);
    println!(
        "BC7 encode of a {0}x{0} RGBA8 test image ({blocks} blocks) with DirectXTex's compute shaders",
        args.size
    );
    let mut results = Vec::new();
    for engine in [Engine::Jit, Engine::Interp] {
        if !args.engines.contains(&engine) {
            continue;
        }
        let encoder = Encoder::new(&args.corpus, engine)?;
        let start = Instant::now();
        let out = encoder.compress(&image)?;
        let took = start.elapsed();
        let psnr = pipeline::psnr(&image, &pipeline::decode(&out, image.width, image.height));
        println!(
            "  {engine:<6} prepare {:>8.1} ms   encode {:>9.1} ms   PSNR {psnr:.2} dB",
            encoder.prepare_time.as_secs_f64() * 1e3,
            took.as_secs_f64() * 1e3
        );
        results.push(out);
    }
    if results.len() == 2 && results[0] != results[1] {
        let first = results[0]
            .chunks(16)
            .zip(results[1].chunks(16))
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        return Err(format!("the JIT and the interpreter disagree, first at block {first}").into());
    }
    if results.len() == 2 {
        println!("  jit and interp blocks are identical");
    }
    let decoded = pipeline::decode(&results[0], image.width, image.height);
    let modes = pipeline::mode_histogram(&results[0]);
    println!("  modes used (0..7): {:?}", &modes[..8]);
    println!("  PSNR {:.2} dB", pipeline::psnr(&image, &decoded));
    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("creating {}: {e}", args.out.display()))?;
    let (orig, dec) = (args.out.join("original.png"), args.out.join("decoded.png"));
    write_png(&orig, &image)?;
    write_png(&dec, &decoded)?;
    println!("  wrote {} and {}", orig.display(), dec.display());
    Ok(())
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bc7: error: {e}");
            ExitCode::FAILURE
        }
    }
}

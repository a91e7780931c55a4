use sm5jit::jit::{CompileOptions, JitShader, Tier};
fn cpu() -> f64 {
    let mut ts = libc_ts { s: 0, ns: 0 };
    unsafe { clock_gettime(3, &mut ts) };
    ts.s as f64 * 1e3 + ts.ns as f64 / 1e6
}
#[repr(C)]
struct libc_ts {
    s: i64,
    ns: i64,
}
extern "C" {
    fn clock_gettime(c: i32, t: *mut libc_ts) -> i32;
}
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let bytes = std::fs::read(&a[1]).unwrap();
    let n: usize = a[2].parse().unwrap();
    let tier = Tier::parse(&a[3]).unwrap();
    let p = if a[1].ends_with(".asm") {
        sm5jit::asm::parse_program(std::str::from_utf8(&bytes).unwrap()).unwrap()
    } else {
        sm5jit::case::decode_shader(&bytes).unwrap()
    };
    let o = CompileOptions {
        cache: false,
        ..CompileOptions::tier(tier)
    };
    if let Ok(f) = std::env::var("DUMP") {
        let (_, d) = JitShader::compile_dump_with(&p, &o).unwrap();
        std::fs::write(f, d.clif).unwrap();
    }
    let _ = cranelift_codegen::timing::take_current();
    let t = cpu();
    for _ in 0..n {
        let s = JitShader::compile_with(&p, &o).unwrap();
        drop(s);
    }
    let d = cpu() - t;
    println!("{}", cranelift_codegen::timing::take_current());
    println!(
        "{:.3} ms cpu per compile, {} insts",
        d / n as f64,
        p.insts.len()
    );
}

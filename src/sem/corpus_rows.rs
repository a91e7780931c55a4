//! Rows of the conformance tables (`../shared/corpus/conformance_ps/*`)
//! restated as direct calls of the scalar functions: each row's cb0 input
//! words and the expected output words, per op. The whole-shader runs live
//! in the integration tests; these pin the per-component meaning.

use super::{bits, convert, double, float, int};

fn f(b: u32) -> f32 {
    f32::from_bits(b)
}

fn d(lo: u32, hi: u32) -> f64 {
    double::unpack(lo, hi)
}

#[test]
fn vkd3d_ps_bfi_rows() {
    // (width, offset, insert, base) → result
    let rows: [(u32, u32, u32, u32, u32); 19] = [
        (0, 0, 0, 0, 0),
        (0, 0, 0, 1, 1),
        (!0, 0, !0, 0, 0x7FFF_FFFF),
        (!0, !0, !0, 0, 0x8000_0000),
        (!0, 0x1F, !0, 0, 0x8000_0000),
        (!0, 0xFFFF_FFE0, !0, 0, 0x7FFF_FFFF),
        (0, 0, 0xFF, 1, 1),
        (0, 0, 0xFF, 2, 2),
        (0x10, 0x10, 0xFF, 0xFF, 0x00FF_00FF),
        (0, 0, !0, !0, !0),
        (0xFFFF_FFE0, 0, !0, 0, 0),
        (0xFFFF_FFE0, 0, !0, 1, 1),
        (0xFFFF_FFE0, 0, !0, 2, 2),
        (0, 0xFFFF_FFE0, !0, 0, 0),
        (0, 0xFFFF_FFE0, !0, 1, 1),
        (0, 0xFFFF_FFE0, !0, 2, 2),
        (0xFFFF_FFE0, 0xFFFF_FFE0, !0, 0, 0),
        (0xFFFF_FFE0, 0xFFFF_FFE0, !0, 1, 1),
        (0xFFFF_FFE0, 0xFFFF_FFE0, !0, 2, 2),
    ];
    for (w, o, ins, base, want) in rows {
        assert_eq!(
            bits::bfi(w, o, ins, base),
            want,
            "bfi({w:#x},{o:#x},{ins:#x},{base:#x})"
        );
    }
}

#[test]
fn vkd3d_ps_ibfe_rows() {
    // (width, offset, value) → result
    let rows: [(u32, u32, u32, u32); 27] = [
        (0, 4, 0, 0),
        (0, 4, !0, 0),
        (0, 4, 0x7FFF_FFFF, 0),
        (4, 0, 0, 0),
        (4, 0, 0xFFFF_FFFA, 0xFFFF_FFFA),
        (4, 0, 0x7FFF_FFFC, 0xFFFF_FFFC),
        (4, 4, 0, 0),
        (4, 4, !0, !0),
        (4, 4, 0xFFFF_FF1F, 1),
        (4, 4, 0x7FFF_FFFF, !0),
        (0x17, 8, 0, 0),
        (0x17, 8, !0, !0),
        (0x17, 8, 0x7FFF_FFFF, !0),
        (0x1E, 1, 0, 0),
        (0x1E, 1, !0, !0),
        (0x1E, 1, 0x7FFF_FFFF, !0),
        (0xF, 0xF, 0x7FFF_FFFF, !0),
        (0xF, 0xF, 0x3FFF_FFFF, !0),
        (0xF, 0xF, 0x1FFF_FFFF, 0x3FFF),
        (0xF, 0xF, 0xFFFF_00FF, 0xFFFF_FFFE),
        (0x10, 0xF, !0, !0),
        (0x10, 0xF, 0x3FFF_FFFF, 0x7FFF),
        (0x14, 0xF, !0, !0),
        (0x1F, 0x1F, !0, !0),
        (0x1F, 0x1F, 0x8000_0000, !0),
        (0x1F, 0x1F, 0x7FFF_FFFF, 0),
        (0x10, 0xF, 0x3FFF_FFFF, 0x7FFF),
    ];
    for (w, o, v, want) in rows {
        assert_eq!(bits::ibfe(w, o, v), want, "ibfe({w:#x},{o:#x},{v:#x})");
    }
}

#[test]
fn vkd3d_ps_ubfe_rows() {
    // fxc lowers (u & 0xf0) >> 4 etc. to ubfe with these width/offset pairs.
    let fields = [(4, 4), (23, 8), (7, 1), (30, 1)];
    let rows: [(u32, [u32; 4]); 7] = [
        (0, [0, 0, 0, 0]),
        (!0, [0xF, 0x7F_FFFF, 0x7F, 0x3FFF_FFFF]),
        (0xFF00_0000, [0, 0x7F_0000, 0, 0x3F80_0000]),
        (0x00FF_0000, [0, 0xFF00, 0, 0x7F_8000]),
        (0xFF, [0xF, 0, 0x7F, 0x7F]),
        (0x8000_0001, [0, 0, 0, 0]),
        (0xC000_0003, [0, 0x40_0000, 1, 0x2000_0001]),
    ];
    for (u, want) in rows {
        for ((w, o), want) in fields.iter().zip(want) {
            assert_eq!(bits::ubfe(*w, *o, u), want, "ubfe({w},{o},{u:#x})");
        }
    }
}

#[test]
fn vkd3d_ps_firstbit_and_bits_rows() {
    // (x, y) → (firstbit_lo x, firstbit_hi x, firstbit_shi y)
    let rows = [
        (0, 0, [!0, !0, !0]),
        (0x8000_0000, 0x8000_0000, [31, 0, 1]),
        (0x8000_0001, 0x8000_0001, [0, 0, 1]),
        (0x1111_1111, 0x1111_1111, [0, 3, 3]),
        (0x0008_0000, !0, [19, 12, !0]),
    ];
    for (x, y, [lo, hi, shi]) in rows {
        assert_eq!(bits::firstbit_lo(x), lo);
        assert_eq!(bits::firstbit_hi(x), hi);
        assert_eq!(bits::firstbit_shi(y), shi);
    }
    // vkd3d_ps_bits_vector: countbits and HLSL firstbithigh (31 − firstbit_hi).
    assert_eq!(bits::countbits(0x1111_1111), 8);
    assert_eq!(bits::countbits(0x0008_0000), 1);
    assert_eq!(31 - bits::firstbit_hi(0x1111_1111), 0x1C);
    assert_eq!(31 - bits::firstbit_hi(0x0008_0000), 0x13);
    // vkd3d_ps_bfrev
    assert_eq!(bits::bfrev(0x1234_5678), 0x1E6A_2C48);
    assert_eq!(bits::bfrev(0x5678), 0x1E6A_0000);
    assert_eq!(bits::bfrev(0xFFFF_0000), 0xFFFF);
}

#[test]
fn vkd3d_ps_shift_rows() {
    let amounts = [0xFFFF_FFE0, 0, 0x20, 0x40];
    for v in [0, !0, 0xFEFE_FEFE, 0x0FEF_EFEF, 0x0F0F_0F0F, 0x1234_5678] {
        for a in amounts {
            assert_eq!(int::ishr(v, a), v);
            assert_eq!(int::ushr(v, a), v);
        }
    }
    let amounts = [0x1F, 7, 0xF, 0xB];
    let ishr = [!0, 0xFF00_0000, 0xFFFF_0000, 0xFFF0_0000];
    let ushr = [1, 0x0100_0000, 0x0001_0000, 0x0010_0000];
    for i in 0..4 {
        assert_eq!(int::ishr(0x8000_0000, amounts[i]), ishr[i]);
        assert_eq!(int::ushr(0x8000_0000, amounts[i]), ushr[i]);
    }
    assert_eq!(int::ishl(!0, 2), 0xFFFF_FFFC);
    assert_eq!(int::ishl(!0, 0x22), 0xFFFF_FFFC);
}

#[test]
fn vkd3d_ps_udiv_rows() {
    let rows = [
        (0, 0, (!0, !0)),
        (1, 0, (!0, !0)),
        (1, 1, (1, 0)),
        (7, 1, (7, 0)),
        (7, 2, (3, 1)),
        (7, 3, (2, 1)),
        (7, 4, (1, 3)),
        (7, 5, (1, 2)),
        (7, 6, (1, 1)),
        (7, 7, (1, 0)),
    ];
    for (a, b, want) in rows {
        assert_eq!(int::udiv(a, b), want, "udiv({a},{b})");
    }
}

#[test]
fn float_table_rows() {
    // vkd3d_ps_div: x / y
    let div = [
        (0x4000_0000, 0x4080_0000, 0x3F00_0000),
        (0x4000_0000, 0xC080_0000, 0xBF00_0000),
        (0x0000_0000, 0xBF80_0000, 0x8000_0000),
        (0x3F80_0000, 0x0000_0000, 0x7F80_0000),
        (0x3F80_0000, 0x8000_0000, 0xFF80_0000),
        (0xBF80_0000, 0x8000_0000, 0x7F80_0000),
    ];
    for (a, b, want) in div {
        assert_eq!(float::div(f(a), f(b)).to_bits(), want);
    }
    // vkd3d_ps_rcp
    for (x, want) in [
        (0xFF80_0000, 0x8000_0000),
        (0x7F80_0000, 0),
        (0x8000_0000, 0xFF80_0000),
        (0, 0x7F80_0000),
        (0xC000_0000, 0xBF00_0000),
    ] {
        assert_eq!(float::rcp(f(x)).to_bits(), want);
    }
    // vkd3d_ps_exp / vkd3d_ps_log
    for (x, want) in [
        (0, 0x3F80_0000),
        (0x8000_0000, 0x3F80_0000),
        (0x4000_0000, 0x4080_0000),
        (0xC000_0000, 0x3E80_0000),
        (0x7F80_0000, 0x7F80_0000),
        (0xFF80_0000, 0),
    ] {
        assert_eq!(float::exp2(f(x)).to_bits(), want);
    }
    for (x, want) in [
        (0x8000_0000, 0xFF80_0000),
        (0, 0xFF80_0000),
        (0x7F80_0000, 0x7F80_0000),
        (0x3E80_0000, 0xC000_0000),
        (0x3F00_0000, 0xBF80_0000),
        (0x4100_0000, 0x4040_0000),
    ] {
        assert_eq!(float::log2(f(x)).to_bits(), want);
    }
    // vkd3d_ps_frc: frac(x), frac(−x)
    for (x, want) in [
        (0x8000_0000, 0),
        (0xBF80_0000, 0),
        (0xBF00_0000, 0x3F00_0000),
    ] {
        assert_eq!(float::frc(f(x)).to_bits(), want);
        assert_eq!(float::frc(float::neg(f(x))).to_bits(), want);
    }
    // vkd3d_ps_round: floor, ceil, trunc
    for (x, want) in [
        (0xBF00_0000, [0xBF80_0000, 0x8000_0000, 0x8000_0000]),
        (0x8000_0000, [0x8000_0000, 0x8000_0000, 0x8000_0000]),
        (0x3F00_0000, [0, 0x3F80_0000, 0]),
        (0xFF80_0000, [0xFF80_0000, 0xFF80_0000, 0xFF80_0000]),
    ] {
        let got = [
            float::round_ni(f(x)),
            float::round_pi(f(x)),
            float::round_z(f(x)),
        ];
        assert_eq!(got.map(f32::to_bits), want, "round {x:#x}");
    }
    // vkd3d_ps_round_ne
    let ins = [0x4020_0000, 0x4060_0000, 0x4090_0000, 0x40B0_0000];
    let outs = [0x4000_0000, 0x4080_0000, 0x4080_0000, 0x40C0_0000];
    for (x, want) in ins.into_iter().zip(outs) {
        assert_eq!(float::round_ne(f(x)).to_bits(), want);
        assert_eq!(
            float::round_ne(f(x | 0x8000_0000)).to_bits(),
            want | 0x8000_0000
        );
    }
    assert_eq!(float::round_ne(f(0xBF00_0000)).to_bits(), 0x8000_0000);
    // vkd3d_ps_min_max (min, max)
    for (a, b, want) in [
        (0, 0xBF80_0000, [0xBF80_0000, 0]),
        (0x7FC0_0000, 0x3F80_0000, [0x3F80_0000, 0x3F80_0000]),
        (0, 0x7FC0_0000, [0, 0]),
        (0x3F80_0000, 0xFF80_0000, [0xFF80_0000, 0x3F80_0000]),
    ] {
        let got = [float::min(f(a), f(b)), float::max(f(a), f(b))];
        assert_eq!(got.map(f32::to_bits), want);
    }
    // vkd3d_ps_sat
    for (x, want) in [
        (0x7FC0_0000, 0),
        (0xFFC0_0000, 0),
        (0x7F80_0000, 0x3F80_0000),
        (0xFF80_0000, 0),
        (0x8000_0000, 0),
        (0x4040_0000, 0x3F80_0000),
    ] {
        assert_eq!(float::sat(f(x)).to_bits(), want);
    }
    // vkd3d_ps_dot2
    assert_eq!(float::dp2([1.0, 1.0], [2.0, 3.0]), 5.0);
}

#[test]
fn conversion_rows() {
    // vkd3d_ps_ftoi: (ftoi x, ftoi −x); wine_ps_ftou: (ftou x, ftou −x)
    for (x, i, u) in [
        (0xFFC0_0000, [0, 0], [0, 0]),
        (0x7FC0_0000, [0, 0], [0, 0]),
        (0xFF80_0000, [0x8000_0000, 0x7FFF_FFFF], [0, !0]),
        (0x7F80_0000, [0x7FFF_FFFF, 0x8000_0000], [!0, 0]),
        (0xBF80_0000, [!0, 1], [0, 1]),
        (0x3F80_0000, [1, !0], [1, 0]),
    ] {
        let (p, n) = (f(x), float::neg(f(x)));
        assert_eq!([convert::ftoi(p) as u32, convert::ftoi(n) as u32], i);
        assert_eq!([convert::ftou(p), convert::ftou(n)], u);
    }
    // vkd3d_ps_f16tof32(_2) + ftou: upper 16 bits are ignored.
    for hi in [0, 0x1_0000, 0xF_0000, 0xFFFF_0000] {
        let got = [0, 0x3C00, 0x5640, 0x5BD0].map(|h| convert::ftou(convert::f16tof32(hi | h)));
        assert_eq!(got, [0, 1, 100, 250]);
    }
    // vkd3d_ps_f32tof16
    let got = [0, 0x3F80_0000, 0xBF80_0000, 0x4426_8000].map(|x| convert::f32tof16(f(x)));
    assert_eq!(got, [0, 0x3C00, 0xBC00, 0x6134]);
}

#[test]
fn double_rows() {
    let c = 1.000_000_243_308_022_6_f64;
    // vkd3d_ps_dadd
    assert_eq!(
        double::pack(double::dadd(d(0, 0x4004_0000), c)),
        (0x20A8_0000, 0x400C_0000)
    );
    let c2 = 2.000_000_481_493_771_f64;
    assert_eq!(
        double::pack(double::dadd(d(0, 0x4004_0000), c2)),
        (0x2050_0000, 0x4012_0000)
    );
    // vkd3d_ps_dfma
    let a = d(0x4150_0000, 0x3FF0_0000);
    let b = d(0x40A0_0000, 0x4000_0000);
    assert_eq!(
        double::pack(double::dfma(a, b, c)),
        (0xA298_0108, 0x4008_0000)
    );
    // vkd3d_ps_ddiv, dmul, drcp, dmin/dmax
    assert_eq!(double::pack(double::ddiv(2.0, 4.0)).1, 0x3FE0_0000);
    assert_eq!(double::pack(double::ddiv(-4.0, 2.0)).1, 0xC000_0000);
    assert_eq!(double::pack(double::dmul(1.5, -3.0)).1, 0xC012_0000);
    assert_eq!(double::pack(double::drcp(-0.5)).1, 0xC000_0000);
    assert_eq!(double::dmin(-1.0, 1.0), -1.0);
    assert_eq!(double::dmax(-1.0, 1.0), 1.0);
    // vkd3d_ps_dtoi / dtou: (x.y, −y.x …)
    let (inf, ninf) = (f64::INFINITY, f64::NEG_INFINITY);
    assert_eq!(double::dtoi(ninf) as u32, 0x8000_0000);
    assert_eq!(double::dtoi(inf) as u32, 0x7FFF_FFFF);
    assert_eq!(double::dtoi(-1.0) as u32, !0);
    assert_eq!(double::dtou(ninf), 0);
    assert_eq!(double::dtou(inf), !0);
    assert_eq!(double::dtou(-(-1.0f64)), 1);
    assert_eq!(double::dtou(d(0, 0x7FF8_0000)), 0);
    assert_eq!(double::dtou(d(0, 0xFFF8_0000)), 0);
    // vkd3d_ps_itod / utod
    assert_eq!(double::pack(double::itod(i32::MIN)), (0, 0xC1E0_0000));
    assert_eq!(
        double::pack(double::utod(u32::MAX)),
        (0xFFE0_0000, 0x41EF_FFFF)
    );
    assert_eq!(double::pack(double::utod(3)), (0, 0x4008_0000));
    // vkd3d_ps_deq / dlt / dne
    assert_eq!(double::deq(0.0, 0.0), !0);
    assert_eq!(double::deq(1.0, 0.0), 0);
    assert_eq!(double::dlt(0.0, 1.0), !0);
    assert_eq!(double::dlt(1.0, 1.0), 0);
    assert_eq!(double::dne(0.0, 0.0), 0);
    assert_eq!(double::dne(1.0, 0.0), !0);
}

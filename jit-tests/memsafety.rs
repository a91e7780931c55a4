//! Memory safety of both engines: every buffer the shaders touch lies
//! between inaccessible guard pages (the view's first or last byte sits
//! right at a `PROT_NONE` page), and the shaders index far out of bounds
//! in every buffer kind: raw, structured and typed t#/u#, constant
//! buffers (dynamic index), the immediate constant buffer, TGSM and x#,
//! with reads, writes and atomics. Indices include runs of consecutive
//! in-range DWORDs (the JIT's one-vector path), runs that cross a view's
//! end, huge and negative-as-unsigned values, 0xFFFFFFFF, and values whose
//! byte address overflows 32 bits back into range. A stray access would
//! fault (the test process dies); otherwise the interpreter's and the
//! JIT's UAV bytes must agree exactly, at one worker and at two.

use std::ptr::NonNull;

use crate::util::{parse, raw, structured, to_bytes, to_words, typed};
use sm5jit::interp::Interpreter;
use sm5jit::jit::JitShader;
use sm5jit::runtime::{Bindings, DispatchOptions, Format, Slot, View};

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(p).ok().filter(|&p| p > 0).unwrap_or(4096)
}

/// `len` bytes inside an anonymous mapping with a `PROT_NONE` page right
/// before and right after the pages that hold them; the bytes start at
/// the first accessible byte (`at_end == false`) or end at the last one.
struct Guarded {
    map: NonNull<u8>,
    total: usize,
    off: usize,
    len: usize,
}

impl Guarded {
    fn new(words: &[u32], at_end: bool) -> Guarded {
        let bytes = to_bytes(words);
        let len = bytes.len();
        let page = page_size();
        let data_pages = len.div_ceil(page).max(1);
        let total = (data_pages + 2) * page;
        // SAFETY: a fresh private anonymous mapping; no existing memory is
        // affected.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                total,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(p, libc::MAP_FAILED, "mmap of {total} bytes failed");
        let map = NonNull::new(p.cast::<u8>()).expect("mmap never returns null on success");
        let tail = (1 + data_pages) * page;
        // SAFETY: both ranges are whole pages inside the mapping.
        unsafe {
            assert_eq!(libc::mprotect(p, page, libc::PROT_NONE), 0);
            assert_eq!(
                libc::mprotect(map.as_ptr().add(tail).cast(), page, libc::PROT_NONE),
                0
            );
        }
        let off = if at_end { tail - len } else { page };
        let mut g = Guarded {
            map,
            total,
            off,
            len,
        };
        g.bytes_mut().copy_from_slice(&bytes);
        g
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: `off..off + len` lies in the accessible pages of the
        // mapping, which lives as long as `self`.
        unsafe { std::slice::from_raw_parts(self.map.as_ptr().add(self.off), self.len) }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `bytes`, and `&mut self` makes the borrow unique.
        unsafe { std::slice::from_raw_parts_mut(self.map.as_ptr().add(self.off), self.len) }
    }

    /// The addresses of the two guard pages' first bytes.
    fn guards(&self) -> [usize; 2] {
        let page = page_size();
        let base = self.map.as_ptr() as usize;
        [base, base + self.total - page]
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        // SAFETY: the mapping came from mmap with this length and no
        // borrow of it outlives `self`.
        unsafe { libc::munmap(self.map.as_ptr().cast(), self.total) };
    }
}

/// Whether `/proc/self/maps` lists the page at `addr` as inaccessible.
fn is_inaccessible(addr: usize) -> bool {
    let maps = std::fs::read_to_string("/proc/self/maps").expect("/proc/self/maps");
    maps.lines().any(|line| {
        let mut parts = line.split_whitespace();
        let (Some(range), Some(perms)) = (parts.next(), parts.next()) else {
            return false;
        };
        let Some((lo, hi)) = range.split_once('-') else {
            return false;
        };
        let lo = usize::from_str_radix(lo, 16).unwrap_or(usize::MAX);
        let hi = usize::from_str_radix(hi, 16).unwrap_or(0);
        lo <= addr && addr < hi && perms.starts_with("---")
    })
}

/// One bound resource: class ('t', 'u', 'c'), slot, view, contents and
/// where the guard page touches it.
struct Res {
    class: char,
    slot: u32,
    view: View,
    words: Vec<u32>,
    at_end: bool,
}

fn res(class: char, slot: u32, view: View, words: Vec<u32>, at_end: bool) -> Res {
    Res {
        class,
        slot,
        view,
        words,
        at_end,
    }
}

/// Binds guarded copies of `list` and runs `f`; returns every UAV's bytes.
fn run_guarded(list: &[Res], f: impl FnOnce(&mut Bindings)) -> Vec<Vec<u8>> {
    let mut mem: Vec<Guarded> = list
        .iter()
        .map(|r| Guarded::new(&r.words, r.at_end))
        .collect();
    for g in &mem {
        for a in g.guards() {
            assert!(is_inaccessible(a), "guard page at {a:#x} is accessible");
        }
    }
    {
        let mut b = Bindings::new();
        for (r, g) in list.iter().zip(mem.iter_mut()) {
            let slot = Slot::new(r.slot);
            match r.class {
                'u' => {
                    b.uav(slot, g.bytes_mut(), r.view);
                }
                't' => {
                    b.srv(slot, g.bytes(), r.view);
                }
                _ => {
                    b.cb(slot, g.bytes());
                }
            }
        }
        f(&mut b);
    }
    list.iter()
        .zip(&mem)
        .filter(|(r, _)| r.class == 'u')
        .map(|(_, g)| g.bytes().to_vec())
        .collect()
}

/// Runs `text` over guarded `list` on the interpreter and on the JIT (one
/// and two workers); asserts identical UAV bytes; returns the UAV words.
fn agree(text: &str, groups: [u32; 3], list: &[Res]) -> Vec<Vec<u32>> {
    let program = parse(text);
    let interp = Interpreter::new(&program).expect("prepare");
    let jit = JitShader::compile(&program).unwrap_or_else(|e| panic!("compile: {e}\n{text}"));
    let o = DispatchOptions::default();
    let want = run_guarded(list, |b| {
        interp.dispatch(b, groups, &o).expect("interpreter run");
    });
    for threads in [1, 2] {
        let got = run_guarded(list, |b| {
            jit.dispatch_threads(b, groups, &o, threads)
                .expect("jit run");
        });
        for (k, (w, g)) in want.iter().zip(&got).enumerate() {
            let (ww, gw) = (to_words(w), to_words(g));
            if let Some(i) = (0..ww.len()).find(|&i| ww[i] != gw[i]) {
                panic!(
                    "UAV #{k} word {i}: interpreter {:#010x}, JIT {:#010x} ({threads} workers)\n{text}",
                    ww[i], gw[i]
                );
            }
        }
    }
    want.iter().map(|w| to_words(w)).collect()
}

/// Threads per test group (one group: returned atomics stay in thread order).
const THREADS: u32 = 128;

/// Four index values per thread (`x`, `y`, `z`, `w`) for a view of `n`
/// elements. Lanes come in runs of four (one SIMD vector): consecutive
/// runs starting in range, at the end, past the end, near 2^32 and at
/// values whose scaled byte address wraps 32 bits back into range; then
/// scattered, repeated and reversed runs. `y` is a structured byte offset
/// (the same within a run, except in the scattered runs), `z` and `w` are
/// more indices.
fn evil(n: u32) -> Vec<u32> {
    let starts = [
        0,
        1,
        n.wrapping_sub(4),
        n.wrapping_sub(3),
        n.wrapping_sub(2),
        n.wrapping_sub(1),
        n,
        n + 1,
        0xFFFF_FFFC,
        0xFFFF_FFFE,
        0x7FFF_FFFE,
        0x3FFF_FFFF,
        0x4000_0000,
        0x1000_0000,
        0x0FFF_FFFF,
        0x8000_0000,
    ];
    let offsets = [
        0,
        4,
        8,
        12,
        16,
        20,
        0xFFFF_FFFC,
        0x8000_0000,
        3,
        0x7FFF_FFFF,
        0,
        0,
        0,
        0,
        4,
        0xFFFF_FFF0,
    ];
    let scattered: [[u32; 4]; 16] = [
        [0, n + 5, 2, 0xFFFF_FFFF],
        [3, 2, 1, 0],
        [5, 5, 5, 5],
        [n - 1, n - 1, n, n],
        [0, 2, 4, 6],
        [1, 0, 3, 2],
        [0xFFFF_FFFF, 0, 1, 2],
        [n / 2, n / 2 + 1, 0x8000_0000, n / 2 + 3],
        [0x4000_0001, 0x4000_0002, 0x4000_0003, 0x4000_0004],
        [0x2000_0000, 0x2000_0001, 0x2000_0002, 0x2000_0003],
        [n - 3, n - 2, n - 1, 0],
        [7, 8, 9, 10],
        [0xFFFF_FFFD, 0xFFFF_FFFE, 0xFFFF_FFFF, 0],
        [n, n + 1, n + 2, n + 3],
        [2, 3, 4, 5],
        [0xC000_0000, 0x3FFF_FFFD, 0x3FFF_FFFE, 0x3FFF_FFFF],
    ];
    let mut out = Vec::with_capacity(THREADS as usize * 4);
    for t in 0..THREADS as usize {
        let (run, lane) = (t / 4, t % 4);
        let (x, y) = if run < 16 {
            (starts[run].wrapping_add(lane as u32), offsets[run])
        } else {
            let r = (run - 16) % 16;
            (scattered[r][lane], offsets[(r + lane) % 16])
        };
        let z = scattered[run % 16][3 - lane];
        let w = x.wrapping_mul(3).wrapping_add(lane as u32);
        out.extend_from_slice(&[x, y, z, w]);
    }
    out
}

/// Distinct recognisable contents for a buffer of `n` words.
fn fill(n: u32, tag: u32) -> Vec<u32> {
    (0..n).map(|i| tag << 16 | i).collect()
}

/// The output buffer every test writes its loaded values to.
fn out_buf(words: u32) -> Res {
    res('u', 0, raw(u64::from(words)), vec![0; words as usize], true)
}

/// Counts words that differ from `before`.
fn changed(after: &[u32], before: &[u32]) -> usize {
    after.iter().zip(before).filter(|(a, b)| a != b).count()
}

const N: u32 = 256;

#[test]
fn guard_pages_are_inaccessible_and_bound_bytes_touch_them() {
    let page = page_size();
    for at_end in [false, true] {
        let g = Guarded::new(&[1, 2, 3], at_end);
        let [lo, hi] = g.guards();
        assert!(is_inaccessible(lo) && is_inaccessible(hi));
        let start = g.bytes().as_ptr() as usize;
        let end = start + g.bytes().len();
        if at_end {
            assert_eq!(end, hi, "the bytes end at the upper guard");
        } else {
            assert_eq!(start, lo + page, "the bytes start after the lower guard");
        }
        assert!(!is_inaccessible(start) && !is_inaccessible(end - 1));
    }
}

#[test]
fn raw_buffers_far_out_of_bounds() {
    let text = "cs_5_0
dcl_resource_raw t0
dcl_resource_raw t1
dcl_uav_raw u0
dcl_uav_raw u1
dcl_uav_raw u2
dcl_uav_raw u3
dcl_uav_raw u4
dcl_uav_raw u5
dcl_uav_raw u6
dcl_uav_raw u7
dcl_input vThreadID.x
dcl_temps 7
dcl_thread_group 128, 1, 1
ishl r0.x, vThreadID.x, l(4)
ld_raw r1.xyzw, r0.x, t0.xyzw
ishl r2.x, r1.x, l(2)
ishl r2.y, r1.z, l(2)
ld_raw r3.x, r2.x, t1.xxxx
ld_raw r3.yzw, r1.x, t1.xwzy
ld_raw r4.xyzw, r2.y, t1.wzyx
ld_raw r5.x, r2.x, u6.xxxx
ld_raw r5.y, r1.w, u6.xxxx
ld_raw r5.zw, r2.y, u6.yyxy
store_raw u1.x, r2.x, vThreadID.x
store_raw u2.xyzw, r1.x, r1.xyzw
store_raw u3.xy, r2.y, r0.xxxx
atomic_iadd u4, r2.x, l(1)
imm_atomic_exch r6.x, u5, r2.x, vThreadID.x
imm_atomic_cmp_exch r6.y, u7, r2.y, l(0x80000), vThreadID.x
imm_atomic_umax r6.z, u6, r1.y, l(0)
imm_atomic_iadd r6.w, u6, r1.w, l(0)
store_raw u0.xyzw, r0.x, r3.xyzw
iadd r0.y, r0.x, l(2048)
store_raw u0.xyzw, r0.y, r4.xyzw
iadd r0.y, r0.y, l(2048)
store_raw u0.xyzw, r0.y, r5.xyzw
iadd r0.y, r0.y, l(2048)
store_raw u0.xyzw, r0.y, r6.xyzw
ret
";
    let table = evil(N);
    let list = vec![
        res('t', 0, raw(u64::from(THREADS) * 4), table, false),
        res('t', 1, raw(u64::from(N)), fill(N, 1), true),
        out_buf(THREADS * 16),
        res('u', 1, raw(u64::from(N)), fill(N, 2), true),
        res('u', 2, raw(u64::from(N)), fill(N, 3), false),
        res('u', 3, raw(u64::from(N)), fill(N, 4), true),
        res('u', 4, raw(u64::from(N)), fill(N, 5), false),
        res('u', 5, raw(u64::from(N)), fill(N, 6), true),
        res('u', 6, raw(u64::from(N)), fill(N, 7), true),
        res('u', 7, raw(u64::from(N)), fill(N, 8), false),
    ];
    let out = agree(text, [1, 1, 1], &list);
    // Thread 0..4 read DWORDs 0..4 of t1 in order (the contiguous run).
    assert_eq!(out[0][0], 1 << 16);
    assert_eq!(out[0][4], 1 << 16 | 1);
    for (k, tag) in [(1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (7, 8)] {
        assert!(
            changed(&out[k], &fill(N, tag)) > 0,
            "u{k} was never written"
        );
    }
}

#[test]
fn structured_buffers_far_out_of_bounds() {
    let text = "cs_5_0
dcl_resource_raw t0
dcl_resource_structured t1, 16
dcl_resource_structured t2, 4
dcl_uav_raw u0
dcl_uav_structured u1, 16
dcl_uav_structured u2, 4
dcl_uav_structured u3, 4
dcl_uav_structured u4, 12
dcl_uav_structured u5, 16
dcl_uav_structured u6, 16
dcl_uav_structured u7, 12
dcl_input vThreadID.x
dcl_temps 7
dcl_thread_group 128, 1, 1
ishl r0.x, vThreadID.x, l(4)
ld_raw r1.xyzw, r0.x, t0.xyzw
ld_structured r3.xyzw, r1.x, r1.y, t1.xyzw
ld_structured r4.x, r1.x, l(0), t2.xxxx
ld_structured r4.y, r1.x, r1.y, t2.xxxx
ld_structured r4.zw, r1.z, r1.y, t1.wwzx
ld_structured r5.x, r1.x, l(0), u6.xxxx
ld_structured r5.yzw, r1.w, r1.y, u6.zyxw
store_structured u1.xyzw, r1.x, r1.y, r1.wzyx
store_structured u2.x, r1.x, l(0), vThreadID.x
mov r2.x, r1.z
mov r2.y, l(8)
store_structured u3.x, r1.x, r1.y, vThreadID.x
atomic_iadd u4, r1.xyxx, l(1)
imm_atomic_exch r6.x, u5, r1.xyxx, vThreadID.x
imm_atomic_cmp_exch r6.y, u7, r2.xyxx, l(0xb0008), vThreadID.x
imm_atomic_imax r6.z, u6, r1.zyzz, l(0x80000000)
imm_atomic_or r6.w, u6, r1.wyww, l(0)
store_raw u0.xyzw, r0.x, r3.xyzw
iadd r0.y, r0.x, l(2048)
store_raw u0.xyzw, r0.y, r4.xyzw
iadd r0.y, r0.y, l(2048)
store_raw u0.xyzw, r0.y, r5.xyzw
iadd r0.y, r0.y, l(2048)
store_raw u0.xyzw, r0.y, r6.xyzw
ret
";
    // Element counts: 64 × 16 bytes, 256 × 4 bytes, 85 × 12 bytes (the
    // view ends 4 bytes before the guard in u4: a partial element).
    let list = vec![
        res('t', 0, raw(u64::from(THREADS) * 4), evil(64), false),
        res('t', 1, structured(16, 0, 64), fill(N, 1), true),
        res('t', 2, structured(4, 0, 256), fill(N, 2), false),
        out_buf(THREADS * 16),
        res('u', 1, structured(16, 0, 64), fill(N, 3), true),
        res('u', 2, structured(4, 0, 256), fill(N, 4), true),
        res('u', 3, structured(4, 4, 252), fill(N, 5), false),
        res('u', 4, structured(12, 0, 85), fill(N, 6), true),
        res('u', 5, structured(16, 0, 64), fill(N, 7), false),
        res('u', 6, structured(16, 0, 64), fill(N, 8), true),
        res('u', 7, structured(12, 0, 85), fill(N, 11), true),
    ];
    let out = agree(text, [1, 1, 1], &list);
    for (k, tag) in [(1, 3), (2, 4), (3, 5), (4, 6), (5, 7), (7, 11)] {
        assert!(
            changed(&out[k], &fill(N, tag)) > 0,
            "u{k} was never written"
        );
    }
    // A second table scaled for the 4-byte strides: runs at 256.
    let mut list = list;
    list[0] = res('t', 0, raw(u64::from(THREADS) * 4), evil(256), false);
    agree(text, [1, 1, 1], &list);
}

#[test]
fn typed_buffers_far_out_of_bounds() {
    let text = "cs_5_0
dcl_resource_raw t0
dcl_resource_buffer (uint,uint,uint,uint) t1
dcl_resource_buffer (uint,uint,uint,uint) t2
dcl_uav_raw u0
dcl_uav_typed_buffer (uint,uint,uint,uint) u1
dcl_uav_typed_buffer (uint,uint,uint,uint) u2
dcl_uav_typed_buffer (uint,uint,uint,uint) u3
dcl_uav_typed_buffer (uint,uint,uint,uint) u4
dcl_uav_typed_buffer (uint,uint,uint,uint) u5
dcl_input vThreadID.x
dcl_temps 7
dcl_thread_group 128, 1, 1
ishl r0.x, vThreadID.x, l(4)
ld_raw r1.xyzw, r0.x, t0.xyzw
ld r3.xyzw, r1.xxxx, t1.xyzw
ld r4.xyzw, r1.zzzz, t2.wzyx
ld_uav_typed r5.xyzw, r1.wwww, u1.xyzw
store_uav_typed u2.xyzw, r1.xxxx, vThreadID.xxxx
atomic_iadd u3, r1.xxxx, l(1)
imm_atomic_exch r6.x, u4, r1.xxxx, vThreadID.x
imm_atomic_cmp_exch r6.y, u5, r1.zzzz, l(0xa0000), vThreadID.x
imm_atomic_umin r6.z, u1, r1.yyyy, l(0xffffffff)
mov r6.w, l(0)
store_raw u0.xyzw, r0.x, r3.xyzw
iadd r0.y, r0.x, l(2048)
store_raw u0.xyzw, r0.y, r4.xyzw
iadd r0.y, r0.y, l(2048)
store_raw u0.xyzw, r0.y, r5.xyzw
iadd r0.y, r0.y, l(2048)
store_raw u0.xyzw, r0.y, r6.xyzw
ret
";
    let list = vec![
        res('t', 0, raw(u64::from(THREADS) * 4), evil(N), false),
        res(
            't',
            1,
            typed(Format::R32Uint, 0, u64::from(N)),
            fill(N, 1),
            true,
        ),
        res(
            't',
            2,
            typed(Format::R32G32B32A32Uint, 0, 64),
            fill(N, 2),
            true,
        ),
        out_buf(THREADS * 16),
        res(
            'u',
            1,
            typed(Format::R32Uint, 0, u64::from(N)),
            fill(N, 3),
            true,
        ),
        res(
            'u',
            2,
            typed(Format::R32Uint, 0, u64::from(N)),
            fill(N, 4),
            false,
        ),
        res(
            'u',
            3,
            typed(Format::R32Uint, 0, u64::from(N)),
            fill(N, 5),
            true,
        ),
        res(
            'u',
            4,
            typed(Format::R32Uint, 0, u64::from(N)),
            fill(N, 6),
            true,
        ),
        res(
            'u',
            5,
            typed(Format::R32Uint, 0, u64::from(N)),
            fill(N, 10),
            false,
        ),
    ];
    let out = agree(text, [1, 1, 1], &list);
    for (k, tag) in [(2, 4), (3, 5), (4, 6), (5, 10)] {
        assert!(
            changed(&out[k], &fill(N, tag)) > 0,
            "u{k} was never written"
        );
    }
}

#[test]
fn constant_buffers_and_icb_far_out_of_bounds() {
    let text = "cs_5_0
dcl_constantbuffer CB0[16], dynamicIndexed
dcl_constantbuffer CB1[4096], dynamicIndexed
dcl_immediateConstantBuffer { { 1, 2, 3, 4 },
                              { 5, 6, 7, 8 },
                              { 9, 10, 11, 12 },
                              { 13, 14, 15, 16 },
                              { 17, 18, 19, 20 } }
dcl_resource_raw t0
dcl_uav_raw u0
dcl_input vThreadID.x
dcl_temps 7
dcl_thread_group 128, 1, 1
ishl r0.x, vThreadID.x, l(4)
ld_raw r1.xyzw, r0.x, t0.xyzw
mov r3.xyzw, cb0[r1.x + 0].xyzw
mov r4.xyzw, cb0[r1.z + 3].wzyx
mov r5.xyzw, cb1[r1.w + 0].yxwz
mov r6.xyzw, icb[r1.x + 0].xyzw
mov r2.xyzw, icb[r1.z + 2].wzyx
iadd r6.x, r6.x, cb0[r1.y + 1].z
iadd r2.w, r2.w, icb[r1.w + 4].y
store_raw u0.xyzw, r0.x, r3.xyzw
iadd r0.y, r0.x, l(2048)
store_raw u0.xyzw, r0.y, r4.xyzw
iadd r0.y, r0.y, l(2048)
store_raw u0.xyzw, r0.y, r5.xyzw
iadd r0.y, r0.y, l(2048)
store_raw u0.xyzw, r0.y, r6.xyzw
iadd r0.y, r0.y, l(2048)
store_raw u0.xyzw, r0.y, r2.xyzw
ret
";
    // cb0: 16 rows, the last one cut to 2 DWORDs, ending at the guard;
    // cb1: 3 rows bound to a declaration of 4096, starting at the guard.
    let list = vec![
        res('t', 0, raw(u64::from(THREADS) * 4), evil(16), false),
        out_buf(THREADS * 20),
        res('c', 0, raw(62), fill(62, 1), true),
        res('c', 1, raw(12), fill(12, 2), false),
    ];
    let out = agree(text, [1, 1, 1], &list);
    // Thread 0 reads cb0 row 0.
    assert_eq!(&out[0][0..4], &fill(4, 1)[..]);
    // Thread 0 reads icb row 0 plus cb0[0 + 1].z into .x.
    assert_eq!(out[0][3 * 512], 1 + (1 << 16 | 6));
}

#[test]
fn tgsm_far_out_of_bounds() {
    let text = "cs_5_0
dcl_resource_raw t0
dcl_uav_raw u0
dcl_tgsm_raw g0, 512
dcl_tgsm_structured g1, 16, 32
dcl_tgsm_structured g2, 4, 128
dcl_input vThreadIDInGroupFlattened
dcl_input vThreadID.x
dcl_temps 7
dcl_thread_group 128, 1, 1
ishl r0.x, vThreadID.x, l(4)
ld_raw r1.xyzw, r0.x, t0.xyzw
ishl r0.z, vThreadIDInGroupFlattened.x, l(2)
store_raw g0.x, r0.z, vThreadIDInGroupFlattened.x
ushr r0.w, vThreadIDInGroupFlattened.x, l(2)
and r2.z, r0.z, l(12)
store_structured g1.x, r0.w, r2.z, r0.z
store_structured g2.x, vThreadIDInGroupFlattened.x, l(0), r0.w
sync_g_t
ishl r2.x, r1.x, l(2)
ld_raw r3.x, r2.x, g0.xxxx
ld_raw r3.yzw, r1.w, g0.yzwx
ld_structured r4.xyzw, r1.x, r1.y, g1.xyzw
ld_structured r5.x, r1.x, l(0), g2.xxxx
ld_structured r5.y, r1.z, r1.y, g2.xxxx
sync_g_t
store_raw g0.x, r2.x, vThreadID.x
store_structured g1.xy, r1.x, r1.y, r1.zwzz
atomic_iadd g2, r1.xyxx, l(1)
sync_g_t
imm_atomic_umax r5.z, g1, r1.zyzz, vThreadID.x
imm_atomic_exch r5.w, g0, r1.w, vThreadID.x
sync_g_t
ld_raw r6.x, r0.z, g0.xxxx
ld_structured r6.yz, r0.w, r2.z, g1.xyxx
ld_structured r6.w, vThreadIDInGroupFlattened.x, l(0), g2.xxxx
store_raw u0.xyzw, r0.x, r3.xyzw
iadd r0.y, r0.x, l(2048)
store_raw u0.xyzw, r0.y, r4.xyzw
iadd r0.y, r0.y, l(2048)
store_raw u0.xyzw, r0.y, r5.xyzw
iadd r0.y, r0.y, l(2048)
store_raw u0.xyzw, r0.y, r6.xyzw
ret
";
    for n in [128, 32] {
        let list = vec![
            res('t', 0, raw(u64::from(THREADS) * 4), evil(n), false),
            out_buf(THREADS * 16),
        ];
        let out = agree(text, [1, 1, 1], &list);
        assert!(out[0].iter().any(|&w| w != 0));
    }
}

#[test]
fn indexable_temps_far_out_of_bounds() {
    let text = "cs_5_0
dcl_resource_raw t0
dcl_uav_raw u0
dcl_input vThreadID.x
dcl_temps 7
dcl_indexableTemp x0[6], 4
dcl_indexableTemp x1[3], 4
dcl_thread_group 128, 1, 1
ishl r0.x, vThreadID.x, l(4)
ld_raw r1.xyzw, r0.x, t0.xyzw
mov x0[0].xyzw, l(1, 2, 3, 4)
mov x0[1].xyzw, l(5, 6, 7, 8)
mov x0[2].xyzw, l(9, 10, 11, 12)
mov x0[3].xyzw, l(13, 14, 15, 16)
mov x0[4].xyzw, l(17, 18, 19, 20)
mov x0[5].xyzw, l(21, 22, 23, 24)
mov x1[0].xyzw, l(31, 32, 33, 34)
mov x1[1].xyzw, l(35, 36, 37, 38)
mov x1[2].xyzw, l(39, 40, 41, 42)
mov x0[r1.x + 0].xyzw, r1.wzyx
mov x1[r1.y + 2].x, vThreadID.x
mov x0[r1.w + 5].yz, r1.xxxx
mov r3.xyzw, x0[r1.z + 0].xyzw
mov r4.xyzw, x1[r1.x + 1].yxwz
mov r5.xyzw, x0[r1.y + 0].xyzw
mov r6.xyzw, x1[r1.w + 0].xyzw
store_raw u0.xyzw, r0.x, r3.xyzw
iadd r0.y, r0.x, l(2048)
store_raw u0.xyzw, r0.y, r4.xyzw
iadd r0.y, r0.y, l(2048)
store_raw u0.xyzw, r0.y, r5.xyzw
iadd r0.y, r0.y, l(2048)
store_raw u0.xyzw, r0.y, r6.xyzw
ret
";
    let list = vec![
        res('t', 0, raw(u64::from(THREADS) * 4), evil(6), false),
        out_buf(THREADS * 16),
    ];
    let out = agree(text, [1, 1, 1], &list);
    assert!(out[0].iter().any(|&w| w != 0));
}

//! The DXBC container checksum: an MD5 compression function with a
//! non-standard final block (`dxbc-format.md` §1.2).
//!
//! In: the whole container as bytes. Out: the four MD5 state words that fxc
//! stores at byte offsets 4..20. Invariant: bytes 0..20 (magic and the
//! checksum itself) are never hashed, so a container's checksum can be
//! recomputed in place.

/// Per-round left-rotation amounts of MD5.
const SHIFTS: [u32; 64] = [
    7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, //
    5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, //
    4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, //
    6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
];

/// MD5's additive constants: floor(|sin(i + 1)| * 2^32).
fn sine_table() -> [u32; 64] {
    let mut k = [0u32; 64];
    for (i, slot) in k.iter_mut().enumerate() {
        *slot = (((i + 1) as f64).sin().abs() * 4294967296.0) as u32;
    }
    k
}

/// The standard MD5 initial state.
const IV: [u32; 4] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];

/// One MD5 compression of a 64-byte block (read as 16 little-endian words).
fn compress(state: &mut [u32; 4], block: &[u8; 64], k: &[u32; 64]) {
    let mut m = [0u32; 16];
    for (i, w) in m.iter_mut().enumerate() {
        *w = u32::from_le_bytes([
            block[4 * i],
            block[4 * i + 1],
            block[4 * i + 2],
            block[4 * i + 3],
        ]);
    }
    let [mut a, mut b, mut c, mut d] = *state;
    for i in 0..64 {
        let (f, g) = match i / 16 {
            0 => ((b & c) | (!b & d), i),
            1 => ((d & b) | (!d & c), (5 * i + 1) % 16),
            2 => (b ^ c ^ d, (3 * i + 5) % 16),
            _ => (c ^ (b | !d), (7 * i) % 16),
        };
        let sum = a.wrapping_add(f).wrapping_add(k[i]).wrapping_add(m[g]);
        a = d;
        d = c;
        c = b;
        b = b.wrapping_add(sum.rotate_left(SHIFTS[i]));
    }
    state[0] = state[0].wrapping_add(a);
    state[1] = state[1].wrapping_add(b);
    state[2] = state[2].wrapping_add(c);
    state[3] = state[3].wrapping_add(d);
}

/// The DXBC checksum of a container: hashes bytes 20..end. A buffer shorter
/// than 20 bytes hashes as empty.
pub fn dxbc_checksum(container: &[u8]) -> [u32; 4] {
    let data = container.get(20..).unwrap_or(&[]);
    let k = sine_table();
    let mut state = IV;
    let mut blocks = data.chunks_exact(64);
    for block in &mut blocks {
        let block: &[u8; 64] = block.try_into().expect("chunks_exact yields 64 bytes");
        compress(&mut state, block, &k);
    }
    let rest = blocks.remainder();
    let len = data.len();
    let bits = (len as u32).wrapping_mul(8);
    let tail = (bits >> 2) | 1;
    let mut last = [0u8; 64];
    if rest.len() >= 56 {
        let mut pad = [0u8; 64];
        pad[..rest.len()].copy_from_slice(rest);
        pad[rest.len()] = 0x80;
        compress(&mut state, &pad, &k);
        last[0..4].copy_from_slice(&bits.to_le_bytes());
    } else {
        last[0..4].copy_from_slice(&bits.to_le_bytes());
        last[4..4 + rest.len()].copy_from_slice(rest);
        last[4 + rest.len()] = 0x80;
    }
    last[60..64].copy_from_slice(&tail.to_le_bytes());
    compress(&mut state, &last, &k);
    state
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Standard MD5 built from the same compression function, to check the
    /// transform itself against RFC 1321 vectors.
    fn md5(data: &[u8]) -> [u32; 4] {
        let k = sine_table();
        let mut state = IV;
        let mut msg = data.to_vec();
        msg.push(0x80);
        while msg.len() % 64 != 56 {
            msg.push(0);
        }
        msg.extend_from_slice(&((data.len() as u64) * 8).to_le_bytes());
        for block in msg.chunks_exact(64) {
            compress(&mut state, block.try_into().unwrap(), &k);
        }
        state
    }

    fn hex(state: [u32; 4]) -> String {
        state
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    #[test]
    fn compression_matches_rfc1321() {
        assert_eq!(hex(md5(b"")), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(hex(md5(b"abc")), "900150983cd24fb0d6963f7d28e17f72");
        assert_eq!(
            hex(md5(
                b"12345678901234567890123456789012345678901234567890123456789012345678901234567890"
            )),
            "57edf4a22be3c955ac49da2e2107b67a"
        );
    }

    #[test]
    fn sine_table_spot_values() {
        let k = sine_table();
        assert_eq!(k[0], 0xd76a_a478);
        assert_eq!(k[63], 0xeb86_d391);
    }

    /// VK-TEST `raw_tgsm_code` (`dxbc-format.md` §1.2 and §11), laid out
    /// by hand: header, 3 chunk offsets, empty ISGN and OSGN, SHEX. 328
    /// bytes, so the hashed length 308 leaves r = 52 (the `r < 56` path);
    /// the corpus test covers `r >= 56` and `r = 0`.
    #[test]
    fn reproduces_the_raw_tgsm_code_checksum() {
        let shex = crate::dxbc::decode::tests::RAW_TGSM;
        let mut words: Vec<u32> = vec![0x43425844, 0, 0, 0, 0, 1, 328, 3, 44, 60, 76];
        words.extend([u32::from_le_bytes(*b"ISGN"), 8, 0, 8]);
        words.extend([u32::from_le_bytes(*b"OSGN"), 8, 0, 8]);
        words.extend([u32::from_le_bytes(*b"SHEX"), 4 * shex.len() as u32]);
        words.extend(shex);
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        assert_eq!(bytes.len(), 328);
        assert_eq!(
            dxbc_checksum(&bytes),
            [0x467df6d9, 0x5f56edda, 0x5c96b787, 0x60c91fb8]
        );
    }

    #[test]
    fn final_block_variants_are_distinct_and_deterministic() {
        let mut seen = std::collections::HashSet::new();
        for len in [20usize, 20 + 10, 20 + 56, 20 + 60, 20 + 64, 20 + 128] {
            let buf: Vec<u8> = (0..len).map(|i| (i * 7) as u8).collect();
            let c = dxbc_checksum(&buf);
            assert_eq!(c, dxbc_checksum(&buf));
            assert!(seen.insert(c), "collision at length {len}");
        }
        // Bytes 0..20 are not hashed.
        let mut a = vec![1u8; 100];
        let c = dxbc_checksum(&a);
        a[..20].fill(0xEE);
        assert_eq!(dxbc_checksum(&a), c);
    }
}

//! Finding a byte in a slice eight bytes at a time.
//!
//! The SSE framing's hot loop looks for the end of a line (`\n`, `\r`). As a byte loop compiled to
//! Wasm, each byte costs a load, two compares and the
//! epoch check the host puts on every loop iteration; there is no vectorised `memchr` there. A
//! 64-bit word compared with a word-wide trick finds either byte in eight at once, on any target.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The bytes of `word` that are zero, as their high bits. The lowest such bit is exact (the
/// borrow of the subtraction can only mark bytes above a true zero), which is all a search needs.
#[inline(always)]
fn zero_bytes(word: u64) -> u64 {
    word.wrapping_sub(ONES) & !word & HIGHS
}

/// The index of the first byte of `bytes` that is `a` or `b`.
#[inline]
pub fn find2(bytes: &[u8], a: u8, b: u8) -> Option<usize> {
    let (wide_a, wide_b) = (ONES * a as u64, ONES * b as u64);
    let mut words = bytes.chunks_exact(8);
    let mut at = 0;
    for chunk in &mut words {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        let found = zero_bytes(word ^ wide_a) | zero_bytes(word ^ wide_b);
        if found != 0 {
            return Some(at + (found.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    words
        .remainder()
        .iter()
        .position(|&c| c == a || c == b)
        .map(|i| at + i)
}

#[cfg(test)]
mod tests {
    use super::find2;

    fn reference(bytes: &[u8], a: u8, b: u8) -> Option<usize> {
        bytes.iter().position(|&c| c == a || c == b)
    }

    #[test]
    fn finds_what_a_byte_loop_finds_at_every_position_and_alignment() {
        // Every length up to 40 with the byte at every place (or absent), among neighbours chosen
        // to provoke the word trick's borrows: 0x00, 0x01, the bytes just around the targets, 0x80.
        for (a, b) in [(b'\n', b'\r'), (b'"', b'\\'), (0u8, 0xffu8)] {
            for len in 0..40 {
                for filler in [
                    0x00u8,
                    0x01,
                    a.wrapping_sub(1),
                    a.wrapping_add(1),
                    b.wrapping_add(1),
                    0x80,
                    b'x',
                ] {
                    let mut bytes = vec![filler; len];
                    assert_eq!(
                        find2(&bytes, a, b),
                        reference(&bytes, a, b),
                        "{len} of {filler:#x}"
                    );
                    if filler == a || filler == b {
                        continue;
                    }
                    for place in 0..len {
                        for target in [a, b] {
                            bytes[place] = target;
                            assert_eq!(
                                find2(&bytes, a, b),
                                reference(&bytes, a, b),
                                "{len} {place} {filler:#x}"
                            );
                            // And a second one after it: the first still wins.
                            if place + 3 < len {
                                bytes[place + 3] = a;
                                assert_eq!(find2(&bytes, a, b), Some(place));
                                bytes[place + 3] = filler;
                            }
                            bytes[place] = filler;
                        }
                    }
                    for start in 0..len.min(9) {
                        assert_eq!(
                            find2(&bytes[start..], a, b),
                            reference(&bytes[start..], a, b)
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn pseudo_random_text_agrees_with_a_byte_loop() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..2_000 {
            let len = (state % 97) as usize;
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    (state >> 24) as u8
                })
                .collect();
            assert_eq!(find2(&bytes, b'\n', b'\r'), reference(&bytes, b'\n', b'\r'));
            assert_eq!(find2(&bytes, b'"', b'\\'), reference(&bytes, b'"', b'\\'));
        }
    }
}

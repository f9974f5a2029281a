//! Content digests: the identity of a run report or a measured run, so that
//! the same run counts once however many times it is imported, handed in or
//! handed back in a course pack.

use serde::Serialize;
use sha2::{Digest, Sha256};

/// Hex characters kept of the SHA-256 (128 bits: no two runs collide).
const KEPT_HEX: usize = 32;

/// The digest of `value`'s JSON (struct fields in declaration order, so the
/// same value always gives the same text), as lowercase hex.
pub fn of_json<T: Serialize>(value: &T) -> String {
    let bytes = serde_json::to_vec(value).unwrap_or_default();
    let hash = Sha256::digest(&bytes);
    let mut hex = String::with_capacity(KEPT_HEX);
    for b in hash.iter() {
        if hex.len() >= KEPT_HEX {
            break;
        }
        hex.push(char::from_digit(u32::from(b >> 4), 16).unwrap_or('0'));
        hex.push(char::from_digit(u32::from(b & 0x0f), 16).unwrap_or('0'));
    }
    hex
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_values_have_equal_digests_and_others_do_not() {
        #[derive(Serialize)]
        struct R {
            a: u32,
            b: &'static str,
        }
        let one = of_json(&R { a: 1, b: "x" });
        assert_eq!(
            one,
            of_json(&R { a: 1, b: "x" }),
            "the same value, the same digest"
        );
        assert_ne!(
            one,
            of_json(&R { a: 2, b: "x" }),
            "another value, another digest"
        );
        assert_eq!(one.len(), KEPT_HEX, "32 hex characters");
        assert!(
            one.chars().all(|c| c.is_ascii_hexdigit()),
            "hex only: {one}"
        );
    }
}

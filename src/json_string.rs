//! JSON string literals written fast, byte for byte as serde_json writes them.
//!
//! Why not serde_json's own: the release build is optimised for size, and there its escape
//! loop handles one byte per step (about 1.5 ns a byte here). A knowledge search answer
//! holds a whole document, and its tool result holds that answer twice (once escaped
//! again as the text block), so the escaping was the largest single cost of the call.
//! Here clean stretches are skipped eight bytes at a time.

use serde_json::Value;

/// Appends `text` as a JSON string literal, quotes included: `"` and `\` get a backslash,
/// control characters their short form or `\u00XX` (lowercase hex), everything else
/// (including non-ASCII) stays as it is. The output equals `serde_json::to_string(text)`.
pub fn push_json_string(out: &mut String, text: &str) {
    out.reserve(text.len() + 2);
    out.push('"');
    push_json_body(out, text);
    out.push('"');
}

/// [`push_json_string`] without the quotes. Escaping works byte by byte, so the body of a
/// concatenation is the concatenation of the bodies: a text escaped in pieces (some of
/// them escaped ahead of time) equals the text escaped whole.
pub fn push_json_body(out: &mut String, text: &str) {
    let bytes = text.as_bytes();
    // `start..i` is the clean run not yet copied.
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        // A clean word is skipped whole; one that needs work (and the short tail) is
        // walked byte by byte.
        let end = match bytes[i..].first_chunk::<8>() {
            Some(word) if !needs_escape(u64::from_le_bytes(*word)) => {
                i += 8;
                continue;
            }
            Some(_) => i + 8,
            None => bytes.len(),
        };
        while i < end {
            let byte = bytes[i];
            if byte < 0x20 || byte == b'"' || byte == b'\\' {
                // Safe to slice: `i` is at an ASCII byte, so on a character boundary.
                out.push_str(&text[start..i]);
                push_escape(out, byte);
                start = i + 1;
            }
            i += 1;
        }
    }
    out.push_str(&text[start..]);
}

/// Appends `value` as compact JSON, byte for byte as `Value::to_string` writes it (members
/// in the map's order), with the string writer above. serde_json's own path goes through
/// `fmt::Write` a token at a time, which made the first `tools/list` (some 17 KB of
/// schemas) cost more than the whole `initialize`.
pub fn push_json_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        // `Number`'s Display writes what serde_json's serializer writes.
        Value::Number(number) => out.push_str(&number.to_string()),
        Value::String(text) => push_json_string(out, text),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_json_value(out, item);
            }
            out.push(']');
        }
        Value::Object(members) => {
            out.push('{');
            for (i, (key, item)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_json_string(out, key);
                out.push(':');
                push_json_value(out, item);
            }
            out.push('}');
        }
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Whether any of the eight bytes is a control character, `"` or `\`.
#[inline(always)]
fn needs_escape(word: u64) -> bool {
    // The classic "has a byte below n" and "has a zero byte" tests (exact as to whether
    // any such byte exists; bytes of 0x80 and above never match).
    let below_space = word.wrapping_sub(ONES * 0x20) & !word;
    let quote = word ^ (ONES * u64::from(b'"'));
    let backslash = word ^ (ONES * u64::from(b'\\'));
    let has_zero = |v: u64| v.wrapping_sub(ONES) & !v;
    (below_space | has_zero(quote) | has_zero(backslash)) & HIGHS != 0
}

fn push_escape(out: &mut String, byte: u8) {
    let short = match byte {
        b'"' => "\\\"",
        b'\\' => "\\\\",
        b'\n' => "\\n",
        b'\r' => "\\r",
        b'\t' => "\\t",
        0x08 => "\\b",
        0x0c => "\\f",
        _ => {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0xf)]));
            return;
        }
    };
    out.push_str(short);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn escaped(text: &str) -> String {
        let mut out = String::new();
        push_json_string(&mut out, text);
        out
    }

    #[test]
    fn matches_serde_json_on_every_ascii_byte_at_every_offset() {
        // Each byte sits at each position of an 8-byte word and straddles word ends.
        for byte in 0u8..0x80 {
            for offset in 0..17 {
                let text = format!("{}{}tail", "x".repeat(offset), char::from(byte));
                assert_eq!(
                    escaped(&text),
                    serde_json::to_string(&text).unwrap(),
                    "byte {byte:#04x} at {offset}"
                );
            }
        }
    }

    #[test]
    fn values_are_written_as_serde_json_writes_them() {
        let values = [
            serde_json::json!(null),
            serde_json::json!({}),
            serde_json::json!([]),
            serde_json::json!({"b": [1, -2, 3.5, 1e300, 0.1, true, false, null], "a": "x\"y\n", "": {"z": []}}),
            serde_json::json!([u64::MAX, i64::MIN, 1.0, -0.0, 123456789.125, "žluť\u{1}"]),
        ];
        for value in values {
            let mut out = String::new();
            push_json_value(&mut out, &value);
            assert_eq!(out, value.to_string());
        }
    }

    #[test]
    fn a_body_escaped_in_pieces_equals_the_whole() {
        let text = "{\"a\":\"x\\ny\u{1}\"}\u{1F680}\"\"";
        let whole = escaped(text);
        for cut in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
            let mut pieces = String::from("\"");
            push_json_body(&mut pieces, &text[..cut]);
            push_json_body(&mut pieces, &text[cut..]);
            pieces.push('"');
            assert_eq!(pieces, whole, "cut at {cut}");
        }
    }

    #[test]
    fn keeps_unicode_and_escapes_dense_json() {
        for text in [
            "",
            "plain ascii longer than one word",
            "žluťoučký kůň \u{1F680} \u{7f}\u{80}\u{ff}",
            r#"{"query":"a\"b","content":"line\nnext\\"}"#,
            "\u{0}\u{1f}\"\\\"\\\n\n\n\n\n\n\n\n",
        ] {
            assert_eq!(escaped(text), serde_json::to_string(text).unwrap());
        }
    }
}

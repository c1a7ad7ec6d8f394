//! Build script: packs the knowledge documents into one deflated blob, each with its plain
//! text already extracted (so the binary needs neither the raw markdown bytes nor a markdown
//! parser; both would cost the static binary about 200 KB), and records the git commit for
//! `zcp --version`. The text is stored as a short script that cuts it out of the markdown,
//! which deflates to far less than the text itself.

use std::path::Path;

/// The same extraction the library uses (`zcp::knowledge::document::extract`).
#[allow(dead_code)]
#[path = "src/knowledge/document.rs"]
mod document;

fn main() {
    println!("cargo:rerun-if-changed=embedded_docs");
    pack_docs();
    println!("cargo:rerun-if-changed=.git/HEAD");
    println!("cargo:rerun-if-changed=.git/refs/heads");
    println!("cargo:rerun-if-env-changed=ZCP_GIT_COMMIT");
    let commit = std::env::var("ZCP_GIT_COMMIT")
        .ok()
        .filter(|c| !c.is_empty())
        .or_else(|| {
            std::process::Command::new("git")
                .args(["rev-parse", "--short=12", "HEAD"])
                .output()
                .ok()
                .filter(|o| o.status.success())
                .and_then(|o| String::from_utf8(o.stdout).ok())
                .map(|s| s.trim().to_owned())
        });
    if let Some(commit) = commit {
        println!("cargo:rustc-env=ZCP_GIT_COMMIT={commit}");
    }
}

/// Writes `$OUT_DIR/docs.deflate`: three fields, each `u32 LE length, bytes`, holding the
/// streams of the text scripts (see [`text_script`]: literals, skips, copies), then the
/// records up to the end. Every `.md` file under `embedded_docs/` is a record of four such fields: path
/// (relative, '/'-separated), markdown, See Also URIs one per line, first heading (empty
/// if none). The order is stable (each directory's files by name, then its
/// subdirectories by name); the scripts are in the same order. The whole stream is
/// deflated; `src/knowledge/mod.rs` reads it back. The records come last, so a damaged
/// blob loses its last documents rather than all of them.
fn pack_docs() {
    let mut records = Vec::new();
    let mut scripts: [Vec<u8>; 3] = Default::default();
    walk(Path::new("embedded_docs"), "", &mut records, &mut scripts);
    let mut raw = Vec::new();
    for part in &scripts {
        push_field(&mut raw, part);
    }
    raw.extend_from_slice(&records);
    // Five iterations compress as well as zopfli's default fifteen here, in a third of
    // the time (the build script runs unoptimised).
    let options = zopfli::Options {
        iteration_count: std::num::NonZeroU64::new(5).expect("non-zero"),
        ..zopfli::Options::default()
    };
    let mut packed = Vec::new();
    zopfli::compress(options, zopfli::Format::Deflate, &raw[..], &mut packed)
        .expect("compressing into memory cannot fail");
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    std::fs::write(Path::new(&out).join("docs.deflate"), packed).expect("write docs.deflate");
}

fn push_field(raw: &mut Vec<u8>, part: &[u8]) {
    raw.extend_from_slice(&u32::try_from(part.len()).expect("small").to_le_bytes());
    raw.extend_from_slice(part);
}

fn walk(dir: &Path, prefix: &str, raw: &mut Vec<u8>, scripts: &mut [Vec<u8>; 3]) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("embedded_docs is readable")
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries.iter().filter(|p| p.is_file()) {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .expect("UTF-8 file name");
        let markdown = std::fs::read_to_string(path).expect("readable UTF-8 document");
        let extract = document::extract(document::body_of(&markdown));
        let see_also = extract.see_also.join("\n");
        let heading = extract.heading.unwrap_or_default();
        let rel = format!("{prefix}{name}");
        text_script(markdown.as_bytes(), extract.text.as_bytes(), scripts);
        for part in [&rel, &markdown, &see_also, &heading] {
            push_field(raw, part.as_bytes());
        }
    }
    for path in entries.iter().filter(|p| p.is_dir()) {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .expect("UTF-8 directory name");
        walk(path, &format!("{prefix}{name}/"), raw, scripts);
    }
}

/// Appends the script that rebuilds `text` from `markdown` to the three streams. The text
/// is the markdown with its syntax left out and some line ends turned into spaces, so it
/// is mostly runs copied from the markdown in order: each step is a literal (bytes the
/// markdown does not have at that point), a number of markdown bytes to skip, and a
/// number to copy. Streams, as LEB128 numbers: `literals` holds each step's literal
/// (length, bytes) and one more at the end; `skips` each step's skip; `copies` the count
/// of steps, then each step's copy. Kept apart, each stream deflates well.
fn text_script(markdown: &[u8], text: &[u8], [literals, skips, copies]: &mut [Vec<u8>; 3]) {
    let mut steps: Vec<(Vec<u8>, usize, usize)> = Vec::new();
    let mut literal = Vec::new();
    // Markdown bytes consumed by literals since the last step (a line end turned space).
    let mut skipped = 0;
    let (mut m, mut t) = (0, 0);
    while t < text.len() {
        let byte = text[t];
        let blank = |b: &u8| *b == b' ' || *b == b'\n';
        let at = if markdown.get(m) == Some(&byte) {
            Some(m)
        } else if blank(&byte) && markdown.get(m).is_some_and(blank) {
            literal.push(byte);
            (m, t, skipped) = (m + 1, t + 1, skipped + 1);
            continue;
        } else {
            // The next few bytes close by, else a longer run further on: a short match far
            // away is more often chance than the place the text continues.
            find(markdown, &text[t..], m, 3, 50).or_else(|| find(markdown, &text[t..], m, 24, 3000))
        };
        let Some(at) = at else {
            literal.push(byte);
            t += 1;
            continue;
        };
        let len = markdown[at..]
            .iter()
            .zip(&text[t..])
            .take_while(|(a, b)| a == b)
            .count();
        steps.push((std::mem::take(&mut literal), skipped + at - m, len));
        (m, t, skipped) = (at + len, t + len, 0);
    }
    leb128(steps.len(), copies);
    for (bytes, skip, copy) in steps {
        leb128(bytes.len(), literals);
        literals.extend_from_slice(&bytes);
        leb128(skip, skips);
        leb128(copy, copies);
    }
    leb128(literal.len(), literals);
    literals.extend_from_slice(&literal);
}

/// Where the first `len` bytes of `text` occur in `markdown` within `window` bytes from `from`.
fn find(markdown: &[u8], text: &[u8], from: usize, len: usize, window: usize) -> Option<usize> {
    let needle = &text[..len.min(text.len())];
    let end = (from + window + needle.len()).min(markdown.len());
    markdown
        .get(from..end)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| from + p)
}

fn leb128(mut value: usize, out: &mut Vec<u8>) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

//! Build script: packs the knowledge documents into one deflated blob, each with its plain
//! text already extracted (so the binary needs neither the raw markdown bytes nor a markdown
//! parser; both would cost the static binary about 200 KB), and records the git commit for
//! `zcp --version`.

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

/// Writes `$OUT_DIR/docs.deflate`: every `.md` file under `embedded_docs/` as a record of
/// five fields, each `u32 LE length, UTF-8 bytes`: path (relative, '/'-separated),
/// markdown, extracted text, See Also URIs one per line, first heading (empty if none). The
/// order is stable (each directory's files by name, then its subdirectories by name), and
/// each text follows its markdown, so deflate stores most of it as back-references. The
/// whole stream is deflated; `src/knowledge/mod.rs` reads it back.
fn pack_docs() {
    let mut raw = Vec::new();
    walk(Path::new("embedded_docs"), "", &mut raw);
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

fn walk(dir: &Path, prefix: &str, raw: &mut Vec<u8>) {
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
        for part in [&rel, &markdown, &extract.text, &see_also, &heading] {
            let part = part.as_bytes();
            raw.extend_from_slice(&u32::try_from(part.len()).expect("small").to_le_bytes());
            raw.extend_from_slice(part);
        }
    }
    for path in entries.iter().filter(|p| p.is_dir()) {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .expect("UTF-8 directory name");
        walk(path, &format!("{prefix}{name}/"), raw);
    }
}

//! Knowledge-search benchmark (std only): how long the index takes to build and how long
//! one `search` call takes (p50/p99, microseconds) over the quality-set queries, with the
//! same limit the tool uses by default. Run with `cargo bench --bench knowledge`.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use zcp::knowledge::{self, Store};

#[allow(dead_code)]
#[path = "../tests/support/knowledge_queries.rs"]
mod queries;

#[path = "../tests/support/proc_status.rs"]
mod proc_status;

/// Timed calls per query (after the warm-up), and index builds timed. `cargo bench`
/// passes `--bench`; `cargo test --all-targets` runs this once without it, as a smoke test.
fn rounds() -> (usize, usize) {
    if std::env::args().any(|a| a == "--bench") {
        (300, 10)
    } else {
        (2, 1)
    }
}

fn files(dir: &Path, root: &Path, out: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            files(&path, root, out);
        } else if path.extension().is_some_and(|e| e == "md")
            && let (Ok(rel), Ok(text)) = (path.strip_prefix(root), std::fs::read_to_string(&path))
        {
            let rel = rel.with_extension("").to_string_lossy().replace('\\', "/");
            out.push((rel, text));
        }
    }
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let at = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[at].as_secs_f64() * 1e6
}

fn main() {
    let (rounds, build_count) = rounds();
    let rss_before = resident_kib();
    let started = Instant::now();
    let store = knowledge::store();
    let first_call = started.elapsed();
    // What building the store adds to the process (on this, the main, thread; the server
    // builds it on a worker, whose malloc arena adds a little more).
    let rss_added = resident_kib().saturating_sub(rss_before);

    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("embedded_docs");
    let mut sources = Vec::new();
    files(&root, &root, &mut sources);
    let mut builds = Vec::with_capacity(build_count);
    for _ in 0..build_count {
        let input = sources.clone();
        let t = Instant::now();
        black_box(Store::from_documents(input));
        builds.push(t.elapsed());
    }
    builds.sort();

    let mut all = Vec::with_capacity(queries::QUALITY.len() * rounds);
    let mut per_query: Vec<(f64, &str)> = Vec::new();
    for (query, _) in queries::QUALITY {
        for _ in 0..rounds.min(20) {
            black_box(store.search(black_box(query), 5));
        }
        let mut samples = Vec::with_capacity(rounds);
        for _ in 0..rounds {
            let t = Instant::now();
            black_box(store.search(black_box(query), 5));
            samples.push(t.elapsed());
        }
        samples.sort();
        per_query.push((percentile(&samples, 0.5), query));
        all.extend(samples);
    }
    all.sort();
    per_query.sort_by(|a, b| b.0.total_cmp(&a.0));

    println!(
        "knowledge: {} documents, {} bytes of markdown",
        store.documents().len(),
        sources.iter().map(|(_, m)| m.len()).sum::<usize>()
    );
    println!(
        "resident memory added by the first store() call: {:.2} MiB",
        rss_added as f64 / 1024.0
    );
    println!(
        "index build: first store() call {:.2} ms; from_documents p50 {:.2} ms, max {:.2} ms ({build_count} builds)",
        first_call.as_secs_f64() * 1e3,
        percentile(&builds, 0.5) / 1e3,
        percentile(&builds, 1.0) / 1e3
    );
    println!(
        "search (limit 5): p50 {:.2} µs, p99 {:.2} µs, max {:.2} µs over {} queries × {rounds} calls",
        percentile(&all, 0.5),
        percentile(&all, 0.99),
        percentile(&all, 1.0),
        queries::QUALITY.len()
    );
    println!("slowest queries by p50:");
    for (p50, query) in per_query.iter().take(5) {
        println!("  {p50:8.2} µs  {query:?}");
    }
}

/// This process's resident set (VmRSS), in KiB; 0 where /proc is not available.
fn resident_kib() -> u64 {
    proc_status::status_kib("self", "VmRSS").unwrap_or(0)
}

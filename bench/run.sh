#!/usr/bin/env bash
# Builds zcp and the rmcp peer in release mode and measures them side by side; the
# results are written into BENCHMARKS.md (between the protocol-bench markers) and printed.
# Run on a quiet machine: other load on the cores shows up in every latency figure.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked
cargo build --release --manifest-path bench/peer/Cargo.toml
cargo bench --bench protocol -- \
  --zcp target/release/zcp \
  --peer bench/peer/target/release/zcp-bench-peer \
  --out BENCHMARKS.md

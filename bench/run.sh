#!/usr/bin/env bash
# Builds zcp's release artifact (the fully static Linux binary, as scripts/static-check
# builds it) and the rmcp peer, measures them side by side and writes the results into
# BENCHMARKS.md (between the protocol-bench markers; other sections are kept) and stdout.
# Run on a quiet machine: other load on the cores shows up in every latency figure.
set -euo pipefail
cd "$(dirname "$0")/.."
target=x86_64-unknown-linux-gnu
RUSTFLAGS='-C target-feature=+crt-static -C relocation-model=static -C link-arg=-Wl,--icf=all' \
  cargo build --release --locked --target "$target"
cargo build --release --locked --manifest-path bench/peer/Cargo.toml
# The peer once more with cargo's default release profile (its size is reported beside).
CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
  CARGO_PROFILE_RELEASE_STRIP=debuginfo CARGO_TARGET_DIR=bench/peer/target/default-profile \
  cargo build --release --locked --manifest-path bench/peer/Cargo.toml
# And the tuned peer linked exactly as zcp's artifact is, for a like-for-like size line.
RUSTFLAGS='-C target-feature=+crt-static -C relocation-model=static -C link-arg=-Wl,--icf=all' \
  CARGO_TARGET_DIR=bench/peer/target/static \
  cargo build --release --locked --manifest-path bench/peer/Cargo.toml --target "$target"
cargo bench --locked --bench protocol -- \
  --zcp "${CARGO_TARGET_DIR:-target}/$target/release/zcp" \
  --peer bench/peer/target/release/zcp-bench-peer \
  --peer-default bench/peer/target/default-profile/release/zcp-bench-peer \
  --peer-static "bench/peer/target/static/$target/release/zcp-bench-peer" \
  --peer-lock bench/peer/Cargo.lock \
  --out BENCHMARKS.md

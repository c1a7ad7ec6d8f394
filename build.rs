//! Build script: rebuild when a knowledge document changes (include_dir cannot tell
//! cargo), and record the git commit for `zcp --version`.

fn main() {
    println!("cargo:rerun-if-changed=embedded_docs");
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

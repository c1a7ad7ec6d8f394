//! The embedded knowledge base as a whole: every topic of the spec exists with a title
//! (matching its heading), a description and keywords; links resolve; URIs are unique;
//! and every YAML example marked as a complete zerops.yml or import.yml passes the
//! validator.

use zcp::knowledge::{self, resolve_uri};
use zcp::ops::validate::{FileKind, validate};

/// The 86 topics of the knowledge-topics spec.
const TOPICS: [&str; 86] = [
    "services/postgresql",
    "services/mariadb",
    "services/valkey",
    "services/keydb",
    "services/clickhouse",
    "services/elasticsearch",
    "services/meilisearch",
    "services/typesense",
    "services/qdrant",
    "services/nats",
    "services/kafka",
    "services/object-storage",
    "services/shared-storage",
    "runtimes/nodejs",
    "runtimes/bun",
    "runtimes/deno",
    "runtimes/python",
    "runtimes/php",
    "runtimes/go",
    "runtimes/rust",
    "runtimes/java",
    "runtimes/dotnet",
    "runtimes/elixir",
    "runtimes/gleam",
    "runtimes/ruby",
    "runtimes/static",
    "runtimes/nginx",
    "runtimes/alpine",
    "runtimes/ubuntu",
    "runtimes/docker",
    "config/zerops-yml",
    "config/zerops-yml-build",
    "config/zerops-yml-run",
    "config/import-yml",
    "config/import-yml-patterns",
    "config/preprocessor",
    "config/deploy-files",
    "config/health-checks",
    "config/cron",
    "config/zcli",
    "config/service-types",
    "networking/overview",
    "networking/subdomain",
    "networking/public-access",
    "networking/firewall",
    "networking/vpn",
    "networking/cloudflare",
    "networking/ssh",
    "networking/l7-balancer",
    "platform/env-variables",
    "platform/scaling",
    "platform/ha-mode",
    "platform/build-pipeline",
    "platform/build-cache",
    "platform/backup",
    "platform/cdn",
    "platform/debug-mode",
    "platform/rbac",
    "platform/infrastructure",
    "platform/containers-vs-vm",
    "operations/logging",
    "operations/log-forwarding",
    "operations/metrics",
    "operations/smtp",
    "operations/ci-cd",
    "operations/init-commands",
    "operations/production-checklist",
    "operations/service-lifecycle",
    "operations/processes",
    "decisions/choose-database",
    "decisions/choose-cache",
    "decisions/choose-queue",
    "decisions/choose-search",
    "decisions/choose-runtime-base",
    "guides/deploy-nodejs",
    "guides/deploy-python",
    "guides/deploy-php-laravel",
    "guides/deploy-go",
    "guides/deploy-static-spa",
    "guides/connect-database",
    "guides/object-storage-integration",
    "guides/local-development",
    "guides/troubleshoot-build",
    "guides/troubleshoot-502",
    "guides/environment-promotion",
    "gotchas/common",
];

#[test]
fn every_topic_exists_with_metadata() {
    let store = knowledge::store();
    let docs = store.documents();
    assert!(docs.len() >= 86, "only {} documents", docs.len());
    let mut missing = Vec::new();
    for topic in TOPICS {
        if store.get(&format!("zerops://docs/{topic}")).is_none() {
            missing.push(topic);
        }
    }
    assert!(missing.is_empty(), "missing documents: {missing:?}");
    let mut uris = std::collections::HashSet::new();
    for doc in docs {
        assert!(uris.insert(doc.uri.clone()), "duplicate uri {}", doc.uri);
        assert!(!doc.title.is_empty(), "{}: no title", doc.uri);
        assert_eq!(
            doc.heading(),
            Some(doc.title.as_str()),
            "{}: the first heading must be the title",
            doc.uri
        );
        assert!(!doc.description.is_empty(), "{}: no description", doc.uri);
        assert!(
            doc.keywords.len() >= 3,
            "{}: fewer than 3 keywords",
            doc.uri
        );
        assert!(
            doc.path
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '/'),
            "{}: bad path",
            doc.uri
        );
        assert_eq!(resolve_uri(&doc.uri).as_deref(), Some(doc.uri.as_str()));
    }
}

#[test]
fn internal_links_resolve() {
    let store = knowledge::store();
    let mut broken = Vec::new();
    for doc in store.documents() {
        for link in doc.links() {
            if store.get(&link).is_none() {
                broken.push(format!("{} -> {link}", doc.uri));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn marked_yaml_examples_validate() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for doc in knowledge::store().documents() {
        for block in doc.code_blocks() {
            let kind = match block.info.as_str() {
                "yaml zerops.yml" => FileKind::ZeropsYml,
                "yaml import.yml" => FileKind::ImportYml,
                _ => continue,
            };
            checked += 1;
            let report = validate(&block.code, Some(kind), None);
            for error in &report.errors {
                failures.push(format!(
                    "{} (block at line {}): {} line {}: {} [{}]",
                    doc.uri, block.line, error.rule, error.line, error.message, error.path
                ));
            }
            if kind == FileKind::ImportYml && report.has_project {
                failures.push(format!(
                    "{} (block at line {}): complete import examples must not have project:",
                    doc.uri, block.line
                ));
            }
        }
    }
    println!("validated {checked} YAML examples");
    assert!(checked >= 40, "only {checked} validated YAML examples");
    assert!(
        failures.is_empty(),
        "invalid YAML examples:\n{}",
        failures.join("\n")
    );
}

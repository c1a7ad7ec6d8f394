//! Suggestions that come with a search answer: a plain "Zerops has no X, use Y" for
//! services the platform does not offer (always, even when documents matched), related
//! queries when nothing matched, and otherwise the best document's See Also list.

use super::query::within_one_edit;

/// Most suggestions in one answer.
pub const MAX_SUGGESTIONS: usize = 5;

/// Something Zerops does not offer, with what to use instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unsupported {
    /// Lower-case query words that name it.
    pub words: &'static [&'static str],
    /// The answer: names the alternative and the document about it.
    pub message: &'static str,
}

/// The unsupported services and tools agents ask about.
pub const UNSUPPORTED: &[Unsupported] = &[
    Unsupported {
        words: &["mongodb", "mongo"],
        message: "Zerops has no MongoDB. Use PostgreSQL (zerops://docs/services/postgresql) or MariaDB; zerops://docs/decisions/choose-database compares them.",
    },
    Unsupported {
        words: &["dynamodb"],
        message: "Zerops has no DynamoDB. Use PostgreSQL (zerops://docs/services/postgresql) or MariaDB (zerops://docs/services/mariadb).",
    },
    Unsupported {
        words: &["mysql"],
        message: "Zerops offers MariaDB instead of MySQL; it is MySQL-compatible (same protocol and clients): zerops://docs/services/mariadb.",
    },
    Unsupported {
        words: &["redis"],
        message: "Zerops offers Valkey instead of Redis; it is Redis-compatible (same protocol and clients): zerops://docs/services/valkey.",
    },
    Unsupported {
        words: &["memcached", "memcache"],
        message: "Zerops has no Memcached. Use Valkey (Redis-compatible) for caching: zerops://docs/services/valkey.",
    },
    Unsupported {
        words: &["sqlite", "sqlite3"],
        message: "SQLite would live on a container's local disk, which is replaced on every deploy. Use PostgreSQL (zerops://docs/services/postgresql) or MariaDB as a managed database.",
    },
    Unsupported {
        words: &["kubernetes", "k8s", "helm", "kubectl"],
        message: "Zerops is a PaaS, not Kubernetes: describe services in import.yml (zerops://docs/config/import-yml); they run as containers (zerops://docs/platform/infrastructure).",
    },
    Unsupported {
        words: &["rabbitmq", "activemq", "sqs", "amqp"],
        message: "Zerops has no RabbitMQ. Use NATS or Kafka for messaging: zerops://docs/decisions/choose-queue.",
    },
    Unsupported {
        words: &[
            "cassandra",
            "couchdb",
            "cockroachdb",
            "firebase",
            "firestore",
            "supabase",
            "mssql",
            "sqlserver",
            "oracle",
        ],
        message: "That database is not offered on Zerops. Use PostgreSQL (zerops://docs/services/postgresql); zerops://docs/decisions/choose-database lists the options.",
    },
    Unsupported {
        words: &["lambda", "serverless", "faas"],
        message: "Zerops runs full Linux containers, not serverless functions: zerops://docs/platform/infrastructure. Deploy the code as a runtime service instead.",
    },
    Unsupported {
        words: &["heroku", "procfile"],
        message: "Zerops has no Procfile: the start command goes in zerops.yml under run.start (zerops://docs/config/zerops-yml-run).",
    },
    Unsupported {
        words: &["opensearch", "solr", "algolia"],
        message: "That search engine is not offered on Zerops. Use Elasticsearch, Meilisearch or Typesense: zerops://docs/decisions/choose-search.",
    },
];

/// Messages for unsupported things the query names, in table order, without repeats.
/// A word no document uses that is one typo from a name (`mongdb`) counts too.
pub fn unsupported(words: &[String], is_corpus_word: impl Fn(&str) -> bool) -> Vec<&'static str> {
    let is_name = |w: &str| UNSUPPORTED.iter().any(|e| e.words.contains(&w));
    // Words that may be a misspelt name: long enough, not a name, not a corpus word.
    let maybe_typos: Vec<&str> = words
        .iter()
        .map(String::as_str)
        .filter(|w| w.chars().count() >= 5 && !is_name(w) && !is_corpus_word(w))
        .collect();
    let mut out: Vec<&'static str> = Vec::new();
    for entry in UNSUPPORTED {
        let named = words.iter().any(|w| entry.words.contains(&w.as_str()))
            || maybe_typos.iter().any(|w| {
                entry
                    .words
                    .iter()
                    .any(|name| name.len() >= 5 && within_one_edit(w, name))
            });
        if named && !out.contains(&entry.message) {
            out.push(entry.message);
        }
    }
    out
}

/// The answer when nothing matched: queries that do find something.
pub fn nothing_found(query: &str) -> String {
    let shown: String = query.chars().take(80).collect();
    format!(
        "No results for '{shown}'. Try a service or runtime name (\"postgresql\", \"valkey\", \"nodejs\"), a config file (\"zerops.yml\", \"import.yml\"), a task (\"deploy\", \"environment variables\", \"scaling\") or \"common gotchas\"."
    )
}

/// A "Related:" line for a See Also entry.
pub fn related(uri: &str, title: Option<&str>) -> String {
    match title {
        Some(title) => format!("Related: {uri} ({title})"),
        None => format!("Related: {uri}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn every_message_names_a_document() {
        for entry in UNSUPPORTED {
            assert!(
                entry.message.contains("zerops://docs/"),
                "{}",
                entry.message
            );
            for w in entry.words {
                assert_eq!(*w, w.to_lowercase());
            }
        }
    }

    #[test]
    fn names_the_alternative() {
        for (word, alternative, doc) in [
            ("mongodb", "PostgreSQL", "services/postgresql"),
            ("mysql", "MariaDB", "services/mariadb"),
            ("memcached", "Valkey", "services/valkey"),
            ("rabbitmq", "NATS", "decisions/choose-queue"),
            ("kubernetes", "import.yml", "config/import-yml"),
            ("k8s", "import.yml", "config/import-yml"),
            ("dynamodb", "PostgreSQL", "services/postgresql"),
            ("sqlite", "PostgreSQL", "services/postgresql"),
        ] {
            let got = unsupported(&words(&[word]), |_| false);
            assert_eq!(got.len(), 1, "{word}");
            assert!(got[0].contains(alternative), "{word}: {}", got[0]);
            assert!(got[0].contains(doc), "{word}: {}", got[0]);
        }
    }

    #[test]
    fn several_once_each_and_typos_of_unknown_words() {
        let got = unsupported(&words(&["mongo", "mongodb", "mysql"]), |_| false);
        assert_eq!(got.len(), 2);
        assert_eq!(unsupported(&words(&["mongdb"]), |_| false).len(), 1);
        // A word the documents use is taken at its word.
        assert!(unsupported(&words(&["mongdb"]), |_| true).is_empty());
        assert!(unsupported(&words(&["postgresql", "deploy"]), |_| false).is_empty());
    }

    #[test]
    fn fallback_texts() {
        assert!(nothing_found("qqq").starts_with("No results for 'qqq'."));
        assert_eq!(nothing_found(&"é".repeat(200)).matches('é').count(), 80);
        assert_eq!(
            related("zerops://docs/a/b", Some("B")),
            "Related: zerops://docs/a/b (B)"
        );
        assert_eq!(
            related("zerops://docs/a/b", None),
            "Related: zerops://docs/a/b"
        );
    }
}

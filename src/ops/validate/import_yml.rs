//! The import.yml rules (I1–I31 and G7 of the spec checklist, the offline ones).

use std::collections::HashMap;

use crate::yaml::{Kind, Node};

use super::Findings;
use super::catalog::{self, Category, find_family, parse_type};
use super::common::{check_env_map, check_keys, closest, join};

const MAX_IMPORT_BYTES: usize = 100 * 1024;

const SERVICE_KEYS: [&str; 30] = [
    "hostname",
    "type",
    "mode",
    "priority",
    "enableSubdomainAccess",
    "startWithoutCode",
    "buildFromGit",
    "zeropsSetup",
    "zeropsYaml",
    "envSecrets",
    "dotEnvSecrets",
    "envIsolation",
    "sshIsolation",
    "verticalAutoscaling",
    "minContainers",
    "maxContainers",
    "mount",
    "nginxConfig",
    "objectStorageSize",
    "objectStoragePolicy",
    "objectStorageRawPolicy",
    "enableCdn",
    "os",
    "override",
    "profile",
    "profileOverrides",
    "envVariables",
    "corePackage",
    "maxContainersCount",
    "minContainersCount",
];

const VERTICAL_KEYS: [&str; 18] = [
    "cpu",
    "ram",
    "disk",
    "cpuMode",
    "minCpu",
    "maxCpu",
    "minRam",
    "maxRam",
    "minDisk",
    "maxDisk",
    "startCpuCoreCount",
    "minFreeCpuCores",
    "minFreeCpuPercent",
    "minFreeRamGB",
    "minFreeRamPercent",
    "swapEnabled",
    "minVCpu",
    "maxVCpu",
];

const POLICIES: [&str; 6] = [
    "private",
    "public-read",
    "public-objects-read",
    "public-write",
    "public-read-write",
    "custom",
];

/// Walks an import document; returns whether it has a `project:` section.
pub fn check(content: &str, doc: &Node, findings: &mut Findings) -> bool {
    if content.len() > MAX_IMPORT_BYTES {
        findings.error(
            "G7",
            "",
            doc,
            format!(
                "The import is {} KB; the platform accepts at most 100 KB",
                content.len() / 1024
            ),
            "Split it into several imports.",
        );
    }
    let Some(_) = doc.entries() else {
        let message = if matches!(doc.kind, Kind::Null) {
            "The file is empty"
        } else {
            "The top level must be a mapping with a `services:` list"
        };
        findings.error(
            "G5",
            "",
            doc,
            message,
            "Start with `services:` and one `- hostname: ...` item per service.",
        );
        return false;
    };
    check_keys(doc, "", &["project", "services"], "I1", findings, &|key| {
        (key == "zerops").then(|| "`zerops:` is zerops.yml content; validate it as type zerops.yml, or put it under a service's zeropsYaml.".to_owned())
    });
    let has_project = doc.get("project").is_some();
    if let Some(project) = doc.key_node("project") {
        findings.warning(
            "I2",
            "project",
            project,
            "The file has a project: section: valid for creating a new project, but zerops_import refuses it (IMPORT_HAS_PROJECT)",
            "To add these services to the current project, delete the project: block; set its envVariables as project variables with zerops_env (project: true).",
        );
    }
    check_preprocessor(content, doc, findings);
    let Some(services) = doc.get("services") else {
        findings.error(
            "I3",
            "services",
            doc,
            "Missing `services:`",
            "Add `services:` with one `- hostname: ... type: ...` item per service.",
        );
        return has_project;
    };
    let Some(items) = services.items() else {
        findings.error(
            "I3",
            "services",
            services,
            format!("`services` must be a list (got {})", services.type_name()),
            "Write `- hostname: api` items.",
        );
        return has_project;
    };
    if items.is_empty() {
        findings.error(
            "I3",
            "services",
            services,
            "`services` is empty",
            "Add at least one service.",
        );
    }
    let shared_storages: Vec<String> = items
        .iter()
        .filter(|s| {
            s.get("type")
                .and_then(Node::as_scalar_string)
                .and_then(|t| find_family(parse_type(&t).name))
                .is_some_and(|f| f.category == Category::SharedStorage)
        })
        .filter_map(|s| s.get("hostname").and_then(Node::as_scalar_string))
        .collect();
    let mut hostnames: HashMap<String, usize> = HashMap::new();
    for (i, service) in items.iter().enumerate() {
        let path = format!("services[{i}]");
        if service.entries().is_none() {
            findings.error(
                "I4",
                &path,
                service,
                format!("Service #{} must be a mapping", i + 1),
                "Write `- hostname: api` followed by `type:` and the other keys.",
            );
            continue;
        }
        check_service(service, &path, &shared_storages, findings);
        if let Some(name) = service.get("hostname").and_then(Node::as_scalar_string)
            && hostnames.insert(name.clone(), i).is_some()
        {
            findings.error(
                "I8",
                &join(&path, "hostname"),
                service.get("hostname").unwrap_or(service),
                format!("Hostname `{name}` is used twice"),
                "Hostnames are unique within a project.",
            );
        }
    }
    has_project
}

fn check_preprocessor(content: &str, doc: &Node, findings: &mut Findings) {
    if !content.contains("<@") {
        return;
    }
    let first = content.lines().next().unwrap_or("").trim();
    if first != "#yamlPreprocessor=on" && first != "#zeropsPreprocessor=on" {
        findings.warning("I29", "", doc, "The file uses <@...> preprocessor functions but does not enable the preprocessor", "Make `#yamlPreprocessor=on` the very first line, or the expressions are stored literally.");
    }
    if content.matches("<@").count() > content.matches('>').count() {
        findings.warning(
            "I29",
            "",
            doc,
            "A <@ expression looks unbalanced",
            "Each `<@function(<arg>)>` needs its closing brackets.",
        );
    }
}

fn bool_field(service: &Node, key: &str, path: &str, findings: &mut Findings) {
    if let Some(value) = service.get(key)
        && !matches!(value.kind, Kind::Bool(_))
    {
        findings.error(
            "I20",
            &join(path, key),
            value,
            format!("`{key}` must be true or false (got {})", value.type_name()),
            format!("Write `{key}: true`."),
        );
    }
}

fn int_in(node: &Node, lo: i64, hi: i64) -> Option<i64> {
    match node.kind {
        Kind::Int(v) if (lo..=hi).contains(&v) => Some(v),
        _ => None,
    }
}

fn check_service(service: &Node, path: &str, shared_storages: &[String], findings: &mut Findings) {
    check_keys(service, path, &SERVICE_KEYS, "I5", findings, &|key| {
        Some(match key {
            "ports" | "start" | "build" | "run" => format!(
                "`{key}` belongs in zerops.yml (or this service's zeropsYaml), not in the import."
            ),
            "env" | "envs" => "Use `envSecrets:` for service variables.".into(),
            _ => return None,
        })
    });
    if let Some(env) = service.key_node("envVariables") {
        findings.warning(
            "I5",
            &join(path, "envVariables"),
            env,
            "Service-level envVariables is accepted and silently dropped by the platform",
            "Use `envSecrets:` (or zerops.yml run.envVariables).",
        );
    }
    // Hostname.
    match service.get("hostname") {
        None => findings.error(
            "I6",
            path,
            service,
            "The service has no `hostname`",
            "Add `hostname: <name>` (lowercase letters and digits).",
        ),
        Some(node) => match node
            .as_str()
            .map(str::to_owned)
            .or_else(|| node.as_scalar_string())
        {
            None => findings.error(
                "I6",
                &join(path, "hostname"),
                node,
                "`hostname` must be a string",
                "E.g. `hostname: api`.",
            ),
            Some(name) => {
                let valid = name.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                    && name
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
                    && name.len() <= 40;
                if !valid {
                    let cleaned: String = name
                        .to_lowercase()
                        .chars()
                        .filter(char::is_ascii_alphanumeric)
                        .collect();
                    findings.error("I7", &join(path, "hostname"), node, format!("Hostname `{name}` is invalid: lowercase letters and digits only, starting with a letter, at most 40 characters"), if cleaned.is_empty() { "E.g. `api` or `db1`.".into() } else { format!("E.g. `{cleaned}`.") });
                } else if name.len() > 25 {
                    findings.warning(
                        "I7",
                        &join(path, "hostname"),
                        node,
                        format!("Hostname `{name}` is longer than the documented 25 characters"),
                        "Keep hostnames at most 25 characters.",
                    );
                }
            }
        },
    }
    // Type and mode.
    let type_node = service.get("type");
    let type_text = type_node.and_then(Node::as_scalar_string);
    let family = match (type_node, &type_text) {
        (None, _) => {
            findings.error("I9", path, service, "The service has no `type`", "E.g. `type: nodejs@22` or `type: postgresql@16` (see zerops_knowledge \"service types\").");
            None
        }
        (Some(node), None) => {
            findings.error(
                "I9",
                &join(path, "type"),
                node,
                "`type` must be a string",
                "E.g. `type: nodejs@22`.",
            );
            None
        }
        (Some(node), Some(text)) => check_type(node, text, &join(path, "type"), findings),
    };
    let mode = service.get("mode");
    if let Some(m) = mode
        && !matches!(m.as_scalar_string().as_deref(), Some("HA" | "NON_HA"))
    {
        findings.error(
            "I10",
            &join(path, "mode"),
            m,
            format!(
                "mode must be HA or NON_HA (got {})",
                m.as_scalar_string().unwrap_or_else(|| m.type_name().into())
            ),
            "Write `mode: NON_HA` (one container) or `mode: HA`.",
        );
    }
    if let (Some(family), Some(text)) = (family, &type_text) {
        let suffix = parse_type(text).suffix;
        match family.category {
            Category::Managed | Category::SharedStorage => match (mode, suffix) {
                (None, None) => findings.error("I11", path, service, format!("`{}` needs `mode` (HA or NON_HA); the API refuses it without", family.name), format!("Add `mode: NON_HA` (or `HA` for production), or write the type as `{}:single@<version>`.", family.name)),
                (Some(m), Some(s)) => {
                    let implied = if s == "ha" { "HA" } else { "NON_HA" };
                    if m.as_scalar_string().as_deref() != Some(implied) {
                        findings.error("I13", &join(path, "mode"), m, format!("mode contradicts the type's :{s}"), format!("Remove mode (the type already means {implied})."));
                    } else {
                        findings.warning("I13", &join(path, "mode"), m, "mode is redundant with a :single/:ha type", "Remove mode.");
                    }
                }
                _ => {}
            },
            Category::ObjectStorage => {
                if let Some(m) = mode {
                    findings.error("I12", &join(path, "mode"), m, "Object storage takes no mode (the API answers \"mode not supported\")", "Remove `mode`.");
                }
            }
            Category::Runtime => {
                if let Some(m) = mode {
                    findings.warning("I14", &join(path, "mode"), m, "mode has no effect on runtimes", "Remove it; scale runtimes with minContainers/maxContainers.");
                }
            }
        }
        if family.name == "meilisearch"
            && (suffix == Some("ha")
                || mode.and_then(Node::as_scalar_string).as_deref() == Some("HA"))
        {
            findings.error(
                "I15",
                path,
                service,
                "Meilisearch runs as a single node only",
                "Use mode NON_HA, or Typesense/Elasticsearch for HA search.",
            );
        }
        check_category_specific(service, path, family, findings);
    }
    bool_field(service, "enableSubdomainAccess", path, findings);
    bool_field(service, "startWithoutCode", path, findings);
    bool_field(service, "override", path, findings);
    bool_field(service, "enableCdn", path, findings);
    if let Some(priority) = service.get("priority")
        && !matches!(priority.kind, Kind::Int(_))
    {
        findings.error(
            "I20",
            &join(path, "priority"),
            priority,
            "priority must be an integer",
            "Higher priorities are created first, e.g. `priority: 10` for databases.",
        );
    }
    check_git(service, path, shared_storages, findings);
    if let Some(secrets) = service.get("envSecrets") {
        check_env_map(secrets, &join(path, "envSecrets"), "I26", findings);
    }
    if let (Some(dotenv), Some(key)) = (
        service.get("dotEnvSecrets"),
        service.key_node("dotEnvSecrets"),
    ) {
        for (n, line) in dotenv
            .as_scalar_string()
            .unwrap_or_default()
            .lines()
            .enumerate()
        {
            let line = line.trim();
            if !line.is_empty() && !line.starts_with('#') && !line.contains('=') {
                findings.warning(
                    "I27",
                    &join(path, "dotEnvSecrets"),
                    key,
                    format!("Line {} of dotEnvSecrets is not KEY=VALUE", n + 1),
                    "Write one KEY=VALUE per line.",
                );
            }
        }
    }
    if let Some(isolation) = service.get("envIsolation")
        && !matches!(
            isolation.as_scalar_string().as_deref(),
            Some("service" | "none")
        )
    {
        findings.error(
            "I28",
            &join(path, "envIsolation"),
            isolation,
            "envIsolation must be `service` or `none`",
            "`service` (default) hides other services' variables; `none` shares them.",
        );
    }
    if let Some(os) = service.get("os") {
        let starts = matches!(
            service.get("startWithoutCode").map(|n| &n.kind),
            Some(Kind::Bool(true))
        );
        if !starts || family.is_some_and(|f| f.category != Category::Runtime) {
            findings.warning(
                "I30",
                &join(path, "os"),
                os,
                "os only applies to runtimes started with startWithoutCode: true",
                "Set the OS in zerops.yml (build.os / run.os) instead.",
            );
        }
    }
    if let Some(yaml) = service.get("zeropsYaml") {
        check_embedded_zerops(service, yaml, &join(path, "zeropsYaml"), findings);
    }
}

fn check_type(
    node: &Node,
    text: &str,
    path: &str,
    findings: &mut Findings,
) -> Option<&'static catalog::Family> {
    let parsed = parse_type(text);
    let names = catalog::all_type_names();
    let Some(family) = find_family(parsed.name) else {
        let near = closest(text, names.iter().map(String::as_str));
        let unsupported = match parsed.name {
            "mongodb" | "mongo" => " Zerops has no MongoDB: use postgresql.",
            "mysql" => " Zerops offers MariaDB (MySQL-compatible): use mariadb@10.6.",
            "redis" | "memcached" => " Use valkey@7.2 (Redis-compatible).",
            _ => "",
        };
        findings.error(
            "I9",
            path,
            node,
            format!("Unknown service type `{text}`.{unsupported}"),
            if near.is_empty() {
                "See zerops_knowledge query \"service types\".".into()
            } else {
                format!(
                    "Did you mean {}?",
                    near.iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(" or ")
                )
            },
        );
        return None;
    };
    if let Some(suffix) = parsed.suffix {
        let ok_suffix = matches!(suffix, "single" | "ha")
            && matches!(family.category, Category::Managed | Category::SharedStorage)
            && (suffix != "ha" || family.has_ha);
        if !ok_suffix {
            findings.error(
                "I9",
                path,
                node,
                format!(
                    "`{text}`: the suffix :{suffix} is not valid for {}",
                    family.name
                ),
                if family.category == Category::Runtime
                    || family.category == Category::ObjectStorage
                {
                    format!(
                        "Write `{}{}` without a suffix.",
                        family.name,
                        parsed.version.map(|v| format!("@{v}")).unwrap_or_default()
                    )
                } else {
                    "Use :single or :ha.".into()
                },
            );
            return None;
        }
    }
    if let Some(os) = parsed.os
        && os != "alpine"
        && os != "ubuntu"
    {
        findings.error(
            "I9",
            path,
            node,
            format!("`{os}/` is not an OS prefix"),
            "Use alpine/ or ubuntu/, or leave the prefix out.",
        );
        return None;
    }
    let version = parsed.version.unwrap_or("");
    if !family.versions.contains(&version) {
        let known: Vec<String> = family
            .versions
            .iter()
            .map(|v| {
                if v.is_empty() {
                    family.name.to_owned()
                } else {
                    format!("{}@{v}", family.name)
                }
            })
            .collect();
        if version.is_empty() {
            findings.error(
                "I9",
                path,
                node,
                format!("`{text}` needs a version"),
                format!("E.g. {}.", known.join(", ")),
            );
        } else {
            findings.warning(
                "I9",
                path,
                node,
                format!(
                    "`{text}` is not a version in zcp's offline list (the platform may refuse it)"
                ),
                format!("Known versions: {}.", known.join(", ")),
            );
        }
    }
    Some(family)
}

fn check_category_specific(
    service: &Node,
    path: &str,
    family: &catalog::Family,
    findings: &mut Findings,
) {
    let storage = matches!(
        family.category,
        Category::ObjectStorage | Category::SharedStorage
    );
    if let Some(vertical) = service.get("verticalAutoscaling") {
        let here = join(path, "verticalAutoscaling");
        if storage {
            findings.error(
                "I18",
                &here,
                vertical,
                "Storage services take no verticalAutoscaling",
                "Remove it.",
            );
        } else {
            check_keys(vertical, &here, &VERTICAL_KEYS, "I18", findings, &|_| None);
            for (key, value) in vertical.entries().unwrap_or(&[]) {
                let name = key.as_scalar_string().unwrap_or_default();
                match (&value.kind, name.as_str()) {
                    (Kind::Str { value: mode, .. }, "cpuMode") => {
                        if mode != "SHARED" && mode != "DEDICATED" {
                            findings.error(
                                "I18",
                                &join(&here, "cpuMode"),
                                value,
                                "cpuMode must be SHARED or DEDICATED",
                                "Write `cpuMode: SHARED`.",
                            );
                        }
                    }
                    (_, "cpuMode") => findings.error(
                        "I18",
                        &join(&here, "cpuMode"),
                        value,
                        "cpuMode must be SHARED or DEDICATED",
                        "Write `cpuMode: SHARED`.",
                    ),
                    (Kind::Bool(_), "swapEnabled") => {}
                    (Kind::Int(v), _) if *v >= 0 => {}
                    (Kind::Float(v), _) if *v >= 0.0 => {}
                    _ => findings.error(
                        "I18",
                        &join(&here, &name),
                        value,
                        format!("`{name}` must be a non-negative number"),
                        "E.g. `minRam: 0.5` (GB).",
                    ),
                }
                if name == "minVCpu" || name == "maxVCpu" {
                    findings.warning(
                        "I18",
                        &join(&here, &name),
                        key,
                        format!("`{name}` is deprecated"),
                        "Use minCpu / maxCpu.",
                    );
                }
            }
            let num = |key: &str| match vertical.get(key).map(|n| &n.kind) {
                Some(Kind::Int(v)) => Some(*v as f64),
                Some(Kind::Float(v)) => Some(*v),
                _ => None,
            };
            for (lo, hi) in [
                ("minCpu", "maxCpu"),
                ("minRam", "maxRam"),
                ("minDisk", "maxDisk"),
            ] {
                if let (Some(a), Some(b)) = (num(lo), num(hi))
                    && a > b
                {
                    findings.error(
                        "I18",
                        &join(&here, lo),
                        vertical.get(lo).unwrap_or(vertical),
                        format!("{lo} ({a}) is greater than {hi} ({b})"),
                        format!("Make {lo} at most {hi}."),
                    );
                }
            }
        }
    }
    for key in ["minContainers", "maxContainers"] {
        if let Some(value) = service.get(key) {
            if family.category != Category::Runtime {
                findings.error("I19", &join(path, key), value, format!("`{key}` applies to runtimes only; managed and storage services have a container count fixed by their mode"), "Remove it (use mode HA for a 3-node cluster).");
            } else if int_in(value, 1, 10).is_none() {
                findings.error(
                    "I19",
                    &join(path, key),
                    value,
                    format!("`{key}` must be a whole number from 1 to 10"),
                    "E.g. `maxContainers: 3`.",
                );
            }
        }
    }
    if let (Some(lo), Some(hi)) = (
        service.get("minContainers").and_then(|n| int_in(n, 1, 10)),
        service.get("maxContainers").and_then(|n| int_in(n, 1, 10)),
    ) && lo > hi
    {
        findings.error(
            "I19",
            &join(path, "minContainers"),
            service,
            format!("minContainers ({lo}) is greater than maxContainers ({hi})"),
            "Make minContainers at most maxContainers.",
        );
    }
    if family.category == Category::ObjectStorage {
        match service.get("objectStorageSize") {
            None => findings.warning(
                "I16",
                path,
                service,
                "objectStorageSize is not set",
                "Set the bucket quota in GB, e.g. `objectStorageSize: 2` (1–100).",
            ),
            Some(size) if int_in(size, 1, 100).is_none() => findings.error(
                "I16",
                &join(path, "objectStorageSize"),
                size,
                "objectStorageSize must be a whole number of GB from 1 to 100",
                "E.g. `objectStorageSize: 2`.",
            ),
            Some(_) => {}
        }
        let policy = service.get("objectStoragePolicy");
        if let Some(p) = policy
            && !p
                .as_scalar_string()
                .is_some_and(|v| POLICIES.contains(&v.as_str()))
        {
            findings.error(
                "I16",
                &join(path, "objectStoragePolicy"),
                p,
                "Unknown objectStoragePolicy",
                format!("Use one of: {}.", POLICIES.join(", ")),
            );
        }
        let raw = service.get("objectStorageRawPolicy");
        if policy.and_then(Node::as_scalar_string).as_deref() == Some("custom") && raw.is_none() {
            findings.warning(
                "I17",
                path,
                service,
                "Policy `custom` needs objectStorageRawPolicy",
                "Add the S3 policy JSON (use {{ .BucketName }} for the bucket).",
            );
        }
        if let Some(r) = raw
            && r.as_scalar_string()
                .is_some_and(|t| serde_json::from_str::<serde_json::Value>(&t).is_err())
        {
            findings.warning(
                "I17",
                &join(path, "objectStorageRawPolicy"),
                r,
                "objectStorageRawPolicy is not valid JSON",
                "Write the policy as a JSON document.",
            );
        }
    } else {
        for key in [
            "objectStorageSize",
            "objectStoragePolicy",
            "objectStorageRawPolicy",
        ] {
            if let Some(node) = service.get(key) {
                findings.warning(
                    "I21",
                    &join(path, key),
                    node,
                    format!("`{key}` only applies to object storage"),
                    "Remove it.",
                );
            }
        }
    }
    if let Some(cdn) = service.get("enableCdn")
        && family.category != Category::ObjectStorage
        && family.name != "static"
    {
        findings.warning(
            "I21",
            &join(path, "enableCdn"),
            cdn,
            "enableCdn only applies to object storage and static services",
            "Remove it.",
        );
    }
    if let Some(nginx) = service.get("nginxConfig")
        && !(family.name.starts_with("php-nginx")
            || family.name == "nginx"
            || family.name == "static")
    {
        findings.warning(
            "I21",
            &join(path, "nginxConfig"),
            nginx,
            "nginxConfig only applies to nginx-based services",
            "Remove it.",
        );
    }
    if let Some(profile) = service.get("profile") {
        let name = profile.as_scalar_string().unwrap_or_default();
        if family.name != "postgresql" {
            findings.warning(
                "I31",
                &join(path, "profile"),
                profile,
                "Autoscaling profiles are documented for PostgreSQL only",
                "Remove profile, or check the docs for this service.",
            );
        } else if ![
            "oltp-hobby",
            "oltp-staging",
            "oltp-production",
            "oltp-enterprise",
            "olap-production",
            "writeheavy-production",
            "custom",
        ]
        .contains(&name.as_str())
        {
            findings.error("I31", &join(path, "profile"), profile, format!("Unknown PostgreSQL profile `{name}`"), "Use oltp-hobby, oltp-staging, oltp-production, oltp-enterprise, olap-production, writeheavy-production or custom.");
        }
        if service.get("profileOverrides").is_some() && name != "custom" {
            findings.error(
                "I31",
                &join(path, "profileOverrides"),
                profile,
                "profileOverrides needs `profile: custom`",
                "Set profile: custom or remove the overrides.",
            );
        }
    }
}

fn check_git(service: &Node, path: &str, shared_storages: &[String], findings: &mut Findings) {
    let git = service.get("buildFromGit");
    if let Some(url_node) = git {
        let url = url_node.as_scalar_string().unwrap_or_default();
        if !(url.starts_with("https://") || url.starts_with("http://")) {
            findings.error(
                "I22",
                &join(path, "buildFromGit"),
                url_node,
                "buildFromGit must be an http(s) URL of a public repository",
                "E.g. `buildFromGit: https://github.com/org/repo`.",
            );
        } else if url.trim_end_matches('/').ends_with(".git") {
            findings.error(
                "I22",
                &join(path, "buildFromGit"),
                url_node,
                "buildFromGit must not end with .git (the build fails)",
                format!(
                    "Use `{}`.",
                    url.trim_end_matches('/').trim_end_matches(".git")
                ),
            );
        }
    }
    if let Some(setup) = service.get("zeropsSetup")
        && git.is_none()
    {
        findings.error(
            "I23",
            &join(path, "zeropsSetup"),
            setup,
            "zeropsSetup needs buildFromGit",
            "Add buildFromGit, or remove zeropsSetup and deploy with zerops_deploy.",
        );
    }
    if let Some(mount) = service.get("mount") {
        for item in mount.items().unwrap_or(std::slice::from_ref(mount)) {
            if let Some(name) = item.as_scalar_string()
                && !shared_storages.contains(&name)
            {
                findings.warning(
                    "I24",
                    &join(path, "mount"),
                    item,
                    format!("`{name}` is not a shared-storage service of this file"),
                    "Mount shared-storage hostnames (existing ones in the project are fine).",
                );
            }
        }
        if git.is_none() {
            findings.warning("I24", &join(path, "mount"), mount, "mount takes effect with buildFromGit; otherwise connect the storage after the first deploy", "Connect shared storage in the GUI, or add buildFromGit.");
        }
    }
}

fn check_embedded_zerops(service: &Node, yaml: &Node, path: &str, findings: &mut Findings) {
    if yaml.entries().is_none() {
        findings.error(
            "I25",
            path,
            yaml,
            "zeropsYaml must be a zerops.yml mapping",
            "Nest the zerops.yml content (starting with `zerops:`) under zeropsYaml.",
        );
        return;
    }
    let mut inner = Findings::new();
    super::zerops_yml::check(yaml, &mut inner);
    for mut f in inner.list {
        f.path = if f.path.is_empty() {
            path.to_owned()
        } else {
            format!("{path}.{}", f.path)
        };
        if f.severity == super::Severity::Error {
            f.rule = "I25";
        }
        findings.list.push(f);
    }
    let wanted = service
        .get("zeropsSetup")
        .or_else(|| service.get("hostname"))
        .and_then(Node::as_scalar_string)
        .unwrap_or_default();
    let setups: Vec<String> = yaml
        .get("zerops")
        .and_then(Node::items)
        .unwrap_or(&[])
        .iter()
        .filter_map(|s| s.get("setup").and_then(Node::as_scalar_string))
        .collect();
    if !wanted.is_empty() && !setups.is_empty() && !setups.contains(&wanted) {
        findings.error(
            "I25",
            path,
            yaml,
            format!("zeropsYaml has no setup `{wanted}`"),
            format!(
                "Setups in it: {}. Name one after the hostname or set zeropsSetup.",
                setups.join(", ")
            ),
        );
    }
}

//! Per-field checks of an import service that need no knowledge of the others' order:
//! object storage (I16, I17), scaling (I18, I19), git source and mounts (I22, I24), the
//! embedded zerops.yml (I25) and secrets (I26).

use super::catalog::{self, Kind};
use super::env::{self, EnvMap};
use super::import_yml::{Peers, valid_hostname};
use super::report::{Pos, Severity, Sink, index, join};
use super::shape;
use super::suggest;
use super::yaml::{Entry, Node, Value};
use super::zerops_yml;

const POLICIES: &[&str] = &[
    "private",
    "public-read",
    "public-objects-read",
    "public-write",
    "public-read-write",
    "custom",
];
const SCALING_KEYS: &[&str] = &[
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
    "cpu",
    "ram",
    "disk",
    "minVCpu",
    "maxVCpu",
];
/// Scaling keys that count CPU cores. The API takes them as integers (`cpuCoreCount`,
/// `startCpuCoreCount`), so a fraction such as 0.5 cannot be meant; the deprecated
/// `minVCpu`/`maxVCpu` are the old names of `minCpu`/`maxCpu`. `minFreeCpuCores` is a
/// fraction on purpose and is not listed.
const CORE_COUNT_KEYS: &[&str] = &[
    "minCpu",
    "maxCpu",
    "startCpuCoreCount",
    "minVCpu",
    "maxVCpu",
];
/// Variables every service has besides its type's own.
const SYSTEM_KEYS: &[&str] = &[
    "hostname",
    "serviceId",
    "projectId",
    "zeropsSubdomain",
    "zeropsSubdomainHost",
];

/// I16, I17: object storage size and policy; the fields elsewhere have no effect.
pub fn check_object_storage(sink: &mut Sink, item: &Node, path: &str, kind: Option<Kind>) {
    let fields = [
        "objectStorageSize",
        "objectStoragePolicy",
        "objectStorageRawPolicy",
    ];
    if kind != Some(Kind::ObjectStorage) {
        if kind.is_some() {
            for f in fields {
                if let Some(e) = item.get(f) {
                    sink.warn(
                        "I16",
                        &join(path, f),
                        Pos::from(e),
                        format!("`{f}` has an effect only on object storage"),
                        "remove it",
                    );
                }
            }
        }
        return;
    }
    match item.get("objectStorageSize") {
        None => sink.warn(
            "I16",
            path,
            Pos::from(item),
            "no `objectStorageSize`",
            "add `objectStorageSize: <GB, 1–100>`",
        ),
        Some(e) => {
            let p = join(path, "objectStorageSize");
            match e.value.as_number() {
                Some(n) if n.fract() == 0.0 && (1.0..=100.0).contains(&n) => {}
                Some(n) => sink.error(
                    "I16",
                    &p,
                    Pos::from(&e.value),
                    format!("objectStorageSize {n} is not a whole number of GB between 1 and 100"),
                    "use a whole number from 1 to 100",
                ),
                None => sink.error(
                    "I16",
                    &p,
                    Pos::from(&e.value),
                    format!(
                        "objectStorageSize must be a number, found {}",
                        shape::describe_as_typed(&e.value)
                    ),
                    match e
                        .value
                        .as_str()
                        .map(str::trim)
                        .and_then(|t| t.parse::<u32>().ok())
                    {
                        Some(n) => {
                            format!("write the number without quotes: `objectStorageSize: {n}`")
                        }
                        None => "use a whole number from 1 to 100".to_owned(),
                    },
                ),
            }
        }
    }
    let policy = item.get("objectStoragePolicy");
    let raw = item
        .get("objectStorageRawPolicy")
        .filter(|e| !e.value.is_null());
    if let Some(e) = policy
        && !e.value.as_str().is_some_and(|s| POLICIES.contains(&s))
    {
        sink.error(
            "I16",
            &join(path, "objectStoragePolicy"),
            Pos::from(&e.value),
            format!("unknown objectStoragePolicy {}", shape::describe(&e.value)),
            suggest::did_you_mean(e.value.scalar_text().unwrap_or(""), POLICIES, "values"),
        );
    }
    if policy.is_none() && raw.is_none() {
        sink.warn(
            "I16",
            path,
            Pos::from(item),
            "neither `objectStoragePolicy` nor `objectStorageRawPolicy` is set",
            "add `objectStoragePolicy: private` (or another policy)",
        );
    }
    if policy.is_some_and(|e| e.value.as_str() == Some("custom")) && raw.is_none() {
        sink.warn(
            "I17",
            &join(path, "objectStoragePolicy"),
            Pos::from(policy.map_or(item, |e| &e.value)),
            "policy `custom` needs `objectStorageRawPolicy`",
            "add the S3 policy JSON as `objectStorageRawPolicy: |`",
        );
    }
    if let Some(e) = raw {
        check_raw_policy(sink, &e.value, &join(path, "objectStorageRawPolicy"));
    }
}

/// I17: the raw policy is a string holding JSON. A YAML mapping or list there is a type
/// error (the platform decodes the field into a string), not merely text that fails to
/// parse as JSON.
fn check_raw_policy(sink: &mut Sink, node: &Node, path: &str) {
    match &node.value {
        Value::Str(text) if serde_json::from_str::<serde_json::Value>(text).is_ok() => {}
        Value::Map(_) | Value::Seq(_) => sink.error(
            "I17",
            path,
            Pos::from(node),
            format!(
                "objectStorageRawPolicy must be a string holding the policy JSON, found {}",
                shape::article(node.type_name())
            ),
            "write the policy as JSON text, e.g. a block scalar: `objectStorageRawPolicy: |` with the JSON indented on the lines below",
        ),
        _ => sink.warn("I17", path, Pos::from(node), "objectStorageRawPolicy is not valid JSON", "write the S3 bucket policy as JSON text (use `{{ .BucketName }}` for the bucket name inside strings)"),
    }
}

/// I18: vertical autoscaling.
pub fn check_scaling(sink: &mut Sink, node: &Node, path: &str, kind: Option<Kind>) {
    let Some(map) = shape::expect_map(sink, "I18", node, path, false) else {
        return;
    };
    if matches!(kind, Some(Kind::ObjectStorage | Kind::SharedStorage)) {
        sink.error(
            "I18",
            path,
            Pos::from(node),
            "storage services take no vertical autoscaling",
            "remove `verticalAutoscaling`",
        );
    }
    shape::unknown_keys(sink, "I18", Severity::Error, map, path, SCALING_KEYS, &[]);
    for e in map {
        let p = join(path, &e.key);
        match e.key.as_str() {
            "cpuMode"
                if !e
                    .value
                    .as_str()
                    .is_some_and(|s| s == "SHARED" || s == "DEDICATED") =>
            {
                sink.error(
                    "I18",
                    &p,
                    Pos::from(&e.value),
                    format!(
                        "`cpuMode` must be SHARED or DEDICATED, found {}",
                        shape::describe(&e.value)
                    ),
                    "use `cpuMode: SHARED` or `cpuMode: DEDICATED`",
                );
            }
            "cpuMode" => {}
            "swapEnabled" => {
                shape::expect_bool(sink, "I18", &e.value, &p);
            }
            key if SCALING_KEYS.contains(&key) => {
                if key == "minVCpu" || key == "maxVCpu" {
                    sink.warn(
                        "I18",
                        &p,
                        Pos::from(e),
                        format!("`{key}` is deprecated"),
                        format!(
                            "use `{}`",
                            if key == "minVCpu" { "minCpu" } else { "maxCpu" }
                        ),
                    );
                }
                match e.value.as_number() {
                    Some(n) if n >= 0.0 && n.fract() != 0.0 && CORE_COUNT_KEYS.contains(&key) => {
                        sink.error(
                            "I18",
                            &p,
                            Pos::from(&e.value),
                            format!(
                                "`{key}` is a number of whole CPU cores, found {}",
                                shape::describe(&e.value)
                            ),
                            format!("use a whole number, e.g. `{key}: {}`", n.ceil()),
                        );
                    }
                    Some(n) if n >= 0.0 => {}
                    _ => sink.error(
                        "I18",
                        &p,
                        Pos::from(&e.value),
                        format!(
                            "`{key}` must be a non-negative number, found {}",
                            shape::describe_as_typed(&e.value)
                        ),
                        "use a number such as 1 or 0.5",
                    ),
                }
            }
            _ => {}
        }
    }
    for (lo, hi) in [
        ("minCpu", "maxCpu"),
        ("minRam", "maxRam"),
        ("minDisk", "maxDisk"),
        ("minVCpu", "maxVCpu"),
    ] {
        let (Some(a), Some(b)) = (node.value_of(lo), node.value_of(hi)) else {
            continue;
        };
        if let (Some(x), Some(y)) = (a.as_number(), b.as_number())
            && x > y
        {
            sink.error(
                "I18",
                &join(path, lo),
                Pos::from(a),
                format!("`{lo}` ({}) is greater than `{hi}` ({})", a.raw(), b.raw()),
                format!("make `{lo}` ≤ `{hi}`"),
            );
        }
    }
}

/// I19: container counts.
pub fn check_containers(sink: &mut Sink, item: &Node, path: &str, kind: Option<Kind>) {
    let mut values = [None, None];
    for (slot, key) in ["minContainers", "maxContainers"].iter().enumerate() {
        let Some(e) = item.get(key) else { continue };
        let p = join(path, key);
        if kind.is_some_and(Kind::is_service) {
            sink.error(
                "I19",
                &p,
                Pos::from(e),
                format!("`{key}` applies to runtimes only"),
                "remove it; managed services scale with `mode: HA` (or a `:ha` type)",
            );
        }
        if let Some(n) = shape::expect_int(sink, "I19", &e.value, &p) {
            if !(1..=10).contains(&n) {
                sink.error(
                    "I19",
                    &p,
                    Pos::from(&e.value),
                    format!("`{key}` is {n}; allowed 1–10"),
                    "use a value from 1 to 10",
                );
            }
            values[slot] = Some((n, &e.value));
        }
    }
    if let [Some((lo, _)), Some((hi, at))] = values
        && lo > hi
    {
        sink.error(
            "I19",
            &join(path, "maxContainers"),
            Pos::from(at),
            format!("maxContainers ({hi}) is below minContainers ({lo})"),
            "make maxContainers ≥ minContainers",
        );
    }
}

/// I22: a public http(s) repository URL without `.git`.
pub fn check_git(sink: &mut Sink, node: &Node, path: &str) {
    let Some(url) = shape::expect_string(sink, "I22", node, path) else {
        return;
    };
    let url = url.trim();
    if !(url.starts_with("https://") || url.starts_with("http://")) {
        sink.error(
            "I22",
            path,
            Pos::from(node),
            format!("`{url}` is not an http(s) URL"),
            "use the repository's https URL, e.g. `https://github.com/<org>/<repo>`",
        );
    } else if let Some(stripped) = url.trim_end_matches('/').strip_suffix(".git") {
        sink.error(
            "I22",
            path,
            Pos::from(node),
            "the URL ends in `.git`, which makes the build fail",
            format!("drop the suffix: `{stripped}`"),
        );
    }
}

/// I24: mounts name shared storages and need a git source.
pub fn check_mount(sink: &mut Sink, node: &Node, path: &str, peers: &Peers, has_git: bool) {
    let Some(items) = node.as_seq() else {
        sink.warn(
            "I24",
            path,
            Pos::from(node),
            format!(
                "`mount` must be a list of shared-storage hostnames, found {}",
                shape::describe(node)
            ),
            "write `mount: [<storage hostname>]`",
        );
        return;
    };
    if !has_git {
        sink.warn(
            "I24",
            path,
            Pos::from(node),
            "`mount` takes effect only with `buildFromGit`",
            "add `buildFromGit`, or connect the storage later in the GUI (zcp cannot mount storage)",
        );
    }
    for (i, m) in items.iter().enumerate() {
        let Some(name) = m.as_str() else {
            sink.warn(
                "I24",
                &index(path, i),
                Pos::from(m),
                "a mount entry must be a hostname",
                "write the hostname of a shared-storage service",
            );
            continue;
        };
        let target = peers.get(name);
        match target {
            Some(p) if p.kind == Some(Kind::SharedStorage) => {}
            Some(p) => sink.warn(
                "I24",
                &index(path, i),
                Pos::from(m),
                format!(
                    "`{name}` is a `{}` service, not a shared storage",
                    p.type_text
                ),
                "mount only shared-storage services",
            ),
            None => sink.warn(
                "I24",
                &index(path, i),
                Pos::from(m),
                format!(
                    "no shared storage `{name}` in this file (it must already exist in the project)"
                ),
                add_storage_fix(name),
            ),
        }
    }
}

/// How to fix a mount of a storage this file does not create. The suggestion to add the
/// storage must itself be valid, so a name that is no hostname (`Files`) is corrected
/// first, or only its rule is stated.
fn add_storage_fix(name: &str) -> String {
    let add = |host: &str| {
        format!("add `- hostname: {host}` with `type: shared-storage` and `mode: NON_HA`")
    };
    if valid_hostname(name) {
        return format!("{}, or fix the name", add(name));
    }
    let lower = name.to_ascii_lowercase();
    if valid_hostname(&lower) {
        format!(
            "hostnames are lowercase: mount `{lower}`, and if it does not exist yet {}",
            add(&lower)
        )
    } else {
        "fix the name: a hostname has only lowercase letters and digits and starts with a letter"
            .to_owned()
    }
}

/// I25: an embedded zerops.yml passes the Z rules and has the setup the service uses.
pub fn check_zerops_yaml(sink: &mut Sink, item: &Node, entry: &Entry, path: &str) {
    let node = &entry.value;
    if node.as_map().is_none() {
        sink.error(
            "I25",
            path,
            Pos::from(node),
            format!(
                "`zeropsYaml` must be a mapping holding a zerops.yml (`zerops:` list), found {}",
                shape::describe(node)
            ),
            "indent the zerops.yml content under `zeropsYaml:`",
        );
        return;
    }
    let names = zerops_yml::check(sink, node, path);
    let wanted = item
        .value_of("zeropsSetup")
        .and_then(Node::as_str)
        .or_else(|| item.value_of("hostname").and_then(Node::as_str));
    if let Some(w) = wanted
        && node.get("zerops").is_some()
        && !names.iter().any(|n| n == w)
    {
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        sink.error(
            "I25",
            path,
            Pos::from(entry),
            format!(
                "`zeropsYaml` has no setup `{w}` (the service uses zeropsSetup, else its hostname)"
            ),
            format!(
                "available: {}; set `zeropsSetup` to one of them",
                suggest::quote_list(&refs)
            ),
        );
    }
}

/// I26: secrets map, plus references to generated variables of managed services in this file.
pub fn check_secrets(sink: &mut Sink, node: &Node, path: &str, at: Pos, peers: &Peers) {
    for (key, value) in env::check_map(sink, node, path, at, EnvMap::ImportSecrets) {
        env::check_references(sink, "I26", path, key, value);
        let p = join(path, key);
        let Some(text) = value.as_str() else { continue };
        for name in env::references(text).into_iter().flatten() {
            let Some((host, var)) = name.split_once('_') else {
                continue;
            };
            let Some(peer) = peers.get(host) else {
                continue;
            };
            let Some(keys) = catalog::managed_env_keys(peer.type_text) else {
                continue;
            };
            if !keys.contains(&var) && !SYSTEM_KEYS.contains(&var) {
                sink.warn(
                    "I26",
                    &p,
                    Pos::from(value),
                    format!(
                        "`${{{name}}}`: `{host}` ({}) has no variable `{var}`",
                        peer.type_text
                    ),
                    suggest::did_you_mean(var, keys, "variables"),
                );
            }
        }
    }
}

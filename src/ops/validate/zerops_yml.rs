//! The zerops.yml rules (Z1–Z37 of the spec checklist, the offline ones).

use std::collections::HashMap;

use crate::yaml::{Kind, Node};

use super::Findings;
use super::catalog::{self, BaseCheck, has_builtin_web_server, parse_type};
use super::common::{check_commands, check_env_map, check_keys, closest, join};

const SETUP_KEYS: [&str; 5] = ["setup", "extends", "build", "deploy", "run"];
const BUILD_KEYS: [&str; 9] = [
    "base",
    "os",
    "prepareCommands",
    "buildCommands",
    "deployFiles",
    "deploy",
    "cache",
    "addToRunPrepare",
    "envVariables",
];
const DEPLOY_KEYS: [&str; 2] = ["readinessCheck", "temporaryShutdown"];
const RUN_KEYS: [&str; 15] = [
    "base",
    "os",
    "prepareCommands",
    "initCommands",
    "start",
    "startCommands",
    "ports",
    "envVariables",
    "envReplace",
    "healthCheck",
    "crontab",
    "routing",
    "documentRoot",
    "siteConfigPath",
    "volume",
];

/// Hints for keys people put in `run` that belong elsewhere.
fn run_key_hint(key: &str) -> Option<String> {
    Some(match key {
        "mount" => "zerops.yml has no run.mount: attach shared storage with the import `mount:` list or in the GUI.".into(),
        "verticalAutoscaling" | "minContainers" | "maxContainers" => format!("`{key}` belongs to import.yml (or zerops_manage scale), not zerops.yml."),
        "mode" => "HA/NON_HA is chosen in import.yml when the service is created.".into(),
        "envSecrets" => "Secrets are not set in zerops.yml: use import.yml envSecrets or zerops_env; plain values go in run.envVariables.".into(),
        "env" => "The key is `envVariables`.".into(),
        "deployFiles" => "deployFiles belongs in build.".into(),
        _ => return None,
    })
}

/// Walks a zerops.yml document.
pub fn check(doc: &Node, findings: &mut Findings) {
    let Some(entries) = doc.entries() else {
        let message = if matches!(doc.kind, Kind::Null) {
            "The file is empty"
        } else {
            "The top level must be a mapping with a `zerops:` list"
        };
        findings.error(
            "G5",
            "",
            doc,
            message,
            "Start with `zerops:` followed by a list of setups (`- setup: <hostname>`).",
        );
        return;
    };
    let Some(list_node) = doc.get("zerops") else {
        let legacy = entries.iter().any(|(_, v)| {
            v.get("build")
                .is_some_and(|b| b.get("build").is_some() || b.get("prepare").is_some())
                || v.get("run").is_some_and(|r| r.get("init").is_some())
        });
        let message = if legacy {
            "This is the pre-2023 format (keyed by hostname, build.build/run.init); Zerops no longer reads it"
        } else if doc.get("services").is_some() {
            "This looks like an import.yml (it has `services:`), not a zerops.yml"
        } else {
            "Missing the top-level `zerops:` list"
        };
        findings.error("Z1", "zerops", doc, message, "Rewrite as `zerops:` with one `- setup: <hostname>` entry per service, each with build and run sections.");
        return;
    };
    check_keys(doc, "", &["zerops"], "Z4", findings, &|key| {
        Some(match key {
            "services" | "project" => {
                "`services`/`project` belong in import.yml; keep zerops.yml to the `zerops:` list."
                    .into()
            }
            _ => "zerops.yml has a single top-level key: `zerops`.".into(),
        })
    });
    let Some(items) = list_node.items() else {
        findings.error(
            "Z2",
            "zerops",
            list_node,
            format!(
                "`zerops` must be a list of setups (got {})",
                list_node.type_name()
            ),
            "Write `zerops:` then `- setup: <name>` items.",
        );
        return;
    };
    if items.is_empty() {
        findings.error(
            "Z3",
            "zerops",
            list_node,
            "`zerops` has no setups",
            "Add at least one `- setup: <hostname>` with build and run.",
        );
        return;
    }
    // Setup names first, for `extends` and duplicates.
    let mut names: HashMap<String, usize> = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        let path = format!("zerops[{i}]");
        if item.entries().is_none() {
            findings.error(
                "Z5",
                &path,
                item,
                format!("Setup #{} must be a mapping", i + 1),
                "Each item starts with `- setup: <name>`.",
            );
            continue;
        }
        match item.get("setup") {
            Some(name_node) => match name_node.as_scalar_string().filter(|s| !s.trim().is_empty()) {
                Some(name) => {
                    if names.insert(name.clone(), i).is_some() {
                        findings.error("Z6", &join(&path, "setup"), name_node, format!("Setup `{name}` is defined twice"), "Give every setup a unique name.");
                    }
                }
                None => findings.error("Z5", &join(&path, "setup"), name_node, "The setup name is empty", "Name the setup, usually after the service hostname."),
            },
            None => findings.error("Z5", &path, item, format!("Setup #{} has no `setup:` name", i + 1), "Add `setup: <hostname>` (the service hostname, or the name passed to zcli push --setup)."),
        }
    }
    for (i, item) in items.iter().enumerate() {
        if item.entries().is_some() {
            check_setup(item, &format!("zerops[{i}]"), items, &names, findings);
        }
    }
}

/// A setup's section, following `extends` when the setup lacks it.
fn section<'a>(
    item: &'a Node,
    key: &str,
    items: &'a [Node],
    names: &HashMap<String, usize>,
    depth: usize,
) -> Option<&'a Node> {
    if let Some(node) = item.get(key) {
        return Some(node);
    }
    if depth > 8 {
        return None;
    }
    let parents: Vec<String> = match item.get("extends").map(|e| &e.kind) {
        Some(Kind::Str { value, .. }) => vec![value.clone()],
        Some(Kind::Seq(list)) => list.iter().filter_map(Node::as_scalar_string).collect(),
        _ => Vec::new(),
    };
    parents
        .iter()
        .filter_map(|p| names.get(p).map(|&i| &items[i]))
        .find_map(|parent| section(parent, key, items, names, depth + 1))
}

fn check_setup(
    item: &Node,
    path: &str,
    items: &[Node],
    names: &HashMap<String, usize>,
    findings: &mut Findings,
) {
    check_keys(item, path, &SETUP_KEYS, "Z8", findings, &|key| {
        (key == "envVariables" || key == "ports" || key == "start")
            .then(|| format!("`{key}` belongs inside run (or build for envVariables)."))
    });
    if let Some(extends) = item.get("extends") {
        let own = item
            .get("setup")
            .and_then(Node::as_scalar_string)
            .unwrap_or_default();
        let parents: Vec<(String, &Node)> = match &extends.kind {
            Kind::Str { value, .. } => vec![(value.clone(), extends)],
            Kind::Seq(list) => list
                .iter()
                .filter_map(|n| n.as_scalar_string().map(|s| (s, n)))
                .collect(),
            _ => {
                findings.error(
                    "Z9",
                    &join(path, "extends"),
                    extends,
                    "`extends` must be a setup name or a list of names",
                    "Write `extends: <setup>`.",
                );
                Vec::new()
            }
        };
        for (parent, node) in parents {
            if parent == own {
                findings.error(
                    "Z9",
                    &join(path, "extends"),
                    node,
                    format!("Setup `{own}` extends itself"),
                    "Extend another setup.",
                );
            } else if !names.contains_key(&parent) {
                let known: Vec<&str> = names.keys().map(String::as_str).collect();
                findings.error(
                    "Z9",
                    &join(path, "extends"),
                    node,
                    format!("`extends` names an unknown setup `{parent}`"),
                    format!("Existing setups: {}.", known.join(", ")),
                );
            }
        }
    }
    let build = section(item, "build", items, names, 0);
    let run = section(item, "run", items, names, 0);
    if let Some(build) = item.get("build") {
        check_build(build, &join(path, "build"), findings);
    }
    if let Some(deploy) = item.get("deploy") {
        check_deploy(deploy, &join(path, "deploy"), findings);
    }
    if let Some(run_node) = item.get("run") {
        check_run(run_node, &join(path, "run"), build, findings);
    }
    if run.is_none() {
        findings.warning(
            "Z10",
            path,
            item,
            "The setup has no run section",
            "Add run with at least `base` (and `start` unless the base serves HTTP itself).",
        );
    }
    // A start command is needed unless the base serves HTTP itself.
    if let Some(run) = run {
        let base = run
            .get("base")
            .and_then(Node::as_scalar_string)
            .or_else(|| build.and_then(|b| b.get("base")).and_then(first_base));
        let family = base.as_deref().map(|b| parse_type(b).name.to_owned());
        let web = family.as_deref().is_some_and(has_builtin_web_server);
        if !web
            && run.get("start").is_none()
            && run.get("startCommands").is_none()
            && family.is_some()
            && family.as_deref() != Some("docker")
        {
            findings.warning("Z26", &join(path, "run"), run, "No start command: the app will not start", "Add `start: <command>` (e.g. `npm start`), or use a base with a web server (php-nginx, php-apache, nginx, static).");
        }
    }
}

fn first_base(node: &Node) -> Option<String> {
    match &node.kind {
        Kind::Seq(list) => list.first().and_then(Node::as_scalar_string),
        _ => node.as_scalar_string(),
    }
}

fn check_base_value(node: &Node, path: &str, run: bool, findings: &mut Findings) {
    let rule = if run { "Z25" } else { "Z13" };
    let Some(text) = node.as_scalar_string() else {
        findings.error(
            rule,
            path,
            node,
            format!("`base` must be a string (got {})", node.type_name()),
            "Write e.g. `base: nodejs@22`.",
        );
        return;
    };
    match catalog::check_base(&text, run) {
        BaseCheck::Known => {}
        BaseCheck::UnknownVersion(versions) => {
            let near = closest(&text, versions.iter().map(String::as_str));
            findings.warning(rule, path, node, format!("`{text}` is not a version in zcp's offline list (it may be newer)"), format!("Known versions: {}.{}", versions.join(", "), near.first().map(|n| format!(" Closest: {n}.")).unwrap_or_default()));
        }
        BaseCheck::WrongPhase(hint) => findings.error(rule, path, node, format!("`{text}` cannot be used here"), hint),
        BaseCheck::ManagedService => findings.error(
            rule,
            path,
            node,
            format!("`{text}` is a managed service, not a base"),
            "Create databases and caches in import.yml and reference their variables (e.g. ${db_connectionString}); a zerops.yml setup is for your own code.",
        ),
        BaseCheck::Unknown => {
            let all = catalog::all_bases(run);
            let near = closest(&text, all.iter().map(String::as_str));
            let suggestion = if near.is_empty() {
                "See zerops_knowledge query \"service types\" for the list of bases.".to_owned()
            } else {
                format!("Did you mean {}?", near.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(" or "))
            };
            findings.error(rule, path, node, format!("Unknown base `{text}`"), suggestion);
        }
    }
}

fn check_os(node: &Node, path: &str, findings: &mut Findings) {
    if !matches!(
        node.as_scalar_string().as_deref(),
        Some("alpine" | "ubuntu")
    ) {
        findings.error(
            "Z14",
            path,
            node,
            "`os` must be alpine or ubuntu",
            "Use `os: ubuntu` when you need glibc or apt packages; alpine is the default.",
        );
    }
}

fn check_build(build: &Node, path: &str, findings: &mut Findings) {
    if build.entries().is_none() {
        findings.error(
            "Z11",
            path,
            build,
            format!("build must be a mapping (got {})", build.type_name()),
            "Add base, buildCommands and deployFiles under build.",
        );
        return;
    }
    check_keys(build, path, &BUILD_KEYS, "Z11", findings, &|key| {
        Some(match key {
            "build" | "prepare" => {
                "That is the pre-2023 format: use buildCommands / prepareCommands.".into()
            }
            "start" | "ports" | "initCommands" => format!("`{key}` belongs in run."),
            _ => return None,
        })
    });
    match build.get("base") {
        Some(base) => match &base.kind {
            Kind::Seq(list) => {
                for (i, b) in list.iter().enumerate() {
                    check_base_value(b, &format!("{path}.base[{i}]"), false, findings);
                }
            }
            _ => check_base_value(base, &join(path, "base"), false, findings),
        },
        None => findings.info(
            "Z13",
            path,
            build,
            "No build.base: the build runs on the default image",
            "Set `base` to the runtime you build with, e.g. `base: nodejs@22`.",
        ),
    }
    if let Some(os) = build.get("os") {
        check_os(os, &join(path, "os"), findings);
    }
    for key in ["prepareCommands", "buildCommands"] {
        if let Some(node) = build.get(key) {
            check_commands(node, &join(path, key), "Z15", findings);
            check_sudo(node, &join(path, key), findings);
        }
    }
    match (build.get("deployFiles"), build.get("deploy")) {
        (Some(files), _) => check_deploy_files(files, &join(path, "deployFiles"), findings),
        (None, Some(old)) => {
            findings.warning("Z12", &join(path, "deploy"), old, "`build.deploy` is the old name of deployFiles", "Rename it to `deployFiles`.");
            check_deploy_files(old, &join(path, "deploy"), findings);
        }
        (None, None) => findings.error("Z12", path, build, "build has no deployFiles: nothing would be deployed", "Add `deployFiles:` with the paths the app needs at runtime (`./` for everything, `dist/~` for the contents of dist)."),
    }
    if let Some(cache) = build.get("cache")
        && !matches!(
            cache.kind,
            Kind::Bool(_) | Kind::Str { .. } | Kind::Seq(_) | Kind::Null
        )
    {
        findings.error(
            "Z17",
            &join(path, "cache"),
            cache,
            "`cache` must be true, false, a path or a list of paths",
            "Write e.g. `cache: [node_modules]`.",
        );
    }
    if let Some(env) = build.get("envVariables") {
        check_env_map(env, &join(path, "envVariables"), "Z19", findings);
    }
}

fn check_deploy_files(node: &Node, path: &str, findings: &mut Findings) {
    let entries: Vec<&Node> = match &node.kind {
        Kind::Seq(list) => list.iter().collect(),
        Kind::Str { .. } => vec![node],
        _ => {
            findings.error(
                "Z12",
                path,
                node,
                format!(
                    "deployFiles must be a path or a list of paths (got {})",
                    node.type_name()
                ),
                "Write e.g. `deployFiles: [dist, package.json]`.",
            );
            return;
        }
    };
    if entries.is_empty() {
        findings.error(
            "Z12",
            path,
            node,
            "deployFiles is empty",
            "List at least one path.",
        );
    }
    for (i, entry) in entries.iter().enumerate() {
        match entry.as_scalar_string() {
            Some(p) if !p.trim().is_empty() => {
                if p.matches('~').count() > 1 {
                    findings.warning(
                        "Z16",
                        &format!("{path}[{i}]"),
                        entry,
                        format!("`{p}` has more than one `~`"),
                        "Use a single `~` per path (`dist/~` deploys the contents of dist).",
                    );
                }
            }
            _ => findings.error(
                "Z16",
                &format!("{path}[{i}]"),
                entry,
                "A deployFiles entry is empty",
                "Write a path relative to the repository root.",
            ),
        }
    }
}

fn check_sudo(node: &Node, path: &str, findings: &mut Findings) {
    for item in node.items().unwrap_or(&[]) {
        if let Some(cmd) = item.as_scalar_string() {
            let trimmed = cmd.trim_start();
            if (trimmed.starts_with("apk add")
                || trimmed.starts_with("apt-get install")
                || trimmed.starts_with("apt install")
                || trimmed.starts_with("apt-get update"))
                && !trimmed.starts_with("sudo")
            {
                findings.warning(
                    "Z34",
                    path,
                    item,
                    format!("`{}` needs root", cmd.trim()),
                    "Prefix package installs with sudo, e.g. `sudo apk add --no-cache git`.",
                );
            }
        }
    }
}

fn check_deploy(deploy: &Node, path: &str, findings: &mut Findings) {
    check_keys(deploy, path, &DEPLOY_KEYS, "Z20", findings, &|_| None);
    if let Some(ts) = deploy.get("temporaryShutdown")
        && !matches!(ts.kind, Kind::Bool(_))
    {
        findings.error(
            "Z20",
            &join(path, "temporaryShutdown"),
            ts,
            "`temporaryShutdown` must be true or false",
            "Write `temporaryShutdown: false` for zero-downtime deploys.",
        );
    }
    if let Some(check) = deploy.get("readinessCheck") {
        check_probe(
            check,
            &join(path, "readinessCheck"),
            &["failureTimeout", "retryPeriod"],
            "Z21",
            findings,
        );
    }
}

fn check_probe(
    node: &Node,
    path: &str,
    extra: &[&str],
    rule: &'static str,
    findings: &mut Findings,
) {
    let mut allowed: Vec<&str> = vec!["httpGet", "exec"];
    allowed.extend_from_slice(extra);
    check_keys(node, path, &allowed, rule, findings, &|_| None);
    match (node.get("httpGet"), node.get("exec")) {
        (Some(_), Some(_)) => findings.error(
            rule,
            path,
            node,
            "Use either httpGet or exec, not both",
            "Keep one of them.",
        ),
        (None, None) => findings.error(
            rule,
            path,
            node,
            "The check needs httpGet or exec",
            "E.g. `httpGet: {port: 3000, path: /health}`.",
        ),
        (Some(http), None) => {
            match http.get("port").map(|p| &p.kind) {
                Some(Kind::Int(p)) if (1..=65535).contains(p) => {}
                _ => findings.error(
                    rule,
                    &join(path, "httpGet.port"),
                    http,
                    "httpGet needs an integer `port`",
                    "E.g. `port: 3000`.",
                ),
            }
            if http.get("path").and_then(Node::as_str).is_none() {
                findings.error(
                    rule,
                    &join(path, "httpGet.path"),
                    http,
                    "httpGet needs a `path`",
                    "E.g. `path: /health`.",
                );
            }
        }
        (None, Some(exec)) => {
            if exec
                .get("command")
                .and_then(Node::as_scalar_string)
                .is_none()
            {
                findings.error(
                    rule,
                    &join(path, "exec.command"),
                    exec,
                    "exec needs a `command`",
                    "E.g. `command: curl -f http://localhost:3000/health`.",
                );
            }
        }
    }
    for key in extra {
        if let Some(value) = node.get(key) {
            check_timing(value, &join(path, key), findings);
        }
    }
}

/// Probe timings: an integer (seconds) or a Go duration such as `30s`.
fn check_timing(node: &Node, path: &str, findings: &mut Findings) {
    match &node.kind {
        Kind::Int(_) => findings.info("Z23", path, node, "Timings given as integers are read as seconds; newer validators prefer duration strings", "Write e.g. `30s` or `5m`."),
        Kind::Str { value, .. } => match parse_go_duration(value) {
            Some(secs) if !(10.0..=3600.0).contains(&secs) => findings.warning("Z23", path, node, format!("`{value}` is outside the usual 10s–1h"), "Use a value between 10s and 1h."),
            Some(_) => {}
            None => findings.error("Z23", path, node, format!("`{value}` is not a duration"), "Write e.g. `30s`, `2m` or `1h`."),
        },
        _ => findings.error("Z23", path, node, format!("A timing must be a duration like 30s (got {})", node.type_name()), "Write e.g. `30s`."),
    }
}

fn parse_go_duration(text: &str) -> Option<f64> {
    let mut total = 0.0;
    let mut number = String::new();
    let mut chars = text.trim().chars().peekable();
    let mut any = false;
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() || c == '.' {
            number.push(c);
            continue;
        }
        let value: f64 = number.parse().ok()?;
        number.clear();
        let unit = match c {
            'h' => 3600.0,
            's' => 1.0,
            'm' if chars.peek() == Some(&'s') => {
                chars.next();
                0.001
            }
            'm' => 60.0,
            _ => return None,
        };
        total += value * unit;
        any = true;
    }
    (number.is_empty() && any).then_some(total)
}

fn check_run(run: &Node, path: &str, build: Option<&Node>, findings: &mut Findings) {
    if run.entries().is_none() {
        findings.error(
            "Z24",
            path,
            run,
            format!("run must be a mapping (got {})", run.type_name()),
            "Add base, start and ports under run.",
        );
        return;
    }
    check_keys(run, path, &RUN_KEYS, "Z24", findings, &run_key_hint);
    if let Some(base) = run.get("base") {
        check_base_value(base, &join(path, "base"), true, findings);
    }
    if let Some(os) = run.get("os") {
        check_os(os, &join(path, "os"), findings);
    }
    for key in ["prepareCommands", "initCommands"] {
        if let Some(node) = run.get(key) {
            check_commands(node, &join(path, key), "Z15", findings);
            check_sudo(node, &join(path, key), findings);
        }
    }
    if let Some(prepare) = run.get("prepareCommands") {
        for item in prepare.items().unwrap_or(&[]) {
            if item
                .as_scalar_string()
                .is_some_and(|c| c.contains("/var/www"))
            {
                findings.warning("Z18", &join(path, "prepareCommands"), item, "run.prepareCommands run before the app is deployed: /var/www is still empty", "Pass files with build.addToRunPrepare (they land in /home/zerops), or move the command to initCommands.");
            }
        }
    }
    let base = run
        .get("base")
        .and_then(Node::as_scalar_string)
        .or_else(|| build.and_then(|b| b.get("base")).and_then(first_base));
    let family = base
        .as_deref()
        .map(|b| parse_type(b).name.to_owned())
        .unwrap_or_default();
    if let Some(start) = run.get("start")
        && start.as_scalar_string().is_none_or(|s| s.trim().is_empty())
    {
        findings.error(
            "Z27",
            &join(path, "start"),
            start,
            "`start` must be a command string",
            "E.g. `start: npm start`.",
        );
    }
    if let Some(commands) = run.get("startCommands") {
        if run.get("start").is_some() {
            findings.warning(
                "Z27",
                &join(path, "startCommands"),
                commands,
                "Both start and startCommands are set",
                "Keep one: startCommands runs several processes, start runs one.",
            );
        }
        match commands.items() {
            Some(list) => {
                for (i, item) in list.iter().enumerate() {
                    if item
                        .get("command")
                        .and_then(Node::as_scalar_string)
                        .is_none()
                    {
                        findings.error(
                            "Z27",
                            &format!("{path}.startCommands[{i}]"),
                            item,
                            "Each startCommands item needs a `command`",
                            "E.g. `- command: npm run worker`.",
                        );
                    }
                }
            }
            None => findings.error(
                "Z27",
                &join(path, "startCommands"),
                commands,
                "startCommands must be a list",
                "Write `- command: ...` items.",
            ),
        }
    }
    if let Some(ports) = run.get("ports") {
        check_ports(ports, &join(path, "ports"), &family, findings);
    }
    if let Some(env) = run.get("envVariables") {
        check_env_map(env, &join(path, "envVariables"), "Z19", findings);
    }
    if let Some(replace) = run.get("envReplace")
        && (replace.get("target").is_none() || replace.get("delimiter").is_none())
    {
        findings.error(
            "Z29",
            &join(path, "envReplace"),
            replace,
            "envReplace needs both `target` and `delimiter`",
            "E.g. `envReplace: {target: [./dist/], delimiter: ['%%']}`.",
        );
    }
    if let Some(check) = run.get("healthCheck") {
        check_probe(
            check,
            &join(path, "healthCheck"),
            &[
                "failureTimeout",
                "disconnectTimeout",
                "recoveryTimeout",
                "execPeriod",
            ],
            "Z22",
            findings,
        );
    }
    if let Some(crontab) = run.get("crontab") {
        check_crontab(crontab, &join(path, "crontab"), findings);
    }
    if let Some(routing) = run.get("routing") {
        if !family.is_empty() && family != "static" && family != "nginx" {
            findings.warning(
                "Z30",
                &join(path, "routing"),
                routing,
                "run.routing only applies to static (and nginx) services",
                "Configure redirects and headers in your app or web server instead.",
            );
        }
        for (i, redirect) in routing
            .get("redirects")
            .and_then(Node::items)
            .unwrap_or(&[])
            .iter()
            .enumerate()
        {
            if redirect.get("from").is_none() || redirect.get("to").is_none() {
                findings.error(
                    "Z30",
                    &format!("{path}.routing.redirects[{i}]"),
                    redirect,
                    "A redirect needs `from` and `to`",
                    "E.g. `- {from: /old, to: /new, status: 301}`.",
                );
            }
        }
        for (i, header) in routing
            .get("headers")
            .and_then(Node::items)
            .unwrap_or(&[])
            .iter()
            .enumerate()
        {
            if header.get("for").is_none() || header.get("values").is_none() {
                findings.error(
                    "Z30",
                    &format!("{path}.routing.headers[{i}]"),
                    header,
                    "A headers rule needs `for` and `values`",
                    "E.g. `- {for: /*, values: {X-Frame-Options: DENY}}`.",
                );
            }
        }
    }
    for key in ["documentRoot", "siteConfigPath"] {
        if let Some(node) = run.get(key)
            && !family.is_empty()
            && !family.starts_with("php")
            && family != "nginx"
        {
            findings.warning(
                "Z32",
                &join(path, key),
                node,
                format!("`{key}` only applies to PHP and nginx bases"),
                "Remove it, or use php-nginx / php-apache / nginx.",
            );
        }
    }
    if let Some(volume) = run.get("volume") {
        if volume.get("hostname").is_none() {
            findings.warning(
                "Z37",
                &join(path, "volume"),
                volume,
                "run.volume needs the `hostname` of a local-storage service",
                "Add `hostname: <local-storage service>`.",
            );
        }
        if let Some(mount) = volume.get("mountPath")
            && !mount.as_scalar_string().is_some_and(|m| m.starts_with('/'))
        {
            findings.warning(
                "Z37",
                &join(path, "volume.mountPath"),
                mount,
                "mountPath should be absolute",
                "E.g. `/mnt/data`.",
            );
        }
    }
}

fn check_ports(node: &Node, path: &str, family: &str, findings: &mut Findings) {
    let Some(list) = node.items() else {
        findings.error(
            "Z28",
            path,
            node,
            "ports must be a list",
            "Write `- port: 3000` items with `httpSupport: true` for HTTP.",
        );
        return;
    };
    let mut seen = Vec::new();
    for (i, item) in list.iter().enumerate() {
        let here = format!("{path}[{i}]");
        check_keys(
            item,
            &here,
            &["port", "protocol", "httpSupport", "description"],
            "Z28",
            findings,
            &|_| None,
        );
        let port = match item.get("port").map(|p| &p.kind) {
            Some(Kind::Int(p)) => *p,
            _ => {
                findings.error(
                    "Z28",
                    &here,
                    item,
                    "A port entry needs an integer `port`",
                    "E.g. `- port: 3000`.",
                );
                continue;
            }
        };
        let at = item.get("port").unwrap_or(item);
        if !(10..=65435).contains(&port) {
            findings.error(
                "Z28",
                &join(&here, "port"),
                at,
                format!("Port {port} is outside 10–65435"),
                "Pick a port between 10 and 65435 (e.g. 3000 or 8080).",
            );
        }
        let protocol = item
            .get("protocol")
            .and_then(Node::as_scalar_string)
            .unwrap_or_else(|| "tcp".into());
        let key = (port, protocol.to_ascii_lowercase());
        if seen.contains(&key) {
            findings.error(
                "Z28",
                &join(&here, "port"),
                at,
                format!("Port {port}/{} is declared twice", key.1.to_uppercase()),
                "Declare each port and protocol once.",
            );
        }
        seen.push(key);
        if !protocol.eq_ignore_ascii_case("tcp") && !protocol.eq_ignore_ascii_case("udp") {
            findings.error(
                "Z28",
                &join(&here, "protocol"),
                item,
                format!("Protocol `{protocol}` is not TCP or UDP"),
                "Use TCP (default) or UDP.",
            );
        }
        if let Some(http) = item.get("httpSupport") {
            match http.kind {
                Kind::Bool(true) if protocol.eq_ignore_ascii_case("udp") => findings.error(
                    "Z28",
                    &join(&here, "httpSupport"),
                    http,
                    "httpSupport needs TCP",
                    "Remove httpSupport or use TCP.",
                ),
                Kind::Bool(_) => {}
                _ => findings.error(
                    "Z28",
                    &join(&here, "httpSupport"),
                    http,
                    "httpSupport must be true or false",
                    "Write `httpSupport: true`.",
                ),
            }
        }
        if (port == 80 || port == 443)
            && !family.starts_with("php")
            && family != "nginx"
            && family != "static"
            && !family.is_empty()
        {
            findings.warning(
                "Z28",
                &join(&here, "port"),
                at,
                format!("Port {port} is reserved for the HTTP balancer on most runtimes"),
                "Listen on e.g. 3000 or 8080 and mark it httpSupport: true.",
            );
        }
    }
}

fn check_crontab(node: &Node, path: &str, findings: &mut Findings) {
    let Some(list) = node.items() else {
        findings.error(
            "Z31",
            path,
            node,
            "crontab must be a list",
            "Write `- timing: \"0 * * * *\"` items with a `command`.",
        );
        return;
    };
    for (i, item) in list.iter().enumerate() {
        let here = format!("{path}[{i}]");
        match item.get("timing").and_then(Node::as_scalar_string) {
            Some(timing) if timing.split_whitespace().count() == 5 => {}
            Some(timing) => findings.error(
                "Z31",
                &join(&here, "timing"),
                item,
                format!("`{timing}` is not a 5-field cron expression"),
                "E.g. `*/5 * * * *` (minute hour day month weekday).",
            ),
            None => findings.error(
                "Z31",
                &here,
                item,
                "A cron job needs `timing`",
                "E.g. `timing: \"0 3 * * *\"`.",
            ),
        }
        if item
            .get("command")
            .and_then(Node::as_scalar_string)
            .is_none()
        {
            findings.error(
                "Z31",
                &here,
                item,
                "A cron job needs a `command`",
                "E.g. `command: php artisan schedule:run`.",
            );
        }
        if item.get("allContainers").is_none() {
            findings.warning("Z31", &here, item, "`allContainers` is not set", "Set `allContainers: false` to run the job on one container (true runs it on every container).");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_go_duration;

    #[test]
    fn go_durations() {
        assert_eq!(parse_go_duration("30s"), Some(30.0));
        assert_eq!(parse_go_duration("1m30s"), Some(90.0));
        assert_eq!(parse_go_duration("1h"), Some(3600.0));
        assert_eq!(parse_go_duration("500ms"), Some(0.5));
        assert_eq!(parse_go_duration("30"), None);
        assert_eq!(parse_go_duration("soon"), None);
    }
}

//! Parts of the `zerops.yml` run section with their own structure: start commands (Z27),
//! ports (Z28), envReplace (Z29), crontab (Z31), routing (Z30) and volume (Z37).

use std::collections::HashMap;

use super::report::{Pos, Severity, Sink, index, join};
use super::suggest;
use super::yaml::{Entry, Node};
use super::{commands, shape};

/// Keys of a `startCommands` item. `user` (the system user the command and its
/// initCommands run as, default `zerops`) came with the docs of 2026-09 (zeropsio/docs#373).
const START_COMMAND_KEYS: &[&str] = &["command", "name", "workingDir", "user", "initCommands"];

/// Z27: each item has a `command`; its other keys are known and of the right type.
pub fn check_start_commands(sink: &mut Sink, node: &Node, path: &str) {
    let Some(items) = node.as_seq() else {
        sink.error(
            "Z27",
            path,
            Pos::from(node),
            format!(
                "`startCommands` must be a list, found {}",
                shape::describe(node)
            ),
            "write items `- command: <command>` (with optional name, workingDir, user, initCommands)",
        );
        return;
    };
    for (i, item) in items.iter().enumerate() {
        let p = index(path, i);
        let Some(map) = shape::expect_map(sink, "Z27", item, &p, false) else {
            continue;
        };
        shape::unknown_keys(
            sink,
            "Z27",
            Severity::Error,
            map,
            &p,
            START_COMMAND_KEYS,
            &[(
                "start",
                "the key is `command`",
                "rename `start` to `command`",
            )],
        );
        match item.get("command") {
            None => sink.error(
                "Z27",
                &p,
                Pos::from(item),
                "this start command has no `command`",
                "add `command: <what to run>`",
            ),
            Some(e) => {
                shape::expect_string(sink, "Z27", &e.value, &join(&p, "command"));
            }
        }
        for key in ["name", "workingDir", "user"] {
            if let Some(e) = item.get(key) {
                shape::expect_string(sink, "Z27", &e.value, &join(&p, key));
            }
        }
        if let Some(e) = item.get("initCommands") {
            commands::command_list(sink, &e.value, &join(&p, "initCommands"));
        }
    }
}

pub fn check_ports(sink: &mut Sink, node: &Node, path: &str) {
    let Some(items) = node.as_seq() else {
        if !node.is_null() {
            sink.error(
                "Z28",
                path,
                Pos::from(node),
                format!("`ports` must be a list, found {}", shape::describe(node)),
                "write items `- port: 3000` with optional `httpSupport: true`",
            );
        }
        return;
    };
    // The first item of each port and protocol, found by lookup: scanning the earlier items
    // per item was quadratic in the length of the list.
    let mut seen: HashMap<(i64, String), usize> = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        let p = index(path, i);
        let Some(map) = shape::expect_map(sink, "Z28", item, &p, false) else {
            continue;
        };
        shape::unknown_keys(
            sink,
            "Z28",
            Severity::Error,
            map,
            &p,
            &["port", "protocol", "httpSupport", "description"],
            &[(
                "http",
                "the key is `httpSupport`",
                "rename it to `httpSupport`",
            )],
        );
        let protocol = match item.get("protocol") {
            None => "tcp".to_owned(),
            Some(e) => match e.value.as_str().map(str::to_ascii_lowercase) {
                Some(pr) if pr == "tcp" || pr == "udp" => pr,
                _ => {
                    sink.error(
                        "Z28",
                        &join(&p, "protocol"),
                        Pos::from(&e.value),
                        format!(
                            "`protocol` must be TCP or UDP, found {}",
                            shape::describe(&e.value)
                        ),
                        "use `protocol: TCP` (the default) or `protocol: UDP`",
                    );
                    "tcp".to_owned()
                }
            },
        };
        if let Some(e) = item.get("httpSupport") {
            let hp = join(&p, "httpSupport");
            if shape::expect_bool(sink, "Z28", &e.value, &hp) == Some(true) && protocol == "udp" {
                sink.error(
                    "Z28",
                    &hp,
                    Pos::from(&e.value),
                    "`httpSupport` works only with TCP ports",
                    "remove `httpSupport` or use TCP",
                );
            }
        }
        if let Some(e) = item.get("description") {
            shape::expect_string(sink, "Z28", &e.value, &join(&p, "description"));
        }
        let Some(e) = item.get("port") else {
            sink.error(
                "Z28",
                &p,
                Pos::from(item),
                "this port item has no `port`",
                "add `port: <number between 10 and 65435>`",
            );
            continue;
        };
        let pp = join(&p, "port");
        let Some(port) = shape::expect_int(sink, "Z28", &e.value, &pp) else {
            continue;
        };
        if !(10..=65435).contains(&port) {
            sink.error(
                "Z28",
                &pp,
                Pos::from(&e.value),
                format!("port {port} is outside 10–65435"),
                "listen on a port between 10 and 65435, e.g. 3000 or 8080",
            );
        }
        let key = (port, protocol);
        if let Some(first) = seen.get(&key) {
            sink.error(
                "Z28",
                &pp,
                Pos::from(&e.value),
                format!(
                    "port {port}/{} is listed twice (first as item {first})",
                    key.1
                ),
                "list each port once",
            );
        }
        seen.entry(key).or_insert(i);
    }
}

/// Z29: `envReplace` has `target` and `delimiter`; a missing one is reported at the
/// `envReplace:` key.
pub fn check_env_replace(sink: &mut Sink, entry: &Entry, path: &str) {
    let node = &entry.value;
    let Some(map) = shape::expect_map(sink, "Z29", node, path, false) else {
        return;
    };
    shape::unknown_keys(
        sink,
        "Z29",
        Severity::Error,
        map,
        path,
        &["target", "delimiter"],
        &[],
    );
    for key in ["target", "delimiter"] {
        match node.get(key) {
            None => sink.error(
                "Z29",
                path,
                Pos::from(entry),
                format!("`envReplace` needs `{key}`"),
                "give both `target` (files or directories) and `delimiter` (e.g. `%%`)",
            ),
            Some(e) => {
                shape::string_or_list(sink, "Z29", &e.value, &join(path, key));
            }
        }
    }
}

pub fn check_crontab(sink: &mut Sink, node: &Node, path: &str) {
    let Some(items) = node.as_seq() else {
        sink.error(
            "Z31",
            path,
            Pos::from(node),
            format!("`crontab` must be a list, found {}", shape::describe(node)),
            "write items with `timing`, `command` and `allContainers`",
        );
        return;
    };
    for (i, item) in items.iter().enumerate() {
        let p = index(path, i);
        let Some(map) = shape::expect_map(sink, "Z31", item, &p, false) else {
            continue;
        };
        shape::unknown_keys(
            sink,
            "Z31",
            Severity::Error,
            map,
            &p,
            &["timing", "command", "allContainers", "workingDir"],
            &[],
        );
        match item.get("timing") {
            None => sink.error(
                "Z31",
                &p,
                Pos::from(item),
                "this cron job has no `timing`",
                "add e.g. `timing: \"0 * * * *\"` (minute hour day month weekday)",
            ),
            Some(e) => {
                if let Some(t) = shape::expect_string(sink, "Z31", &e.value, &join(&p, "timing")) {
                    let fields = t.split_whitespace().count();
                    if fields != 5 {
                        sink.error("Z31", &join(&p, "timing"), Pos::from(&e.value), format!("`{t}` has {fields} fields; cron timing needs exactly 5"), "write minute hour day-of-month month day-of-week, e.g. `\"*/10 * * * *\"`");
                    }
                }
            }
        }
        match item.get("command") {
            None => sink.error(
                "Z31",
                &p,
                Pos::from(item),
                "this cron job has no `command`",
                "add `command: <what to run>`",
            ),
            Some(e) => {
                shape::expect_string(sink, "Z31", &e.value, &join(&p, "command"));
            }
        }
        match item.get("allContainers") {
            None => sink.warn(
                "Z31",
                &p,
                Pos::from(item),
                "`allContainers` is not set (the schema requires it)",
                "add `allContainers: false` to run on one container, or `true` for all",
            ),
            Some(e) => {
                shape::expect_bool(sink, "Z31", &e.value, &join(&p, "allContainers"));
            }
        }
        if let Some(e) = item.get("workingDir") {
            shape::expect_string(sink, "Z31", &e.value, &join(&p, "workingDir"));
        }
    }
}

pub fn check_routing(sink: &mut Sink, node: &Node, path: &str) {
    let Some(map) = shape::expect_map(sink, "Z30", node, path, false) else {
        return;
    };
    shape::unknown_keys(
        sink,
        "Z30",
        Severity::Error,
        map,
        path,
        &["root", "cors", "redirects", "headers"],
        &[],
    );
    for key in ["root", "cors"] {
        if let Some(e) = node.get(key) {
            shape::expect_string(sink, "Z30", &e.value, &join(path, key));
        }
    }
    let lists: [(&str, &[&str], &[&str]); 2] = [
        (
            "redirects",
            &["from", "to", "status", "preservePath", "preserveQuery"],
            &["from", "to"],
        ),
        ("headers", &["for", "values"], &["for", "values"]),
    ];
    for (key, allowed, required) in lists {
        let Some(e) = node.get(key) else { continue };
        let lp = join(path, key);
        let Some(items) = e.value.as_seq() else {
            sink.error(
                "Z30",
                &lp,
                Pos::from(&e.value),
                format!("`{key}` must be a list"),
                format!("write items with {}", suggest::quote_list(required)),
            );
            continue;
        };
        for (i, item) in items.iter().enumerate() {
            let p = index(&lp, i);
            let Some(m) = shape::expect_map(sink, "Z30", item, &p, false) else {
                continue;
            };
            shape::unknown_keys(sink, "Z30", Severity::Error, m, &p, allowed, &[]);
            for req in required {
                if item.get(req).is_none() {
                    sink.error(
                        "Z30",
                        &p,
                        Pos::from(item),
                        format!("this {} entry has no `{req}`", key.trim_end_matches('s')),
                        format!("add {}", suggest::quote_list(required)),
                    );
                }
            }
            for e in m {
                let ep = join(&p, &e.key);
                match e.key.as_str() {
                    "from" | "to" | "for" => {
                        shape::expect_string(sink, "Z30", &e.value, &ep);
                    }
                    "status" => {
                        shape::expect_int(sink, "Z30", &e.value, &ep);
                    }
                    "preservePath" | "preserveQuery" => {
                        shape::expect_bool(sink, "Z30", &e.value, &ep);
                    }
                    "values" => {
                        shape::expect_map(sink, "Z30", &e.value, &ep, false);
                    }
                    _ => {}
                }
            }
        }
    }
}

/// Z37: `volume` names a local-storage hostname; a missing one is reported at the
/// `volume:` key.
pub fn check_volume(sink: &mut Sink, entry: &Entry, path: &str) {
    let node = &entry.value;
    let Some(map) = node.as_map() else {
        sink.warn(
            "Z37",
            path,
            Pos::from(node),
            "`volume` must be a mapping with `hostname`",
            "write `volume: {hostname: <local-storage service>, mountPath: /mnt/data}`",
        );
        return;
    };
    shape::unknown_keys(
        sink,
        "Z37",
        Severity::Warning,
        map,
        path,
        &["hostname", "mountPath", "readOnly"],
        &[],
    );
    match node.value_of("hostname").and_then(Node::as_str) {
        Some(_) => {}
        None => sink.warn(
            "Z37",
            path,
            Pos::from(entry),
            "`volume` names no local-storage `hostname`",
            "add `hostname: <hostname of a local-storage service>`",
        ),
    }
    if let Some(e) = node.get("mountPath")
        && !e.value.as_str().is_some_and(|m| m.starts_with('/'))
    {
        sink.warn(
            "Z37",
            &join(path, "mountPath"),
            Pos::from(&e.value),
            "`mountPath` must be an absolute path",
            "e.g. `mountPath: /mnt/data`",
        );
    }
    if let Some(e) = node.get("readOnly") {
        shape::check_bool(
            sink,
            "Z37",
            Severity::Warning,
            &e.value,
            &join(path, "readOnly"),
        );
    }
}

//! `zerops.yml` `run` section: keys and hints (Z24), base (Z25), start (Z26, Z27), ports
//! (Z28), envReplace (Z29), routing (Z30), crontab (Z31), web-server keys (Z32), volume
//! (Z37), prepare commands (Z18) and env references (Z36).

use super::catalog::{self, Kind, Match, RUN_BASES};
use super::env::{self, EnvMap};
use super::report::{Pos, Severity, Sink, index, join};
use super::run_parts::{
    check_crontab, check_env_replace, check_ports, check_routing, check_start_commands,
    check_volume,
};
use super::shape;
use super::yaml::{Node, Value};
use super::zerops_build::{self, Phase};
use super::zerops_yml::SetupCtx;
use super::{commands, probe};

const RUN_KEYS: &[&str] = &[
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
const SCALING: &str =
    "scaling is not configured in zerops.yml; set it in import.yml or with zerops_manage";
const RUN_HINTS: &[(&str, &str, &str)] = &[
    (
        "mount",
        "`run.mount` is silently ignored; shared storage is mounted only by the import `mount:` list",
        "remove it and add `mount: [<storage hostname>]` to the service in import.yml",
    ),
    (
        "verticalAutoscaling",
        SCALING,
        "move it to the service in import.yml",
    ),
    (
        "minContainers",
        SCALING,
        "move it to the service in import.yml",
    ),
    (
        "maxContainers",
        SCALING,
        "move it to the service in import.yml",
    ),
    (
        "mode",
        "`mode` is a property of a service in import.yml, not of zerops.yml",
        "remove it; runtimes get high availability from minContainers ≥ 2",
    ),
    (
        "envSecrets",
        "secrets are not set in zerops.yml",
        "use `envVariables` here for non-secret values; set secrets with zerops_env or in import.yml `envSecrets`",
    ),
    (
        "readinessCheck",
        "`readinessCheck` belongs to the deploy section",
        "move it under `deploy:` (a sibling of `run:` in the setup)",
    ),
    (
        "temporaryShutdown",
        "`temporaryShutdown` belongs to the deploy section",
        "move it under `deploy:` (a sibling of `run:` in the setup)",
    ),
    ("env", "not a zerops.yml key", "rename it to `envVariables`"),
    ("init", "the pre-2023 name", "rename it to `initCommands`"),
    (
        "prepare",
        "the pre-2023 name",
        "rename it to `prepareCommands`",
    ),
    (
        "buildCommands",
        "build commands belong to the build section",
        "move them under `build:`",
    ),
    (
        "port",
        "ports are a list",
        "write `ports:` with items `- port: <number>`",
    ),
];

/// Own `run:` section of a setup.
pub fn check_run(sink: &mut Sink, node: &Node, path: &str) {
    let Some(map) = shape::expect_map(sink, "Z24", node, path, true) else {
        return;
    };
    shape::unknown_keys_beside(
        sink,
        "Z24",
        Severity::Error,
        map,
        path,
        RUN_KEYS,
        &["deployFiles"],
        RUN_HINTS,
    );
    for entry in map {
        let p = join(path, &entry.key);
        let v = &entry.value;
        match entry.key.as_str() {
            "deployFiles" => sink.error(
                "Z12",
                &p,
                Pos::from(entry),
                "`deployFiles` belongs to the build section, not run",
                "move it under `build:`",
            ),
            "base" => match &v.value {
                Value::Str(_) | Value::Int(_) | Value::Float(_) => {
                    zerops_build::check_base(sink, "Z25", v, &p, Phase::Run);
                }
                _ => sink.error(
                    "Z25",
                    &p,
                    Pos::from(v),
                    format!(
                        "`run.base` must be one base name, found {}",
                        shape::describe(v)
                    ),
                    "e.g. `base: nodejs@22`",
                ),
            },
            "os" => zerops_build::check_os(sink, v, &p),
            "prepareCommands" => {
                for (cmd, cp) in commands::command_list(sink, v, &p) {
                    if cmd.as_str().is_some_and(|c| c.contains("/var/www")) {
                        sink.warn("Z18", &cp, Pos::from(cmd), "run.prepareCommands runs before the deployed files exist; `/var/www` is still empty here", "copy the files you need with `build.addToRunPrepare` (they land in /home/zerops), or move this to `initCommands`");
                    }
                }
            }
            "initCommands" => {
                commands::command_list(sink, v, &p);
            }
            "start" => match &v.value {
                Value::Str(s) if !s.trim().is_empty() => {}
                Value::Seq(_) => sink.error(
                    "Z24",
                    &p,
                    Pos::from(v),
                    "`start` is one command, not a list",
                    "use `startCommands: [{command: …}, …]` for several processes",
                ),
                _ => sink.error(
                    "Z24",
                    &p,
                    Pos::from(v),
                    format!("`start` must be a command, found {}", shape::describe(v)),
                    "e.g. `start: npm start`",
                ),
            },
            "startCommands" => check_start_commands(sink, v, &p),
            "ports" => check_ports(sink, v, &p),
            "envVariables" => {
                for (key, value) in env::check_map(sink, v, &p, Pos::from(entry), EnvMap::ZeropsYml)
                {
                    env::check_references(sink, "Z36", &p, key, value);
                }
            }
            "envReplace" => check_env_replace(sink, entry, &p),
            "healthCheck" => probe::check_probe(
                sink,
                "Z22",
                entry,
                &p,
                &[
                    "failureTimeout",
                    "disconnectTimeout",
                    "recoveryTimeout",
                    "execPeriod",
                ],
            ),
            "crontab" => check_crontab(sink, v, &p),
            "routing" => check_routing(sink, v, &p),
            "documentRoot" | "siteConfigPath" => {
                shape::expect_string(sink, "Z32", v, &p);
            }
            "volume" => check_volume(sink, entry, &p),
            _ => {}
        }
    }
}

/// The kind of base the setup runs on: `run.base`, else a single `build.base` that is also
/// a run base. `None` when unknown.
fn run_kind(ctx: &SetupCtx) -> Option<Kind> {
    let run = ctx.merged.run.as_ref()?;
    let base = match run.value("base") {
        Some(n) => n,
        None => match ctx.merged.build.as_ref()?.value("base")? {
            Node {
                value: Value::Seq(items),
                ..
            } if items.len() == 1 => &items[0],
            b => b,
        },
    };
    let (text, _) = shape::go_string(base)?;
    match catalog::match_base(text, RUN_BASES) {
        Match::Known { kind, .. } | Match::VersionMiss { kind, .. } => Some(kind),
        _ => None,
    }
}

/// Merged-view checks of the run phase.
pub fn check_merged(sink: &mut Sink, ctx: &SetupCtx) {
    let Some(run) = &ctx.merged.run else {
        if ctx.extended {
            return;
        }
        sink.warn(
            "Z10",
            &ctx.path,
            ctx.at,
            "this setup has no `run` section",
            "add `run:` with at least `base` and `start`",
        );
        return;
    };
    let path = join(&ctx.path, "run");
    let at = run.own.map_or(ctx.at, Pos::from);
    let kind = run_kind(ctx);
    let start = run.get("start");
    let start_commands = run.get("startCommands");
    if let (Some(_), Some(sc)) = (start, start_commands) {
        sink.warn(
            "Z27",
            &join(&path, "startCommands"),
            Pos::from(sc),
            "both `start` and `startCommands` are set",
            "use one: `start` for a single process, `startCommands` for several",
        );
    }
    if let Some(k) = kind {
        if start.is_none()
            && start_commands.is_none()
            && !k.has_web_server()
            && k != Kind::Zcp
            && !ctx.extended
        {
            sink.warn("Z26", &path, at, "no `start` command; this base has no built-in web server, so the app will not start", "add `start: <command that runs your app>` (e.g. `npm start`)");
        }
        let ports = run.value("ports").and_then(Node::as_seq);
        if k.is_dynamic()
            && !ctx.extended
            && (start.is_some() || start_commands.is_some())
            && ports.is_none_or(<[Node]>::is_empty)
        {
            sink.warn(
                "Z28",
                &path,
                at,
                "no `ports`: the service will receive no traffic (fine for a worker)",
                "add `ports: [{port: <port>, httpSupport: true}]` if the app serves HTTP",
            );
        }
        if k != Kind::PhpWeb {
            for (i, item) in ports.unwrap_or_default().iter().enumerate() {
                if let Some(pn) = item
                    .value_of("port")
                    .filter(|n| matches!(n.as_int(), Some(80 | 443)))
                {
                    sink.warn(
                        "Z28",
                        &join(&index(&join(&path, "ports"), i), "port"),
                        Pos::from(pn),
                        format!(
                            "port {} is reserved for the platform's web server here",
                            pn.raw()
                        ),
                        "listen on another port, e.g. 3000 or 8080",
                    );
                }
            }
        }
        if let Some(r) = run.get("routing")
            && !matches!(k, Kind::Static | Kind::Nginx)
        {
            sink.warn(
                "Z30",
                &join(&path, "routing"),
                Pos::from(r),
                "`routing` takes effect only on static and nginx services",
                "configure redirects and headers in your app, or run on `static`",
            );
        }
        for key in ["documentRoot", "siteConfigPath"] {
            if let Some(e) = run.get(key)
                && !matches!(k, Kind::PhpWeb | Kind::Nginx)
            {
                sink.warn(
                    "Z32",
                    &join(&path, key),
                    Pos::from(e),
                    format!("`{key}` applies only to PHP and nginx bases"),
                    "remove it, or run on `php-nginx`, `php-apache` or `nginx`",
                );
            }
        }
    }
    let os = run.value("os").and_then(Node::as_str);
    let base = run.value("base").and_then(Node::as_str);
    if let (Some(os), Some(b), Some(os_at)) = (os, base, run.value("os"))
        && let Some(prefix) = catalog::explicit_os(b).filter(|p| *p == "alpine" || *p == "ubuntu")
        && prefix != os
        && (os == "alpine" || os == "ubuntu")
    {
        sink.error(
            "Z14",
            &join(&path, "os"),
            Pos::from(os_at),
            format!("`os: {os}` contradicts the base `{b}`"),
            zerops_build::os_form_fix(b, os, RUN_BASES),
        );
    }
    let os = os
        .or_else(|| base.and_then(catalog::explicit_os))
        .unwrap_or("alpine");
    for key in ["prepareCommands", "initCommands"] {
        if let Some(n) = run.value(key) {
            commands::check_packages(sink, n, &join(&path, key), os);
        }
    }
}

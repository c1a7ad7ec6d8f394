//! What `zcli push` drives: app versions, their upload URL, the build-and-deploy call and
//! the build pipeline with its `zbuilder@<id>` log lines.

use std::time::Instant;

use crate::json;

use serde_json::Value;

use super::{Outcome, State, TokenScope, error, forbidden, now_text, ok};
use crate::ops::validate::merged_run_value;
use crate::ops::validate::yaml::{self, Entry, Node};
use crate::sim::http::{Request, Response};
use crate::sim::model::{AppVersionRec, Effect, EnvRec, LogRec, PortRec, RunRec};
use crate::time::format_rfc3339;

impl State {
    pub(super) fn create_app_version(&mut self, scope: &TokenScope, service_id: &str) -> Outcome {
        let index = self.service(scope, service_id)?;
        let service = self.services[index].clone();
        let id = self.new_id("av");
        let build_service = self.new_id("bld");
        let sequence = i64::try_from(
            self.app_versions
                .iter()
                .filter(|v| v.service_id == service_id)
                .count(),
        )
        .unwrap_or(0)
            + 1;
        self.app_versions.push(AppVersionRec {
            id: id.clone(),
            client_id: self.client_id.clone(),
            project_id: service.project_id.clone(),
            service_id: service_id.to_owned(),
            build_service_id: build_service,
            source: "CLI".into(),
            sequence,
            created: now_text(),
            pipeline_started: None,
            duration: self.config.build_duration,
            failure: None,
            superseded: false,
            canceled: false,
            fixed_status: None,
            run: None,
            start_command: None,
        });
        Ok(ok(
            json!({ "id": id, "uploadUrl": format!("{}/upload/{id}", self.base_url) }),
        ))
    }

    /// `PUT /app-version/{id}/build-and-deploy`: the body carries the zerops.yml and the
    /// setup to deploy (zerops-go `PutAppVersionBuildAndDeploy`: `zeropsYaml`,
    /// `zeropsYamlSetup`), which decide the ports and zerops.yml variables the service gets.
    pub(super) fn build_and_deploy_request(
        &mut self,
        req: &Request,
        scope: &TokenScope,
        version_id: &str,
        now: Instant,
    ) -> Outcome {
        let body = State::body(req)?;
        let zerops_yaml = body.get("zeropsYaml").and_then(Value::as_str);
        let setup = body.get("zeropsYamlSetup").and_then(Value::as_str);
        let failure = self.config.build_failure.clone();
        self.build_and_deploy(scope, version_id, zerops_yaml, setup, failure, now)
    }

    /// Starts the build pipeline of an uploaded app version. `failure` makes it fail.
    /// `zerops_yaml` is the deployed zerops.yml and `setup` the setup in it (`None`: the
    /// one named like the service); its `run.ports` and `run.envVariables` become the
    /// service's when the version is activated.
    pub fn build_and_deploy(
        &mut self,
        scope: &TokenScope,
        version_id: &str,
        zerops_yaml: Option<&str>,
        setup: Option<&str>,
        failure: Option<String>,
        now: Instant,
    ) -> Outcome {
        let Some(index) = self.app_versions.iter().position(|v| v.id == version_id) else {
            return Err(error(
                404,
                "appVersionNotFound",
                "App version not found.",
                Value::Null,
            ));
        };
        if !State::allowed(scope, &self.app_versions[index].project_id) {
            return Err(forbidden());
        }
        let hostname = self
            .services
            .iter()
            .find(|s| s.id == self.app_versions[index].service_id)
            .map(|s| s.name.clone())
            .unwrap_or_default();
        let setup = setup.unwrap_or(&hostname);
        let mut run = zerops_yaml.and_then(|text| setup_run(text, setup));
        let start_command = zerops_yaml.and_then(|text| setup_start(text, setup));
        for var in run.iter_mut().flat_map(|(_, envs)| envs) {
            var.id = self.new_id("ud");
        }
        let version = &mut self.app_versions[index];
        version.run = run;
        version.start_command = start_command;
        version.failure = failure.clone();
        let (project, service, build_service, id) = (
            version.project_id.clone(),
            version.service_id.clone(),
            version.build_service_id.clone(),
            version.id.clone(),
        );
        let duration = self.config.build_duration;
        // A failing pipeline stops where its build fails, and so does its process.
        let runs = match failure {
            Some(_) => duration / 10 * 6, // BUILD_END
            None => duration,
        };
        let p = self.start_process(
            &project,
            "stack.build",
            &[&service],
            Effect::ActivateVersion {
                version: id.clone(),
            },
            failure.clone(),
            runs,
        );
        self.on_cancel(
            p,
            Effect::CancelVersion {
                version: id.clone(),
            },
        );
        // The version's stages, its build process and its log lines run on one clock.
        let (start, wall) = (self.processes[p].started_at, self.processes[p].wall_start);
        self.app_versions[index].pipeline_started = Some(start);
        // zbuilder's lines, each stamped when the pipeline reaches it (the log backend
        // shows none before its time); the outcome comes at the pipeline's end.
        let failed = failure.map(|reason| format!("command failed: {reason}"));
        let failed_end = format!("build failed, {}", self.what_stays(&id, now));
        let lines = [
            (2, 6, "build container started"),
            (3, 6, "running prepareCommands"),
            (4, 6, "running buildCommands"),
            match &failed {
                Some(line) => (5, 3, line.as_str()),
                None => (5, 6, "packing deployFiles"),
            },
            match failed {
                Some(_) => (6, 3, failed_end.as_str()), // BUILD_END
                None => (10, 6, "build finished"),
            },
        ];
        for (tenths, severity, message) in lines {
            let stamp = format_rfc3339(wall + duration / 10 * tenths);
            let message = message.to_owned();
            self.write_build_log(&project, &build_service, &id, severity, message, stamp);
        }
        Ok(ok(self.process_json(p, now)))
    }

    /// One line of the build log of `version`, as `zbuilder` writes it.
    pub(super) fn write_build_log(
        &mut self,
        project: &str,
        build_service: &str,
        version: &str,
        severity: u8,
        message: String,
        timestamp: String,
    ) {
        let id = self.new_id("log");
        self.logs.push(LogRec {
            id,
            project_id: project.to_owned(),
            service_id: build_service.to_owned(),
            timestamp,
            severity,
            facility: 16,
            tag: format!("zbuilder@{version}"),
            container: "build-1".into(),
            container_id: format!("ctr-{build_service}"),
            message,
        });
    }

    /// One informational line of a runtime service's own log (its first container).
    pub(super) fn write_runtime_log(
        &mut self,
        project: &str,
        service: &str,
        hostname: &str,
        message: String,
        timestamp: String,
    ) {
        let id = self.new_id("log");
        let container = format!("{hostname}-1");
        self.logs.push(LogRec {
            id,
            project_id: project.to_owned(),
            service_id: service.to_owned(),
            timestamp,
            severity: 6,
            facility: 16,
            tag: hostname.to_owned(),
            container_id: format!("ctr-{container}"),
            container,
            message,
        });
    }

    /// The package upload behind an app version's `uploadUrl` (`PUT /upload/{id}`): the
    /// archive is accepted and dropped; an unknown version is a 404.
    pub fn handle_upload(&mut self, req: &Request) -> Response {
        self.requests.push(format!(
            "{} {} ({} bytes)",
            req.method,
            req.path,
            req.body.len()
        ));
        let id = req.path.trim_start_matches("/upload/");
        if req.method != "PUT" {
            return error(405, "methodNotAllowed", "Use PUT.", Value::Null);
        }
        if !self.app_versions.iter().any(|v| v.id == id) {
            return error(
                404,
                "appVersionNotFound",
                "App version not found.",
                Value::Null,
            );
        }
        ok(json!({}))
    }
}

/// The ports and variables a deploy of `setup` gives its service: the setup's `run.ports`,
/// read as the platform reads the deployed zerops.yml (`protocol` defaults to TCP,
/// `httpSupport` to false), and its `run.envVariables` (ids given later). `None` when the
/// text is not YAML or has no such setup: then the service keeps what it has. A setup
/// without `run.ports` gives an empty list: the new version publishes no port.
fn setup_run(zerops_yaml: &str, setup: &str) -> Option<RunRec> {
    let root = yaml::parse(zerops_yaml).ok()?.root?;
    // Inherited through `extends` as the validator merges it.
    let run = |key| merged_run_value(&root, setup, key);
    let ports = run("ports")?.and_then(Node::as_seq).unwrap_or_default();
    let envs = run("envVariables").flatten().and_then(Node::as_map);
    let var = |e: &Entry| EnvRec {
        id: String::new(),
        key: e.key.clone(),
        content: e.value.raw().to_owned(),
        kind: "USER".into(),
        sensitive: false,
    };
    Some((
        ports.iter().filter_map(port_rec).collect(),
        envs.unwrap_or_default().iter().map(var).collect(),
    ))
}

/// The setup's `run.start` command (inherited through `extends`), when it has one.
fn setup_start(zerops_yaml: &str, setup: &str) -> Option<String> {
    let root = yaml::parse(zerops_yaml).ok()?.root?;
    let start = merged_run_value(&root, setup, "start")??;
    Some(start.as_str()?.to_owned())
}

/// One `run.ports` item as the API lists it (protocol in lower case); an item without a
/// usable `port` is skipped (the platform's validation refuses such a file).
fn port_rec(item: &Node) -> Option<PortRec> {
    let port = u32::try_from(item.value_of("port")?.as_int()?).ok()?;
    let protocol = item
        .value_of("protocol")
        .and_then(Node::as_str)
        .unwrap_or("tcp")
        .to_ascii_lowercase();
    let http = item
        .value_of("httpSupport")
        .and_then(Node::as_bool)
        .unwrap_or(false);
    Some(PortRec {
        port,
        protocol,
        http,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ports(yaml: &str, setup: &str) -> Option<Vec<(u32, String, bool)>> {
        setup_run(yaml, setup).map(|(list, _)| {
            list.into_iter()
                .map(|p| (p.port, p.protocol, p.http))
                .collect()
        })
    }

    #[test]
    fn run_ports_of_the_setup_with_their_defaults() {
        let yaml = "zerops:\n  - setup: api\n    run:\n      ports:\n        - port: 3000\n          httpSupport: true\n        - port: 53\n          protocol: UDP\n        - port: 22\n          protocol: TCP\n          httpSupport: false\n";
        assert_eq!(
            ports(yaml, "api").unwrap(),
            [
                (3000, "tcp".to_owned(), true),
                (53, "udp".to_owned(), false),
                (22, "tcp".to_owned(), false)
            ]
        );
    }

    #[test]
    fn a_setup_without_ports_publishes_none_and_an_unknown_one_says_nothing() {
        let yaml = "zerops:\n  - setup: worker\n    run:\n      start: ./worker\n";
        assert_eq!(ports(yaml, "worker").unwrap(), []);
        assert_eq!(ports(yaml, "api"), None);
        assert_eq!(ports("zerops: [", "api"), None, "not YAML");
        assert_eq!(ports("services: []", "api"), None, "not a zerops.yml");
    }

    #[test]
    fn ports_are_inherited_through_extends_the_last_parent_winning() {
        let yaml = "zerops:\n  - setup: a\n    run:\n      ports:\n        - port: 1000\n  - setup: b\n    run:\n      ports:\n        - port: 2000\n  - setup: c\n    extends: [a, b]\n  - setup: d\n    extends: a\n    run:\n      ports:\n        - port: 4000\n  - setup: e\n    extends: c\n  - setup: x\n    extends: y\n  - setup: y\n    extends: x\n";
        let first = |setup: &str| ports(yaml, setup).unwrap().first().map(|p| p.0);
        assert_eq!(first("c"), Some(2000));
        assert_eq!(first("d"), Some(4000), "own ports win");
        assert_eq!(first("e"), Some(2000), "through two levels");
        assert_eq!(first("x"), None, "a cycle ends with no ports");
    }
}

//! What `zcli push` drives: app versions, their upload URL, the build-and-deploy call and
//! the build pipeline with its `zbuilder@<id>` log lines.

use std::time::Instant;

use serde_json::{Value, json};

use super::{Outcome, State, TokenScope, error, forbidden, now_text, ok};
use crate::sim::http::{Request, Response};
use crate::sim::model::{AppVersionRec, Effect, LogRec};

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
            fixed_status: None,
        });
        Ok(ok(
            json!({ "id": id, "uploadUrl": format!("{}/upload/{id}", self.base_url) }),
        ))
    }

    /// Starts the build pipeline of an uploaded app version. `failure` makes it fail.
    pub fn build_and_deploy(
        &mut self,
        scope: &TokenScope,
        version_id: &str,
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
        let version = &mut self.app_versions[index];
        version.pipeline_started = Some(now);
        version.failure = failure.clone();
        let (project, service, build_service, id) = (
            version.project_id.clone(),
            version.service_id.clone(),
            version.build_service_id.clone(),
            version.id.clone(),
        );
        let duration = self.config.build_duration;
        self.write_build_logs(&project, &build_service, &id, failure.as_deref());
        let p = self.start_process(
            &project,
            "stack.build",
            &[&service],
            Effect::ActivateVersion { version: id },
            failure,
            duration,
        );
        Ok(ok(self.process_json(p, now)))
    }

    fn write_build_logs(
        &mut self,
        project: &str,
        build_service: &str,
        version: &str,
        failure: Option<&str>,
    ) {
        let mut lines: Vec<(u8, String)> = vec![
            (6, "build container started".into()),
            (6, "running prepareCommands".into()),
            (6, "running buildCommands".into()),
        ];
        match failure {
            Some(reason) => {
                lines.push((3, format!("command failed: {reason}")));
                lines.push((3, "build failed, the previous version stays active".into()));
            }
            None => {
                lines.push((6, "packing deployFiles".into()));
                lines.push((6, "build finished".into()));
            }
        }
        for (severity, message) in lines {
            let id = self.new_id("log");
            self.logs.push(LogRec {
                id,
                project_id: project.to_owned(),
                service_id: build_service.to_owned(),
                timestamp: now_text(),
                severity,
                facility: 16,
                tag: format!("zbuilder@{version}"),
                container: "build-1".into(),
                container_id: format!("ctr-{build_service}"),
                message,
            });
        }
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

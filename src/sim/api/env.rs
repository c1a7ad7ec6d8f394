//! Service variables (env-file upserts or replace-all, one-variable create and update,
//! deletes by id) and project variables (create with duplicate-key refusal, delete by id).

use std::time::Instant;

use serde_json::Value;

use super::{Outcome, State, TokenScope, error, forbidden, ok};
use crate::sim::http::{Request, Response};
use crate::sim::model::{Effect, EnvRec};

/// The API's checks of a service variable's key.
fn check_user_key(key: &str) -> Result<(), Response> {
    if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(error(
            400,
            "userDataKeyInvalid",
            &format!("invalid key {key:?}"),
            Value::Null,
        ));
    }
    if key.to_ascii_uppercase().starts_with("ZEROPS_") {
        return Err(error(
            400,
            "userDataZeropsPrefixForbidden",
            "keys must not start with ZEROPS_",
            Value::Null,
        ));
    }
    Ok(())
}

/// Why a write to `var` is refused, when it is not the user's: a generated variable, or
/// one from the deployed zerops.yml (`USER`: changed there, by the next deploy).
fn read_only(var: &EnvRec) -> Option<Response> {
    let (code, message) = match var.kind.as_str() {
        "SECRET" => return None,
        "USER" => ("recordIsReadOnly", "The variable is set by zerops.yml."),
        _ => (
            "userDataSystemKeyChangeForbidden",
            "System variables cannot be changed.",
        ),
    };
    Some(error(400, code, message, Value::Null))
}

/// `{"key", "content"}`, both required, as the one-variable endpoints take them.
fn key_and_content(body: &Value) -> Result<(String, String), Response> {
    match (
        body.get("key").and_then(Value::as_str),
        body.get("content").and_then(Value::as_str),
    ) {
        (Some(key), Some(content)) => {
            check_user_key(key)?;
            Ok((key.to_owned(), content.to_owned()))
        }
        _ => Err(error(
            400,
            "invalidUserInput",
            "key and content are required",
            Value::Null,
        )),
    }
}

/// The `sensitive` flag a service variable write must carry since the platform's change of
/// 2026-08 (left out, the API refuses the write with `invalidUserInput`).
fn sensitive_flag(body: &Value) -> Result<bool, Response> {
    body.get("sensitive")
        .and_then(Value::as_bool)
        .ok_or_else(|| {
            error(
                400,
                "invalidUserInput",
                "Invalid user input.",
                crate::json!([{"parameter": "sensitive", "message": "field is required"}]),
            )
        })
}

impl State {
    /// The process that answers a change of service `index`'s variables (applied at once;
    /// the process only reports it).
    fn env_process(&mut self, index: usize, action: &str, now: Instant) -> Response {
        let (project, service) = (
            self.services[index].project_id.clone(),
            self.services[index].id.clone(),
        );
        let duration = self.config.process_duration;
        let p = self.start_process(&project, action, &[&service], Effect::None, None, duration);
        ok(self.process_json(p, now))
    }

    /// The service holding user variable `id`, if the token may see it.
    fn user_data_owner(&self, scope: &TokenScope, id: &str) -> Result<usize, Response> {
        let Some(index) = self
            .services
            .iter()
            .position(|s| s.env.iter().any(|e| e.id == id))
        else {
            return Err(error(
                404,
                "userDataNotFound",
                "User data not found.",
                Value::Null,
            ));
        };
        if !State::allowed(scope, &self.services[index].project_id) {
            return Err(forbidden());
        }
        Ok(index)
    }

    pub(super) fn env_file(
        &mut self,
        req: &Request,
        scope: &TokenScope,
        id: &str,
        now: Instant,
    ) -> Outcome {
        let index = self.service(scope, id)?;
        let body = State::body(req)?;
        let Some(file) = body.get("envFile").and_then(Value::as_str) else {
            return Err(error(
                400,
                "userDataInvalidEnvFile",
                "envFile is required",
                Value::Null,
            ));
        };
        let mut pairs = Vec::new();
        for (n, line) in file.lines().enumerate() {
            if line.trim().is_empty() || line.trim_start().starts_with('#') {
                continue;
            }
            let Some((key, value)) = line.split_once('=') else {
                return Err(error(
                    400,
                    "userDataInvalidEnvFile",
                    &format!("line {} is not KEY=value", n + 1),
                    Value::Null,
                ));
            };
            check_user_key(key)?;
            pairs.push((key.to_owned(), value.to_owned()));
        }
        // Refuse before changing anything: a rejected file leaves the variables as they were.
        if let Some(refusal) = self.services[index]
            .env
            .iter()
            .filter(|e| pairs.iter().any(|(key, _)| *key == e.key))
            .find_map(read_only)
        {
            return Err(refusal);
        }
        if self.config.env_file_replaces {
            self.services[index].env.retain(|e| e.kind != "SECRET");
        }
        for (key, value) in pairs {
            let new_id = self.new_id("ud");
            let env = &mut self.services[index].env;
            match env.iter_mut().find(|e| e.key == key) {
                Some(existing) => existing.content = value,
                None => env.push(EnvRec::secret(new_id, key, value)),
            }
        }
        Ok(self.env_process(index, "stack.userDataFile", now))
    }

    /// `POST /service-stack/{id}/user-data`: one new variable, as a process. A key already
    /// in use is refused, the platform's with its own code.
    pub(super) fn create_user_data(
        &mut self,
        req: &Request,
        scope: &TokenScope,
        id: &str,
        now: Instant,
    ) -> Outcome {
        let index = self.service(scope, id)?;
        let body = State::body(req)?;
        let (key, content) = key_and_content(&body)?;
        let sensitive = sensitive_flag(&body)?;
        if let Some(existing) = self.services[index]
            .env
            .iter()
            .find(|e| e.key.eq_ignore_ascii_case(&key))
        {
            return Err(if existing.kind != "READ_ONLY" {
                error(
                    400,
                    "userDataDuplicateKey",
                    &format!("{key} already exists"),
                    Value::Null,
                )
            } else {
                error(
                    400,
                    "userDataUseOfSystemKey",
                    &format!("{key} is a system variable"),
                    Value::Null,
                )
            });
        }
        let new_id = self.new_id("ud");
        let mut var = EnvRec::secret(new_id, key, content);
        var.sensitive = sensitive;
        self.services[index].env.push(var);
        Ok(self.env_process(index, "stack.userDataCreate", now))
    }

    /// `PUT /user-data/{id}`: a new key, value and `sensitive` flag for one user variable,
    /// answered with a process (applied at once; the process only reports it).
    pub(super) fn update_user_data(
        &mut self,
        req: &Request,
        scope: &TokenScope,
        id: &str,
        now: Instant,
    ) -> Outcome {
        let index = self.user_data_owner(scope, id)?;
        let body = State::body(req)?;
        let (key, content) = key_and_content(&body)?;
        let sensitive = sensitive_flag(&body)?;
        let service = &mut self.services[index];
        if service
            .env
            .iter()
            .any(|e| e.key.eq_ignore_ascii_case(&key) && e.id != id)
        {
            return Err(error(
                400,
                "userDataDuplicateKey",
                &format!("{key} already exists"),
                Value::Null,
            ));
        }
        let Some(var) = service.env.iter_mut().find(|e| e.id == id) else {
            return Err(error(
                404,
                "userDataNotFound",
                "User data not found.",
                Value::Null,
            ));
        };
        if let Some(refusal) = read_only(var) {
            return Err(refusal);
        }
        var.key = key;
        var.content = content;
        var.sensitive = sensitive;
        Ok(self.env_process(index, "stack.userDataUpdate", now))
    }

    pub(super) fn delete_user_data(
        &mut self,
        scope: &TokenScope,
        id: &str,
        now: Instant,
    ) -> Outcome {
        let index = self.user_data_owner(scope, id)?;
        if self.services[index]
            .env
            .iter()
            .any(|e| e.id == id && e.kind != "SECRET")
        {
            return Err(error(
                400,
                "userDataDeleteForbidden",
                "Only the user's own variables can be deleted.",
                Value::Null,
            ));
        }
        self.services[index].env.retain(|e| e.id != id);
        Ok(self.env_process(index, "stack.userDataDelete", now))
    }

    pub(super) fn create_project_env(
        &mut self,
        req: &Request,
        scope: &TokenScope,
        id: &str,
        now: Instant,
    ) -> Outcome {
        let index = self.project(scope, id)?;
        let body = State::body(req)?;
        let key = body
            .get("key")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let content = body
            .get("content")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(error(
                400,
                "projectEnvKeyInvalid",
                &format!("invalid key {key:?}"),
                Value::Null,
            ));
        }
        if self.projects[index]
            .env
            .iter()
            .any(|e| e.key.eq_ignore_ascii_case(&key))
        {
            return Err(error(
                400,
                "projectEnvDuplicateKey",
                &format!("Project env {key} already exists."),
                Value::Null,
            ));
        }
        let env_id = self.new_id("penv");
        let sensitive = body
            .get("sensitive")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        self.projects[index].env.push(EnvRec {
            id: env_id,
            key,
            content,
            kind: "USER".into(),
            sensitive,
        });
        let duration = self.config.process_duration;
        let p = self.start_process(id, "project.envCreate", &[], Effect::None, None, duration);
        Ok(ok(self.process_json(p, now)))
    }

    pub(super) fn delete_project_env(
        &mut self,
        scope: &TokenScope,
        id: &str,
        now: Instant,
    ) -> Outcome {
        let Some(index) = self
            .projects
            .iter()
            .position(|p| p.env.iter().any(|e| e.id == id))
        else {
            return Err(error(
                404,
                "projectEnvNotFound",
                "Project env not found.",
                Value::Null,
            ));
        };
        let project_id = self.projects[index].id.clone();
        self.project(scope, &project_id)?;
        self.projects[index].env.retain(|e| e.id != id);
        let duration = self.config.process_duration;
        let p = self.start_process(
            &project_id,
            "project.envDelete",
            &[],
            Effect::None,
            None,
            duration,
        );
        Ok(ok(self.process_json(p, now)))
    }
}

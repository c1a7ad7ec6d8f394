//! Service import from YAML: whole-request validation first (hostname, type, mode,
//! no `project:`), then per-service results with name clashes reported inside a 200.

use std::time::Instant;

use crate::json;

use serde_json::Value;

use super::{Outcome, State, TokenScope, error, now_text, ok};
use crate::sim::catalog::{self, Category};
use crate::sim::http::Request;
use crate::sim::model::{Effect, EnvRec, PortRec, ServiceRec};

impl State {
    pub(super) fn import(
        &mut self,
        req: &Request,
        scope: &TokenScope,
        project_id: &str,
        now: Instant,
    ) -> Outcome {
        self.project(scope, project_id)?;
        let body = State::body(req)?;
        let yaml_text = body.get("yaml").and_then(Value::as_str).unwrap_or("");
        let seed = self.counter;
        let yaml_text = expand_random_strings(yaml_text, seed);
        let doc = crate::ops::validate::yaml::parse(&yaml_text)
            .and_then(|d| d.to_json())
            .map_err(|e| {
                error(
                    400,
                    "projectImportInvalidYaml",
                    &format!("Invalid YAML: {e}"),
                    Value::Null,
                )
            })?;
        if doc.get("project").is_some() {
            return Err(error(
                400,
                "projectImportProjectIncluded",
                "The import must not contain a project section.",
                Value::Null,
            ));
        }
        let Some(services) = doc.get("services").and_then(Value::as_array) else {
            return Err(error(
                400,
                "projectImportMissingParameter",
                "Missing parameter.",
                json!([{"code": "projectImportMissingParameter", "error": "Missing parameter.", "metadata": {"parameter": ["services"]}}]),
            ));
        };
        // Whole-request validation first, as the platform does.
        let mut plans = Vec::new();
        for service in services {
            let host = service
                .get("hostname")
                .and_then(Value::as_str)
                .unwrap_or("");
            let valid_host = host.len() <= 40
                && host.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                && host
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
            if !valid_host {
                return Err(error(
                    400,
                    "serviceStackNameInvalid",
                    &format!("Invalid service stack name {host:?}."),
                    Value::Null,
                ));
            }
            let type_name = service.get("type").and_then(Value::as_str).unwrap_or("");
            let Some(resolved) = catalog::resolve(type_name) else {
                return Err(error(
                    400,
                    "serviceStackTypeNotFound",
                    "Service stack type not found.",
                    json!([{"code": "serviceStackTypeNotFound", "error": "Service stack type not found.", "metadata": {"serviceStackTypeVersion": [type_name]}}]),
                ));
            };
            let mode = service.get("mode").and_then(Value::as_str);
            let mode = match (resolved.entry.category, mode, resolved.implied_mode) {
                (Category::ObjectStorage, Some(_), _) => {
                    return Err(error(
                        400,
                        "projectImportInvalidParameter",
                        "Invalid parameter provided.",
                        json!([{"code": "projectImportInvalidParameter", "error": "Invalid parameter provided.", "metadata": {(format!("{host}.mode")): ["mode not supported"]}}]),
                    ));
                }
                (_, Some(m), _) if m != "HA" && m != "NON_HA" => {
                    return Err(error(
                        400,
                        "projectImportInvalidParameter",
                        "Invalid parameter provided.",
                        json!([{"code": "projectImportInvalidParameter", "error": "Invalid parameter provided.", "metadata": {(format!("{host}.mode")): [format!("Allowed values: [HA, NON_HA], {m} given.")]}}]),
                    ));
                }
                (Category::Managed | Category::SharedStorage, None, None) => {
                    return Err(error(
                        400,
                        "projectImportMissingParameter",
                        "Missing parameter.",
                        json!([{"code": "projectImportMissingParameter", "error": "Missing parameter.", "metadata": {"parameter": [format!("{host}.mode")]}}]),
                    ));
                }
                (_, Some(m), _) => m.to_owned(),
                (_, None, Some(implied)) => implied.to_owned(),
                (_, None, None) => "NON_HA".to_owned(),
            };
            plans.push((service.clone(), host.to_owned(), resolved, mode));
        }
        let mut out = Vec::new();
        for (service, host, resolved, mode) in plans {
            let taken = self
                .services
                .iter()
                .find(|s| s.project_id == project_id && s.name == host)
                .map(|s| s.id.clone());
            let new_id = self.new_id("svc");
            if let Some(id) = taken {
                // `override: true` re-imports an existing hostname. Live, that is a no-op for
                // an unchanged service and ignores changed fields: the service stays as is.
                let kept = service.get("override") == Some(&Value::Bool(true));
                out.push(json!({ "id": if kept { id } else { new_id }, "name": host, "processes": [],
                    "error": (!kept).then(|| json!({ "code": "serviceStackNameUnavailable", "message": format!("Service stack name {host} is already used."), "meta": null })) }));
                continue;
            }
            let entry = resolved.entry;
            let password = format!("pw{}", self.counter);
            let mut env: Vec<EnvRec> = Vec::new();
            if matches!(entry.category, Category::Managed | Category::ObjectStorage) {
                for (key, value) in catalog::generated_env(entry, &host, &password) {
                    let env_id = self.new_id("ud");
                    env.push(EnvRec {
                        id: env_id,
                        key,
                        content: value,
                        kind: "READ_ONLY".into(),
                        sensitive: false,
                    });
                }
            }
            // `envSecrets` (plain), and the newer `vault`: `NAME: value` or
            // `NAME: {value, sensitive}` (plain without the flag).
            let secrets = service.get("envSecrets").and_then(Value::as_object);
            let vault = service.get("vault").and_then(Value::as_object);
            let items =
                secrets
                    .into_iter()
                    .flatten()
                    .map(|(key, value)| (key, value, false))
                    .chain(vault.into_iter().flatten().map(
                        |(key, item)| match item.get("value") {
                            Some(value) => (
                                key,
                                value,
                                item.get("sensitive").and_then(Value::as_bool) == Some(true),
                            ),
                            None => (key, item, false),
                        },
                    ));
            for (key, value, sensitive) in items {
                let env_id = self.new_id("ud");
                env.push(EnvRec {
                    id: env_id,
                    key: key.clone(),
                    content: text_of(value),
                    kind: "SECRET".into(),
                    sensitive,
                });
            }
            // Every runtime knows its own hostname (managed services list it with the
            // variables they generate).
            if entry.category == Category::Runtime {
                let env_id = self.new_id("ud");
                env.push(EnvRec {
                    id: env_id,
                    key: "hostname".into(),
                    content: host.clone(),
                    kind: "READ_ONLY".into(),
                    sensitive: false,
                });
            }
            let starts = matches!(
                entry.category,
                Category::Managed | Category::ObjectStorage | Category::SharedStorage
            ) || service
                .get("startWithoutCode")
                .and_then(Value::as_bool)
                .unwrap_or(false)
                || entry.name == "static";
            let final_status = if starts { "ACTIVE" } else { "READY_TO_DEPLOY" };
            let autoscaling = imported_autoscaling(&service, entry.category, &mode);
            self.services.push(ServiceRec {
                id: new_id.clone(),
                project_id: project_id.to_owned(),
                client_id: self.client_id.clone(),
                name: host.clone(),
                status: "CREATING".into(),
                mode,
                type_id: entry.name.into(),
                type_name: entry.display.into(),
                category: entry.category.api_name().into(),
                version_name: resolved.version_name.clone(),
                is_system: false,
                subdomain_access: false,
                ports: entry
                    .ports
                    .iter()
                    .map(|(port, protocol, http)| PortRec {
                        port: *port,
                        protocol: (*protocol).into(),
                        http: *http,
                    })
                    .collect(),
                autoscaling,
                env,
                created: now_text(),
                cpu_mode_changed: None,
                subdomain_on_first_deploy: entry.category == Category::Runtime
                    && service
                        .get("enableSubdomainAccess")
                        .and_then(Value::as_bool)
                        == Some(true),
            });
            let duration = self.config.process_duration;
            let p = self.start_process(
                project_id,
                "stack.import",
                &[&new_id],
                Effect::SetStatus {
                    service: new_id.clone(),
                    status: final_status.into(),
                },
                None,
                duration,
            );
            // The service did not exist before its import: a canceled import takes the
            // half-created service away again (its hostname free for the next try).
            self.on_cancel(
                p,
                Effect::RemoveService {
                    service: new_id.clone(),
                },
            );
            out.push(json!({ "id": new_id, "name": host, "error": null, "processes": [self.process_json(p, now)] }));
        }
        Ok(ok(
            json!({ "projectId": project_id, "projectName": self.project_name(project_id), "serviceStacks": out }),
        ))
    }
}

/// The one preprocessor function the simulator runs, the one recipes use for app keys:
/// with `#yamlPreprocessor=on` first, each `<@generateRandomString(<N>)>` becomes N random
/// letters and digits. Other functions stay as written.
fn expand_random_strings(text: &str, seed: u64) -> String {
    const OPEN: &str = "<@generateRandomString(<";
    if !crate::ops::validate::preprocessor_on(text) {
        return text.to_owned();
    }
    let mut state = seed ^ 0x9e37_79b9_7f4a_7c15;
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(OPEN) {
        out.push_str(&rest[..at]);
        let after = &rest[at + OPEN.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        let length = after[..digits].parse::<usize>().ok().filter(|n| *n <= 1024);
        match length.filter(|_| after[digits..].starts_with(">)>")) {
            Some(length) => {
                for _ in 0..length {
                    // xorshift: plenty for made-up secrets in a simulation.
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    const CHARS: &[u8] =
                        b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
                    out.push(char::from(CHARS[(state % 62) as usize]));
                }
                rest = &after[digits + 3..];
            }
            None => {
                out.push_str(OPEN);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The scaling an imported service starts with, in the shape `PUT .../autoscaling` stores
/// and the service GET returns: the import's `verticalAutoscaling` mapped to the API's
/// names, and container counts by category. Runtimes take `minContainers`/`maxContainers`
/// (1 each when absent, a lone minimum raising the maximum with it); a managed service's
/// count is fixed by its mode (HA 3, NON_HA 1, as the platform runs them); object and
/// shared storage have no container scaling.
fn imported_autoscaling(service: &Value, category: Category, mode: &str) -> Value {
    let horizontal = match category {
        Category::Runtime => {
            let min = service
                .get("minContainers")
                .and_then(Value::as_u64)
                .unwrap_or(1);
            let max = service
                .get("maxContainers")
                .and_then(Value::as_u64)
                .unwrap_or(min.max(1));
            json!({ "minContainerCount": min, "maxContainerCount": max })
        }
        Category::Managed => {
            let count = if mode == "HA" { 3 } else { 1 };
            json!({ "minContainerCount": count, "maxContainerCount": count })
        }
        Category::ObjectStorage | Category::SharedStorage => Value::Null,
    };
    json!({
        "verticalAutoscaling": service.get("verticalAutoscaling").map_or(Value::Null, vertical),
        "horizontalAutoscaling": horizontal,
    })
}

/// An import's `verticalAutoscaling` (`cpuMode`, `minCpu`, `maxRam`, `minFreeRamGB`, ...)
/// in the API's shape (`cpuMode`, `minResource.cpuCoreCount`, `maxResource.memoryGBytes`,
/// `minFreeResource.memoryGBytes`, ...); what the import leaves out is null.
fn vertical(given: &Value) -> Value {
    if !given.is_object() {
        return Value::Null;
    }
    json!({
        "cpuMode": leaf(given, &["cpuMode"]),
        "startCpuCoreCount": leaf(given, &["startCpuCoreCount"]),
        "swapEnabled": leaf(given, &["swapEnabled"]),
        "minResource": resource(given, "min"),
        "maxResource": resource(given, "max"),
        "minFreeResource": nonempty(json!({
            "cpuCoreCount": leaf(given, &["minFreeCpuCores"]),
            "cpuCorePercent": leaf(given, &["minFreeCpuPercent"]),
            "memoryGBytes": leaf(given, &["minFreeRamGB"]),
            "memoryPercent": leaf(given, &["minFreeRamPercent"]),
        })),
    })
}

/// One end (`min`/`max`) of the resource range. A fixed `cpu`/`ram`/`disk` sets both ends;
/// `minVCpu`/`maxVCpu` are the deprecated spellings of `minCpu`/`maxCpu`.
fn resource(given: &Value, end: &str) -> Value {
    nonempty(json!({
        "cpuCoreCount": leaf(given, &["cpu", &format!("{end}Cpu"), &format!("{end}VCpu")]),
        "memoryGBytes": leaf(given, &["ram", &format!("{end}Ram")]),
        "diskGBytes": leaf(given, &["disk", &format!("{end}Disk")]),
    }))
}

/// The first of `keys` the import gives a value, else null.
fn leaf(given: &Value, keys: &[&str]) -> Value {
    keys.iter()
        .find_map(|key| given.get(*key).filter(|v| !v.is_null()))
        .cloned()
        .unwrap_or(Value::Null)
}

/// `block`, or null when every one of its leaves is (as the API renders an unset block).
fn nonempty(block: Value) -> Value {
    let empty = block
        .as_object()
        .is_some_and(|fields| fields.values().all(Value::is_null));
    if empty { Value::Null } else { block }
}

/// A variable's value as text: strings as they are, other scalars as JSON writes them.
fn text_of(value: &Value) -> String {
    value
        .as_str()
        .map_or_else(|| value.to_string(), str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_resources_set_both_ends_and_old_spellings_still_count() {
        let service = json!({"verticalAutoscaling": {"cpu": 2, "minVCpu": 9, "maxRam": 4, "swapEnabled": true}});
        let scaling = imported_autoscaling(&service, Category::Runtime, "NON_HA");
        let v = &scaling["verticalAutoscaling"];
        assert_eq!(
            v["minResource"],
            json!({"cpuCoreCount": 2, "memoryGBytes": null, "diskGBytes": null})
        );
        assert_eq!(
            v["maxResource"],
            json!({"cpuCoreCount": 2, "memoryGBytes": 4, "diskGBytes": null})
        );
        assert_eq!(v["swapEnabled"], true);
        assert_eq!(v["minFreeResource"], Value::Null);
        let old = json!({"verticalAutoscaling": {"minVCpu": 1, "maxVCpu": 3}});
        let v =
            imported_autoscaling(&old, Category::Runtime, "NON_HA")["verticalAutoscaling"].clone();
        assert_eq!(v["minResource"]["cpuCoreCount"], 1);
        assert_eq!(v["maxResource"]["cpuCoreCount"], 3);
    }

    #[test]
    fn containers_by_category() {
        let counts = |service: Value, category, mode| {
            imported_autoscaling(&service, category, mode)["horizontalAutoscaling"].clone()
        };
        let range =
            |min: u64, max: u64| json!({"minContainerCount": min, "maxContainerCount": max});
        assert_eq!(counts(json!({}), Category::Runtime, "NON_HA"), range(1, 1));
        assert_eq!(
            counts(json!({"minContainers": 3}), Category::Runtime, "NON_HA"),
            range(3, 3)
        );
        assert_eq!(
            counts(json!({"maxContainers": 4}), Category::Runtime, "NON_HA"),
            range(1, 4)
        );
        // Counts in an import of a managed service change nothing: the mode decides.
        assert_eq!(
            counts(json!({"maxContainers": 6}), Category::Managed, "HA"),
            range(3, 3)
        );
        assert_eq!(counts(json!({}), Category::Managed, "NON_HA"), range(1, 1));
        assert_eq!(
            counts(json!({}), Category::ObjectStorage, "NON_HA"),
            Value::Null
        );
        assert_eq!(
            counts(json!({"minContainers": 2}), Category::SharedStorage, "HA"),
            Value::Null
        );
    }

    /// Only with the header on, only the well-formed function, each call its own value.
    #[test]
    fn random_strings_are_expanded_when_the_preprocessor_is_on() {
        let body = "services:\n  - hostname: a\n    envSecrets:\n      K: <@generateRandomString(<32>)>\n      L: <@generateRandomString(<8>)>\n      M: <@generateRandomString(<x>)>\n";
        let on = format!("#yamlPreprocessor=on\n{body}");
        let expanded = expand_random_strings(&on, 7);
        let value = |key: &str| {
            expanded
                .lines()
                .find_map(|l| l.trim().strip_prefix(key))
                .unwrap()
                .to_owned()
        };
        let (k, l) = (value("K: "), value("L: "));
        assert_eq!(k.len(), 32, "{expanded}");
        assert_eq!(l.len(), 8, "{expanded}");
        assert!(k.chars().all(|c| c.is_ascii_alphanumeric()), "{k}");
        assert_ne!(&k[..8], l);
        assert_eq!(value("M: "), "<@generateRandomString(<x>)>");
        assert_eq!(expand_random_strings(body, 7), body);
    }
}

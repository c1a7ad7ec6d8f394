//! `zerops_discover`: the project and its services as an agent needs them: type and
//! version, status, mode, ports, subdomain state and URL, scaling, and (on request) env
//! variables. Knows nothing of MCP.

use crate::json;

use serde_json::{Map, Value};

use crate::auth::Session;
use crate::platform::{Autoscaling, EnvVar, PlatformError, ServiceStack};

use super::helpers::{check_hostname, find_service, project_services};

/// What to include.
#[derive(Debug, Clone, Default)]
pub struct DiscoverRequest {
    pub service_hostname: Option<String>,
    pub include_envs: bool,
    pub include_env_values: bool,
}

/// Builds the discover result.
pub fn discover(session: &Session, request: &DiscoverRequest) -> Result<Value, PlatformError> {
    if let Some(hostname) = request.service_hostname.as_deref()
        && !hostname.trim().is_empty()
    {
        check_hostname(hostname)?;
    }
    // Asking for the values is asking for the variables: models often send only that.
    let include_envs = request.include_envs || request.include_env_values;
    let project = session.client.get_project(&session.info.project_id)?;
    let mut services = project_services(session)?;
    let mut warnings: Vec<String> = Vec::new();
    // Scaling is shown only from the single-service GET: the search index's autoscaling
    // block is mostly empty, so a listing built from it would show wrong limits.
    let mut fresh_details = false;
    if let Some(hostname) = request
        .service_hostname
        .as_deref()
        .filter(|h| !h.trim().is_empty())
    {
        let found = find_service(&services, hostname.trim())?;
        // The search index can lag; the single-service GET is authoritative.
        let fresh = match session.client.get_service(&found.id) {
            Ok(fresh) => {
                fresh_details = true;
                fresh
            }
            Err(err) => {
                warnings.push(format!(
                    "Could not read fresh details of '{hostname}' ({}); showing the search data",
                    err.code
                ));
                found
            }
        };
        services = vec![fresh];
    }
    crate::order::sort_by(&mut services, |a, b| a.name.cmp(&b.name));
    let subdomain_host = project.zerops_subdomain_host.clone().unwrap_or_default();
    let mut listed = Vec::new();
    for service in &services {
        let envs = if include_envs || request.service_hostname.is_some() {
            match session.client.get_service_env(&service.id) {
                Ok(vars) => Some(vars),
                Err(err) => {
                    warnings.push(format!(
                        "Could not read env variables of '{}': {} {}",
                        service.name, err.code, err.message
                    ));
                    None
                }
            }
        } else {
            None
        };
        let mut entry = service_json(service, &subdomain_host, envs.as_deref());
        if fresh_details {
            let scaling = scaling_json(
                service
                    .current_autoscaling
                    .as_ref()
                    .or(service.custom_autoscaling.as_ref()),
            );
            if !scaling.is_empty() {
                entry.insert("scaling".into(), Value::Object(scaling));
            }
        }
        if include_envs && let Some(vars) = &envs {
            entry.insert("envs".into(), envs_json(vars, request.include_env_values));
        }
        listed.push(Value::Object(entry));
    }
    let mut project_json =
        json!({ "id": project.id, "name": project.name, "status": project.status });
    // Project variables reach every service, so they belong to a one-service view too.
    if include_envs {
        match session.client.get_project_env(&session.info.project_id) {
            Ok(vars) => project_json["envs"] = envs_json(&vars, request.include_env_values),
            Err(err) => warnings.push(format!(
                "Could not read project env variables: {} {}",
                err.code, err.message
            )),
        }
    }
    let mut result = json!({ "project": project_json, "services": listed, "warnings": warnings });
    if request.service_hostname.is_none() {
        result["hint"] = json!("Pass serviceHostname for one service's scaling limits.");
    }
    if include_envs && !request.include_env_values {
        result["note"] = json!("Env values are hidden; pass includeEnvValues: true to see them.");
    }
    Ok(result)
}

fn service_json(
    service: &ServiceStack,
    subdomain_host: &str,
    envs: Option<&[EnvVar]>,
) -> Map<String, Value> {
    let mut entry = Map::new();
    entry.insert("hostname".into(), json!(service.name));
    entry.insert("serviceId".into(), json!(service.id));
    entry.insert("type".into(), json!(service.type_info.version_name));
    entry.insert(
        "category".into(),
        json!(category_name(&service.type_info.category)),
    );
    entry.insert("status".into(), json!(service.status));
    if let Some(mode) = &service.mode {
        entry.insert("mode".into(), json!(mode));
    }
    let ports: Vec<Value> = service
        .ports
        .iter()
        .map(|p| {
            json!({
                "port": p.port,
                "protocol": p.protocol.to_ascii_uppercase(),
                "httpSupport": p.http_routing,
                "public": p.http_routing || p.port_routing,
            })
        })
        .collect();
    entry.insert("ports".into(), json!(ports));
    let mut subdomain = json!({ "enabled": service.subdomain_access });
    if service.subdomain_access
        && let Some(url) = subdomain_url(service, subdomain_host, envs)
    {
        subdomain["url"] = json!(url);
    }
    entry.insert("subdomain".into(), subdomain);
    if let Some(created) = &service.created {
        entry.insert("created".into(), json!(created));
    }
    entry
}

fn category_name(category: &str) -> &'static str {
    match category {
        "USER" => "runtime",
        "STANDARD" => "managed",
        "OBJECT_STORAGE" => "object-storage",
        "SHARED_STORAGE" => "shared-storage",
        _ => "other",
    }
}

/// The public URL: the platform's `zeropsSubdomain` variable when known, else built from
/// the project's subdomain host (`https://<host>-<prefix>[-<port>].<domain>`).
pub fn subdomain_url(
    service: &ServiceStack,
    subdomain_host: &str,
    envs: Option<&[EnvVar]>,
) -> Option<String> {
    if let Some(url) = envs
        .and_then(|vars| vars.iter().find(|v| v.key == "zeropsSubdomain"))
        .map(|v| v.content.clone())
    {
        return Some(url);
    }
    let (prefix, domain) = subdomain_host.split_once('.')?;
    let port = service
        .ports
        .iter()
        .find(|p| p.http_routing)
        .map_or(80, |p| p.port);
    let suffix = if port == 80 {
        String::new()
    } else {
        format!("-{port}")
    };
    Some(format!(
        "https://{}-{prefix}{suffix}.{domain}",
        service.name
    ))
}

/// Non-zero scaling values only (zero means "not set").
fn scaling_json(autoscaling: Option<&Autoscaling>) -> Map<String, Value> {
    let mut out = Map::new();
    let Some(a) = autoscaling else { return out };
    let mut put = |key: &str, value: Option<f64>| {
        if let Some(v) = value.filter(|v| *v > 0.0) {
            out.insert(
                key.into(),
                if v.fract() == 0.0 {
                    json!(v as i64)
                } else {
                    json!(v)
                },
            );
        }
    };
    if let Some(v) = &a.vertical_autoscaling {
        let min = v.min_resource.as_ref();
        let max = v.max_resource.as_ref();
        put("minCpu", min.and_then(|r| r.cpu_core_count));
        put("maxCpu", max.and_then(|r| r.cpu_core_count));
        put("minRam", min.and_then(|r| r.memory_gbytes));
        put("maxRam", max.and_then(|r| r.memory_gbytes));
        put("minDisk", min.and_then(|r| r.disk_gbytes));
        put("maxDisk", max.and_then(|r| r.disk_gbytes));
    }
    if let Some(h) = &a.horizontal_autoscaling {
        put("minContainers", h.min_container_count.map(f64::from));
        put("maxContainers", h.max_container_count.map(f64::from));
    }
    if let Some(mode) = a
        .vertical_autoscaling
        .as_ref()
        .and_then(|v| v.cpu_mode.clone())
    {
        out.insert("cpuMode".into(), json!(mode));
    }
    out
}

/// Variables as `{key, value?, isReference?, isSecret?, isPlatform?}`, sorted by key;
/// values only when asked (they are often secrets). zerops_env get shows the same entries,
/// so the two tools never disagree about a variable.
pub fn envs_json(vars: &[EnvVar], with_values: bool) -> Value {
    let mut sorted: Vec<&EnvVar> = vars.iter().collect();
    crate::order::sort_by(&mut sorted, |a, b| a.key.cmp(&b.key));
    Value::Array(
        sorted
            .into_iter()
            .map(|v| {
                let mut entry = json!({ "key": v.key });
                if with_values {
                    entry["value"] = json!(v.content);
                }
                if v.content.contains("${") {
                    entry["isReference"] = json!(true);
                }
                // Since the platform's 2026-08 change the `sensitive` flag says it; every
                // user service variable is of type `SECRET`, so the type counts only when
                // the flag is missing (an older API).
                if super::env::is_platform(v) {
                    entry["isPlatform"] = json!(true);
                } else if v
                    .sensitive
                    .unwrap_or(v.env_type.as_deref() == Some("SECRET"))
                {
                    entry["isSecret"] = json!(true);
                }
                entry
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::Port;

    /// Secrets are told by the `sensitive` flag; the type only when the flag is missing.
    #[test]
    fn sensitive_variables_are_secrets() {
        let var = |key: &str, env_type: &str, sensitive: Option<bool>| EnvVar {
            id: key.into(),
            key: key.into(),
            content: "v".into(),
            env_type: Some(env_type.into()),
            sensitive,
        };
        let listed = envs_json(
            &[
                var("A", "USER", Some(true)),
                var("B", "USER", Some(false)),
                var("C", "SECRET", None),
                var("D", "SECRET", Some(false)),
            ],
            false,
        );
        let secret: Vec<bool> = listed
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["isSecret"] == true)
            .collect();
        assert_eq!(secret, [true, false, true, false]);
    }

    #[test]
    fn subdomain_urls() {
        let svc = ServiceStack {
            name: "api".into(),
            ports: vec![Port {
                port: 3000,
                http_routing: true,
                ..Default::default()
            }],
            ..Default::default()
        };
        assert_eq!(
            subdomain_url(&svc, "1df2.prg1.zerops.app", None).as_deref(),
            Some("https://api-1df2-3000.prg1.zerops.app")
        );
        let web = ServiceStack {
            name: "web".into(),
            ports: vec![Port {
                port: 80,
                http_routing: true,
                ..Default::default()
            }],
            ..Default::default()
        };
        assert_eq!(
            subdomain_url(&web, "1df2.prg1.zerops.app", None).as_deref(),
            Some("https://web-1df2.prg1.zerops.app")
        );
        assert_eq!(subdomain_url(&web, "1df2", None), None);
        let vars = vec![EnvVar {
            key: "zeropsSubdomain".into(),
            content: "https://x".into(),
            ..Default::default()
        }];
        assert_eq!(
            subdomain_url(&web, "", Some(&vars)).as_deref(),
            Some("https://x")
        );
    }

    #[test]
    fn env_values_are_hidden_unless_asked() {
        let vars = vec![
            EnvVar {
                key: "DB".into(),
                content: "${db_connectionString}".into(),
                env_type: Some("SECRET".into()),
                ..Default::default()
            },
            EnvVar {
                key: "hostname".into(),
                content: "api".into(),
                env_type: Some("READ_ONLY".into()),
                ..Default::default()
            },
        ];
        let hidden = envs_json(&vars, false);
        assert!(hidden[0].get("value").is_none());
        assert_eq!(hidden[0]["isReference"], true);
        assert_eq!(hidden[1]["isPlatform"], true);
        assert_eq!(envs_json(&vars, true)[0]["value"], "${db_connectionString}");
    }
}

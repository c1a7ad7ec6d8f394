//! The text the server hands the model at the handshake: what zcp is, the twelve tools,
//! and the usual order of work. Kept under 2 KB so hosts put all of it in context.

/// Server instructions (`initialize.instructions`, `server/discover.instructions`).
pub const INSTRUCTIONS: &str = "\
zcp controls one Zerops project (a PaaS: project -> services -> Linux containers). Tools:
- zerops_discover: project and services (status, type, ports, subdomain, scaling). Start here.
- zerops_knowledge: search the built-in Zerops docs; read before writing YAML.
- zerops_validate: check zerops.yml or import.yml offline.
- zerops_import: create services from import.yml (no project: section; dryRun validates only).
- zerops_deploy: build and deploy a local directory with zcli push.
- zerops_manage: start, stop, restart or scale a service.
- zerops_env: get, set or delete service or project env variables.
- zerops_subdomain: enable or disable the public zerops.app URL.
- zerops_logs: runtime or build logs of a service.
- zerops_events: recent processes and deploys, newest first.
- zerops_process: status or cancel of an async process.
- zerops_delete: delete a service (needs confirm=true and the user's approval).
Workflow: discover -> knowledge -> write YAML -> validate -> import -> deploy -> subdomain enable -> logs/events to verify.
Async tools follow their process to the end (with a progress token) or for up to 50 s, then return the process id: continue with zerops_process. A deploy may answer while its build still runs (stillRunning): follow it with zerops_events.
Env changes reach running containers only after zerops_manage restart.
Services reach each other over plain http://<hostname>:<port> on the private network; apps must listen on 0.0.0.0.
Errors are JSON {code, error, suggestion}: follow the suggestion.";

// Checked through the binary by `tests/tools_conventions.rs`: every tool named (against
// the served tools/list), under 2 KB, and no "configure" tool.

//! A wire-faithful Zerops API simulator on loopback, for tests and `zcp --demo`.
//!
//! It serves the API paths under `/api/rest/public` and the log backend at `/log/read`
//! over real HTTP/1.1 on `127.0.0.1`, so the real `ureq` client is exercised end to end.
//! State lives in memory; processes advance with time; tests can inject faults per path.

mod api;
mod catalog;
pub mod demo;
mod faults;
mod http;
pub mod model;

use std::collections::HashMap;
use std::io::{self, BufReader, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

pub use api::{Seed, SimConfig, State, TokenScope};
pub use faults::Fault;

use faults::Rule;
use http::{Request, Response};

const API_PREFIX: &str = "/api/rest/public";

/// A running simulator; it stops when the handle is dropped: the listener closes and so
/// does every open connection (a client's pooled keep-alive connections included).
pub struct SimHandle {
    state: Arc<Mutex<State>>,
    base_url: String,
    stop: Arc<AtomicBool>,
    addr: std::net::SocketAddr,
    conns: Arc<Connections>,
    accept: Option<std::thread::JoinHandle<()>>,
}

/// Open connections, so a drop can close them (their threads then end).
#[derive(Default)]
struct Connections {
    open: Mutex<HashMap<u64, TcpStream>>,
    next: AtomicU64,
}

impl Connections {
    fn add(&self, stream: &TcpStream) -> Option<u64> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let clone = stream.try_clone().ok()?;
        self.open
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id, clone);
        Some(id)
    }

    fn remove(&self, id: u64) {
        self.open
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&id);
    }

    fn close_all(&self) {
        let open = std::mem::take(&mut *self.open.lock().unwrap_or_else(|p| p.into_inner()));
        for stream in open.values() {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }
}

/// Starts a simulator on an ephemeral loopback port.
pub fn start(config: SimConfig, seed: Seed) -> io::Result<SimHandle> {
    let listener = TcpListener::bind(std::net::SocketAddr::from(([127, 0, 0, 1], 0)))?;
    let addr = listener.local_addr()?;
    let base_url = format!("http://{addr}");
    let mut state = State::new(config, seed);
    state.base_url = base_url.clone();
    let state = Arc::new(Mutex::new(state));
    let stop = Arc::new(AtomicBool::new(false));
    let conns = Arc::new(Connections::default());
    let (accept_state, accept_stop, accept_conns) = (state.clone(), stop.clone(), conns.clone());
    let accept = std::thread::Builder::new()
        .name("zcp-sim-accept".into())
        .spawn(move || {
            for stream in listener.incoming() {
                if accept_stop.load(Ordering::Acquire) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let Some(id) = accept_conns.add(&stream) else {
                    continue;
                };
                let state = accept_state.clone();
                let stop = accept_stop.clone();
                let conns = accept_conns.clone();
                let spawned = std::thread::Builder::new()
                    .name("zcp-sim-conn".into())
                    .spawn(move || {
                        serve_connection(stream, &state, &stop);
                        conns.remove(id);
                    });
                if spawned.is_err() {
                    accept_conns.remove(id);
                }
            }
        })?;
    Ok(SimHandle {
        state,
        base_url,
        stop,
        addr,
        conns,
        accept: Some(accept),
    })
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|p| p.into_inner())
}

fn serve_connection(stream: TcpStream, state: &Mutex<State>, stop: &AtomicBool) {
    let Ok(write_half) = stream.try_clone() else {
        return;
    };
    let mut writer = write_half;
    let mut reader = BufReader::new(stream);
    while !stop.load(Ordering::Acquire) {
        let request = match http::read_request(&mut reader) {
            Ok(Some(request)) => request,
            Ok(None) | Err(_) => return,
        };
        // A request that arrives while the simulator shuts down is not answered.
        if stop.load(Ordering::Acquire) {
            let _ = writer.shutdown(Shutdown::Both);
            return;
        }
        let close = request.wants_close();
        if !respond(&request, state, &mut writer, close) || close {
            let _ = writer.shutdown(Shutdown::Both);
            return;
        }
    }
}

/// Which of the simulated hosts a request is for.
enum Backend {
    /// The REST API under `/api/rest/public`.
    Api,
    /// The log backend (`/log/read`).
    Logs,
    /// The package store behind an app version's upload URL (`/upload/{id}`).
    Upload,
}

/// Answers one request, applying any fault. Returns false when the connection must close.
fn respond(request: &Request, state: &Mutex<State>, writer: &mut TcpStream, close: bool) -> bool {
    let (route_path, backend) = if let Some(rest) = request.path.strip_prefix(API_PREFIX) {
        (rest.to_owned(), Backend::Api)
    } else if request.path == "/log/read" {
        ("/log/read".to_owned(), Backend::Logs)
    } else if request.path.starts_with("/upload/") {
        (request.path.clone(), Backend::Upload)
    } else {
        let response = Response::json(
            404,
            &crate::json!({"error": {"code": "notFound", "message": "no such path", "meta": null}}),
        );
        return http::write_response(writer, &response, close).is_ok();
    };
    let fault = {
        let mut guard = lock(state);
        take_fault(&mut guard.faults, &request.method, &route_path)
    };
    match &fault {
        Some(Fault::Reset) => return false,
        Some(Fault::Latency(delay)) => std::thread::sleep(*delay),
        Some(Fault::Status { status, body }) => {
            let response = Response {
                status: *status,
                headers: vec![("Content-Type".into(), "application/json".into())],
                body: body.clone().into_bytes(),
            };
            return http::write_response(writer, &response, close).is_ok();
        }
        Some(Fault::Malformed) => {
            let response = Response {
                status: 200,
                headers: vec![("Content-Type".into(), "application/json".into())],
                body: b"<html><body>502 upstream hiccup</body></html>".to_vec(),
            };
            return http::write_response(writer, &response, close).is_ok();
        }
        Some(Fault::RateLimited { retry_after_secs }) => {
            let mut response = Response::json(
                429,
                &crate::json!({"error": {"code": "tooManyRequests", "message": "Too many requests.", "meta": null}}),
            );
            response
                .headers
                .push(("Retry-After".into(), retry_after_secs.to_string()));
            return http::write_response(writer, &response, close).is_ok();
        }
        _ => {}
    }
    let response = {
        let mut guard = lock(state);
        match backend {
            Backend::Api => guard.handle_api(request, &route_path, Instant::now()),
            Backend::Logs => guard.handle_logs(request),
            Backend::Upload => guard.handle_upload(request),
        }
    };
    match fault {
        Some(Fault::Truncated) => {
            let cut = response.body.len() / 2;
            let _ = http::write_head(writer, &response, response.body.len() + 100, true);
            let _ = writer.write_all(&response.body[..cut]);
            let _ = writer.flush();
            false
        }
        Some(Fault::SlowBody(delay)) => {
            if http::write_head(writer, &response, response.body.len(), close).is_err() {
                return false;
            }
            let _ = writer.flush();
            std::thread::sleep(delay);
            writer
                .write_all(&response.body)
                .and_then(|()| writer.flush())
                .is_ok()
        }
        _ => http::write_response(writer, &response, close).is_ok(),
    }
}

fn take_fault(rules: &mut Vec<Rule>, method: &str, path: &str) -> Option<Fault> {
    let index = rules
        .iter()
        .position(|r| faults::matches(&r.pattern, method, path))?;
    let fault = rules[index].fault.clone();
    if let Some(remaining) = rules[index].remaining.as_mut() {
        *remaining = remaining.saturating_sub(1);
        if *remaining == 0 {
            rules.remove(index);
        }
    }
    Some(fault)
}

impl SimHandle {
    /// `http://127.0.0.1:PORT`, for `ZEROPS_API_HOST`.
    pub fn base_url(&self) -> String {
        self.base_url.clone()
    }

    /// Makes requests matching `pattern` misbehave until [`SimHandle::clear_faults`].
    pub fn set_fault(&self, pattern: &str, fault: Fault) {
        lock(&self.state).faults.push(Rule {
            pattern: pattern.to_owned(),
            fault,
            remaining: None,
        });
    }

    /// Like [`SimHandle::set_fault`], for the next `times` matching requests only.
    pub fn set_fault_times(&self, pattern: &str, fault: Fault, times: u32) {
        lock(&self.state).faults.push(Rule {
            pattern: pattern.to_owned(),
            fault,
            remaining: Some(times),
        });
    }

    pub fn clear_faults(&self) {
        lock(&self.state).faults.clear();
    }

    /// Reproduces the live bug where search endpoints ignore a token's project scope.
    pub fn set_search_leak(&self, on: bool) {
        lock(&self.state).search_leak = on;
    }

    /// Makes searches ignore `offset`, answering every page with the first one.
    pub fn set_search_ignores_offset(&self, on: bool) {
        lock(&self.state).search_ignores_offset = on;
    }

    /// Runs `f` with the state locked (inspection and set-up in tests).
    pub fn with_state<R>(&self, f: impl FnOnce(&mut State) -> R) -> R {
        f(&mut lock(&self.state))
    }

    /// Every request seen so far (`METHOD /path`).
    pub fn requests(&self) -> Vec<String> {
        lock(&self.state).requests.clone()
    }

    /// Deploys to a service in-process, as `zcli push` would: creates an app version and
    /// starts its build pipeline with the deployed zerops.yml text and setup (`None`: the
    /// setup named like the service), whose `run.ports` the service gets once the version
    /// is active; `failure` makes the build fail with that reason. Returns the app version
    /// id.
    pub fn push(
        &self,
        service_id: &str,
        zerops_yaml: Option<&str>,
        setup: Option<&str>,
        failure: Option<String>,
    ) -> Result<String, String> {
        let mut state = lock(&self.state);
        let service = state
            .services
            .iter()
            .find(|s| s.id == service_id)
            .cloned()
            .ok_or_else(|| format!("Service [{service_id}] not found"))?;
        let scope = TokenScope::All;
        let id = state.new_id("av");
        let build = state.new_id("bld");
        let sequence = i64::try_from(
            state
                .app_versions
                .iter()
                .filter(|v| v.service_id == service_id)
                .count(),
        )
        .unwrap_or(0)
            + 1;
        let client_id = state.client_id.clone();
        let duration = state.config.build_duration;
        state.app_versions.push(model::AppVersionRec {
            id: id.clone(),
            client_id,
            project_id: service.project_id.clone(),
            service_id: service_id.to_owned(),
            build_service_id: build,
            source: "CLI".into(),
            sequence,
            created: crate::time::format_rfc3339(std::time::SystemTime::now()),
            pipeline_started: None,
            duration,
            failure: None,
            superseded: false,
            canceled: false,
            fixed_status: None,
            run: None,
            start_command: None,
        });
        state
            .build_and_deploy(&scope, &id, zerops_yaml, setup, failure, Instant::now())
            .map_err(|r| String::from_utf8_lossy(&r.body).into_owned())?;
        Ok(id)
    }
}

impl Drop for SimHandle {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        // Wake the accept loop so it sees the flag, then close what is still open.
        // (Joined only when the wake-up got through, so a drop can never hang.)
        let woke = TcpStream::connect(self.addr).is_ok();
        if let Some(accept) = self.accept.take()
            && woke
        {
            let _ = accept.join();
        }
        self.conns.close_all();
    }
}

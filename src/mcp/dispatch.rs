//! Routing of one input line (spec §12): classify it, pick the era, answer cheap methods on
//! the reader thread and hand tool calls and resource reads to the pool.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use crate::json;

use serde_json::Value;

use super::context::Threshold;
use super::era::{self, EnvelopeInfo, Era, LegacyVersion};
use super::framing::Frame;
use super::inflight::RequestState;
use super::jsonrpc::{self, ErrorReply, Incoming, Request, RequestId, code};
use super::logging::LogLevel;
use super::methods;
use super::server::{NOT_NEGOTIATED, Shared};

/// Methods that may block and therefore run on a worker.
fn runs_on_pool(method: &str) -> bool {
    matches!(method, "tools/call" | "resources/read" | "resources/list")
}

/// The per-request facts every method handler needs.
pub(crate) struct Call<'a> {
    pub id: &'a RequestId,
    pub params: Option<&'a Value>,
    /// The request's progress token as JSON text (see [`jsonrpc::Request`]).
    pub progress_token: Option<&'a str>,
    pub era: Era,
    pub envelope: EnvelopeInfo,
    pub state: &'a Arc<RequestState>,
}

impl Shared {
    pub(crate) fn handle_frame(self: &Arc<Self>, frame: Frame) {
        let line = match frame {
            Frame::Line(line) => line,
            Frame::TooLong { bytes, head } => {
                let reply = ErrorReply::new(
                    jsonrpc::id_in_head(&head),
                    code::INVALID_REQUEST,
                    format!(
                        "Invalid request: a line of {bytes} bytes exceeds the {} MiB limit and was skipped",
                        self.max_line_mib()
                    ),
                );
                self.writer.write_line(&reply.to_line());
                return;
            }
        };
        let this = self.clone();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
            this.handle_line(&line)
        }));
        if outcome.is_err() {
            crate::error!("mcp", "internal fault while dispatching a line; serving on");
        }
    }

    fn max_line_mib(&self) -> usize {
        self.max_line / (1024 * 1024)
    }

    fn handle_line(self: &Arc<Self>, line: &[u8]) {
        match jsonrpc::classify(line) {
            Incoming::Request(request) => self.dispatch(request, line.len()),
            Incoming::Notification { method, cancelled } => self.notification(&method, cancelled),
            Incoming::ClientResponse => {
                crate::debug!("mcp", "ignoring a response object from the client")
            }
            Incoming::Batch(items) => self.batch(items),
            Incoming::Invalid(reply) => self.writer.write_line(&reply.to_line()),
        }
    }

    /// Runs a request: on the pool when it may block (`bytes`, the line's size, counts
    /// toward the pool's queue limit), else right here.
    fn dispatch(self: &Arc<Self>, request: Request, bytes: usize) {
        if runs_on_pool(&request.method) {
            let state = self.inflight.register(&request.id);
            let shared = self.clone();
            self.pool.execute_sized(bytes, move || {
                // Cancelled while it waited for a worker: it never starts, so nothing the
                // client gave up on can still change anything.
                if !state.is_open() {
                    state.finish();
                    shared.inflight.remove(&request.id, &state);
                    return;
                }
                let reply = shared.execute(&request, &state);
                shared.deliver(&request.id, &state, reply);
            });
        } else {
            let state = Arc::new(RequestState::default());
            let reply = self.execute(&request, &state);
            self.deliver(&request.id, &state, reply);
        }
    }

    /// Writes a reply unless the request was cancelled, and closes it for progress.
    fn deliver(&self, id: &RequestId, state: &Arc<RequestState>, reply: Vec<u8>) {
        self.writer.write_line_if(&reply, || {
            let open = state.is_open();
            state.finish();
            open
        });
        // Closed even if the write did not happen (cancelled, or client gone).
        state.finish();
        self.inflight.remove(id, state);
    }

    /// Computes the reply line for one request on the current thread.
    pub(crate) fn execute(
        self: &Arc<Self>,
        request: &Request,
        state: &Arc<RequestState>,
    ) -> Vec<u8> {
        let shared = self.clone();
        let run = std::panic::AssertUnwindSafe(|| shared.route(request, state));
        match std::panic::catch_unwind(run) {
            Ok(Ok(result)) => jsonrpc::result_line(&request.id, &result),
            Ok(Err(reply)) => reply.to_line(),
            Err(_) => {
                crate::error!(
                    "mcp",
                    "request {} ({}) panicked; answering -32603",
                    request.id,
                    request.method
                );
                ErrorReply::new(
                    Some(request.id.clone()),
                    code::INTERNAL_ERROR,
                    format!("Internal error: the {} handler failed unexpectedly; the server is still running", request.method),
                )
                .to_line()
            }
        }
    }

    fn route(
        self: &Arc<Self>,
        request: &Request,
        state: &Arc<RequestState>,
    ) -> Result<String, ErrorReply> {
        let params = request.params.as_ref();
        let modern = request.method != "initialize" && era::is_enveloped(params);
        let (era, envelope) = if modern {
            (Era::Modern, era::check_envelope(&request.id, params)?)
        } else {
            (Era::Legacy(self.legacy_version()), EnvelopeInfo::default())
        };
        let call = Call {
            id: &request.id,
            params,
            progress_token: request.progress_token.as_deref(),
            era,
            envelope,
            state,
        };
        let method = request.method.as_str();
        let not_found = || {
            ErrorReply::new(
                Some(request.id.clone()),
                code::METHOD_NOT_FOUND,
                format!("Method not found: {method}"),
            )
        };
        if modern {
            return match method {
                "server/discover" => Ok(methods::discover(self, &call)),
                "tools/list" => methods::tools_list(self, &call),
                "tools/call" => methods::tools_call(self, &call),
                "resources/list" => methods::resources_list(self, &call),
                "resources/templates/list" => methods::templates_list(self, &call),
                "resources/read" => methods::resources_read(self, &call),
                "ping" | "logging/setLevel" | "resources/subscribe" | "resources/unsubscribe" => {
                    Err(ErrorReply::new(
                        Some(request.id.clone()),
                        code::METHOD_NOT_FOUND,
                        format!(
                            "Method not found: {method} is not part of protocol revision {}",
                            era::MODERN_VERSION
                        ),
                    ))
                }
                "subscriptions/listen" => Err(ErrorReply::new(
                    Some(request.id.clone()),
                    code::METHOD_NOT_FOUND,
                    "Method not found: subscriptions/listen is not implemented (the tool and resource lists never change)",
                )),
                _ => Err(not_found()),
            };
        }
        match method {
            "initialize" => methods::initialize(self, &call),
            "ping" => Ok("{}".to_owned()),
            // Only the stateless revision has this method, and its requests carry the
            // version in `_meta`: without it, name the missing key (spec: -32602).
            "server/discover" => Err(ErrorReply::new(
                Some(request.id.clone()),
                code::INVALID_PARAMS,
                format!(
                    "Invalid params: server/discover needs params._meta[\"{}\"] (protocol revision {} or later)",
                    era::meta_key::PROTOCOL_VERSION,
                    era::MODERN_VERSION
                ),
            )),
            "tools/list" => methods::tools_list(self, &call),
            "tools/call" => methods::tools_call(self, &call),
            "resources/list" => methods::resources_list(self, &call),
            "resources/templates/list" => methods::templates_list(self, &call),
            "resources/read" => methods::resources_read(self, &call),
            "logging/setLevel" => self.set_log_level(&call),
            _ => Err(not_found()),
        }
    }

    /// The version legacy requests are shaped for.
    pub(crate) fn legacy_version(&self) -> LegacyVersion {
        match self.negotiated.load(Ordering::Acquire) {
            0 => LegacyVersion::V2024_11_05,
            1 => LegacyVersion::V2025_03_26,
            2 => LegacyVersion::V2025_06_18,
            _ => era::DEFAULT_LEGACY,
        }
    }

    pub(crate) fn set_negotiated(&self, version: LegacyVersion) {
        let index = match version {
            LegacyVersion::V2024_11_05 => 0,
            LegacyVersion::V2025_03_26 => 1,
            LegacyVersion::V2025_06_18 => 2,
            LegacyVersion::V2025_11_25 => 3,
        };
        self.negotiated.store(index, Ordering::Release);
    }

    /// The level protocol logs are sent at for this call, if any.
    pub(crate) fn log_threshold(&self, call: &Call<'_>) -> Threshold {
        if call.era.is_modern() {
            call.envelope
                .log_level
                .map_or(Threshold::Off, Threshold::Fixed)
        } else {
            Threshold::Shared(self.legacy_log_level.clone())
        }
    }

    fn set_log_level(&self, call: &Call<'_>) -> Result<String, ErrorReply> {
        let level = call
            .params
            .and_then(|p| p.get("level"))
            .and_then(Value::as_str);
        match level.and_then(LogLevel::parse) {
            Some(level) => {
                self.legacy_log_level
                    .store(level.to_u8(), Ordering::Release);
                Ok("{}".to_owned())
            }
            None => Err(ErrorReply::new(
                Some(call.id.clone()),
                code::INVALID_PARAMS,
                format!(
                    "Invalid params: level must be one of {}",
                    LogLevel::NAMES.join(", ")
                ),
            )),
        }
    }

    fn notification(&self, method: &str, cancelled: Option<RequestId>) {
        match method {
            "notifications/cancelled" => match cancelled {
                Some(id) => {
                    if self.inflight.cancel(&id) {
                        crate::debug!("mcp", "request {id} cancelled by the client");
                    }
                }
                None => {
                    crate::debug!("mcp", "ignoring a cancellation without a usable requestId")
                }
            },
            "notifications/initialized" => {}
            other => crate::debug!("mcp", "ignoring notification {other}"),
        }
    }

    /// JSON-RPC batches: only after a 2025-03-26 handshake, and never with enveloped
    /// requests (spec §1.3). Everything else is one `-32600` and nothing runs.
    fn batch(self: &Arc<Self>, items: Vec<Box<serde_json::value::RawValue>>) {
        let batches_allowed = self.negotiated.load(Ordering::Acquire) != NOT_NEGOTIATED
            && self.legacy_version() == LegacyVersion::V2025_03_26;
        let enveloped = items.iter().any(|raw| {
            serde_json::from_str::<Value>(raw.get())
                .ok()
                .is_some_and(|v| era::is_enveloped(v.get("params")))
        });
        if items.is_empty() || !batches_allowed || enveloped {
            let why = if items.is_empty() {
                "an empty batch"
            } else if enveloped {
                "batches cannot carry 2026-07-28 requests"
            } else {
                "batches are only accepted after negotiating protocol version 2025-03-26"
            };
            let reply = ErrorReply::new(
                None,
                code::INVALID_REQUEST,
                format!("Invalid request: {why}"),
            );
            self.writer.write_line(&reply.to_line());
            return;
        }
        self.batches_running.fetch_add(1, Ordering::AcqRel);
        // Every request of the batch is in the in-flight table from now on, not only once
        // its turn comes: a cancellation (or the end of input) must reach the ones still
        // waiting too, and those then never run.
        let elements: Vec<(Incoming, Option<Arc<RequestState>>)> = items
            .iter()
            .map(|raw| {
                let incoming = jsonrpc::classify_raw(raw);
                let state = match &incoming {
                    Incoming::Request(request) if request.method != "initialize" => {
                        Some(self.inflight.register(&request.id))
                    }
                    _ => None,
                };
                (incoming, state)
            })
            .collect();
        let bytes = items.iter().map(|raw| raw.get().len()).sum();
        let shared = self.clone();
        self.pool.execute_sized(bytes, move || {
            let mut replies: Vec<Vec<u8>> = Vec::new();
            for (incoming, state) in elements {
                match incoming {
                    Incoming::Request(request) if request.method == "initialize" => {
                        replies.push(
                            ErrorReply::new(
                                Some(request.id),
                                code::INVALID_REQUEST,
                                "Invalid request: initialize must not be part of a batch",
                            )
                            .to_line(),
                        );
                    }
                    Incoming::Request(request) => {
                        let state = state.unwrap_or_else(|| shared.inflight.register(&request.id));
                        if state.is_open() {
                            let reply = shared.execute(&request, &state);
                            if state.is_open() {
                                replies.push(reply);
                            }
                        }
                        state.finish();
                        shared.inflight.remove(&request.id, &state);
                    }
                    Incoming::Notification { method, cancelled } => {
                        shared.notification(&method, cancelled)
                    }
                    Incoming::ClientResponse => {}
                    Incoming::Batch(_) => replies.push(
                        ErrorReply::new(
                            None,
                            code::INVALID_REQUEST,
                            "Invalid request: nested batch",
                        )
                        .to_line(),
                    ),
                    Incoming::Invalid(reply) => replies.push(reply.to_line()),
                }
            }
            if !replies.is_empty() {
                let mut line = b"[".to_vec();
                for (i, reply) in replies.iter().enumerate() {
                    if i > 0 {
                        line.push(b',');
                    }
                    line.extend_from_slice(reply);
                }
                line.push(b']');
                shared.writer.write_line(&line);
            }
            shared.batches_running.fetch_sub(1, Ordering::AcqRel);
        });
    }
}

/// Adds the modern-era stamps to a result object: `resultType`, server identity and, for
/// cacheable results, `ttlMs` + `cacheScope`.
pub(crate) fn stamp_modern(
    shared: &Shared,
    result: &mut serde_json::Map<String, Value>,
    cacheable: bool,
) {
    result.insert("resultType".into(), json!("complete"));
    if cacheable {
        result.insert("ttlMs".into(), json!(3_600_000));
        result.insert("cacheScope".into(), json!("public"));
    }
    let meta = result.entry("_meta").or_insert_with(|| json!({}));
    if let Some(meta) = meta.as_object_mut() {
        meta.insert(
            era::meta_key::SERVER_INFO.into(),
            json!({ "name": shared.info.name, "version": shared.info.version }),
        );
    }
}

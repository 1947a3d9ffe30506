//! The MCP side of `provscope serve`: an `rmcp` server handler over stdio.

use super::{Answer, Replay};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, InitializeResult,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{json, Value};
use std::io::Write;
use std::sync::{Arc, Mutex};

/// The handler: the replay, and where notes go (the server's log, stderr).
#[derive(Clone)]
struct Handler {
    replay: Arc<Replay>,
    tools: Arc<Vec<Tool>>,
    log: Arc<Mutex<Box<dyn Write + Send>>>,
}

impl Handler {
    fn note(&self, msg: &str) {
        // The arguments come from the client: escaped like everything untrusted.
        let line = crate::text::one_line(msg).into_owned();
        if let Ok(mut w) = self.log.lock() {
            let _ = writeln!(w, "provscope serve ({}): {line}", self.replay.server);
            let _ = w.flush();
        }
    }
}

impl ServerHandler for Handler {
    fn get_info(&self) -> InitializeResult {
        let mut info = InitializeResult::new(ServerCapabilities::builder().enable_tools().build());
        info.server_info = Implementation::new(
            self.replay.server.clone(),
            env!("CARGO_PKG_VERSION").to_owned(),
        );
        info.instructions = Some(format!(
            "Replays the results `{}` recorded for case {} (provscope serve).",
            self.replay.server, self.replay.case_id
        ));
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        serde_json::from_value(json!({ "tools": &*self.tools }))
            .map_err(|e| ErrorData::internal_error(format!("tools/list: {e}"), None))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.map_or(Value::Null, Value::Object);
        let Some(answer) = self.replay.answer(&request.name, &args) else {
            self.note(&format!("unknown tool `{}` called", request.name));
            return Err(ErrorData::invalid_params(
                format!("unknown tool: {}", request.name),
                None,
            ));
        };
        let (call_id, result) = match answer {
            Answer::Exact { call_id, result } => (call_id, result),
            Answer::Closest {
                call_id,
                result,
                note,
            } => {
                self.note(&note);
                (call_id, result)
            }
        };
        self.note(&format!(
            "{} answered with the recorded result of `{call_id}`",
            request.name
        ));
        let r: CallToolResult = serde_json::from_value(result).map_err(|e| {
            ErrorData::internal_error(
                format!("the recorded result of `{call_id}` is not a CallToolResult: {e}"),
                None,
            )
        })?;
        Ok(CallToolResponse::Complete(r))
    }
}

/// Why the replay server could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// A recorded tool's input schema is not an object schema the SDK accepts.
    #[error("tool `{tool}`: its input schema is not usable: {detail}")]
    Schema {
        /// The tool.
        tool: String,
        /// Why.
        detail: String,
    },
    /// The async runtime could not start.
    #[error("cannot start the runtime: {0}")]
    Runtime(std::io::Error),
    /// The MCP handshake failed.
    #[error("MCP initialization failed: {0}")]
    Initialize(String),
    /// The server stopped with an error.
    #[error("the server stopped: {0}")]
    Stopped(String),
}

/// Serves `replay` on stdin/stdout until the client disconnects; notes go to `log`.
pub fn run_stdio(replay: Replay, log: Box<dyn Write + Send>) -> Result<(), ServeError> {
    let tools: Vec<Tool> = replay
        .tools
        .iter()
        .map(|t| {
            serde_json::from_value(json!({
                "name": t.name,
                "description": format!("Recorded by provscope for case {} (server {}).", replay.case_id, replay.server),
                "inputSchema": t.input_schema,
            }))
            .map_err(|e| ServeError::Schema {
                tool: t.name.clone(),
                detail: e.to_string(),
            })
        })
        .collect::<Result<_, _>>()?;
    let handler = Handler {
        replay: Arc::new(replay),
        tools: Arc::new(tools),
        log: Arc::new(Mutex::new(log)),
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)?;
    let outcome = rt.block_on(async move {
        let running = handler
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| ServeError::Initialize(e.to_string()))?;
        running
            .waiting()
            .await
            .map_err(|e| ServeError::Stopped(e.to_string()))?;
        Ok(())
    });
    // A read of stdin cannot be cancelled: when the service stopped for another reason than end
    // of input (stdout closed), waiting for that read would hang the process. Do not wait.
    rt.shutdown_timeout(std::time::Duration::from_millis(100));
    outcome
}

//! `verify --otlp FILE` and `--otlp-endpoint URL`: findings as OpenTelemetry traces
//! (`export::otlp`; attributes in docs/team.md).

use crate::export::otlp;
use crate::model::Timestamp;
use crate::pipeline::Outcome;
use std::path::PathBuf;

/// OTLP encodings for `--otlp-protocol`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OtlpProtocol {
    /// OTLP/HTTP with a protobuf body (`application/x-protobuf`).
    #[value(name = "http/protobuf")]
    HttpProtobuf,
    /// OTLP/HTTP with a JSON body (`application/json`).
    #[value(name = "http/json")]
    HttpJson,
}

/// The OTLP options of `verify`.
#[derive(clap::Args, Debug, Default)]
pub struct OtlpArgs {
    /// Also write the findings as an OTLP/JSON trace request to FILE: one span per checked
    /// claim under one span per session (see docs/team.md).
    #[arg(long, value_name = "FILE")]
    pub otlp: Option<PathBuf>,
    /// Also send them to an OTLP/HTTP collector (`/v1/traces` is appended unless present).
    /// Default: $OTEL_EXPORTER_OTLP_TRACES_ENDPOINT when set.
    #[arg(long, value_name = "URL")]
    pub otlp_endpoint: Option<String>,
    /// Body encoding for --otlp-endpoint.
    #[arg(long, value_enum, value_name = "PROTOCOL")]
    pub otlp_protocol: Option<OtlpProtocol>,
    /// An extra request header for --otlp-endpoint, `NAME=VALUE` (repeatable; also read from
    /// $OTEL_EXPORTER_OTLP_HEADERS). Values are never printed.
    #[arg(long, value_name = "NAME=VALUE")]
    pub otlp_header: Vec<String>,
}

impl OtlpArgs {
    /// True when any OTLP output was asked for.
    pub fn wanted(&self) -> bool {
        self.otlp.is_some() || self.endpoint().is_some()
    }

    fn endpoint(&self) -> Option<String> {
        self.otlp_endpoint.clone().or_else(|| {
            std::env::var("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
                .ok()
                .filter(|e| !e.is_empty())
        })
    }
}

fn headers(a: &OtlpArgs) -> Result<Vec<(String, String)>, super::CliError> {
    let mut out = Vec::new();
    let env = std::env::var("OTEL_EXPORTER_OTLP_HEADERS").unwrap_or_default();
    for h in env
        .split(',')
        .filter(|h| !h.trim().is_empty())
        .chain(a.otlp_header.iter().map(String::as_str))
    {
        let (k, v) = h.split_once('=').ok_or_else(|| {
            super::CliError::Usage(
                "an OTLP header must be NAME=VALUE (got a header without `=`)".to_owned(),
            )
        })?;
        out.push((k.trim().to_owned(), v.trim().to_owned()));
    }
    Ok(out)
}

/// Writes and/or sends the OTLP request for a checked run.
/// `calls` holds each report's call details (same order as `o.reports`), gathered while the
/// sessions were checked.
pub fn emit(
    a: &OtlpArgs,
    o: &Outcome,
    calls: &[otlp::CallIndex],
    now: Timestamp,
) -> Result<(), super::CliError> {
    let calls = if calls.len() == o.reports.len() {
        calls
    } else {
        &[]
    };
    let req = otlp::request(&o.reports, calls, now);
    if let Some(file) = &a.otlp {
        std::fs::write(file, otlp::to_json(&req) + "\n").map_err(|e| {
            super::CliError::Export(format!("--otlp: cannot write {}: {e}", file.display()))
        })?;
    }
    if let Some(endpoint) = a.endpoint() {
        let protocol = match a.otlp_protocol {
            Some(OtlpProtocol::HttpJson) => otlp::Protocol::Json,
            Some(OtlpProtocol::HttpProtobuf) => otlp::Protocol::Protobuf,
            None => match std::env::var("OTEL_EXPORTER_OTLP_PROTOCOL").as_deref() {
                Ok("http/json") => otlp::Protocol::Json,
                _ => otlp::Protocol::Protobuf,
            },
        };
        otlp::send(&req, &endpoint, protocol, &headers(a)?)
            .map_err(|e| super::CliError::Export(e.to_string()))?;
    }
    Ok(())
}

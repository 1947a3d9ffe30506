//! The domain's types: events of the session log, the loaded session, tiers, spans, timestamps.
//! Pure data with serde; no I/O.

pub mod case;
mod diag;
pub mod event;
mod kind;
pub mod mcp;
mod name;
mod session;
pub mod span;
mod tier;
mod timestamp;

pub use diag::{DiagLevel, Diagnostic};
pub use event::{
    CacheInfo, CitationInfo, ContextEntry, Event, Fact, IngestTag, Origin, Provenance, Render,
    ServerInfo, SessionHeader, Span, SpanUnit, Stamp, FORMAT_VERSION,
};
pub use kind::{Kind, Severity, ALL_KINDS};
pub use mcp::{CallRequest, CallResponse, CallToolResult, ContentBlock, ResultRare, RpcId};
pub use name::{Name, Names};
pub(crate) use session::{exact, fit};
pub use session::{
    location, Answer, Call, Claim, ClaimLabels, Context, EnvelopeForm, EnvelopeRecord, IdIndex,
    ImportInfo, Label, Located, Session, SessionIndex, SubSession, ToolResult, Turn, TurnGroups,
    TurnIndex,
};
pub use tier::Tier;
pub use timestamp::{human_duration, Timestamp, TimestampError};

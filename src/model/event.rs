//! The session log's events: one JSON object per line, discriminated by `"event"`.
//! `docs/session-format.md` is the normative description of every field here.

use super::mcp::{CallRequest, CallResponse};
use super::Name;
use super::{Tier, Timestamp};
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::fmt;

/// The session log format version this build reads and writes.
pub const FORMAT_VERSION: u32 = 1;

/// Names of every event kind, in the order they usually appear.
pub const EVENT_KINDS: &[&str] = &[
    "session",
    "turn",
    "tool_call",
    "tool_result",
    "context",
    "answer",
    "envelope",
    "label",
];

/// How span offsets count characters in a block's text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SpanUnit {
    /// Unicode scalar values (Rust `char`, Python `str` indexes). The default.
    #[default]
    Char,
    /// UTF-8 bytes.
    Utf8,
    /// UTF-16 code units (JavaScript string indexes).
    Utf16,
}

/// One MCP server seen in the session.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct ServerInfo {
    /// The server name, as used in `tool_call.server` and stamps.
    pub name: String,
    /// Its trust tier; `unknown` when absent.
    #[serde(default)]
    pub tier: Tier,
    /// Public keys (`ed25519:<base64>` or SPKI PEM) trusted to attest this server's calls.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attestor_keys: Vec<String>,
    /// Public keys that belong to the tool server itself; envelopes signed by them are self-attestation.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub server_keys: Vec<String>,
}

/// The session header: the first event of every log.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct SessionHeader {
    /// The format version (`1`).
    pub version: u32,
    /// A stable session id.
    pub session_id: String,
    /// The agent that ran the session.
    #[serde(default)]
    pub agent: Option<String>,
    /// The model behind the agent.
    #[serde(default)]
    pub model: Option<String>,
    /// When the session started.
    pub started_at: Timestamp,
    /// Every MCP server the session talked to.
    #[serde(default)]
    pub servers: Vec<ServerInfo>,
    /// Default render policy for claims whose stamp has none (e.g. `require_tier_gte_1`).
    #[serde(default)]
    pub render_policy: Option<String>,
    /// How span offsets are counted (default `char`).
    #[serde(default)]
    pub span_unit: SpanUnit,
    /// Whether every tool call must carry an execution envelope.
    #[serde(default)]
    pub require_envelopes: bool,
    /// ArkForge receipt issuer keys pinned for this session (`ed25519:<base64url>`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub receipt_keys: Vec<String>,
    /// Free-form title shown in listings.
    #[serde(default)]
    pub title: Option<String>,
}

/// A turn: the user's message that starts it.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct TurnEvent {
    /// Turn index, starting at 1, unique within the session.
    pub turn: u32,
    /// The user's message.
    pub user: Name,
    /// When the user message arrived.
    #[serde(default)]
    pub started_at: Option<Timestamp>,
    /// When the turn's answer was delivered.
    #[serde(default)]
    pub ended_at: Option<Timestamp>,
}

/// A `tools/call` request as sent.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct ToolCallEvent {
    /// The turn the call belongs to.
    pub turn: u32,
    /// The server the call went to.
    pub server: Name,
    /// When the client sent it.
    pub issued_at: Timestamp,
    /// Fan-out group id, shared by calls issued concurrently.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fanout: Option<Name>,
    /// Session-unique call id; defaults to the text of `request.id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<Name>,
    /// The JSON-RPC request.
    pub request: CallRequest,
}

/// Where a cached result came from.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
pub struct CacheInfo {
    /// True when the result was served from a cache.
    #[serde(default)]
    pub hit: bool,
    /// When the cached copy was originally fetched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original_fetched_at: Option<Timestamp>,
}

/// The ingestion tag the middleware wraps each result in (playbook move 1).
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct IngestTag {
    /// The call this result answers.
    pub call_id: Name,
    /// Server name.
    pub server: Name,
    /// Tool name.
    pub tool: Name,
    /// Hex SHA-256 of the RFC 8785 canonical JSON of the call's arguments.
    pub arguments_hash: Name,
    /// When the data was fetched (for a cache hit: when the cache served it).
    pub fetched_at: Timestamp,
    /// How long the data may be relied on, in seconds; absent means the configured default.
    #[serde(default)]
    pub ttl_seconds: Option<u64>,
    /// Cache provenance.
    #[serde(default)]
    pub cache: CacheInfo,
    /// When the response reached the client.
    pub returned_at: Timestamp,
}

/// A `tools/call` response as received, with its ingestion tag.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct ToolResultEvent {
    /// The turn the result belongs to.
    pub turn: u32,
    /// The ingestion tag.
    pub tag: IngestTag,
    /// The JSON-RPC response.
    pub response: CallResponse,
    /// When the result is another agent's answer: that agent's session log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sub_session: Option<SubSessionRef>,
}

/// A reference from a tool result to the session log of the agent that produced it.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SubSessionRef {
    /// The sub-agent session's `session_id`.
    pub session_id: String,
    /// Its log, relative to the directory of the log that refers to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// One result as it entered the model's context.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct ContextEntry {
    /// The call whose result was in context.
    pub call_id: Name,
    /// The visible per-call marker placed in the context text, or null when flattened.
    #[serde(default)]
    pub marker: Option<Name>,
}

/// Which results were in context when the turn's answer was generated.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct ContextEvent {
    /// The turn whose answer this context produced.
    pub turn: u32,
    /// The results in context, in context order.
    pub results: Vec<ContextEntry>,
}

/// Where a claim came from: the playbook's `origin`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
pub struct Origin {
    /// The call id of the originating `tools/call`.
    pub tool_call_id: Name,
    /// Server name.
    pub server: Name,
    /// Tool name.
    pub tool: Name,
    /// Arguments hash (full hex, or an abbreviation of at least 6 hex digits).
    pub arguments_hash: Name,
    /// Fetch time of the cited result.
    pub fetched_at: Timestamp,
    /// TTL of the cited result, in seconds.
    #[serde(default)]
    pub ttl_seconds: Option<u64>,
}

/// The cited span: `[start, end)` in `block` of the origin result's `content`.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
pub struct Span {
    /// Index into the result's `content` array.
    pub block: u64,
    /// Start offset (inclusive), in the session's span unit.
    pub start: u64,
    /// End offset (exclusive).
    pub end: u64,
}

/// How the claim is rendered to the user.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
pub struct Render {
    /// The citation marker shown to the user (e.g. `[2]`), if any.
    #[serde(default)]
    pub marker: Option<Name>,
    /// Render policy, e.g. `require_tier_gte_1`.
    #[serde(default)]
    pub policy: Option<Name>,
}

/// Who made a stamp: the producer of the log, or provscope from the API's own citations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Provenance {
    /// Written by the producer of the log (the agent or its middleware). The default.
    #[default]
    Declared,
    /// Derived by an importer from citations the model API returned (Anthropic `citations`,
    /// OpenAI `annotations`, Gemini `groundingSupports`).
    Derived,
}

/// The API citation a derived stamp was made from, kept for display.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
pub struct CitationInfo {
    /// The citation's kind as the API names it (`char_location`, `url_citation`, ...). A
    /// [`Name`]: every claim of a response repeats one or two kinds.
    pub kind: Name,
    /// The URL it names, if any (a [`Name`]: an answer cites a few sources many times).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<Name>,
    /// The source text the API says it cited, if it gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cited_text: Option<String>,
}

/// A provenance stamp: one claim of an answer, in the playbook's schema.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct Stamp {
    /// Claim id; the same id across turns means the same claim.
    pub claim_id: Name,
    /// The claim as stated to the user (shared by the statements that repeat it).
    pub claim_text: Name,
    /// The originating call; absent or null when the claim is unsourced.
    #[serde(default)]
    pub origin: Option<Origin>,
    /// The supporting span of the origin result.
    #[serde(default)]
    pub span: Option<Span>,
    /// Rendering.
    #[serde(default)]
    pub render: Option<Render>,
    /// Who made the stamp; absent means `declared`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Provenance>,
    /// For a derived stamp: the API citation it was made from (boxed: declared stamps have
    /// none, and a session holds every stamp).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub citation: Option<Box<CitationInfo>>,
}

impl Stamp {
    /// Who made the stamp (`declared` unless the log says otherwise).
    pub fn provenance(&self) -> Provenance {
        self.provenance.unwrap_or_default()
    }
}

/// The turn's final answer. Claims are parsed one by one so a bad stamp costs only itself.
#[derive(Debug, Deserialize)]
pub struct AnswerEvent {
    /// The turn this answers.
    pub turn: u32,
    /// When the answer was generated.
    pub generated_at: Timestamp,
    /// The answer text as shown to the user.
    pub text: Name,
    /// Claim stamps, raw.
    #[serde(default)]
    pub claims: Vec<Box<RawValue>>,
}

/// A signed execution envelope (or an ArkForge receipt) for one call, carried intact.
#[derive(Debug, Deserialize)]
pub struct EnvelopeEvent {
    /// The call the envelope attests.
    pub call_id: Name,
    /// The DSSE envelope, raw (see `docs/envelope-format.md`). Present even when it is `null`
    /// (an invalid envelope, reported as such); `None` only when the key is absent.
    #[serde(default, deserialize_with = "present")]
    pub envelope: Option<Box<RawValue>>,
    /// An ArkForge Trust Layer receipt (proof-spec 2.1.0) for the call, raw, instead of a DSSE
    /// envelope (see `docs/envelope-format.md`, "Receipts in a session").
    #[serde(default, deserialize_with = "present")]
    pub receipt: Option<Box<RawValue>>,
}

/// A field that is there whatever its value, `null` included (absent fields get `None` from
/// `#[serde(default)]`).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Box<RawValue>>, D::Error> {
    Box::<RawValue>::deserialize(d).map(Some)
}

/// Fact-axis ground truth for a claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, Hash)]
#[serde(rename_all = "lowercase")]
pub enum Fact {
    /// The claim is factually right.
    Right,
    /// The claim is factually wrong.
    Wrong,
}

/// An eval label for the fact axis.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct LabelEvent {
    /// The labelled claim.
    pub claim_id: Name,
    /// The turn, when the label applies to one turn only; absent means every turn with that claim.
    #[serde(default)]
    pub turn: Option<u32>,
    /// Right or wrong.
    pub fact: Fact,
    /// Where the label came from (`eval:pricing-v3`, `human:alice`, ...).
    #[serde(default)]
    pub source: Option<Name>,
}

/// One line of a session log.
#[derive(Debug)]
pub enum Event {
    /// `session`
    Session(SessionHeader),
    /// `turn`
    Turn(TurnEvent),
    /// `tool_call`
    ToolCall(ToolCallEvent),
    /// `tool_result`
    ToolResult(ToolResultEvent),
    /// `context`
    Context(ContextEvent),
    /// `answer`
    Answer(AnswerEvent),
    /// `envelope`
    Envelope(EnvelopeEvent),
    /// `label`
    Label(LabelEvent),
    /// An event kind this build does not know; skipped with a diagnostic.
    Unknown(String),
}

impl Event {
    /// The event kind's name.
    pub fn kind(&self) -> &str {
        match self {
            Event::Session(_) => "session",
            Event::Turn(_) => "turn",
            Event::ToolCall(_) => "tool_call",
            Event::ToolResult(_) => "tool_result",
            Event::Context(_) => "context",
            Event::Answer(_) => "answer",
            Event::Envelope(_) => "envelope",
            Event::Label(_) => "label",
            Event::Unknown(k) => k,
        }
    }

    fn from_rest<'de, A: MapAccess<'de>>(kind: &str, rest: A) -> Result<Event, A::Error> {
        let d = de::value::MapAccessDeserializer::new(rest);
        Ok(match kind {
            "session" => Event::Session(Deserialize::deserialize(d)?),
            "turn" => Event::Turn(Deserialize::deserialize(d)?),
            "tool_call" => Event::ToolCall(Deserialize::deserialize(d)?),
            "tool_result" => Event::ToolResult(Deserialize::deserialize(d)?),
            "context" => Event::Context(Deserialize::deserialize(d)?),
            "answer" => Event::Answer(Deserialize::deserialize(d)?),
            "envelope" => Event::Envelope(Deserialize::deserialize(d)?),
            "label" => Event::Label(Deserialize::deserialize(d)?),
            other => {
                de::IgnoredAny::deserialize(d)?;
                Event::Unknown(other.to_owned())
            }
        })
    }
}

impl<'de> Deserialize<'de> for Event {
    /// Fast path: `"event"` is the first key (as every producer should write it), and the rest
    /// of the object streams straight into the typed event. Otherwise the object is buffered.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Event;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an event object with an \"event\" field")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Event, A::Error> {
                let first = match a.next_key::<std::borrow::Cow<'de, str>>()? {
                    Some(k) => k,
                    None => return Err(de::Error::missing_field("event")),
                };
                if first == "event" {
                    let kind: std::borrow::Cow<'de, str> = a.next_value()?;
                    return Event::from_rest(&kind, a);
                }
                // Slow path: buffer the object, find "event", replay the rest.
                let mut obj = serde_json::Map::new();
                let v: serde_json::Value = a.next_value()?;
                obj.insert(first.into_owned(), v);
                while let Some((k, v)) = a.next_entry::<String, serde_json::Value>()? {
                    obj.insert(k, v);
                }
                let kind = match obj.remove("event") {
                    Some(serde_json::Value::String(s)) => s,
                    Some(_) => return Err(de::Error::custom("`event` must be a string")),
                    None => return Err(de::Error::missing_field("event")),
                };
                let rest = de::value::MapDeserializer::<_, serde_json::Error>::new(obj.into_iter());
                Event::from_rest(&kind, rest).map_err(de::Error::custom)
            }
        }
        d.deserialize_map(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_first_and_event_later_parse_the_same() {
        let a = r#"{"event":"turn","turn":3,"user":"hi"}"#;
        let b = r#"{"turn":3,"user":"hi","event":"turn"}"#;
        for s in [a, b] {
            match serde_json::from_str::<Event>(s).unwrap() {
                Event::Turn(t) => assert_eq!((t.turn, t.user.as_str()), (3, "hi")),
                e => panic!("wrong event {e:?}"),
            }
        }
    }

    #[test]
    fn unknown_kinds_are_kept_as_unknown() {
        let e: Event = serde_json::from_str(r#"{"event":"heartbeat","x":[1,2]}"#).unwrap();
        assert!(matches!(e, Event::Unknown(k) if k == "heartbeat"));
    }

    #[test]
    fn missing_fields_are_errors() {
        assert!(serde_json::from_str::<Event>(r#"{"event":"turn","user":"hi"}"#).is_err());
        assert!(serde_json::from_str::<Event>(r#"{"turn":1}"#).is_err());
    }
}

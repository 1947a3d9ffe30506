//! A small builder for sessions in tests: a clean baseline that each test bends one way.

use provscope::attest::hash::canonical_sha256;
use provscope::check::{check_session, Config, Finding, Kind, SessionReport};
use provscope::ingest::{load_bytes, LoadOptions};
use provscope::model::Session;
use serde_json::{json, Value};

/// (call id, marker) of a context entry.
pub type ContextEntry = (String, Option<String>);

/// One tool call of a fixture.
#[derive(Clone)]
pub struct FxCall {
    pub id: String,
    pub turn: u32,
    pub server: String,
    pub tool: String,
    pub args: Value,
    pub text: String,
    pub issued: String,
    pub returned: String,
    pub fetched: String,
    pub ttl: u64,
    pub fanout: Option<String>,
    pub cache_original: Option<String>,
}

impl FxCall {
    pub fn new(id: &str, turn: u32, server: &str, text: &str) -> Self {
        FxCall {
            id: id.into(),
            turn,
            server: server.into(),
            tool: "get_plan_price".into(),
            args: json!({"plan": "team"}),
            text: text.into(),
            issued: format!("2026-10-02T14:0{turn}:00Z"),
            returned: format!("2026-10-02T14:0{turn}:01Z"),
            fetched: format!("2026-10-02T14:0{turn}:01Z"),
            ttl: 3600,
            fanout: None,
            cache_original: None,
        }
    }

    pub fn hash(&self) -> String {
        canonical_sha256(&self.args).unwrap()
    }
}

/// One claim of a fixture.
#[derive(Clone)]
pub struct FxClaim {
    pub id: String,
    pub turn: u32,
    pub text: String,
    /// (call id, phrase cited inside that call's text)
    pub cite: Option<(String, String)>,
    pub marker: Option<String>,
    pub policy: String,
    pub origin_override: Option<Value>,
    pub span_override: Option<Value>,
}

impl FxClaim {
    pub fn new(id: &str, turn: u32, text: &str, call: &str, phrase: &str) -> Self {
        FxClaim {
            id: id.into(),
            turn,
            text: text.into(),
            cite: Some((call.into(), phrase.into())),
            marker: Some("[1]".into()),
            policy: "require_tier_gte_1".into(),
            origin_override: None,
            span_override: None,
        }
    }
}

/// A whole session.
pub struct Fx {
    pub servers: Vec<(String, String)>,
    pub turns: u32,
    pub calls: Vec<FxCall>,
    pub claims: Vec<FxClaim>,
    /// turn -> (call id, marker) in context; missing turn means "every call of the turn, marked".
    pub context: Vec<(u32, Vec<ContextEntry>)>,
    pub answer_text: Vec<(u32, String)>,
    pub generated: Vec<(u32, String)>,
    pub labels: Vec<(String, &'static str)>,
    pub extra_lines: Vec<Value>,
}

impl Fx {
    /// A clean baseline: one T0 pricing call, one claim that cites it exactly.
    pub fn baseline() -> Self {
        Fx {
            servers: vec![
                ("pricing.internal".into(), "T0".into()),
                ("mirror.vendor.com".into(), "T1".into()),
                ("community-prices".into(), "T2".into()),
            ],
            turns: 1,
            calls: vec![FxCall::new(
                "req_1",
                1,
                "pricing.internal",
                "Team plan: seats cost $19 per user per month.",
            )],
            claims: vec![FxClaim::new(
                "clm_price",
                1,
                "Team seats cost $19 per user per month",
                "req_1",
                "seats cost $19 per user per month",
            )],
            context: vec![],
            answer_text: vec![],
            generated: vec![],
            labels: vec![("clm_price".into(), "right")],
            extra_lines: vec![],
        }
    }

    pub fn claim(&mut self, id: &str) -> &mut FxClaim {
        self.claims
            .iter_mut()
            .find(|c| c.id == id)
            .expect("fixture claim")
    }

    pub fn lines(&self) -> Vec<Value> {
        let mut out = vec![
            json!({"event":"session","version":1,"session_id":"fx","agent":"test","model":"m",
            "started_at":"2026-10-02T14:00:00Z","render_policy":"require_tier_gte_1",
            "servers": self.servers.iter().map(|(n, t)| json!({"name": n, "tier": t})).collect::<Vec<_>>()}),
        ];
        for t in 1..=self.turns {
            out.push(json!({"event":"turn","turn":t,"user":format!("question {t}")}));
            for c in self.calls.iter().filter(|c| c.turn == t) {
                let mut ev = json!({"event":"tool_call","turn":t,"server":c.server,"issued_at":c.issued,
                    "request":{"jsonrpc":"2.0","id":c.id,"method":"tools/call","params":{"name":c.tool,"arguments":c.args}}});
                if let Some(f) = &c.fanout {
                    ev["fanout"] = json!(f);
                }
                out.push(ev);
            }
            for c in self.calls.iter().filter(|c| c.turn == t) {
                let mut tag = json!({"call_id":c.id,"server":c.server,"tool":c.tool,"arguments_hash":c.hash(),
                    "fetched_at":c.fetched,"ttl_seconds":c.ttl,"returned_at":c.returned});
                if let Some(o) = &c.cache_original {
                    tag["cache"] = json!({"hit": true, "original_fetched_at": o});
                }
                out.push(json!({"event":"tool_result","turn":t,"tag":tag,
                    "response":{"jsonrpc":"2.0","id":c.id,"result":{"content":[{"type":"text","text":c.text}]}}}));
            }
            let ctx: Vec<Value> = match self.context.iter().find(|(ct, _)| *ct == t) {
                Some((_, entries)) => entries
                    .iter()
                    .map(|(id, m)| json!({"call_id": id, "marker": m}))
                    .collect(),
                None => self
                    .calls
                    .iter()
                    .filter(|c| c.turn == t)
                    .enumerate()
                    .map(|(i, c)| json!({"call_id": c.id, "marker": format!("[{}]", i + 1)}))
                    .collect(),
            };
            out.push(json!({"event":"context","turn":t,"results":ctx}));
            let claims: Vec<Value> = self
                .claims
                .iter()
                .filter(|c| c.turn == t)
                .map(|c| self.stamp(c))
                .collect();
            let text = self
                .answer_text
                .iter()
                .find(|(at, _)| *at == t)
                .map(|(_, s)| s.clone())
                .unwrap_or_else(|| {
                    // As a renderer writes it: each claim, then its marker.
                    self.claims
                        .iter()
                        .filter(|c| c.turn == t)
                        .map(|c| match &c.marker {
                            Some(m) => format!("{} {m}", c.text),
                            None => c.text.clone(),
                        })
                        .collect::<Vec<_>>()
                        .join(". ")
                });
            let gen = self
                .generated
                .iter()
                .find(|(gt, _)| *gt == t)
                .map(|(_, s)| s.clone())
                .unwrap_or_else(|| format!("2026-10-02T14:0{t}:30Z"));
            out.push(
                json!({"event":"answer","turn":t,"generated_at":gen,"text":text,"claims":claims}),
            );
        }
        for (id, fact) in &self.labels {
            out.push(json!({"event":"label","claim_id":id,"fact":fact,"source":"test"}));
        }
        out.extend(self.extra_lines.iter().cloned());
        out
    }

    fn stamp(&self, c: &FxClaim) -> Value {
        let (origin, span) = match &c.cite {
            None => (Value::Null, Value::Null),
            Some((call_id, phrase)) => {
                let call = self.calls.iter().find(|x| &x.id == call_id);
                let origin = match call {
                    Some(call) => {
                        json!({"tool_call_id": call.id, "server": call.server, "tool": call.tool,
                        "arguments_hash": call.hash(), "fetched_at": call.fetched, "ttl_seconds": call.ttl})
                    }
                    None => {
                        json!({"tool_call_id": call_id, "server": "pricing.internal", "tool": "get_plan_price",
                        "arguments_hash": "abcdef", "fetched_at": "2026-10-02T14:01:01Z", "ttl_seconds": 3600})
                    }
                };
                let span = match call {
                    Some(call) => {
                        let b = call
                            .text
                            .find(phrase.as_str())
                            .expect("phrase in call text");
                        let start = call.text[..b].chars().count();
                        json!({"block": 0, "start": start, "end": start + phrase.chars().count()})
                    }
                    None => json!({"block": 0, "start": 0, "end": 5}),
                };
                (origin, span)
            }
        };
        json!({"claim_id": c.id, "claim_text": c.text,
            "origin": c.origin_override.clone().unwrap_or(origin),
            "span": c.span_override.clone().unwrap_or(span),
            "render": {"marker": c.marker, "policy": c.policy}})
    }

    pub fn jsonl(&self) -> String {
        self.lines().iter().map(|v| v.to_string() + "\n").collect()
    }

    pub fn session(&self) -> Session {
        load_bytes(
            "fx",
            "fx.jsonl",
            self.jsonl().as_bytes(),
            &LoadOptions::default(),
        )
    }

    pub fn report(&self) -> SessionReport {
        self.report_with(&Config::default())
    }

    pub fn report_with(&self, cfg: &Config) -> SessionReport {
        let s = self.session();
        assert!(
            s.diagnostics.is_empty(),
            "fixture has diagnostics: {:?}",
            s.diagnostics
        );
        check_session(&s, cfg)
    }
}

/// Findings of one kind.
pub fn of_kind(r: &SessionReport, k: Kind) -> Vec<&Finding> {
    r.findings.iter().filter(|f| f.kind == k).collect()
}

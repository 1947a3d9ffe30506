//! The seam for claim extraction. Formats without citations (Claude Code, OpenTelemetry,
//! Claude Desktop logs, Langfuse) load their answers with no stamps: nothing is invented. A
//! future extractor that finds claims in an answer and binds them to results plugs in here.

use crate::model::{Session, Stamp};

/// Finds claims in an answer. Implementations must bind a claim only to a recorded result and
/// mark their stamps `provenance: derived`, so reviewers can tell them from declared stamps.
pub trait ClaimExtractor {
    /// The stamps for the answer of `turn`.
    fn extract(&self, session: &Session, turn: u32) -> Vec<Stamp>;
}

/// Adds an extractor's stamps to every answer that has none. Returns how many were added.
pub fn extract_claims(session: &mut Session, extractor: &dyn ClaimExtractor) -> usize {
    let turns: Vec<u32> = session
        .answers
        .iter()
        .filter(|a| a.claims.is_empty())
        .map(|a| a.turn)
        .collect();
    let mut added = 0;
    for turn in turns {
        let stamps = extractor.extract(session, turn);
        let Some(ai) = session.index.answer.get(turn) else {
            continue;
        };
        let answer = &mut session.answers[ai];
        for stamp in stamps {
            let position = answer.claims.len();
            answer.claims.push(crate::model::Claim {
                stamp,
                turn,
                position,
                line: answer.line,
                json_path: answer.json_path.clone(),
            });
            added += 1;
        }
    }
    added
}

//! A file that holds a JSON array of API responses: several whole responses in order (an agent
//! loop that saved each response of a conversation), or, for Gemini, the chunks of streamed
//! responses as `streamGenerateContent` writes them without `alt=sse` (each chunk a
//! `GenerateContentResponse` holding the next piece of the answer).

use serde_json::{Map, Value};

/// The chunks of one streamed Gemini response, joined into the response they make: the
/// ranges of `chunks` that form one response each, with the joined response.
///
/// A response ends at a chunk whose candidates have a `finishReason` (the last chunk of a
/// stream; a response that was not streamed is its own last chunk), or where `responseId`
/// changes. In a response, each candidate (by its `index`, else its position) keeps its parts
/// in order, the text of a text part that follows a text part of the same kind (a thought or
/// not) appended to it; every other field, of the candidate and of the response, is the last
/// chunk's that has it (Gemini sends usage, grounding and citation metadata accumulated, in
/// later chunks).
pub fn join_gemini_chunks(chunks: &[Value]) -> Vec<(std::ops::Range<usize>, Value)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut joined: Option<Map<String, Value>> = None;
    for (i, chunk) in chunks.iter().enumerate() {
        let Some(obj) = chunk.as_object() else {
            // Not a response: closes the one being joined, and stands alone.
            if let Some(j) = joined.take() {
                out.push((start..i, Value::Object(j)));
            }
            out.push((i..i + 1, chunk.clone()));
            start = i + 1;
            continue;
        };
        let id = response_id(obj);
        let other_response = joined
            .as_ref()
            .and_then(response_id)
            .is_some_and(|was| id.is_some_and(|id| id != was));
        if other_response {
            if let Some(j) = joined.take() {
                out.push((start..i, Value::Object(j)));
            }
            start = i;
        }
        match &mut joined {
            None => joined = Some(obj.clone()),
            Some(j) => add_chunk(j, obj),
        }
        if finished(obj) || i + 1 == chunks.len() {
            if let Some(j) = joined.take() {
                out.push((start..i + 1, Value::Object(j)));
            }
            start = i + 1;
        }
    }
    out
}

/// A chunk's `responseId` (`response_id` as the Python SDK writes it).
fn response_id(chunk: &Map<String, Value>) -> Option<&Value> {
    chunk.get("responseId").or_else(|| chunk.get("response_id"))
}

/// Whether a chunk ends its response: one of its candidates has a `finishReason` (or
/// `finish_reason`).
fn finished(chunk: &Map<String, Value>) -> bool {
    let has = |c: &Value, k: &str| c.get(k).is_some_and(|r| !r.is_null());
    chunk
        .get("candidates")
        .and_then(Value::as_array)
        .is_some_and(|cs| {
            cs.iter()
                .any(|c| has(c, "finishReason") || has(c, "finish_reason"))
        })
}

/// Adds a chunk to the response joined so far.
fn add_chunk(joined: &mut Map<String, Value>, chunk: &Map<String, Value>) {
    for (k, v) in chunk {
        if k != "candidates" {
            joined.insert(k.clone(), v.clone());
            continue;
        }
        let Some(new) = v.as_array() else {
            continue;
        };
        let Some(cands) = made(joined, "candidates", Value::Array(Vec::new())).as_array_mut()
        else {
            continue;
        };
        for (pos, c) in new.iter().enumerate() {
            let index = c.get("index").and_then(Value::as_u64);
            let at = match index {
                Some(n) => cands
                    .iter()
                    .position(|x| x.get("index").and_then(Value::as_u64) == Some(n)),
                None => (pos < cands.len()).then_some(pos),
            };
            match (at, c.as_object()) {
                (Some(at), Some(c)) => add_candidate(&mut cands[at], c),
                _ => cands.push(c.clone()),
            }
        }
    }
}

/// Adds a chunk's candidate to the candidate joined so far.
fn add_candidate(joined: &mut Value, chunk: &Map<String, Value>) {
    let Some(joined) = joined.as_object_mut() else {
        return;
    };
    for (k, v) in chunk {
        if k != "content" {
            joined.insert(k.clone(), v.clone());
            continue;
        }
        let Some(content) = v.as_object() else {
            continue;
        };
        let Some(into) = made(joined, "content", Value::Object(Map::new())).as_object_mut() else {
            continue;
        };
        for (ck, cv) in content {
            if ck != "parts" {
                into.insert(ck.clone(), cv.clone());
                continue;
            }
            let Some(parts) = cv.as_array() else {
                continue;
            };
            let Some(list) = made(into, "parts", Value::Array(Vec::new())).as_array_mut() else {
                continue;
            };
            for p in parts {
                match (list.last_mut(), text_part(p)) {
                    (Some(last), Some((text, thought)))
                        if text_part(last).map(|t| t.1) == Some(thought) =>
                    {
                        if let Some(Value::String(t)) = last.get_mut("text") {
                            t.push_str(text);
                        }
                    }
                    _ => list.push(p.clone()),
                }
            }
        }
    }
}

/// The value of `key` in `m`, made `empty` first when it is absent or of another JSON type than
/// `empty`.
fn made<'a>(m: &'a mut Map<String, Value>, key: &str, empty: Value) -> &'a mut Value {
    let same_type = |v: &Value| std::mem::discriminant(v) == std::mem::discriminant(&empty);
    let v = m.entry(key).or_insert_with(|| empty.clone());
    if !same_type(v) {
        *v = empty;
    }
    v
}

/// A part that is only text (and whether it is a thought): `{"text": ...}`, with `thought`
/// at most.
fn text_part(p: &Value) -> Option<(&str, bool)> {
    let o = p.as_object()?;
    let text = o.get("text")?.as_str()?;
    let thought = match o.get("thought") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return None,
    };
    let only_text = o.keys().all(|k| k == "text" || k == "thought");
    only_text.then_some((text, thought))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn chunks_of_a_stream_join_into_one_response() {
        let chunks = vec![
            json!({"candidates":[{"content":{"role":"model","parts":[{"text":"The sky "}]},"index":0}],"responseId":"r1","usageMetadata":{"totalTokenCount":3}}),
            json!({"candidates":[{"content":{"role":"model","parts":[{"text":"is blue."}]},"index":0}],"responseId":"r1","usageMetadata":{"totalTokenCount":5}}),
            json!({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},"index":0}],"responseId":"r1"}),
            json!({"candidates":[{"content":{"role":"model","parts":[{"text":" Done"}]},"index":0,"finishReason":"STOP","groundingMetadata":{"groundingChunks":[]}}],"responseId":"r1","usageMetadata":{"totalTokenCount":9}}),
        ];
        let got = join_gemini_chunks(&chunks);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].0, 0..4);
        assert_eq!(
            got[0].1,
            json!({"candidates":[{"content":{"role":"model","parts":[{"text":"The sky is blue."},{"functionCall":{"name":"f","args":{}}},{"text":" Done"}]},"index":0,"finishReason":"STOP","groundingMetadata":{"groundingChunks":[]}}],"responseId":"r1","usageMetadata":{"totalTokenCount":9}})
        );
    }

    #[test]
    fn whole_responses_and_other_ids_stay_apart() {
        let done = |id: &str, t: &str| json!({"candidates":[{"content":{"parts":[{"text":t}]},"finishReason":"STOP"}],"responseId":id});
        let got = join_gemini_chunks(&[done("a", "x"), done("b", "y"), json!(3)]);
        let ranges: Vec<_> = got.iter().map(|g| g.0.clone()).collect();
        assert_eq!(ranges, vec![0..1, 1..2, 2..3]);
        // A new id starts a new response even before a finish reason.
        let open = |id: &str, t: &str| json!({"candidates":[{"content":{"parts":[{"text":t}]}}],"responseId":id});
        let got = join_gemini_chunks(&[open("a", "x"), open("b", "y"), open("b", "z")]);
        let ranges: Vec<_> = got.iter().map(|g| g.0.clone()).collect();
        assert_eq!(ranges, vec![0..1, 1..3]);
        assert_eq!(
            got[1].1["candidates"][0]["content"]["parts"][0]["text"],
            "yz"
        );
    }

    #[test]
    fn thoughts_and_answers_and_candidates_are_not_mixed() {
        let chunks = vec![
            json!({"candidates":[{"content":{"parts":[{"text":"hmm","thought":true}]},"index":0},{"content":{"parts":[{"text":"B1"}]},"index":1}]}),
            json!({"candidates":[{"content":{"parts":[{"text":"A"}]},"index":0},{"content":{"parts":[{"text":"B2"}]},"index":1,"finishReason":"STOP"}]}),
        ];
        let got = join_gemini_chunks(&chunks);
        assert_eq!(got.len(), 1);
        let c = &got[0].1["candidates"];
        assert_eq!(
            c[0]["content"]["parts"],
            json!([{"text":"hmm","thought":true},{"text":"A"}])
        );
        assert_eq!(c[1]["content"]["parts"], json!([{"text":"B1B2"}]));
    }

    /// Chunks of any shape (keys the joining reads, with values of any type): joining never
    /// panics, and the responses cover the chunks in order, each chunk once.
    fn chunk() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (0u64..3).prop_map(|n| json!(n)),
            "[a-c ]{0,3}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 40, 4, |inner| {
            let key = prop_oneof![
                Just("candidates"),
                Just("content"),
                Just("parts"),
                Just("text"),
                Just("thought"),
                Just("index"),
                Just("finishReason"),
                Just("responseId"),
                Just("other"),
            ];
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::vec((key, inner), 0..4).prop_map(|kv| {
                    Value::Object(kv.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
                }),
            ]
        })
    }

    proptest::proptest! {
        #[test]
        fn joining_any_chunks_covers_them_in_order(chunks in proptest::collection::vec(chunk(), 0..6)) {
            let got = join_gemini_chunks(&chunks);
            let mut next = 0;
            for (range, _) in &got {
                proptest::prop_assert_eq!(range.start, next);
                proptest::prop_assert!(range.end > range.start);
                next = range.end;
            }
            proptest::prop_assert_eq!(next, chunks.len());
        }
    }
}

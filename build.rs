//! Embeds `sample-sessions/*.jsonl` into the binary (see `src/ingest/samples.rs`).
//! A build script fails the build by panicking, so the crate's panic lints do not apply here.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fmt::Write;
use std::path::Path;

fn main() {
    let dir = Path::new("sample-sessions");
    println!("cargo:rerun-if-changed=sample-sessions");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".jsonl"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let mut out = String::from("static SAMPLES: &[(&str, &str)] = &[\n");
    for n in &names {
        let abs = std::fs::canonicalize(dir.join(n)).expect("sample path");
        println!("cargo:rerun-if-changed={}", abs.display());
        writeln!(
            out,
            "    ({n:?}, include_str!({:?})),",
            abs.display().to_string()
        )
        .unwrap();
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("samples.rs");
    std::fs::write(dest, out).expect("write samples.rs");
}

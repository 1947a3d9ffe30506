//! verify's JUnit and SARIF outputs validate against the published schemas (Jenkins JUnit XSD,
//! OASIS SARIF 2.1.0), using validators installed by tests/interop/install.sh.

use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn validate(args: &[&str]) -> std::process::Output {
    Command::new("python3")
        .arg(root().join("tests/interop/validate_reports.py"))
        .args(args)
        .env("PROVSCOPE_PYDEPS", root().join(".cache/pydeps"))
        .env(
            "PROVSCOPE_NODE_MODULES",
            root().join(".cache/npm/node_modules"),
        )
        .output()
        .expect("run validator")
}

#[test]
fn junit_and_sarif_validate_against_their_schemas() {
    if !crate::peers::interop() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let sarif = dir.path().join("out.sarif");
    let junit = dir.path().join("out.xml");
    for (fmt, path) in [("sarif", &sarif), ("junit", &junit)] {
        let o = Command::new(env!("CARGO_BIN_EXE_provscope"))
            .args([
                "verify",
                "--format",
                fmt,
                "--now",
                "2026-11-01T00:00:00Z",
                "-o",
            ])
            .arg(path)
            .arg(root().join("sample-sessions"))
            .output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(1),
            "samples have error findings: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let o = validate(&[
        "--sarif",
        sarif.to_str().unwrap(),
        "--junit",
        junit.to_str().unwrap(),
    ]);
    assert!(
        o.status.success(),
        "schema validation failed:\n{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    // The validator itself rejects a broken file (so this test can fail).
    let bad = dir.path().join("bad.sarif");
    std::fs::write(
        &bad,
        std::fs::read_to_string(&sarif)
            .unwrap()
            .replacen("\"2.1.0\"", "\"2.0.0\"", 1),
    )
    .unwrap();
    assert!(!validate(&["--sarif", bad.to_str().unwrap()])
        .status
        .success());
}

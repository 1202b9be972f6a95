"""``tablecert certify``: generate (or reuse) a suite, run it against a vendor, write the outputs.

The suite is generated into ``OUT/suite`` unless a suite folder is given; an existing one is
reused only when it is the release's suite and profile asked for (:mod:`tablecert.vectors.anchor`).
A suite folder given must be the release's too, unless the lab asks for a custom suite; it is
copied into ``OUT/suite`` and the copy anchored and run, so the bytes judged are the bytes checked.
The run's record is sealed as it grows, each commit carrying a checkpoint signed by the lab's run
key, and ``--resume`` continues only a record whose last checkpoint checks
(:mod:`tablecert.harness.record.chain`); it is sealed with the run key when it concludes
(:mod:`tablecert.harness.record.seal`), before any output is written. The run database and outputs go to ``OUT`` (see :mod:`tablecert.harness.record.outputs`), which
the run holds locked and never writes through a link (:mod:`tablecert.harness.record.run_folder`). What
``certify`` is asked is one typed value, :class:`CertifyOptions`; the certificate and findings
PDFs are the layer above's job, done by the report step the caller passes (``then``: the command
line passes :func:`tablecert.reports.report_step`).
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable
from contextlib import closing, nullcontext
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

from tablecert.harness.record import chain, seal

from tablecert.harness.suites import cache as suite_cache
from tablecert.harness.adapters.registry import VendorTarget
from tablecert.harness.adapters.vendor_process import command_argv
from tablecert.harness.confine.sandbox import fix_binds
from tablecert.harness.contract import Binding, VendorFault
from tablecert.harness.live.run import LiveRun, LiveSettings, record_cleanup
from tablecert.harness.record.outputs import write_outputs
from tablecert.harness.run.options import RunOptions
from tablecert.harness.run.runner import Runner, RunResult, VendorNotGreeted
from tablecert.harness.store import RunStore, open_reader
from tablecert.harness.run.vendor_build import bound_build
from tablecert.harness.record.build_record import read_recorded
from tablecert.harness.lab_files import check_database_files, new_folder, refuse_link, remove_our_folder, replace_folder
from tablecert.harness.record.run_folder import locked_run_folder
from tablecert.oracle.profiles import DEFAULT_PROFILE
from tablecert.vectors.anchor import RELEASE, SuiteAnchor, SuiteAnchorError, anchor_suite
from tablecert.vectors.checks import SuiteCheckError, load_manifest
from tablecert.vectors.suites import generate, manifest_bytes



def copy_anchored(suite_dir: Path, folder: Path, suite: str | None, custom: bool) -> tuple[Path, SuiteAnchor]:
    """A suite folder given (``--suite-dir``) copied into the run folder's ``suite/`` (a new folder
    renamed into place), and the anchor of the *copy*: the bytes judged are the bytes checked,
    whatever happens to the folder given during the run (as with the suite cache). Links are
    copied as links, so the anchor refuses them; errors name the folder given. A folder that is
    already ``folder`` is anchored in place."""
    if suite_dir.resolve() == folder.resolve():
        return folder, anchor_suite(folder, suite, allow_custom=custom)
    building = new_folder(folder.parent, "suite")
    try:
        shutil.copytree(suite_dir, building, symlinks=True, dirs_exist_ok=True)
        try:
            anchor = anchor_suite(building, suite, allow_custom=custom)
        except (SuiteAnchorError, SuiteCheckError) as err:
            raise type(err)(str(err).replace(str(building), str(suite_dir))) from None
        replace_folder(building, folder)
    except BaseException:
        remove_our_folder(building)
        raise
    return folder, anchor


def prepare_suite(suite: str, profile: str | None, out: Path, suite_dir: Path | None,
                  progress: Callable[[str], None] | None = None, custom: bool = False,
                  cache: Path | None = None) -> tuple[Path, SuiteAnchor]:
    """A suite folder anchored in the release (see :mod:`tablecert.vectors.anchor`) and what it was
    found to be: a copy of the one given in OUT/suite (a custom one only with ``custom``;
    :func:`copy_anchored`), a release suite already in
    OUT/suite, or a new one put there (built in a new folder and renamed into place): copied from
    the suite cache ``cache`` and checked (:mod:`tablecert.harness.suites.cache`), else generated
    (and then kept in the cache)."""
    folder = out / "suite"
    refuse_link(folder, "suite/")
    if suite_dir is not None:
        folder, anchor = copy_anchored(suite_dir, folder, suite, custom)
        given = load_manifest(folder)["profile"]["id"]
        if profile is not None and given != profile:
            raise SuiteAnchorError(f"{suite_dir}: the suite is for profile {given!r}, not the {profile!r} asked for")
        return folder, anchor
    profile = profile or DEFAULT_PROFILE
    if (folder / "manifest.json").is_file():
        try:
            anchor = anchor_suite(folder, suite, regenerate=False)
            if load_manifest(folder)["profile"]["id"] == profile and anchor.kind == RELEASE:
                return folder, anchor
        except (SuiteAnchorError, SuiteCheckError):
            pass                                          # not reusable: made again below
    building = new_folder(out, "suite")
    try:
        cached = suite_cache.fetch(cache, suite, profile, building) if cache is not None else None
        if cached is None:
            manifest = generate(suite, building, profile, "both", progress)
        replace_folder(building, folder)
    except BaseException:
        remove_our_folder(building)
        raise
    if cached is not None:
        return folder, cached
    if cache is not None:
        suite_cache.store(cache, suite, profile, folder)
    return folder, SuiteAnchor(RELEASE, suite, hashlib.sha256(manifest_bytes(manifest)).hexdigest())


@dataclass(frozen=True)
class SuiteOptions:
    """Which suite is judged: ``profile`` (None: the suite's default, or the one of ``suite_dir``);
    ``suite_dir`` a suite folder given (copied into the run folder and anchored; unless
    ``custom_suite``, it must be the release's); ``cache_dir`` the suite cache (None: none)."""

    profile: str | None = None
    suite_dir: Path | None = None
    custom_suite: bool = False
    cache_dir: Path | None = None


@dataclass(frozen=True)
class OutputOptions:
    """The lab's files of a run: ``seal_key`` the run key sealing the record (None: the lab's,
    :func:`tablecert.harness.record.seal.run_key`); ``sign_key``, ``cert``, ``submission``,
    ``declared`` what the report step uses (their folders are hidden from a confined vendor);
    ``run_id`` names the run (its shards must share it to be merged); ``manifest`` the vendor's
    submission manifest, checked against its build as bound before the first vector
    (:mod:`tablecert.harness.run.vendor_build`); ``previous`` an earlier run folder of the vendor
    (the certificate notes the same declared build with different files); ``build_archive`` the
    lab's copy (a folder or a tar) of an HTTP vendor's files, checked against ``manifest``."""

    seal_key: Path | None = None
    sign_key: Path | None = None
    cert: Path | None = None
    submission: Path | None = None
    declared: Path | None = None
    run_id: str | None = None
    manifest: Path | None = None
    previous: Path | None = None
    build_archive: Path | None = None


ReportStep = Callable[[Path, list[Any]], None]
"""What runs once a run is sealed and its outputs written, with the run folder still held: given
the folder and the public keys of the run's seal (``tablecert certify`` passes the reports' step,
:func:`tablecert.reports.report_step`; the harness never imports the layer above it)."""


@dataclass(frozen=True)
class CertifyOptions:
    """Everything ``certify`` is asked besides the vendor, the suite's name and the run folder:
    the run's choices (:class:`~tablecert.harness.run.options.RunOptions`; its ``run_meta`` is
    certify's own), the suite's, the outputs', ``step`` (told each preparation step, as text) and
    ``then`` (the report step) and ``live`` (the interruptions of the live suite's tables, played
    on a fresh ``state_dir`` made in the run folder for a subprocess vendor)."""

    run: RunOptions = RunOptions()
    suite: SuiteOptions = SuiteOptions()
    outputs: OutputOptions = OutputOptions()
    step: Callable[[str], None] | None = None
    then: ReportStep | None = None
    live: LiveSettings | None = None

    @classmethod
    def of(cls, **named: Any) -> CertifyOptions:
        """The options from the keyword arguments ``certify`` took before it took this object
        (``suite_dir=..., batch_size=..., parallel=...``); ``reports`` is ignored (the report
        step is ``then``)."""
        groups: dict[str, dict[str, Any]] = {"run": {}, "suite": {}, "outputs": {}, "": {}}
        where = {**{f.name: "run" for f in fields(RunOptions)}, **{f.name: "suite" for f in fields(SuiteOptions)},
                 **{f.name: "outputs" for f in fields(OutputOptions)}, "step": "", "then": "", "live": ""}
        for name, value in named.items():
            name = "cache_dir" if name == "suite_cache_dir" else name
            if name == "reports" or (name == "policy" and value is None):
                continue
            if name not in where:
                raise TypeError(f"certify() got an unexpected keyword argument {name!r}")
            groups[where[name]][name] = value
        return cls(RunOptions(**groups["run"]), SuiteOptions(**groups["suite"]), OutputOptions(**groups["outputs"]),
                   **groups[""])


def certify(vendor: VendorTarget, suite: str, out: Path, options: CertifyOptions | None = None,
            **named: Any) -> tuple[RunResult, dict[str, Any]]:
    """Run the suite and write every output, then the report step (``options.then``). The run
    folder is held (locked) for the whole run. A vendor that cannot be started or greeted still
    gets ``summary.json`` (nothing judged, the reason and any fault in it) before
    :class:`~tablecert.harness.run.runner.VendorNotGreeted` is raised. ``options.run.parallel``: a
    :class:`tablecert.parallel.ParallelOptions` (workers, Ray cluster, shard); each vendor
    instance gets the same confined vendor target. The run's record is sealed with the run key
    before any output is written. ``named``: the options by their names instead
    (:meth:`CertifyOptions.of`)."""
    options = options or CertifyOptions.of(**named)
    run, scope, outputs = options.run, options.suite, options.outputs
    key = seal.run_key(outputs.seal_key)
    key_folder = (outputs.seal_key.resolve() if outputs.seal_key is not None else seal.default_key_path()).parent
    with locked_run_folder(out), (TemporaryDirectory(prefix="tablecert-build-archive-")
                                  if outputs.build_archive is not None else nullcontext(None)) as scratch:
        check_database_files(out / "run.db")
        head = chain.resumed_head(out / "run.db", key, str(out)) if run.resume else None
        folder, anchor = prepare_suite(suite, scope.profile, out, scope.suite_dir, options.step, scope.custom_suite,
                                       scope.cache_dir)
        # What a confined vendor must not see, should one of them lie in a tree bound into its sandbox
        # (nothing else of the host is there at all): the run folder, the suite (its expected view
        # holds the answers, so does the suite cache) and the folders of the lab's keys, certificate
        # and submission files. The sandbox covers the outermost of them.
        secret = [out, folder, key_folder, *([scope.suite_dir] if scope.suite_dir is not None else []),
                  *(path.resolve().parent for path in (outputs.sign_key, outputs.cert, outputs.submission,
                                                       outputs.declared, outputs.manifest) if path is not None),
                  *([scope.cache_dir] if scope.cache_dir is not None else []),
                  *([outputs.previous] if outputs.previous is not None else [])]
        vendor = replace(vendor, options=replace(vendor.options, hidden_paths=(*vendor.options.hidden_paths,
                                                                               *map(str, secret))))
        if vendor.binding() == Binding.COMMAND:  # every instance, restarted, threaded or on a Ray node, binds the same
            vendor = _binds_fixed(vendor)
        build, build_meta = bound_build(vendor, outputs.manifest, outputs.build_archive,   # before the first vector:
                                        Path(scratch) if scratch is not None else None)  # a refusal records nothing
        if build is not None and outputs.previous is not None:
            build = replace(build, previous=read_recorded(outputs.previous))
        run_meta = {"adapter": vendor.adapter, "target": vendor.target, "suite_anchor": anchor.meta(),
                    **({"run_id": outputs.run_id} if outputs.run_id is not None else {}),
                    **({} if build is not None else {"build": build_meta})}
        runner = Runner(vendor.opener(), folder, out, replace(run, run_meta=run_meta, build=build,
                                                              checkpoints=chain.Checkpoints(key, head),
                                                              parallel=run.parallel and replace(run.parallel,
                                                                                                vendor=vendor)))
        live_run = LiveRun(vendor.target, vendor.options, out, **asdict(options.live or LiveSettings()),
                           recheck=build.recheck if build is not None else None, adapter=vendor.adapter)
        runner.live = live_run
        try:
            with live_run:
                result = runner.run()
        except VendorNotGreeted:
            _record_cleanup(out, live_run)
            seal.seal_folder(out, key)
            write_outputs(out)
            raise
        _record_cleanup(out, live_run)
        seal.seal_folder(out, key)
        summary = write_outputs(out)
        if options.then is not None:
            options.then(out, [key.public_key()])
    return result, summary


def _binds_fixed(vendor: VendorTarget) -> VendorTarget:
    """A subprocess vendor with its sandbox's binds fixed for the run (a command line that cannot
    be split is left to the instance's start, which says so)."""
    try:
        argv = command_argv(vendor.target)
    except VendorFault:
        return vendor
    return replace(vendor, options=fix_binds(argv, vendor.options))


def _record_cleanup(out: Path, live: LiveRun) -> None:
    """A live state_dir that could not be removed, in the run's record before it is sealed (the
    outputs are written all the same)."""
    if live.cleanup_failure is not None:
        with closing(RunStore(out / "run.db")) as db:
            record_cleanup(live, db)


def write_concluded(out: Path, seal_key: Path | None, then: ReportStep | None = None) -> dict[str, Any]:
    """The outputs of a run that concluded without writing them (stopped between its conclusion
    and its ``summary.json``; ``--resume`` checked its record first): its record sealed if it is
    not yet, ``summary.json`` and the rest written as :func:`certify` writes them, then ``then``
    (the report step); the run folder held throughout. Returns the summary."""
    key = seal.run_key(seal_key)
    with locked_run_folder(out):
        with closing(open_reader(out / "run.db")) as db:
            sealed = seal.SEAL in db.meta()
        if not sealed:
            seal.seal_folder(out, key)
        summary = write_outputs(out)
        if then is not None:
            then(out, [key.public_key()])
    return summary

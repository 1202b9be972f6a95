"""The build ``certify`` judges: the vendor's files as the sandbox binds them, digested before the
first vector (:mod:`tablecert.harness.confine.build_files`), checked against the submission
manifest (``--manifest``, :mod:`tablecert.harness.confine.build_manifest`), recorded in run.db
under the run's seal, and digested again when the run ends: a file changed meanwhile is a
``build_changed`` fault naming it, which fails the run.

Which files: for an HTTP vendor, none of its own, unless the lab gives its copy of them
(``--build-archive``, :mod:`tablecert.harness.confine.build_archive`) with a manifest: that copy
is digested and checked against the manifest, and the build is authenticated only once the
vendor's own ``build.authenticate`` answers for a fresh seed equal the harness's over the copy
(:func:`archive_vouched`); for a Python plugin, the files its installed distribution's RECORD names
(:func:`plugin_build`); for a subprocess vendor, the paths the sandbox binds read-only beside the system folders
(:attr:`~tablecert.harness.confine.sandbox.Sandbox.vendor`: the vendor's tree and the folders the
lab named are its *build*; :attr:`~tablecert.harness.confine.sandbox.Sandbox.runtime`, the lab's
own Python and environment, is the *runtime*: listed by path, the vendor's interpreter digested,
never walked). A vendor reached through HTTP, an offline responses
file, or one run without a sandbox binds nothing: its build is not authenticated, and the run
says so in words.
"""

from __future__ import annotations

import os
from importlib import metadata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tablecert.harness.adapters.registry import VendorTarget
from tablecert.harness.adapters.vendor_process import command_argv
from tablecert.harness.confine.build_files import (BuildListing, again, changed_files, digest_build, digest_listed,
                                                   recheck, walk_roots)
from tablecert.harness.confine.build_archive import archive_root
from tablecert.harness.confine.build_watch import BuildWatch
from tablecert.harness.confine.build_manifest import Manifest, check_manifest, load_manifest
from tablecert.harness.confine.sandbox import plan, resolve
from tablecert.harness.confine.vendor_trees import inside
from tablecert.harness.contract import VENDOR_GROUP, AsksOptionalOps, Binding, FaultKind, VendorFault
from tablecert.harness.record.build_record import RecordedBuild, same_declared_build

OFFLINE = "offline answers: the lab ran none of the vendor's files"
NOT_INSTALLED = "the Python plugin is not an installed distribution: it has no RECORD of its files"


@dataclass(frozen=True)
class VendorBuild:
    """The build as bound when the run began, and the manifest it was checked against."""

    listing: BuildListing
    manifest: Manifest | None = None
    previous: RecordedBuild | None = None    # the lab's --previous run, to note the same declared build
    watch: BuildWatch | None = field(default=None, compare=False)   # set before the digest: what a restart re-checks
    archive: str | None = None               # the lab's copy of an HTTP vendor's files (--build-archive)

    def meta(self) -> dict[str, Any]:
        """run.db's meta ``build``."""
        archived = {"why": ARCHIVE_UNANSWERED, "source": "archive", "archive": self.archive} if self.archive else {}
        return {"authenticated": not archived, **self.listing.meta(), **archived,
                "manifest": self.manifest.meta() if self.manifest is not None else {"verified": False}}

    def rows(self) -> list[tuple[str, str, int, int, str]]:
        return [(f.path, f.kind, f.mode, f.size, f.sha256) for f in self.listing.files]

    def against_previous(self, vendor: dict[str, object]) -> str | None:
        """"same declared build, different files: ..." when ``vendor`` (the hello's identity)
        declares the build the previous run declared and the files differ."""
        if self.previous is None:
            return None
        return same_declared_build(self.previous, vendor, self.listing.signature, list(self.listing.files))

    def recheck(self) -> None:
        """A live-table restart's check (:func:`~tablecert.harness.confine.build_files.recheck`:
        only the entries the watch saw change, or a stat of every file when it cannot vouch):
        VendorFault ``build_changed`` naming the first file that differs now."""
        changed = recheck(self.listing, self.watch.named() if self.watch is not None else None)
        if changed:
            more = f" (and {len(changed) - 1} more)" if len(changed) > 1 else ""
            raise VendorFault(FaultKind.BUILD_CHANGED, f"the vendor's build changed during the run: {changed[0]}{more}")

    def changed(self) -> list[str]:
        """The files that differ now from when the run began (changed, missing or extra), all
        digested again (the run's last check: the watch is closed)."""
        if self.watch is not None:
            self.watch.close()
        now = again(self.listing)
        return [] if now.signature == self.listing.signature else changed_files(self.listing.files, now.files)


AUTHENTICATE = "build.authenticate"
"""The optional contract op (*Since 1.0.*): the vendor's keyed digests of its own files for a seed."""
SEED_BYTES = 32
OWN_RUNTIME = "the vendor's program runs from the harness's own environment: its files are the lab's runtime"
ARCHIVE_UNANSWERED = ("the vendor was reached over HTTP and does not answer build.authenticate: nothing ties the "
                      "lab's copy of its files (--build-archive) to what it runs")


def archive_vouched(build: VendorBuild, wrong: str | None, answered: bool) -> dict[str, Any]:
    """The meta ``build`` of an HTTP vendor's archived build once the vendor is greeted:
    authenticated only when it answered ``build.authenticate`` and every answer matched the
    harness's over the lab's copy; else why not (the first file that differs)."""
    meta = build.meta()
    if not answered:
        return meta
    if wrong is not None:
        return {**meta, "why": wrong, "vendor_answer": wrong}
    return {**{k: v for k, v in meta.items() if k != "why"}, "authenticated": True, "vendor_answer": "matched"}


def not_authenticated(why: str) -> dict[str, Any]:
    """run.db's meta ``build`` of a vendor whose files were not bound, saying why."""
    return {"authenticated": False, "why": why}


def plugin_build(spec: str) -> BuildListing | str:
    """A Python plugin's build: the files its installed distribution's RECORD names, under the
    folder it was installed in (or why there is none). The distribution is the entry point's, or
    for ``module:attr`` the one that installed the module's top-level package."""
    dist = None
    if ":" in spec:
        names = metadata.packages_distributions().get(spec.partition(":")[0].split(".")[0]) or []
        dist = metadata.distribution(names[0]) if names else None
    else:
        found = [ep for ep in metadata.entry_points(group=VENDOR_GROUP) if ep.name == spec]
        dist = found[0].dist if found else None
    if dist is None or not dist.files:
        return NOT_INSTALLED
    return digest_listed(os.path.abspath(str(dist.locate_file(""))), [p.as_posix() for p in dist.files])


def bound_build(vendor: VendorTarget, manifest: Path | None, archive: Path | None = None,
                scratch: Path | None = None) -> tuple[VendorBuild | None, dict[str, Any]]:
    """The vendor's build as its sandbox binds it (for an HTTP vendor: the lab's copy ``archive``,
    a tar unpacked into the empty folder ``scratch``), checked against ``manifest`` (ManifestError,
    ManifestMismatch, ArchiveError: one line, before anything is recorded), and run.db's meta
    ``build``; no build when nothing of the vendor's is bound (then a manifest given is refused:
    there is nothing to check it against)."""
    if archive is not None:
        return _archived(vendor, manifest, archive, scratch)
    declared = load_manifest(manifest) if manifest is not None else None
    vendor_roots: list[str] = []
    runtime_roots: list[str] = []
    why = vendor.not_bound()
    binding = vendor.binding()
    if binding == Binding.COMMAND and vendor.options.isolation != "none":
        try:
            argv = resolve(command_argv(vendor.target), vendor.options.binds)
            sandbox = plan(argv, vendor.options)
        except (VendorFault, ValueError) as err:     # the run meets the same fault when it starts the vendor
            sandbox, why = None, f"the vendor could not be confined: {getattr(err, 'detail', err)}"
        if sandbox is not None and sandbox.prefix:
            vendor_roots, runtime_roots = list(sandbox.vendor), list(sandbox.runtime)
            if not any(inside(argv[0], [v]) for v in vendor_roots):    # a system or runtime program: runtime
                runtime_roots.insert(0, os.path.realpath(argv[0]))
    if binding == Binding.PLUGIN:
        plugin = plugin_build(vendor.target)
        if isinstance(plugin, str):
            why = plugin
        else:
            built = VendorBuild(plugin, declared)
            if declared is not None:
                check_manifest(declared, built.listing)
            return built, built.meta()
    if not vendor_roots:
        why = OWN_RUNTIME if runtime_roots else why
        if declared is not None:
            raise ValueError(f"--manifest {manifest}: {why}; there are no files to check the manifest against")
        return None, not_authenticated(why)
    watch = BuildWatch.on(vendor_roots)             # before the digest it vouches for
    built = VendorBuild(digest_build(vendor_roots, runtime_roots), declared, watch=watch)
    if declared is not None:
        check_manifest(declared, built.listing)
    return built, built.meta()


def _archived(vendor: VendorTarget, manifest: Path | None, archive: Path,
              scratch: Path | None) -> tuple[VendorBuild, dict[str, Any]]:
    if vendor.binding() != Binding.ARCHIVE or manifest is None or scratch is None:
        raise ValueError(f"--build-archive {archive}: only for a vendor reached over HTTP (--vendor-url), with its "
                         "submission manifest (--manifest)")
    declared = load_manifest(manifest)
    built = VendorBuild(digest_build([archive_root(archive, scratch)], []), declared, archive=str(archive))
    check_manifest(declared, built.listing)
    return built, built.meta()


def vendor_answer(session: AsksOptionalOps, build: VendorBuild) -> str | None:
    """Ask a vendor that declares ``build.authenticate`` for the keyed digests of every file of
    its build, with a fresh random seed, and compare them with the harness's own over the bound
    bytes (or the lab's copy of an HTTP vendor's): None when all are equal, else one line naming
    the first file that is not."""
    seed = os.urandom(SEED_BYTES)
    expected = {f.path: f.sha256 for f in walk_roots(list(build.listing.roots), seed) if f.kind == "file"}
    files = [f.path for f in build.listing.files if f.kind == "file"]
    answer = session.ask(AUTHENTICATE, {"seed": seed.hex(), "files": files})
    result = answer.get("result") if isinstance(answer, dict) else None
    got = result.get("files") if isinstance(result, dict) else None
    if not isinstance(got, dict):
        return f"{AUTHENTICATE}: the answer has no result.files"
    for path in files:
        if got.get(path) != expected.get(path):
            return (f"{AUTHENTICATE}: the vendor's keyed digest of {path} is not that of the bytes bound "
                    "(answered from another build, or from a stored table)")
    return None

"""Helpers shared by the command modules: the one-line usage error, progress display, folders."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tablecert import harness


PROFILE_HELP = ("rule profile: a shipped id (`tablecert profiles`) or a table configuration file in the same "
                "TOML form, which must be compliant (default: the default profile)")


SUBMISSION_HELP = ("a TOML or JSON file of the certificate's submission fields (strings): lab, product, "
                   "submission_id (on page 1), signatory, signatory_title (on the signature page); any other key "
                   "is refused")
MANIFEST_HELP = ("the vendor's submission manifest: a TOML (or .json) file whose table 'files' maps paths "
                 "relative to the vendor's tree to their SHA-256 (or SHA-1, marked weaker); checked against the "
                 "files the sandbox binds before the first vector: a missing or different file refuses the run "
                 "(exit 2, nothing recorded)")
SIGN_HELP = ("the lab's Ed25519 private key (PEM) that signs summary.json and the PDFs; make one with "
             "'openssl genpkey -algorithm ed25519 -out lab-sign.pem' (keep it 0600) and give its public key, "
             "'openssl pkey -in lab-sign.pem -pubout -out lab-sign.pub', to whoever runs verify-report")


class UsageError(Exception):
    """Bad input from the user: printed as one line, exit status 2."""


def progress_bar(label: str, quiet: bool, unit: str = "hands") -> Callable[[int, int], None] | None:
    if quiet:
        return None
    return harness.progress_callback(label, unit)


LINE_SHOWN = 4000    # characters of a printed line that may quote a vendor (its answers, names, messages)


def say(*lines: str) -> None:
    """Print lines that may quote a vendor on stdout, each through the terminal's escaping
    (:func:`tablecert.harness.vendor_text.for_terminal`): vendor text never acts on the terminal."""
    for line in lines:
        for part in line.split("\n"):
            print(harness.for_terminal(part, LINE_SHOWN), flush=True)


def step_printer(quiet: bool) -> Callable[[str], None] | None:
    if quiet:
        return None
    return lambda what: print(f"generating {what}", file=sys.stderr, flush=True)


def existing_dir(text: str) -> Path:
    path = Path(text)
    if not path.is_dir():
        raise UsageError(f"{text}: not a folder")
    return path


def subcommand(sub: Any, name: str, func: Callable[[argparse.Namespace], int], help_text: str) -> argparse.ArgumentParser:
    """Add one subcommand whose help and description are the same sentence."""
    p: argparse.ArgumentParser = sub.add_parser(name, help=help_text, description=help_text)
    p.set_defaults(func=func)
    return p


def add_vendor_arguments(p: argparse.ArgumentParser) -> None:
    """The options that name a vendor (one of three adapters) and confine a subprocess vendor."""
    p.add_argument("--vendor-cmd", help="the vendor's command line (split like a shell would, never run by one)")
    p.add_argument("--vendor-plugin", help="a Python vendor: entry-point name (tablecert.vendors) or module:attr")
    p.add_argument("--vendor-url", help="an HTTP vendor: URL that takes the protocol's requests as POSTs")
    p.add_argument("--isolation", choices=("auto", "strict", "none"), default="auto",
                   help="confinement of a --vendor-cmd vendor: auto = the strongest this machine allows (bubblewrap: "
                        "a file system holding only the system folders, the vendor's program and --vendor-path "
                        "folders, read-only, with a private /tmp and HOME; own PID and network namespaces; as root "
                        "a uid of its own per run and cgroup limits where the host has them), strict = refuse to run without all of it, none = a process group only "
                        "(default auto; the run records what it had)")
    p.add_argument("--vendor-network", action="store_true", help="let a confined vendor use the network "
                   "(default: loopback of its own only)")
    p.add_argument("--vendor-path", action="append", metavar="DIR", default=[],
                   help="a host folder a confined vendor needs besides its program's own install tree (its data, "
                        "libraries, an editable install's sources, a venv it calls), bound read-only; repeatable. "
                        "Nothing a vendor's own files name (.pth files, editable finders) is bound without it")
    p.add_argument("--max-processes", type=int, default=256, metavar="N",
                   help="processes and threads a confined vendor may have at once (default 256)")
    p.add_argument("--max-file-mb", type=int, default=256, metavar="MB",
                   help="largest file a confined vendor may write, and the size of its private /tmp and HOME "
                        "(default 256)")
    p.add_argument("--max-state-mb", type=int, default=64, metavar="MB",
                   help="what a live vendor's state_dir may hold; more is a state_limit fault (default 64)")
    p.add_argument("--restart-hook", metavar="CMD",
                   help="a --vendor-url vendor's live tables: the lab's command line that kills the server with no "
                        "warning, starts it again on the same storage and exits 0 once it accepts connections (run at "
                        "every power cut; without it an HTTP vendor's live tables are not played, and the run says so)")


def sandbox_options(args: argparse.Namespace) -> dict[str, Any]:
    """The SessionOptions fields of the confinement options (UsageError for a bad one)."""
    for path in args.vendor_path:
        problem = harness.vendor_path_problem(path)
        if problem:
            raise UsageError(problem)
    if args.max_processes < 1 or args.max_file_mb < 1 or args.max_state_mb < 1:
        raise UsageError("--max-processes, --max-file-mb and --max-state-mb must be at least 1")
    return {"isolation": args.isolation, "vendor_network": args.vendor_network,
            "vendor_paths": tuple(args.vendor_path), "max_processes": args.max_processes,
            "max_file_mb": args.max_file_mb, "tmp_mb": args.max_file_mb, "max_state_mb": args.max_state_mb,
            "restart_hook": args.restart_hook}


def add_seal_arguments(p: argparse.ArgumentParser, trust: bool = True) -> None:
    """``--seal-key KEY`` (the run key: default the lab's, made on first use) and, with ``trust``,
    ``--trust DIR`` (the public run keys whose seals are accepted)."""
    p.add_argument("--seal-key", metavar="KEY", help="the lab's Ed25519 run key (PEM) that seals run records "
                   "(default $XDG_CONFIG_HOME/tablecert/seal-key, else ~/.config/tablecert/seal-key, made 0600 on "
                   "first use)")
    if trust:
        p.add_argument("--trust", metavar="DIR", help="a folder of the public run keys (*.pem, *.crt, *.pub) whose "
                       "seals are accepted, besides the run key's own (default: $TABLECERT_TRUST)")


def vendor_arguments(args: argparse.Namespace) -> list[str]:
    """The vendor options given (:func:`add_vendor_arguments`), as command-line words that name
    the same vendor, confined the same way, to another command (defaults left out)."""
    adapter, target = chosen_vendor(args)
    words = [{"subprocess": "--vendor-cmd", "python": "--vendor-plugin", "http": "--vendor-url"}[adapter], target]
    defaults = {"isolation": "auto", "max_processes": 256, "max_file_mb": 256}
    for name, default in defaults.items():
        if getattr(args, name) != default:
            words += [f"--{name.replace('_', '-')}", str(getattr(args, name))]
    words += ["--vendor-network"] if args.vendor_network else []
    for path in args.vendor_path:
        words += ["--vendor-path", path]
    words += ["--restart-hook", args.restart_hook] if args.restart_hook else []
    return words


def chosen_vendor(args: argparse.Namespace) -> tuple[str, str]:
    """(adapter, target) from the vendor options: exactly one must be given (``--restart-hook``
    only with ``--vendor-url``: the other adapters cut their vendor themselves)."""
    chosen = [(name, value) for name, value in (("subprocess", args.vendor_cmd), ("python", args.vendor_plugin),
                                                 ("http", args.vendor_url)) if value]
    if len(chosen) != 1:
        raise UsageError("name the vendor with exactly one of --vendor-cmd, --vendor-plugin, --vendor-url")
    if args.restart_hook and not args.vendor_url:
        raise UsageError("--restart-hook cuts an HTTP vendor's server (--vendor-url); a --vendor-cmd or "
                         "--vendor-plugin vendor is cut by the harness itself")
    return chosen[0]

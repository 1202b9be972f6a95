"""``tablecert sandbox-check``: what a confined vendor would see, and whether it starts and greets.

For a lab setting up a new vendor: the vendor's command line is planned exactly as a run would
plan it (:func:`tablecert.harness.confine.sandbox.plan`), a probe (``/bin/sh`` reading ``/proc``) is started
in that same sandbox to list what it can see (mounts, user, limits, network interfaces), then the
vendor itself is started confined and greeted. Nothing of the vendor runs outside the sandbox.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from dataclasses import dataclass, field

from tablecert.harness.contract import SessionOptions, VendorFault
from tablecert.harness.vendor_text import for_terminal
from tablecert.harness.confine.sandbox import SAFE_PATH, Sandbox, plan, resolve
from tablecert.harness.adapters.subprocess_adapter import SubprocessAdapter

PROBE = ("echo \"user: $(id)\"; echo '--mounts'; cat /proc/self/mountinfo; echo '--limits'; cat /proc/self/limits; "
         "echo '--net'; cat /proc/net/dev")
LINE_SHOWN = 2000    # characters of a line printed (a vendor's stderr or error text may be longer)
SHOWN_LIMITS = ("Max processes", "Max file size", "Max address space", "Max cpu time", "Max open files")


@dataclass
class SandboxView:
    """What the probe saw inside the sandbox, and how the vendor's greeting went."""

    isolation: str
    limits: str
    bound: list[str]
    vendor: list[str] = field(default_factory=list)      # of ``bound``: the vendor's tree and --vendor-path
    runtime: list[str] = field(default_factory=list)     # of ``bound``: the lab's runtime
    user: str = ""
    mounts: list[str] = field(default_factory=list)      # "PATH (fstype, ro|rw)"
    rlimits: list[str] = field(default_factory=list)
    interfaces: list[str] = field(default_factory=list)
    greeted: str = ""
    problem: str = ""

    def lines(self) -> list[str]:
        out = [f"isolation: {self.isolation}", f"limits:    {self.limits}",
               f"bound from the host (read-only, besides the system folders): {', '.join(self.bound) or 'nothing'}"]
        if self.bound:
            out += [f"  the vendor's tree (its command line, --vendor-path): {', '.join(self.vendor) or 'nothing'}",
                    f"  the lab's runtime (the Python tablecert runs on): {', '.join(self.runtime) or 'nothing'}"]
        if self.user:
            out.append(f"the vendor runs as: {self.user}")
        if self.mounts:
            out.append("what it sees (mounts):")
            out += [f"  {m}" for m in self.mounts]
        if self.rlimits:
            out.append("its limits (/proc/self/limits):")
            out += [f"  {r}" for r in self.rlimits]
        if self.interfaces:
            out.append(f"network interfaces: {', '.join(self.interfaces)}")
        out.append(f"hello: {self.greeted}" if self.greeted else f"problem: {self.problem}")
        return [for_terminal(line, LINE_SHOWN) for line in out]     # vendor text (stderr, hello, errors) is data


def _probe(sandbox: Sandbox, view: SandboxView) -> None:
    started = sandbox.start(["/bin/sh", "-c", PROBE], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={"PATH": SAFE_PATH, "LANG": "C.UTF-8"}, stdin=subprocess.DEVNULL)
    try:
        out, err = started.proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        started.proc.kill()
        out, err = started.proc.communicate()
    finally:
        if started.status_fd is not None:
            os.close(started.status_fd)
        started.release()
    done = subprocess.CompletedProcess(started.proc.args, started.proc.returncode, out.decode("utf-8", "replace"),
                                       err.decode("utf-8", "replace"))
    section = ""
    for line in done.stdout.splitlines():
        if line.startswith("--"):
            section = line[2:]
        elif line.startswith("user: "):
            view.user = line[6:]
        elif section == "mounts":
            fields = line.split()
            if len(fields) > 9:
                dash = fields.index("-")
                view.mounts.append(f"{fields[4]} ({fields[dash + 1]}, {'ro' if 'ro' in fields[5].split(',') else 'rw'})")
        elif section == "limits" and line.startswith(SHOWN_LIMITS):
            view.rlimits.append(" ".join(line.split()))
        elif section == "net" and ":" in line:
            view.interfaces.append(line.split(":", 1)[0].strip())
    if done.returncode != 0 and not view.mounts:
        view.problem = f"the sandbox could not be set up: {done.stderr.strip().splitlines()[-1:] or done.returncode}"


def check(command: str, options: SessionOptions) -> SandboxView:
    """Plan, probe and greet (see the module docstring)."""
    try:
        argv = shlex.split(command)
        argv = resolve(argv) if argv and options.isolation != "none" else argv
        sandbox = plan(argv, options)
    except (ValueError, VendorFault) as err:
        return SandboxView("-", "-", [], problem=str(err))
    view = SandboxView(sandbox.description, sandbox.limits, list(sandbox.bound), list(sandbox.vendor),
                       list(sandbox.runtime))
    if sandbox.prefix:
        _probe(sandbox, view)
        if view.problem:
            return view
    try:
        session = SubprocessAdapter().open(command, options)
        try:
            hello = session.hello()
            view.greeted = (f"{for_terminal(hello.name, 80)} {for_terminal(hello.version, 40)} ({for_terminal(hello.build, 40)}), "
                            f"{hello.protocol}, ops {', '.join(hello.ops)}")
        finally:
            session.close()
    except VendorFault as err:
        last = [line for line in err.stderr_tail.splitlines() if line.strip()][-1:]
        view.problem = f"{err.kind.value}: {err.detail}" + (f"; the vendor's last line on stderr: {last[0][:300]}"
                                                            if last else "")
    return view

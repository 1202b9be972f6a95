"""The inside half of the vendor sandbox (see :mod:`tablecert.harness.sandbox`), standard library only.

Run as ``python -I -S sandbox_stage.py SPEC STATUS-FD SETPRIV [OPTIONS...] -- VENDOR-ARGV...`` by
``unshare`` as the first process (init) of the vendor's fresh PID, mount (and network) namespaces, still with the
privileges needed to change its mounts. ``SPEC`` is JSON: ``hide`` (folders covered by an empty
read-only tmpfs), ``home`` (the harness's HOME, covered instead by an empty tmpfs the vendor
user owns and named the vendor's ``HOME``), ``expose`` (folders under a hidden one made visible again, read-only: the vendor
program's install tree), ``loopback`` (bring ``lo`` up). It then leaves the working folder if it
was hidden and forks the vendor: ``setpriv`` drops the user, groups and capabilities and execs it.

The stage stays the namespace's init (a vendor as init could not be killed by its own signals):
it lets go of the vendor's pipes, reaps every orphan, and when the vendor ends writes its raw wait
status as one decimal line to STATUS-FD (for the harness: "killed by signal SIGSEGV", not an exit
status) and exits, which kills whatever the vendor left running in the namespace. Any failure
before the vendor starts is one line on stderr and exit status 126 (it never runs unconfined).
"""

import ctypes
import fcntl
import json
import os
import socket
import struct
import sys

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_REC = 1, 2, 4, 8, 32, 4096, 16384
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1


def _mount(libc, source, target, fstype, flags, data):
    if libc.mount(source, target.encode(), fstype, flags, data) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"mount on {target}: {os.strerror(err)}")


def main(argv):
    spec = json.loads(argv[1])
    status_fd = int(argv[2])
    rest = argv[3:]
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
    # Hold the exposed trees open before anything covers them.
    kept = [(path, os.open(path, os.O_PATH | os.O_DIRECTORY)) for path in spec["expose"]]
    for path in spec["hide"]:
        _mount(libc, b"tmpfs", path, b"tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, b"size=16k,mode=0755")
    home = spec["home"]
    if home:    # the vendor's own empty, writable HOME (a cache, a temp file), gone with the namespace
        _mount(libc, b"tmpfs", home["path"], b"tmpfs", MS_NOSUID | MS_NODEV,
               f"size={home['size']},mode=0700,uid={home['uid']},gid={home['gid']}".encode())
        os.environ["HOME"] = home["path"]
    covered = spec["hide"] + ([home["path"]] if home else [])
    for path, fd in kept:
        if any(path == h or path.startswith(h.rstrip("/") + "/") for h in covered):
            os.makedirs(path, exist_ok=True)
            _mount(libc, f"/proc/self/fd/{fd}".encode(), path, None, MS_BIND | MS_REC, None)
            _mount(libc, None, path, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, None)
        os.close(fd)
    for path in spec["hide"]:
        _mount(libc, None, path, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, b"")
    if spec["loopback"]:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            ifr = fcntl.ioctl(s, SIOCGIFFLAGS, struct.pack("16sH22x", b"lo", 0))
            flags = struct.unpack("16sH22x", ifr)[1]
            fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sH22x", b"lo", flags | IFF_UP))
    try:
        os.chdir(os.getcwd())       # re-resolve: a hidden working folder is left for the empty cover
    except OSError:
        os.chdir("/")
    vendor = os.fork()
    if vendor == 0:
        try:
            os.close(status_fd)
            os.execv(rest[0], rest)
        finally:
            os._exit(127)
    return vendor, status_fd


def init(vendor, status_fd):
    """Reap until the vendor ends; report its wait status; exit (the namespace goes with us)."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            os._exit(1)
        except InterruptedError:
            continue
        if pid == vendor:
            os.write(status_fd, f"{status}\n".encode())
            os._exit(os.waitstatus_to_exitcode(status) & 0xFF)


if __name__ == "__main__":
    try:
        started = main(sys.argv)
    except (OSError, ValueError, KeyError, IndexError) as error:
        sys.stderr.write(f"tablecert sandbox: cannot confine the vendor: {error}\n")
        sys.exit(126)
    init(*started)

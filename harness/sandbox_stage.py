"""The inside half of the vendor sandbox (see :mod:`tablecert.harness.sandbox`), standard library only.

Run as ``python -I -S sandbox_stage.py SPEC SETPRIV [SETPRIV-OPTIONS...] -- VENDOR-ARGV...`` by
``unshare`` inside the vendor's fresh PID, mount (and network) namespaces, still with the
privileges needed to change its mounts. ``SPEC`` is JSON: ``hide`` (folders covered by an empty
read-only tmpfs), ``home`` (the harness's HOME, covered instead by an empty tmpfs the vendor
user owns and named the vendor's ``HOME``), ``expose`` (folders under a hidden one made visible again, read-only: the vendor
program's install tree), ``loopback`` (bring ``lo`` up). It then leaves the working folder if it
was hidden and execs ``setpriv``, which drops the user, groups and capabilities and execs the
vendor. Any failure is one line on stderr and exit status 126 (the vendor never runs unconfined).
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
    rest = argv[2:]
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
    os.execv(rest[0], rest)


if __name__ == "__main__":
    try:
        main(sys.argv)
    except (OSError, ValueError, KeyError, IndexError) as error:
        sys.stderr.write(f"tablecert sandbox: cannot confine the vendor: {error}\n")
        sys.exit(126)

"""A vendor that implements nothing and answers from whatever suite it can find (run as a script).

    python thief_vendor.py [MODE]

At ``hello`` it walks the whole file system it can see (not ``/proc``, ``/sys``, ``/dev``, ``/usr``,
nor package and git folders) for
``*/expected/*.jsonl.gz`` files, reads every one it can with the ``prompt/`` file beside it, and
keeps each test's expected answer by (op, config, case). It says how many expected files and tests it found in its hello's
``implementation.build`` (``found F files, T tests``). A batch is answered from what it found,
case by case; a case it has no answer for gets an error object (so a thief that found nothing is
NOT CERTIFIED). With a real suite in view it passes every vector: the test that uses it runs it
unconfined once to show that.

``MODE`` ``steal-from=DIR,DIR``: walk only those folders (an unconfined walk of a whole lab machine
takes minutes). ``fork-bomb``: at the first batch it forks sleeping children until a fork fails (at most
4,000), then exits 3 saying how many it held. ``fill-disk``: at the first batch it writes 1 MiB
blocks into ``/tmp``, ``$HOME``, ``/dev/shm``, its working folder and ``/`` until each refuses, then
exits 3 saying how much each took.
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import sys
import time

from tablecert.oracle.vendor import ReferenceVendor

SKIP = ("/proc", "/sys", "/dev", "/usr")          # no suite lies there; walking them costs a minute
SKIP_NAMES = ("site-packages", ".git", "node_modules", "__pycache__")
MAX_CHILDREN = 4000


def _canon(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _records(path: str) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def steal(roots: list[str]) -> tuple[dict[tuple[str, str, str], object], int]:
    """(op, config, case) -> the expected answer, from every expected file it can read and the
    prompt file beside it; and how many expected files it read."""
    answers: dict[tuple[str, str, str], object] = {}
    files = 0
    for top, dirs, names in (walked for root in roots for walked in os.walk(root, onerror=lambda err: None)):
        dirs[:] = [d for d in dirs if os.path.join(top, d) not in SKIP and d not in SKIP_NAMES]
        if os.path.basename(top) != "expected":
            continue
        for name in names:
            if not name.endswith(".jsonl.gz"):
                continue
            try:
                expected = _records(os.path.join(top, name))
                prompt = _records(os.path.join(os.path.dirname(top), "prompt", name))
            except (OSError, ValueError, EOFError):
                continue
            files += 1
            op = expected[0].get("op", "")
            config, inputs = None, {}
            for record in prompt:
                if record.get("type") == "group":
                    config = record.get("config")
                elif record.get("type") == "test":
                    inputs[record["tcId"]] = (config, record.get("case"))
            for record in expected:
                if record.get("type") == "test" and record.get("tcId") in inputs:
                    config, case = inputs[record["tcId"]]
                    want = record.get("expected") or {}
                    answers[(op, _canon(config), _canon(case))] = want["result"] if "result" in want else want
    return answers, files


def fork_bomb() -> None:
    held = 0
    try:
        while held < MAX_CHILDREN:
            if os.fork() == 0:
                time.sleep(120)
                os._exit(0)
            held += 1
    except OSError as err:
        sys.stderr.write(f"fork-bomb: fork failed after {held} children: {err.strerror}\n")
    else:
        sys.stderr.write(f"fork-bomb: held {held} children, no limit met\n")
    sys.stderr.flush()
    os._exit(3)


def fill_disk() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)     # past the file-size limit: EFBIG, not death
    block = b"\0" * (1 << 20)
    took = []
    for folder in ("/tmp", os.environ.get("HOME", "/tmp"), "/dev/shm", os.getcwd(), "/"):
        written, why = 0, "no limit met"
        for n in range(100_000):
            try:
                with open(os.path.join(folder, f"fill-{n}"), "wb") as f:
                    while True:
                        f.write(block)
                        f.flush()
                        written += 1
            except OSError as err:
                why = err.strerror or str(err)
                if err.errno not in (27,):      # EFBIG: this file is full, the next one may go on
                    break
        took.append(f"{folder}: {written} MiB ({why})")
    sys.stderr.write("fill-disk: " + "; ".join(took) + "\n")
    sys.stderr.flush()
    os._exit(3)


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "steal"
    reference = ReferenceVendor()
    answers: dict[tuple[str, int], object] = {}
    files = 0
    for line in sys.stdin:
        request = json.loads(line)
        op = request.get("op")
        if op == "hello":
            answers, files = steal(mode.split("=", 1)[1].split(",") if mode.startswith("steal-from=") else ["/"])
            answer = reference.handle(request)
            answer["implementation"] = {"name": "thief", "version": "1", "build": f"found {files} files, "
                                                                                    f"{len(answers)} tests"}
        elif op == "bye":
            answer = reference.handle(request)
        else:
            if mode == "fork-bomb":
                fork_bomb()
            if mode == "fill-disk":
                fill_disk()
            results = []
            config = _canon(request.get("config"))
            for case in request.get("cases", ()):
                results.append(answers.get((op, config, _canon(case)),
                                           {"error": {"code": "bad_request", "message": "no answer found"}}))
            answer = {"id": request["id"], "results": results}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
        if op == "bye":
            break


if __name__ == "__main__":
    main()

"""A vendor process (run as a script) that is the reference vendor, except that it commits one
kind of fault on the twentieth batch request of every process it runs as (a retry in a fresh process
then answers: a *recovered* fault), and on every request that holds the poisoned case (which
bisection isolates: a fault *not recovered*). Requests of the poisoned case's op are not
counted, so bisecting the poisoned batch costs no more restarts than it must.

    python fault_kinds_vendor.py KIND [POISONED_OP POISONED_CASE_JSON]

KIND: ``exit`` (exits with status 3), ``segv`` (kills itself with SIGSEGV), ``cut`` (half an
answer line, then exit), ``hang`` (sleeps), ``garbage`` (a line that is not JSON), ``flood`` (a
2 MB line), ``wrong_id``, ``wrong_count``, ``wrong_op``, ``request_error``, or ``bad_hello``
(every process names another (random) build in its hello, so every restart is a bad hello; it crashes on
the twentieth request like ``exit`` to be restarted at all), or ``declare=OP,OP...`` (no fault:
it lists only those ops in its hello).

Everything it needs is on its command line: it reads no file, so it runs the same inside the
harness's sandbox.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time

from tablecert.oracle.vendor import ReferenceVendor


EVERY = 20            # the batch request of each process that faults (requests of the poisoned op not counted)


def canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def fault(kind: str, request: dict, answer: dict) -> dict | None:
    """Commit the fault; the (faulty) answer to write, or None when nothing more is written."""
    out = sys.stdout
    if kind in ("exit", "bad_hello"):
        os._exit(3)
    if kind == "segv":
        os.kill(os.getpid(), signal.SIGSEGV)
    if kind == "cut":
        out.write(json.dumps(answer)[:20])
        out.flush()
        os._exit(3)
    if kind == "hang":
        time.sleep(3600)
    if kind == "garbage":
        out.write("Segmentation fault (core dumped)\n")
        out.flush()
        return None
    if kind == "flood":
        out.write("x" * (2 << 20) + "\n")
        out.flush()
        return None
    if kind == "wrong_id":
        return dict(answer, id=request["id"] + 1000)
    if kind == "wrong_count":
        return dict(answer, results=answer["results"][:-1] or [{"hand": "none"}, {"hand": "none"}])
    if kind == "wrong_op":
        return dict(answer, op="craps.teleport")
    if kind == "request_error":
        return {"id": request["id"], "error": {"code": "invalid_request", "message": "cannot take this batch"}}
    raise SystemExit(f"unknown fault kind {kind!r}")


def main() -> None:
    kind = sys.argv[1]
    poisoned_op = sys.argv[2] if len(sys.argv) > 3 else None
    poisoned = canonical(json.loads(sys.argv[3])) if len(sys.argv) > 3 else None
    vendor = ReferenceVendor()
    batches = 0
    for line in sys.stdin:
        request = json.loads(line)
        answer = vendor.handle(request)
        if request.get("op") == "hello" and kind.startswith("declare="):
            answer["ops"] = kind.removeprefix("declare=").split(",")
        elif kind.startswith("declare="):
            pass
        elif request.get("op") == "hello" and kind == "bad_hello":
            answer["implementation"]["build"] = f"build-{os.urandom(6).hex()}"   # a pid repeats in a PID namespace
        elif request.get("op") not in ("hello", "bye", poisoned_op):
            batches += 1
        if request.get("op") not in ("hello", "bye"):
            cases = request.get("cases") if isinstance(request.get("cases"), list) else []
            if ((batches >= EVERY and request.get("op") != poisoned_op)
                    or (poisoned is not None and any(canonical(c) == poisoned for c in cases))):
                sys.stderr.write(f"committing {kind} on request {request.get('id')}\n")
                sys.stderr.flush()
                answer = fault(kind, request, answer)
                if answer is None:
                    continue
        sys.stdout.write(json.dumps(answer, separators=(",", ":")) + "\n")
        sys.stdout.flush()
        if request.get("op") == "bye":
            break


if __name__ == "__main__":
    main()

"""Vendors of other releases, as the contract's versions let them be (run by test_old_vendors.py).

``v1``: a vendor written against ``tablecert-vendor/1`` as 0.1.0 published it: its hello answer
has the 0.1.0 keys only (``id``, ``implementation``, ``ops``: no ``protocol``, no capabilities)
and offers the 0.1.0 ops; it ignores request fields it does not use, as that contract said, and
writes every key of every request line it gets to the file named by argument 2 (so the test sees
what the harness sent it). ``future``: a vendor of a later contract: the current reference
vendor's answers with fields this release does not know, in the hello, the implementation and
every answer line (``future in-results``: inside every result too). Both answer from the oracle
(``tablecert reference-vendor``, ``--protocol 1`` for the old one), through a pipe.
"""

from __future__ import annotations

import json
import subprocess
import sys

V1_OPS = ["craps.odds_limits", "craps.place_odds", "craps.settle", "paigow.player_bonus", "paigow.banker_bonus",
          "paigow.settle"]


def main(kind: str, extra: str | None) -> int:
    oracle = subprocess.Popen([sys.executable, "-m", "tablecert", "reference-vendor",
                               *(["--protocol", "1"] if kind == "v1" else [])],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    assert oracle.stdin is not None and oracle.stdout is not None
    seen: set[str] = set()
    for line in sys.stdin:
        request = json.loads(line)
        if kind == "v1" and request.get("op") == "hello":     # 0.1.0 read no version: the oracle is asked for v1
            line = json.dumps({"id": request.get("id"), "op": "hello", "protocol": "tablecert-vendor/1"}) + "\n"
        oracle.stdin.write(line)
        oracle.stdin.flush()
        answer = json.loads(oracle.stdout.readline())
        if kind == "v1":
            seen |= {f"{request.get('op')}:{key}" for key in request}
            seen |= {f"{request.get('op')}.case:{key}" for case in request.get("cases", []) if isinstance(case, dict)
                     for key in case}
            if request.get("op") == "hello":
                answer = {"id": answer["id"], "implementation": answer["implementation"],
                          "ops": [op for op in answer["ops"] if op in V1_OPS]}
        else:
            answer["x_future"] = {"note": "a field of a later release"}
            if "implementation" in answer:
                answer["implementation"]["x_future"] = 1
            for result in answer.get("results", []) if extra == "in-results" else []:
                if isinstance(result, dict) and "error" not in result:
                    result["x_future"] = 0
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
        if request.get("op") == "bye":
            break
    if kind == "v1" and extra:
        with open(extra, "w", encoding="utf-8") as f:
            json.dump(sorted(seen), f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None))

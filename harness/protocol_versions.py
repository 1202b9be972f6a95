"""Which version of the vendor contract a session speaks, and how one suite serves both.

The harness greets every vendor with ``tablecert-vendor/2`` and offers ``tablecert-vendor/1``
(:func:`greet`): a hello answer naming ``tablecert-vendor/2`` is a v2 vendor, one with no
``protocol`` key a v1 vendor (old vendors ignore the new request fields), and a hello refused with
``unsupported_protocol`` is sent again once as a v1 hello; a protocol that was not offered is a
``bad_hello`` fault.

Suites hold v2 vectors. For a v1 vendor each batch is split (:func:`v1_parts`): the vectors v1
can express are sent without their v2 fields and judged against the v2 expected answer without
the v2 keys (:mod:`tablecert.oracle.protocol`); the others (odds not working) are not sent and
count as *unsupported*, under the counts dimension ``protocol`` with the reason
:data:`NEEDS_V2`, which the verdict and the reports read. The runner, offline ``validate`` and
every adapter use this module; nothing else knows the difference between the versions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from tablecert.harness.contract import FaultKind, Hello, VendorFault
from tablecert.harness.answers.envelope import parse_hello, same_id
from tablecert.harness.vendor_text import for_terminal
from tablecert.harness.model import Batch, BatchOutcome, BatchStatus, Outcome
from tablecert.oracle.protocol import SPOKEN, V1, V2, v1_case, v1_expressible, v1_result

NEEDS_V2 = f"needs {V2}"
"""Why a vector was not sent to a v1 vendor (its counts dimension ``protocol``)."""
V1_CANNOT_CHECK = ("stake dispositions (a lost stake returned, a pushed one kept, a winning one not handed "
                   "back) and odds that are off")
"""What a v1 session leaves unchecked, for the verdict and page 1 of the reports."""


def hello_request(protocol: str) -> dict[str, Any]:
    """The hello the harness sends: v2 offering both versions, or the v1 retry."""
    if protocol == V2:
        return {"id": 0, "op": "hello", "protocol": V2, "protocols": list(SPOKEN)}
    return {"id": 0, "op": "hello", "protocol": V1}


def _refused(answer: Any) -> bool:
    """A hello answered with error ``unsupported_protocol`` (a vendor of the earlier contract)."""
    return (isinstance(answer, dict) and same_id(answer.get("id"), 0) and isinstance(answer.get("error"), dict)
            and answer["error"].get("code") == "unsupported_protocol")


def negotiated(answer: Any, asked: str) -> Hello:
    """A hello answer checked against the contract, with the version it settles on: the one it
    names (one of those offered), or v1 when it names none."""
    hello = parse_hello(answer, 0)
    offered = SPOKEN if asked == V2 else (V1,)
    protocol = answer.get("protocol", V1)
    if protocol not in offered:
        raise VendorFault(FaultKind.BAD_HELLO, f"hello names protocol {for_terminal(repr(protocol), 80)}; the harness "
                                               f"offered {', '.join(offered)}")
    return replace(hello, protocol=protocol)


def greet(call: Callable[[dict[str, Any]], Any], checked: Callable[[Callable[[], Hello]], Hello]) -> Hello:
    """Negotiate the version over one session: ``call`` sends a request and returns the answer
    (raising VendorFault on a transport fault); ``checked`` runs a check, turning its VendorFault
    into the session's fault."""
    asked = V2
    answer = call(hello_request(V2))
    if _refused(answer):
        asked = V1
        answer = call(hello_request(V1))
    return checked(lambda: negotiated(answer, asked))


def v1_expected(op: str, expected: dict[str, Any]) -> dict[str, Any]:
    """An expected answer of a vector (``{"result": ...}`` or ``{"error": CODE}``) as v1 states it."""
    return {**expected, "result": v1_result(op, expected["result"])} if "result" in expected else expected


def _pick(batch: Batch, keep: list[int], op: str, project: bool) -> Batch:
    cases = [batch.cases[i] for i in keep]
    expected = [batch.expected[i] for i in keep]
    if project:
        cases = [v1_case(op, c) for c in cases]
        expected = [v1_expected(op, e) for e in expected]
    return replace(batch, tc_ids=[batch.tc_ids[i] for i in keep], cases=cases, expected=expected,
                   flags=[batch.flags[i] for i in keep], clauses=[batch.clauses[i] for i in keep],
                   comments=[batch.comments[i] for i in keep] if batch.comments else batch.comments)


def v1_parts(batch: Batch) -> tuple[Batch | None, Batch | None]:
    """A v2 batch as a v1 session meets it: (the part sent, in v1 shapes; the part left out),
    either None when empty."""
    sent = [i for i, case in enumerate(batch.cases) if v1_expressible(batch.op, case)]
    left = [i for i in range(len(batch.cases)) if i not in set(sent)] if len(sent) != len(batch.cases) else []
    return (_pick(batch, sent, batch.op, True) if sent else None,
            _pick(batch, left, batch.op, False) if left else None)


def unchecked_note(protocol: Any, protocol_totals: Mapping[str, Mapping[str, int]]) -> str | None:
    """What a run of an earlier contract version could not check, when it left vectors out for it
    (``protocol_totals``: the run's counts of dimension ``protocol``); None otherwise."""
    n = protocol_totals.get(NEEDS_V2, {}).get(Outcome.UNSUPPORTED, 0)
    if not n:
        return None
    return (f"{protocol} cannot check {V1_CANNOT_CHECK}: {n:,} vector{'s' if n != 1 else ''} that "
            f"{'need' if n != 1 else 'needs'} {V2} {'were' if n != 1 else 'was'} not sent")


def run_v1(batch: Batch, run: Callable[[Batch], BatchOutcome],
           unsupported: Callable[[Batch], BatchOutcome]) -> BatchOutcome:
    """The outcome of a v2 batch in a v1 session: ``run`` sends and judges the part v1 expresses,
    ``unsupported`` counts the rest (also under the ``protocol`` dimension); the outcome keeps
    the whole batch's key and size, so a resumed run meets the same batches."""
    sent, left = v1_parts(batch)
    out = run(sent) if sent else BatchOutcome(batch.file, batch.op, batch.tc_ids[0], 0, BatchStatus.UNSUPPORTED)
    if left:
        out.add(unsupported(left))
        out.counts[("protocol", NEEDS_V2, Outcome.UNSUPPORTED)] += len(left.cases)
    out.first_tc, out.n = batch.tc_ids[0], len(batch.cases)
    return out

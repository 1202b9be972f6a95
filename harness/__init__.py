"""tablecert.harness: runs a vendor against a suite and records what it answered.

* the vendor contract and its transports: :mod:`~tablecert.harness.contract` (the typed session
  and its optional capabilities), ``adapters/`` (subprocess, Python plugin, HTTP),
  :mod:`~tablecert.harness.sandbox` (confining a vendor process), ``vendor-protocol.md``;
* the run pipeline, ``run/``: a vendor instance, ``judge(instance, unit)`` and the recorder
  (:mod:`tablecert.harness.run`), used by the one-worker run (:mod:`~tablecert.harness.runner`),
  the hand suites (:mod:`~tablecert.harness.hand_runner`), the parallel runs and offline
  validation (:mod:`~tablecert.harness.offline`); fault recovery
  (:mod:`~tablecert.harness.recovery`);
* judging answers: :mod:`~tablecert.harness.judge` (one answer), :mod:`~tablecert.harness.bulk_judge`
  (a whole right batch), :mod:`~tablecert.harness.hand_failures` (hand batches),
  :mod:`~tablecert.harness.capabilities` (what a vendor declared);
* storage and outputs: :mod:`~tablecert.harness.results` (``run.db``),
  :mod:`~tablecert.harness.judged` and :mod:`~tablecert.harness.seal` (the record checked and
  sealed), :mod:`~tablecert.harness.verdict`, :mod:`~tablecert.harness.outputs`,
  :mod:`~tablecert.harness.causes`, :mod:`~tablecert.harness.run_folder`;
* suites: :mod:`~tablecert.harness.suite_reader`, :mod:`~tablecert.harness.suite_cache`;
* ``tablecert certify`` as a library call: :func:`tablecert.harness.certify.certify`.
"""

"""tablecert.harness: runs a vendor against a suite and records what it answered. One folder a job:

* the vendor contract: :mod:`~tablecert.harness.contract` (the typed session and its optional
  capabilities, declared), ``vendor-protocol.md`` (the published text) and
  ``capabilities.schema.json``;
* ``adapters/``: the transports (subprocess, Python plugin, HTTP);
* ``confine/``: confining a vendor process (:mod:`~tablecert.harness.confine.sandbox`, bubblewrap;
  :mod:`~tablecert.harness.confine.vendor_trees`, the folders it may see); starting one confined
  to show what it sees is :mod:`~tablecert.harness.run.sandbox_check`;
* ``run/``: the run pipeline (:mod:`tablecert.harness.run`: a vendor instance,
  ``judge(instance, unit)`` and the recorder) and the loops that use it: the one-worker run
  (:mod:`~tablecert.harness.run.runner`), the hand suites (:mod:`~tablecert.harness.run.hand_batches`,
  :mod:`~tablecert.harness.run.hand_runner`),
  offline validation (:mod:`~tablecert.harness.run.offline`), fault recovery
  (:mod:`~tablecert.harness.run.recovery`) and ``tablecert certify`` as a library call
  (:func:`tablecert.harness.run.certify.certify`);
* ``live/``: live tables, the vendor killed and restarted on its ``state_dir``;
* ``answers/``: judging answers: one answer (:mod:`~tablecert.harness.answers.compare`), a whole
  right batch (:mod:`~tablecert.harness.answers.bulk`), hand batches
  (:mod:`~tablecert.harness.answers.hand_failures`), declared capabilities
  (:mod:`~tablecert.harness.answers.capabilities`), causes (:mod:`~tablecert.harness.answers.causes`),
  round divergences (:mod:`~tablecert.harness.answers.round_findings`);
* the vocabulary every part speaks: :mod:`~tablecert.harness.model`;
* ``store/``: ``run.db``'s only owner (:mod:`~tablecert.harness.store`: schema, writer, typed reader);
* ``record/``: the run's record: the
  harness's own judged record and the seal (:mod:`~tablecert.harness.record.judged_record`,
  :mod:`~tablecert.harness.record.seal`, :mod:`~tablecert.harness.record.keys`), the verdict
  (:mod:`~tablecert.harness.record.verdict`), the run folder and its outputs;
* ``suites/``: suite folders as the harness reads them (:mod:`~tablecert.harness.suites.reader`)
  and the suite cache (:mod:`~tablecert.harness.suites.cache`);
* ``vendors/``: the demo vendor and the kit for vendors that differ from the reference.

Order of the parts (imports point one way: a part imports only parts above it in this table, never
one below or beside; tests/test_layers.py reads this table and checks every import between them,
those inside functions and those for type checking only too):

| part | order | job |
|---|---|---|
| `contract.py` | 1 | the vendor contract (the bottom) |
| `vendor_text.py` | 1 | vendor text escaped for the terminal, XML and the PDFs |
| `lab_files.py` | 1 | writing in the lab's folders, never through a link |
| `model.py` | 2 | the vocabulary: batches, outcomes, verdict words, the typed records of a run |
| `protocol_versions.py` | 3 | the contract's versions: greeting, what v1 expresses |
| `store/` | 4 | run.db's only owner: schema, writer, typed reader |
| `confine/` | 5 | the sandbox |
| `suites/` | 6 | reading suites, the suite cache |
| `adapters/` | 7 | transports |
| `answers/` | 8 | judging answers, causes |
| `live/` | 9 | live tables |
| `record/` | 10 | the run's record: judged record, seal, chain, verdict, outputs, run folder |
| `run/` | 11 | the run pipeline and its loops, ``certify``, ``sandbox-check`` |
| `vendors/` | 12 | the demo vendor and the vendor kit |
"""

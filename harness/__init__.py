"""tablecert.harness: runs a vendor against a suite and records what it answered. One folder a job:

* the vendor contract: :mod:`~tablecert.harness.contract` (the spec: the typed session, its
  optional capabilities and the fault kinds, declared), ``vendor-protocol.md`` (the published
  text) and ``capabilities.schema.json``;
* ``adapters/``: the transports (subprocess: its process, line channel and session; Python
  plugin; HTTP) and finding adapters and vendors by name;
* ``confine/``: confining a vendor process (:mod:`~tablecert.harness.confine.sandbox`, bubblewrap;
  :mod:`~tablecert.harness.confine.vendor_trees`, the folders it may see); starting one confined
  to show what it sees is :mod:`~tablecert.harness.run.sandbox_check`;
* ``run/``: the run pipeline (:mod:`tablecert.harness.run`: a vendor instance,
  ``judge(instance, unit)`` and the recorder) and the loops that use it: the one-worker run
  (:mod:`~tablecert.harness.run.runner`), the hand suites (:mod:`~tablecert.harness.run.hand_batches`,
  :mod:`~tablecert.harness.run.hand_runner`),
  offline validation (:mod:`~tablecert.harness.run.offline`) and ``tablecert certify`` as a library
  call (:func:`tablecert.harness.run.certify.certify`);
* ``instance/``: one vendor instance of a run (:mod:`~tablecert.harness.instance.vendor_instance`),
  its fault recovery (:mod:`~tablecert.harness.instance.recovery`), judging a vector batch
  (:mod:`~tablecert.harness.instance.vectors`) and what a run hands the live tables and a spread
  run (:mod:`~tablecert.harness.instance.context`): below both ``run/`` and ``live/``;
* ``live/``: live tables, the vendor killed and restarted on its ``state_dir``;
* ``answers/``: judging answers: an answer's envelope (:mod:`~tablecert.harness.answers.envelope`),
  one answer (:mod:`~tablecert.harness.answers.compare`), a whole
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
| `store/` | 3 | run.db's only owner: schema, writer, typed reader |
| `confine/` | 4 | the sandbox |
| `suites/` | 5 | reading suites, the suite cache |
| `answers/` | 6 | judging answers (an answer's envelope and a hello's capabilities too), causes |
| `protocol_versions.py` | 7 | the contract's versions: greeting, what v1 expresses |
| `adapters/` | 8 | transports |
| `instance/` | 9 | a vendor instance, its fault recovery, judging a vector batch, the contexts a run hands out |
| `live/` | 10 | live tables |
| `record/` | 11 | the run's record: judged record, seal, chain, verdict, outputs, run folder |
| `run/` | 12 | the run pipeline and its loops, ``certify``, ``sandbox-check`` |
| `vendors/` | 13 | the demo vendor and the vendor kit |
Public face (:data:`__all__`): what the command line and the layers above use, each name imported
from its module when first asked for (PEP 562, :func:`tablecert.lazy_face`): ``import
tablecert.harness`` loads nothing of the run, so a refused command line stays fast.
"""

from tablecert import lazy_face

_FACE = {
    # the contract (a module), and the rest through the faces of the subpackages that hold them
    "FaultKind": "contract", "Hello": "contract", "KNOWN_OPS": "contract", "SessionOptions": "contract",
    "VendorFault": "contract", "VendorSession": "contract", "for_terminal": "vendor_text",
    "VendorTarget": "adapters", "find_adapter": "adapters", "find_python_vendor": "adapters",
    "certify": "run.certify", "check_sandbox": "run.sandbox_check:check", "vendor_path_problem": "confine",
    "load_build_manifest": "confine.build_manifest:load_manifest", "verify_build": "record.build_record",
    "LiveSettings": "live", "default_cache_dir": "suites",
    "EXIT_CODES": "model", "Verdict": "model", "Decision": "model", "verdict_title": "model",
    "FaultPolicy": "instance",
    **dict.fromkeys(("CertifyOptions", "HandSlice", "OutputOptions", "RerunError", "RerunSelection",
                     "RunError", "RunOptions", "SliceError", "SuiteOptions", "prepare_suite", "progress_callback",
                     "rerun_selection", "same_suite", "validate_responses", "write_concluded"), "run"),
    "StorageError": "store", **dict.fromkeys(("check_database_files", "remove_our_folder", "write_atomically"), "lab_files"),
    **dict.fromkeys(("check_new_run_folder", "concluded_run", "locked_run_folder", "prepare_run_folder", "resumed_head",
                     "run_command", "run_is_live", "run_key", "trusted_seal_keys", "write_outputs"), "record"),
}
__all__ = sorted(_FACE)
__getattr__ = lazy_face(__name__, _FACE)

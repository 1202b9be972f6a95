"""The run's record: the run database, the harness's own judged record, the seal and keys, the verdict, the run folder and its outputs."""

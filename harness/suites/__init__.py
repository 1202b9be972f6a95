"""Suite folders as the harness reads them: the batch stream and the suite cache."""

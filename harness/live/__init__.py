"""Live tables through the harness: a vendor instance that can be killed and restarted on the
same ``state_dir`` (:mod:`.instance`), the driver that plays a live-suite vector one step per
request, interrupts it and judges every answer (:mod:`.driver`), and the findings and replays of
a vector that fails (:mod:`.findings`). The runner reaches it only through :func:`.driver.run_live_batch`."""

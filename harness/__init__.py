"""tablecert.harness (to come)."""

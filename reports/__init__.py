"""tablecert.reports (to come)."""

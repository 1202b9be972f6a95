"""Confining a vendor's process: the sandbox (bubblewrap), the folders it may see, and ``tablecert sandbox-check``."""

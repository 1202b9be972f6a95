"""``python -m tablecert`` runs the command line."""

from tablecert.cli import main

raise SystemExit(main())

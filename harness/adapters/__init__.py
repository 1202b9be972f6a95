"""Built-in vendor adapters (subprocess, python, http), registered as entry points like outside ones."""

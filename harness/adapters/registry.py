"""Finding a vendor by name: the adapters and Python vendors registered as entry points, and the
picklable :class:`VendorTarget` a run opens every vendor instance from.

Built-in and outside adapters are found the same way, through the entry-point group
``tablecert.adapters`` (:func:`find_adapter`); Python vendors through ``tablecert.vendors`` or as
``module:attr`` (:func:`find_python_vendor`; the reference vendor is registered like any outside
plugin). Nothing here talks to a vendor: an adapter's :meth:`~tablecert.harness.contract.Adapter.open`
does (:mod:`tablecert.harness.contract`).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

from tablecert.harness.contract import (ADAPTER_GROUP, VENDOR_GROUP, Adapter, Binding, BuildSource, LiveAdapter,
                                       PythonVendor, SessionOptions, VendorSession)


def find_adapter(name: str) -> Adapter:
    """The adapter registered under ``name`` in the ``tablecert.adapters`` entry-point group."""
    found = {ep.name: ep for ep in metadata.entry_points(group=ADAPTER_GROUP)}
    if name not in found:
        raise ValueError(f"unknown adapter {name!r}; installed adapters: {', '.join(sorted(found)) or 'none'}")
    adapter = found[name].load()
    return adapter() if isinstance(adapter, type) else adapter


@dataclass
class VendorTarget:
    """Which adapter reaches the vendor, and how (a command line, a plugin, a URL), with the
    session options every instance of the run is opened with (a Ray actor gets it pickled: this
    module is all it needs to import for it)."""

    adapter: str
    target: str
    options: SessionOptions = field(default_factory=SessionOptions)

    def opener(self) -> Callable[[], VendorSession]:
        adapter = find_adapter(self.adapter)
        return lambda: adapter.open(self.target, self.options)

    def live_scope(self) -> str | None:
        """Why live tables cannot be played over this vendor's adapter with these options (None:
        they can: :class:`~tablecert.harness.contract.LiveAdapter`)."""
        adapter = find_adapter(self.adapter)
        if not isinstance(adapter, LiveAdapter):
            return f"the {self.adapter} adapter cannot cut its vendor (it offers no live-table sessions)"
        return adapter.live_scope(self.options)

    def live_opener(self, state_dir: str) -> Callable[[], VendorSession]:
        """Live-table sessions of the vendor on ``state_dir`` (each one, after a cut, the vendor
        restarted on it)."""
        adapter = find_adapter(self.adapter)
        assert isinstance(adapter, LiveAdapter), self.live_scope()
        return functools.partial(adapter.open_live, self.target, self.options, state_dir)

    def binding(self) -> Binding | None:
        """What of the vendor's build its adapter lets the run bind (None: nothing, an adapter
        that is not a :class:`~tablecert.harness.contract.BuildSource`)."""
        adapter = find_adapter(self.adapter)
        return adapter.binding if isinstance(adapter, BuildSource) else None

    def not_bound(self) -> str:
        """Why no files of the vendor were bound, in the run's record."""
        adapter = find_adapter(self.adapter)
        return adapter.not_bound if isinstance(adapter, BuildSource) else f"the {self.adapter} adapter binds no files"

    def starts_vendor(self) -> bool:
        """Whether the harness starts the vendor's live instances itself (so they can enter the
        namespaces of the ``state_dir``'s file system), not a server the lab runs."""
        adapter = find_adapter(self.adapter)
        return isinstance(adapter, LiveAdapter) and adapter.starts_vendor

    def state_owner(self) -> tuple[int, int] | None:
        """The uid and gid the vendor's ``state_dir`` belongs to (None: the lab's own)."""
        adapter = find_adapter(self.adapter)
        return adapter.state_owner(self.target, self.options) if isinstance(adapter, LiveAdapter) else None


def command_line(adapter: str | None, target: Any) -> str | None:
    """The command that starts the vendor a run reached by ``adapter`` at ``target`` (both as its
    meta keeps them) on stdin and stdout; None when it is not a command line (a URL, offline
    answers, an adapter not installed here)."""
    try:
        found = find_adapter(str(adapter))
    except ValueError:
        return None
    return found.command_line(target) if isinstance(found, BuildSource) else None


def find_python_vendor(spec: str) -> PythonVendor:
    """A Python vendor by entry-point name (group ``tablecert.vendors``) or by ``module:attr``;
    a class is instantiated without arguments."""
    if ":" in spec:
        module_name, _, attr = spec.partition(":")
        try:
            obj: Any = importlib.import_module(module_name)
            for part in attr.split("."):
                obj = getattr(obj, part)
        except (ImportError, AttributeError) as err:
            raise ValueError(f"cannot load vendor {spec!r}: {err}") from None
    else:
        found = {ep.name: ep for ep in metadata.entry_points(group=VENDOR_GROUP)}
        if spec not in found:
            raise ValueError(f"unknown vendor plugin {spec!r}; installed: {', '.join(sorted(found)) or 'none'}")
        obj = found[spec].load()
    vendor = obj() if isinstance(obj, type) else obj
    if not isinstance(vendor, PythonVendor):
        raise ValueError(f"vendor {spec!r} has no handle(request) method")
    return vendor

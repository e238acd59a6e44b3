"""Plain record classes: what a dataclass would generate for equality and ``repr``, without
importing dataclasses (which imports inspect: ~9 ms, a third of the interpreter's start, in
every command an agent runs). Pure.

A subclass declares its ``__slots__``, each one a parameter of its ``__init__``, and, in
``COMPARED``, the fields that make two objects equal and that ``repr`` shows (in order); the
others are derived or carried along.
"""

from __future__ import annotations

from typing import Any, ClassVar, Self


class Plain:
    """Equal when of the same class with equal ``COMPARED`` fields; unhashable (mutable)
    unless a subclass says otherwise."""

    __slots__ = ()
    COMPARED: ClassVar[tuple[str, ...]] = ()

    def compared(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.COMPARED)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Plain)
        return self.compared() == other.compared()

    # (defining __eq__ leaves __hash__ None: unhashable, unless a subclass defines it)

    def replace(self, **changes: Any) -> Self:
        """A copy with ``changes``: every slot passed again, derived ones too (as
        ``dataclasses.replace`` passes every field)."""
        slots: tuple[str, ...] = type(self).__slots__
        fields = {name: getattr(self, name) for name in slots}
        return type(self)(**{**fields, **changes})

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.COMPARED)
        return f"{type(self).__name__}({shown})"

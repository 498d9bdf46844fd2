"""A game's log as persistent data: each state's log shares every entry with the state it came from.

A game's states are frozen and each action returns a new one, so a log kept as
a tuple is copied whole by every action, and the states a viewer keeps for
undo hold a copy each: memory quadratic in the game's length (a Talo game of
4 000 throws took 1.4 GB, one of 10 000 ran out). An :class:`EventLog` is a
list of links back to the previous entry instead: adding an entry costs one
link and copies nothing, every state keeps only its own last link, and states
that share a past share its links, so the memory of all of a game's states
together grows with the number of entries, not with its square.

It reads as a tuple does (length, iteration both ways, indexing, slices, ``+``
with a tuple of entries) and equals a log of the same entries, so states
compare and round-trip through JSON as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any


class _Link:
    """One entry and the link before it (None for the first)."""

    __slots__ = ("before", "entry")

    def __init__(self, before: _Link | None, entry: Any):
        self.before = before
        self.entry = entry


class EventLog(Sequence):
    """An immutable sequence of a game's entries, sharing its past with the logs it was made from.

    Build one with :meth:`of` (from any entries) and extend it with ``log + (entry, ...)`` or :meth:`add`:
    neither changes the log it starts from.
    """

    __slots__ = ("_last", "_length")

    def __init__(self, last: _Link | None = None, length: int = 0):
        self._last = last
        self._length = length

    @classmethod
    def of(cls, entries: Iterable) -> EventLog:
        """A log of ``entries`` (a log is returned as it is)."""
        if isinstance(entries, EventLog):
            return entries
        return cls().extend(entries)

    def add(self, entry) -> EventLog:
        """This log with ``entry`` after its last entry."""
        return EventLog(_Link(self._last, entry), self._length + 1)

    def extend(self, entries: Iterable) -> EventLog:
        """This log with ``entries`` after its last entry, in order."""
        last, length = self._last, self._length
        for entry in entries:
            last, length = _Link(last, entry), length + 1
        return EventLog(last, length)

    def __add__(self, entries) -> EventLog:
        if not isinstance(entries, (tuple, list, EventLog)):
            return NotImplemented
        return self.extend(entries)

    def __len__(self) -> int:
        return self._length

    def __reversed__(self) -> Iterator:
        link = self._last
        while link is not None:
            yield link.entry
            link = link.before

    def __iter__(self) -> Iterator:
        return iter(self._entries())

    def _entries(self) -> list:
        out = list(reversed(self))
        out.reverse()
        return out

    def __getitem__(self, index):
        if isinstance(index, slice):
            return tuple(self._entries()[index])
        index = int(index)
        back = -index - 1 if index < 0 else self._length - 1 - index
        if not 0 <= back < self._length:
            raise IndexError("log index out of range")
        link = self._last
        for _ in range(back):  # the last entries are the ones asked for: a few steps
            link = link.before
        return link.entry

    def __eq__(self, other) -> bool:
        if isinstance(other, EventLog):
            if self._length != other._length:
                return False
            a, b = self._last, other._last
            while a is not b:  # up to the past they share
                if a.entry != b.entry:
                    return False
                a, b = a.before, b.before
            return True
        if isinstance(other, (tuple, list)):
            return len(other) == self._length and all(x == y for x, y in zip(self, other))
        return NotImplemented

    __hash__ = None  # as its entries: a game's events hold dicts

    def __repr__(self) -> str:
        return f"EventLog({self._entries()!r})"

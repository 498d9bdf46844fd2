"""What goes wrong with recordings: a file that cannot be read, an option that cannot be used."""

from __future__ import annotations

from sim.errors import TowerlabError


class RecordingError(TowerlabError):
    """A recording that cannot be read: truncated before its header ended, damaged, of an unknown format.

    The message is one line naming the file and what is wrong with it.
    """


class RecorderError(TowerlabError):
    """A recorder used wrongly or unable to write (time going backwards, a second start, a full disk)."""


class ReplayError(TowerlabError):
    """A replay request that cannot be met (a time outside the recording, a piece it does not hold, a
    re-simulation whose actions no longer reproduce the recorded frames)."""

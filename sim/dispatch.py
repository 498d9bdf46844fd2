"""Actions dispatched through one table: each named action to the method that does it, built once from the
names an interface declares (its specs), and checked both ways when it is built.

The viewer's controller (``_do_pick`` for ``pick``), the replay's controller, the games' play sessions
(``_act_select_pawn`` for ``select-pawn``) and the live world's data actions all dispatch this way: a spec with
no method, or a method no spec names, is an error of the code found when the object is made, not when a
player first tries the action.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache


def method_name(action: str, prefix: str) -> str:
    """The method that does ``action``: ``prefix`` + its name with ``-`` as ``_`` (``select-pawn`` ->
    ``_act_select_pawn``)."""
    return prefix + action.replace("-", "_")


def handler_table(cls: type, names: Iterable[str], prefix: str, *, complete: bool = True) -> dict[str, Callable]:
    """Action name -> the function of ``cls`` that does it (called with the object first), for every name in
    ``names``; made once for each class and ``names``.

    Args:
        cls: the class whose objects do the actions.
        names: the actions it declares (the keys of its specs).
        prefix: its methods' prefix (``_do_``, ``_act_``).
        complete: also refuse a ``prefix`` method that no name declares (a handler nobody can reach).

    Raises:
        TypeError: a declared action without its method, or (``complete``) a method without its action.
    """
    return _table(cls, tuple(names), prefix, complete)


@cache
def _table(cls: type, names: tuple[str, ...], prefix: str, complete: bool) -> dict[str, Callable]:
    missing = [n for n in names if not callable(getattr(cls, method_name(n, prefix), None))]
    if missing:
        raise TypeError(f"{cls.__name__} declares {', '.join(missing)} without a {prefix}... method")
    if complete:
        declared = {method_name(n, prefix) for n in names}
        stray = sorted(m for m in dir(cls) if m.startswith(prefix) and m not in declared)
        if stray:
            raise TypeError(f"{cls.__name__} has {', '.join(stray)} that no action declares")
    return {n: getattr(cls, method_name(n, prefix)) for n in names}

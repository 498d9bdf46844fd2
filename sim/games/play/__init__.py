"""The three games played on the viewer's table, in turn, with the program as the referee.

Pure: a session (:mod:`.session`) is told what happens on the table and answers
with effects; :mod:`.talo`, :mod:`.fantasy` (Talo-Fantasy; the two share
:mod:`.talo_turns`), :mod:`.babylon_tactical` and :mod:`.tohuwabohu` are the
games' sessions, :mod:`.judge` the statics as their balance judge. The viewer's
play mode (:mod:`sim.viewer.play`) carries the effects out.
"""

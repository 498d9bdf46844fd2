"""The three games played on a table, in turn, with the program as the referee, and the one game interface.

Pure: a session (:mod:`.session`) is told what happens on the table and answers
with effects; :mod:`.talo`, :mod:`.fantasy` (Talo-Fantasy; the two share
:mod:`.talo_turns`), :mod:`.babylon_tactical`, :mod:`.babylon_fast` and
:mod:`.tohuwabohu` are the games' sessions, :mod:`.judge` the statics as their
balance judge. The viewer's play mode (:mod:`sim.viewer.play`) carries the
effects out on the live table. The same sessions answer the one game interface
(:mod:`.state`: a game in progress as a frozen state, asked what is legal
before it acts) on a table without physics (:mod:`.still`); what each game
allows now is in :mod:`.talo_moves`, :mod:`.babylon_moves` and
:mod:`.tohuwabohu_moves`, where a piece may rest in :mod:`.spots`.
"""

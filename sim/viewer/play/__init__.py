"""The viewer's play mode: the three games played on the table, in turn, hot seat, the program as the referee.

- :mod:`.games`: each game set up for play, looked up in the games' registry (:mod:`sim.games.registry`);
- :mod:`.actions`: the games' own actions as validated JSON data;
- :mod:`.table`: the table as a referee reads it, and the referee's effects carried out on it;
- :mod:`.mode`: :class:`~.mode.Referee`, a referee on the controller (picks, drops, actions, time, events);
- :mod:`.legal`: what a carried piece may do now (the referee's legal places, its ghost's verdict);
- :mod:`.panels`: what the game panel says, as text (and what Tohuwabohu's card tray shows);
- :mod:`.cards`: Tohuwabohu's order cards drawn as ``towerlab cards`` draws them, once, in a worker process.

The referees themselves are pure (:mod:`sim.games.play`). Nothing here imports
Panda3D but the window's own modules, which draw the panel, the routes, the
card tray and the legal places (:mod:`.draw`, :mod:`.tray`, :mod:`.draw_legal`).
"""

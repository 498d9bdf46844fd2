"""Networked play: one authoritative table on a server, many windows (docs/network.md).

* :mod:`sim.net.table`: the game on the server (the play window's controller and referee, headless), the seats'
  rules, the log of everything done and :func:`~sim.net.table.replay` of it;
* :mod:`sim.net.runner`: the table's own thread (frames at real time, commands between them, autosaves);
* :mod:`sim.net.server`: the asyncio WebSocket server (who joins, hostile messages, what each client is sent);
* :mod:`sim.net.protocol`: the messages, their checks and limits; :mod:`sim.net.links`: the seats' links;
* :mod:`sim.net.client`: a client without a window (tests, benchmarks, computer players);
* :mod:`sim.net.seatfile`: the seats' secrets beside the autosave, to serve a table again.
"""

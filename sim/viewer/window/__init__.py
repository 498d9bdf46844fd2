"""The window side: everything that imports Panda3D (the build, play and replay windows, their drawing,
panels, input and the shell they share), with the plain data only a window uses (layout, colours, the
probe). It reads the controllers (:mod:`sim.viewer.control`, :mod:`sim.viewer.play`,
:mod:`sim.viewer.replay`) and sends them actions; they never import it."""

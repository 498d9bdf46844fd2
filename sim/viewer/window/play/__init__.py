"""The play mode in the window (Panda3D): the game panel, the die, the legal-move rings, the card tray."""

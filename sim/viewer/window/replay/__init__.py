"""The replay window (Panda3D): its keys, panels and the window itself."""

"""Files the package reads at run time, shipped inside it: visual meshes and card scenes.

``meshes/`` holds the glTF files of every catalogue piece and board with a
manifest of fingerprints (written by ``tools/build_meshes.py``);
``cards/tohuwabohu/`` the example construction of every Tohuwabohu order card
(written by ``tools/build_tohuwabohu_cards.py``). Read them with
``importlib.resources.files("sim.data")``, never through a path relative to
the source tree, so that an installed wheel finds them too.
"""

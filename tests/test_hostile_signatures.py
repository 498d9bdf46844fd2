"""Recordings that settle disputes carry a table's signature (issue 31): a table that keeps a key signs the
manifest of what it records (HMAC-SHA256, ``signature.json``); ``replay``/``penalty --key FILE`` say "signed by
this table's key" or refuse, in one line, a recording that is unsigned, signed by another key, or changed after it
was signed, and a forger who recomputes every digest is caught.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat

import pytest

from sim.cli import main
from sim.physics.live import LiveWorld
from sim.replay import Recorder, load_recording
from sim.replay.script import play_script
from sim.replay.signing import KEY_BYTES, KeyFileError, SignatureError, TableKey, key_for_table, load_key
from tests import forge
from tests.helpers import one_line
from tests.test_penalty import carry, scene

SIGNATURE = "signature.json"


def a_key(folder, name="table.key") -> TableKey:
    key, made = key_for_table(folder / name)
    assert made
    return key


def signed_recording(path, key: TableKey | None):
    """A free game of two boxes, the top one carried off by ana (a penalty has someone to name); signed with
    ``key`` (None: unsigned)."""
    s = scene("free", "table", ["ana", "ben"], [{"id": "a", "kind": "box", "size": [20, 20, 20], "pos": [0, 0, 10]},
                                                 {"id": "b", "kind": "box", "size": [20, 20, 20], "pos": [0, 0, 30]}])
    with LiveWorld(s) as lw, Recorder(path, sync=False, key=key) as rec:
        rec.start_live(lw, game="free", players=["ana", "ben"])
        play_script(lw, carry("b", "ana", [0, 0], [0.2, 0], 0.08), rec)
    return path


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    folder = tmp_path_factory.mktemp("signed")
    key = a_key(folder)
    return folder, key, signed_recording(folder / "signed.tlrec", key), signed_recording(folder / "plain.tlrec", None)


def test_a_table_s_key_file_is_made_private_and_read_back_the_same(tmp_path):
    key, made = key_for_table(tmp_path / "k" / "table.key")
    assert made and len(key.secret) == KEY_BYTES
    assert stat.S_IMODE(os.stat(key.path).st_mode) == 0o600
    again, made = key_for_table(key.path)
    assert not made and again.secret == key.secret and again.key_id == key.key_id
    assert key_for_table(tmp_path / "other.key")[0].key_id != key.key_id  # a new key each table


def test_a_signed_recording_checks_out_with_its_table_s_key(table, capsys):
    folder, key, signed, _ = table
    assert load_recording(signed).signature.key_id == key.key_id
    for args in (["replay", signed, "--summary", "--key", key.path], ["penalty", signed, "--key", key.path]):
        assert main([str(a) for a in args]) == 0
        err = capsys.readouterr().err
        assert f"signed by this table's key ({key.path}, key id {key.key_id})" in err, err
    assert main(["replay", str(signed), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["signed_by"] == key.key_id


def test_without_the_key_a_signed_recording_says_only_that_it_is_signed(table, capsys):
    _, key, signed, plain = table
    assert main(["penalty", str(signed)]) == 0
    assert f"signed by a table's key (key id {key.key_id}); --key FILE checks" in capsys.readouterr().err
    assert main(["penalty", str(plain)]) == 0
    assert "signed" not in capsys.readouterr().err


def test_an_unsigned_recording_is_refused_when_a_key_is_given(table, capsys):
    _, key, _, plain = table
    assert main(["penalty", str(plain), "--key", str(key.path)]) == 2
    assert one_line(capsys).startswith(f"towerlab: error: {plain}: not signed (--key {key.path} checks")


def test_a_recording_signed_by_another_table_is_refused(table, tmp_path, capsys):
    _, key, signed, _ = table
    other = a_key(tmp_path, "other.key")
    assert main(["replay", str(signed), "--summary", "--key", str(other.path)]) == 2
    assert one_line(capsys) == (f"towerlab: error: {signed}: signature.json: key_id: signed by another key "
                                f"({key.key_id}), not {other.path}'s ({other.key_id})")


def _forged(signed, out, *, resign=None, keep_id=None):
    """``signed`` with a pose moved, every digest and the manifest made to match again (what anyone can do), and
    its signature: kept as it was, recomputed by ``resign`` (a key), or with the table's key id but a guessed
    hmac (``keep_id``)."""
    items = forge.members(signed.read_bytes())
    first = next(n for n, _ in items if n.endswith("000000.npz"))

    def moved(a):
        a["key_poses"][0, 0] += 0.05  # 5 cm: the tower stood elsewhere

    items = forge.edit_arrays(items, first, moved)
    body = [(n, r) for n, r in items if n != SIGNATURE]
    data = forge.build(out, body)  # digests and manifest fixed up
    manifest = dict(forge.members(data))["manifest.json"]
    old = json.loads(dict(items)[SIGNATURE])
    if resign is not None:
        sig = resign.sign(manifest)
    elif keep_id is not None:
        sig = {**old, "manifest_sha256": hashlib.sha256(manifest).hexdigest(), "hmac": "0" * 64}  # a guess
    else:
        sig = old
    forge.build(out, [*forge.members(data), (SIGNATURE, forge.dumps(sig))], fix=False)
    return out


def test_a_forger_who_recomputes_every_digest_is_caught_by_the_key(table, tmp_path, capsys):
    _, key, signed, _ = table
    kept = _forged(signed, tmp_path / "kept.tlrec")
    assert main(["penalty", str(kept)]) == 2  # the old signature no longer fits the manifest: damage, key or not
    assert "signature.json: manifest_sha256: does not match manifest.json (damaged)" in one_line(capsys)
    guessed = _forged(signed, tmp_path / "guessed.tlrec", keep_id=True)
    assert main(["penalty", str(guessed)]) == 0  # without the key nobody can tell: the note says so
    assert "--key FILE checks" in capsys.readouterr().err
    assert main(["penalty", str(guessed), "--key", str(key.path)]) == 2
    assert one_line(capsys) == (f"towerlab: error: {guessed}: signature.json: hmac: does not match the manifest "
                                f"under {key.path}'s key: the recording was changed after it was signed, or the "
                                "signature forged")
    own = _forged(signed, tmp_path / "own.tlrec", resign=a_key(tmp_path, "forger.key"))
    assert main(["penalty", str(own), "--key", str(key.path)]) == 2
    assert "signed by another key" in one_line(capsys)


@pytest.mark.parametrize("change, expected", [
    (lambda s: s.update(hmac="xyz"), "signature.json: hmac: expected a sha256 digest"),
    (lambda s: s.update(algorithm="none"), "signature.json: algorithm: expected one of hmac-sha256"),
    (lambda s: s.update(key_id=["a"]), "signature.json: key_id: expected a key id (16 hex digits)"),
    (lambda s: s.update(extra=1), "signature.json: extra"),
    (lambda s: s.pop("hmac"), "signature.json: hmac"),
])
def test_a_malformed_signature_is_one_line(table, tmp_path, capsys, change, expected):
    _, _, signed, _ = table
    items = forge.members(signed.read_bytes())
    sig = json.loads(dict(items)[SIGNATURE])
    change(sig)
    path = tmp_path / "bad.tlrec"
    forge.build(path, [(n, forge.dumps(sig) if n == SIGNATURE else r) for n, r in items], fix=False)
    assert main(["replay", str(path), "--summary"]) == 2
    assert expected in one_line(capsys)


def test_a_signature_anywhere_but_after_the_manifest_is_refused(table, tmp_path, capsys):
    _, _, signed, _ = table
    items = forge.members(signed.read_bytes())
    moved = [items[0], items[-1], *items[1:-1]]
    forge.build(tmp_path / "moved.tlrec", moved, fix=False)
    assert main(["replay", str(tmp_path / "moved.tlrec"), "--summary"]) == 2
    assert "signature.json: expected right after manifest.json" in one_line(capsys)


@pytest.mark.parametrize("content", ["fifo", b"", b"not a key\n", b"ab" * 31 + b"\n", b"zz" * 32, b"0" * 5000])
def test_a_key_file_that_is_none_is_one_line(table, tmp_path, capsys, content):
    _, _, signed, _ = table
    path = tmp_path / "bad.key"
    if content == "fifo":
        os.mkfifo(path)
    else:
        path.write_bytes(content)
    assert main(["penalty", str(signed), "--key", str(path)]) == 2
    line = one_line(capsys)
    assert line.startswith(f"towerlab: error: --key {path}: "), line
    with pytest.raises(KeyFileError, match="--key"):
        load_key(path)


def test_a_served_table_signs_its_recording(tmp_path):
    from sim.net.table import ServedTable, Setup

    key = a_key(tmp_path)
    table = ServedTable(Setup("talo", None, ("red", "blue"), 1), record=tmp_path / "t.tlrec", key=key)
    try:
        for _ in range(80):
            table.step()
    finally:
        table.close()
    r = load_recording(tmp_path / "t.tlrec")
    r.check_key(key)
    assert r.signature.key_id == key.key_id


def test_serve_refuses_a_key_without_a_recording(tmp_path, capsys):
    assert main(["serve", "talo", "--no-record", "--key", str(tmp_path / "k"), "--port", "0"]) == 2
    assert "--key: signs the recording; not with --no-record" in one_line(capsys)
    assert not (tmp_path / "k").exists()


def test_the_signed_bytes_are_the_manifest_s(table):
    """The hmac covers the manifest's bytes (and through its sha256s every member): one byte of it changed, and
    the check fails."""
    _, key, signed, _ = table
    r = load_recording(signed)
    key.check(r.signature, r.manifest)
    flipped = bytearray(r.manifest)
    flipped[10] ^= 1
    with pytest.raises(SignatureError, match="hmac"):
        key.check(r.signature, bytes(flipped))


def test_serve_makes_the_table_s_key_once_and_refuses_one_that_is_none(tmp_path, capsys, monkeypatch):
    from sim.cli.serve import _table_key

    key = _table_key(tmp_path / "table.key")
    assert f"made the table's key {tmp_path / 'table.key'} (key id {key.key_id})" in capsys.readouterr().out
    assert _table_key(tmp_path / "table.key").secret == key.secret and capsys.readouterr().out == ""
    monkeypatch.chdir(tmp_path)
    os.mkfifo(tmp_path / "fifo.key")
    assert main(["serve", "talo", "--key", "fifo.key", "--port", "0", "--record", "r.tlrec"]) == 2
    assert one_line(capsys) == "towerlab: error: --key fifo.key: is a FIFO (named pipe), not a regular file"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo.key", "table.key"]  # nothing else made

"""Names of pieces in a line of text."""

from sim.names import listing


def test_a_listing_names_the_first_and_counts_the_rest():
    ids = [f"b{k}" for k in range(20)]
    assert listing(ids) == "b0, b1, b2, b3, b4, b5 and 14 more"
    assert listing(ids[:6]) == "b0, b1, b2, b3, b4, b5"
    assert listing(ids, 12).endswith("b11 and 8 more")
    assert listing((), none="nobody") == "nobody" and listing(iter(["a"])) == "a"

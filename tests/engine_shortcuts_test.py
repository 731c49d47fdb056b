"""The one-term shortcut's prefixed ids kept from key to key (``shortcuts.Prefixed``): the
same ids as a scan of the whole first-letter table, and the same rankings as a fresh index,
whatever keys are typed, backspaced or retyped and however the index grows between them."""

from __future__ import annotations

from array import array
from functools import cache
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from ffind.engine import shortcuts
from ffind.engine.index import Index
from ffind.engine.prefixed import Prefixed, prefix_scan
from ffind.engine.ranker import rank
from ffind.engine.shortcuts import shortcut
from ffind.engine.tuning import DEFAULT as DEFAULT_TUNING
from ffind.engine.tuning import Tuning

CORPUS = Path(__file__).parent / "data" / "corpus_paths.txt"


@cache
def corpus() -> list[str]:
    return CORPUS.read_text(encoding="utf-8").splitlines()


@st.composite
def typed(draw: st.DrawFn) -> list[str]:
    """Keys as a user types them: a word from the start of a corpus path's file name or of
    one of its folders, typed a key at a time, with backspaces and other words between, some
    as an OR alternative of the last or quoted as a boundary term."""
    keys: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(corpus())).lower()
        part = draw(st.sampled_from(path.split("/")))
        word = part[: draw(st.integers(1, min(7, len(part))))]
        # sometimes after the last word, fzf's OR (``a | b``) or a quote (``'b'`` at the end)
        how = draw(st.sampled_from(["new", "new", "or", "quote"])) if keys else "new"
        before = {"new": "", "or": keys[-1] + " | " if keys else "", "quote": "'"}[how]
        for i in range(1, len(word) + 1):
            keys.append(before + word[:i])
            if i > 1 and draw(st.integers(0, 5)) == 0:
                keys.append(before + word[: i - 1])  # a backspace, then the key again
                keys.append(before + word[:i])
        if how == "quote":
            keys.append(before + word + "'")
    return keys


def test_a_one_character_key_is_its_whole_table() -> None:
    table = array("i", [3, 1, 2])
    assert Prefixed().ids(table, "a", ["x"] * 4, [0] * 4, False) == [3, 1, 2]


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_kept_ids_are_a_scan_of_the_whole_table(data: st.DataObject) -> None:
    """Keys of either kind typed longer, shorter or anew, the tables growing between them:
    each answer is the plain scan of the table."""
    texts = data.draw(st.lists(st.text("ab/", min_size=1, max_size=4).map(lambda t: t + "ab"),
                               min_size=10, max_size=40))
    # (each kind tests the texts at offsets of its own, and has tables of its own)
    ats = {kind: [data.draw(st.integers(0, len(t) - 1)) for t in texts]
           for kind in (False, True)}
    tables: dict[tuple[bool, str], array[int]] = {
        (kind, c): array("i") for kind in (False, True) for c in "ab"}
    done = [0]

    def grow(upto: int) -> None:
        for i in range(done[0], upto):
            for kind, at in ats.items():
                c = texts[i][at[i]]
                if c != "/":
                    tables[(kind, c)].append(i)
        done[0] = upto

    n = data.draw(st.integers(1, len(texts) // 2))
    grow(n)
    kept = Prefixed()
    key = ""
    for _ in range(data.draw(st.integers(1, 3 * DEFAULT_TUNING.kept))):
        how = data.draw(st.sampled_from(["longer", "longer", "shorter", "other"]))
        if (how == "longer" and len(key) < 3) or not key:
            key += data.draw(st.sampled_from("ab"))
        elif how == "shorter" and len(key) > 1:
            key = key[:-1]
        else:
            key = data.draw(st.text("ab", min_size=1, max_size=4))
        folders = data.draw(st.booleans())
        only = data.draw(st.booleans())
        table, at = tables[(folders, key[0])], ats[folders]
        got = kept.ids(table, key, texts, at, folders, kept_only=only)
        plain = [i for i in table if texts[i].startswith(key, at[i])]
        assert got == plain or (only and got is None), (key, folders)
        if data.draw(st.booleans()):  # the index grows
            n = data.draw(st.integers(n, len(texts)))
            grow(n)


@settings(max_examples=120, deadline=None)
@given(typed(), st.integers(1, 25), st.data())
def test_keys_typed_answer_as_a_fresh_index(keys: list[str], k: int, data: st.DataObject) -> None:
    """Each key through one index (its prefixed ids kept from the keys before, the index
    sometimes extended between two keys) ranks as a fresh index of the same paths, and its
    shortcut, when it answers, as the full ranking."""
    paths = corpus()
    n = data.draw(st.integers(1, len(paths)))
    ix = Index(paths[:n])
    for q in keys:
        if n < len(paths) and data.draw(st.integers(0, 3)) == 0:
            more = data.draw(st.integers(n + 1, len(paths)))
            ix.extend(paths[n:more])
            n = more
        assert ix.match(q, limit=k) == Index(paths[:n]).match(q, limit=k), (q, k)
        ms = ix.run(q)
        fast = shortcut(ix, ms, k, False)
        if fast is not None:
            assert fast == rank(ix, ms, k, False), (q, k)


EXTRA = ["s/p", "sx/py/tz.rs", "sr/c.txt", "src/a.rs", "x/src/b.rs", "srcs/c.rs",
         "Straße/pa.md", "strasse/pb.md", "a/s/p", "p", "s/p/t/q.txt",
         "S/P/T.md", "sp/s/pt", "İs/pi.rs"]
"""Paths beside the corpus: folders and names that start alike, capitals and characters that
fold (``ß``, ``İ``)."""


@st.composite
def slash_term(draw: st.DrawFn) -> str:
    """A term with ``/`` from a path's last components (each cut to 0-3 characters)."""
    path = draw(st.sampled_from(corpus() + EXTRA)).lower()
    comps = path.split("/")
    if len(comps) < 2:
        return "s/p"
    if draw(st.integers(0, 3)) == 0:  # ``a/``: a folder's first characters
        return comps[-2][: draw(st.integers(1, max(1, min(4, len(comps[-2])))))] + "/"
    tail = comps[-draw(st.integers(2, min(3, len(comps)))):]
    return "/".join(c[: draw(st.integers(0, min(3, len(c))))] for c in tail) or "/"


@settings(max_examples=150, deadline=None)
@given(slash_term(), st.integers(1, 25), st.booleans())
def test_aligned_ids_narrowed_by_the_folders_table_are_the_same(
    q: str, k: int, odd: bool
) -> None:
    """The names of the last part's table narrowed to the folders the part before starts
    (every table, whatever its size): ``PathStore.aligned`` keeps the same ids, in order, and
    the shortcut answers as the full ranking (with and without paths whose folded form is
    of another length)."""
    paths = corpus() + (EXTRA if odd else EXTRA[:2])
    ix = Index(paths, numpy=True, tuning=Tuning(numpy_from=1))
    ix.numpy_ready()
    bucket = ix.bounder.aligned_bucket(q)
    if bucket is not None:
        narrowed = shortcuts._parent_narrowed(ix, q, bucket)
        assert ix.store.aligned(q, narrowed) == ix.store.aligned(q, list(bucket)), q
        assert shortcuts._aligned_ids(ix, q, bucket) == ix.store.aligned(q, list(bucket))
        # (kept for the whole table's question, the full ranking's bounds')
        assert ix.store.aligned(q, bucket) == ix.store.aligned(q, list(bucket))
    ms = ix.run(q)
    fast = shortcut(ix, ms, k, False)
    if fast is not None:
        assert fast == rank(ix, ms, k, False), (q, k)
    assert ix.match(q, limit=k) == Index(paths).match(q, limit=k), (q, k)


@cache
def warmed() -> Index:
    ix = Index(corpus() + EXTRA, numpy=True, tuning=Tuning(numpy_from=1))
    assert ix.numpy_ready(30)
    for _ in ix.warm():
        pass
    return ix


@settings(max_examples=150, deadline=None)
@given(typed(), st.integers(1, 25))
def test_keys_scanned_from_the_buffer_answer_as_the_plain_scan(keys: list[str], k: int) -> None:
    """``prefix_scan`` (the key's bytes read in the folded paths' buffer at each id's
    offset) gives ``Prefixed`` the ids the plain ``startswith`` gives, for names and
    folders, keys typed a character at a time; and the rankings are a fresh index's."""
    ix = warmed()
    st_ = ix.store
    scans = {kind: prefix_scan(st_, ix.bounder, ix.numpy.module(), kind)
             for kind in (False, True)}
    assert scans[False] is not None and scans[True] is not None
    kept = Prefixed()
    for q in keys:
        for folders, at, tables in ((False, st_.base, st_.first),
                                    (True, st_.pstart, st_.parent_first)):
            table = tables.get(q[0], array("i"))
            got = kept.ids(table, q, st_.folded, at, folders, scan=scans[folders])
            assert got == [i for i in table if st_.folded[i].startswith(q, at[i])], q
    old = ix.prefixed
    ix.prefixed = Prefixed()
    try:
        for q in keys:
            assert ix.match(q, limit=k) == Index(corpus() + EXTRA).match(q, limit=k), q
    finally:
        ix.prefixed = old

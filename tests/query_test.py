"""Query parsing: terms, fzf's per-term syntax, escapes, smart case and normalisation."""

from __future__ import annotations

import pytest

from ffind.query import Kind, Term, fold, implies, parse, split_group, variant


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("foo", [(Kind.FUZZY, "foo", False)]),
        ("'foo", [(Kind.EXACT, "foo", False)]),
        ("^foo", [(Kind.PREFIX, "foo", False)]),
        ("foo$", [(Kind.SUFFIX, "foo", False)]),
        ("^foo$", [(Kind.EQUAL, "foo", False)]),
        ("!foo", [(Kind.EXACT, "foo", True)]),
        ("!'foo", [(Kind.FUZZY, "foo", True)]),  # (fzf: the quote flips exactness)
        ("!^foo", [(Kind.PREFIX, "foo", True)]),
        ("!foo$", [(Kind.SUFFIX, "foo", True)]),
        ("a  b", [(Kind.FUZZY, "a", False), (Kind.FUZZY, "b", False)]),
        ("foo\\ bar", [(Kind.FUZZY, "foo bar", False)]),
        ("\\!foo", [(Kind.FUZZY, "!foo", False)]),
        ("\\'foo", [(Kind.FUZZY, "'foo", False)]),
        ("\\^foo", [(Kind.FUZZY, "^foo", False)]),
        ("foo\\$", [(Kind.FUZZY, "foo$", False)]),
        ("$", [(Kind.FUZZY, "$", False)]),
        ("' ^ ! !'", []),
        ("", []),
    ],
)
def test_parse(raw: str, expected: list[tuple[Kind, str, bool]]) -> None:
    assert [(t.kind, t.text, t.negate) for t in parse(raw).terms] == expected


G = tuple[tuple[Kind, str, bool], ...]


@pytest.mark.parametrize(
    ("raw", "terms", "groups"),
    [
        # fzf's src/pattern_test.go, TestParseTermsExtended (a `|` first is a term there too)
        ("aaa 'bbb ^ccc ddd$ !eee !'fff !^ggg !hhh$ | ^iii$ ^xxx | 'yyy | zzz$ | !ZZZ |",
         [(Kind.FUZZY, "aaa", False), (Kind.EXACT, "bbb", False), (Kind.PREFIX, "ccc", False),
          (Kind.SUFFIX, "ddd", False), (Kind.EXACT, "eee", True), (Kind.FUZZY, "fff", True),
          (Kind.PREFIX, "ggg", True)],
         [((Kind.SUFFIX, "hhh", True), (Kind.EQUAL, "iii", False)),
          ((Kind.PREFIX, "xxx", False), (Kind.EXACT, "yyy", False), (Kind.SUFFIX, "zzz", False),
           (Kind.EXACT, "ZZZ", True))]),
        ("1 | 5", [], [((Kind.FUZZY, "1", False), (Kind.FUZZY, "5", False))]),
        ("foo |", [(Kind.FUZZY, "foo", False)], []),  # (a trailing `|` is ignored)
        ("| foo", [(Kind.FUZZY, "|", False), (Kind.FUZZY, "foo", False)], []),
        ("a | | b", [(Kind.FUZZY, "b", False)],
         [((Kind.FUZZY, "a", False), (Kind.FUZZY, "|", False))]),
        ("'xyz'", [], [((Kind.BOUNDARY, "xyz", False),)]),
        ("!'xyz' foo", [(Kind.FUZZY, "foo", False)], [((Kind.BOUNDARY, "xyz", True),)]),
        ("''", [(Kind.EXACT, "'", False)], []),  # (fzf's TestParseTermsExactBoundaryTooShort)
        ("'a'", [], [((Kind.BOUNDARY, "a", False),)]),
    ],
)
def test_parse_groups(raw: str, terms: list[tuple[Kind, str, bool]], groups: list[G]) -> None:
    q = parse(raw)
    assert [(t.kind, t.text, t.negate) for t in q.terms] == terms
    assert [tuple((t.kind, t.text, t.negate) for t in g) for g in q.groups] == groups


@pytest.mark.parametrize(
    ("raw", "most", "expected"),
    [
        ("test | util", 8, ("test", "util")),
        ("!vendor ^src | Read\\ me | .md$", 8,
         ("!vendor ^src", "!vendor Read\\ me", "!vendor .md$")),
        ("a | b | c", 2, None),  # (more alternatives than ``most``)
        ("x a | b", 8, None),  # (a positive plain term)
        ("a | !b", 8, None),  # (a negated alternative)
        ("a | 'b'", 8, None),  # (an alternative at word boundaries)
        ("a | b c | d", 8, None),  # (two groups)
        ("'ab'", 8, None),
        ("ab", 8, None),
    ],
)
def test_split_group(raw: str, most: int, expected: tuple[str, ...] | None) -> None:
    """The plain queries of one OR group, one per alternative, each with the negated terms."""
    assert split_group(raw, most) == expected
    for plain in expected or ():
        assert not parse(plain).groups


def test_smart_case_and_accents_per_term() -> None:
    q = parse("Foo bar café")
    assert [(t.case_sensitive, t.accent_sensitive) for t in q.terms] == [
        (True, False), (False, False), (False, True)]
    assert q.case_sensitive
    assert not q.insensitive().case_sensitive
    assert [t.key for t in q.terms] == ["Foo", "bar", "café"]


def test_targets_hidden() -> None:
    assert parse(".env").targets_hidden
    assert parse("src/.git").targets_hidden
    assert not parse("env").targets_hidden
    assert not parse("x !.env").targets_hidden


def test_fold_keeps_one_code_point_per_code_point() -> None:
    for s in ["Café", "ÉTÉ", "e\u0301", "İstanbul", "straße", "ǅ"]:
        assert len(fold(s)) == len(s)
    assert fold("Café") == "cafe"
    assert variant("Café", lower=True, strip=False) == "café"
    assert variant("Café", lower=False, strip=True) == "Cafe"
    assert variant("Café", lower=False, strip=False) == "Café"


@pytest.mark.parametrize(
    ("narrow", "wide", "expected"),
    [
        ("prom", "pro", True),
        ("pxrxo", "pro", True),
        ("pr", "pro", False),
        ("'prom", "'pro", True),
        ("prom", "'pro", False),
        ("^prom", "^pro", True),
        ("^prom", "pro", True),
        ("om$", "m$", True),
        ("^a$", "a$", True),
        ("^a", "a$", False),
    ],
)
def test_implies(narrow: str, wide: str, expected: bool) -> None:
    a, b = parse(narrow).terms[0], parse(wide).terms[0]
    assert isinstance(a, Term)
    assert implies(a, b) is expected

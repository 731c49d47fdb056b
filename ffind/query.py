"""Query syntax (fzf's, per term) and the case / accent rules.

A query is a list of space-separated *terms*; a path must satisfy all of them (AND, any order).

=============  ==========================  ================================================
term           matches paths that ...      example
=============  ==========================  ================================================
``foo``        contain f, o, o in order    ``foo`` matches ``src/fo/o.rs``
``'foo``       contain ``foo``             ``'mod.rs``
``'foo'``      contain ``foo`` at word     ``'src'`` matches ``a-src/b``, not ``srcx/b``
               boundaries (both ends)
``^foo``       start with ``foo``          ``^src/``  (leading whitespace skipped)
``foo$``       end with ``foo``            ``.py$``  (trailing whitespace skipped)
``^foo$``      are exactly ``foo``
``!foo``       do not contain ``foo``      ``!test``  (also ``!^foo``, ``!foo$``, ``!'foo'``)
``!'foo``      do not match ``foo`` fuzzily
``a | b``      match ``a`` or ``b``        ``^core go$ | rb$ | py$``
=============  ==========================  ================================================

fzf's rules (``src/pattern.go``): terms joined by `` | `` form one group (``Query.groups``),
of any kinds, matching when one of them does and scored as the best; a ``|`` first or right
after another is a term, one at the end is ignored.

A backslash escapes a space (``foo\\ bar`` is one term) or a leading special character
(``\\!x``, ``\\'x``, ``\\^x``), and a trailing ``\\$`` is a literal ``$``.

Smart case, per term: a term with a capital letter is case-sensitive, otherwise not.  Smart
normalisation, per term: a term with an accented letter matches accents exactly; otherwise
``e`` also matches ``é`` (and every letter whose canonical decomposition starts with it).
The never-empty fallback (a query with capitals that matches nothing case-sensitively is
retried case-insensitively) lives in ``ffind.engine.index``.
"""

from __future__ import annotations

import unicodedata
from enum import Enum
from functools import lru_cache

TYPE_CHECKING = False  # (not typing's: a search does not import it)
if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes, without importing dataclasses (ffind.frozen)
    from ffind.frozen import dataclass


class Kind(Enum):
    FUZZY = "fuzzy"
    EXACT = "exact"
    PREFIX = "prefix"
    SUFFIX = "suffix"
    EQUAL = "equal"
    BOUNDARY = "boundary"
    """``'foo'``: ``foo`` where both its ends fall on word boundaries (only in ``Query.groups``)."""


@dataclass(frozen=True, slots=True)
class Term:
    """One term of a query.  ``text`` is as typed (escapes removed); ``folded`` is lowercased
    and accent-stripped (what the index's folded paths are searched with)."""

    kind: Kind
    text: str
    negate: bool = False
    case_sensitive: bool = False
    accent_sensitive: bool = False

    @property
    def folded(self) -> str:
        return fold(self.text)

    @property
    def key(self) -> str:
        """The text compared against ``variant(path, self)``."""
        return variant(self.text, not self.case_sensitive, not self.accent_sensitive)


@dataclass(frozen=True, slots=True)
class Query:
    """``terms``: the plain terms (all must match).  ``groups``: the OR groups (``a | b``) and
    the boundary terms (``'foo'``, a group of one), each matching when one of its alternatives
    does; a query with groups is *extended*: the engine filters and scores it path by path."""

    raw: str
    terms: tuple[Term, ...]
    groups: tuple[tuple[Term, ...], ...] = ()

    @property
    def positive(self) -> tuple[Term, ...]:
        return tuple(t for t in self.terms if not t.negate)

    @property
    def negative(self) -> tuple[Term, ...]:
        return tuple(t for t in self.terms if t.negate)

    @property
    def alternatives(self) -> tuple[Term, ...]:
        """Every term of every group."""
        return tuple(t for g in self.groups for t in g)

    @property
    def scored(self) -> bool:
        """Whether matches score apart (a positive term, or one in a group): else every match
        scores alike and they come in path order."""
        return bool(self.positive) or any(not t.negate for t in self.alternatives)

    @property
    def case_sensitive(self) -> bool:
        return any(t.case_sensitive for t in self.terms) or any(
            t.case_sensitive for t in self.alternatives)

    @property
    def targets_hidden(self) -> bool:
        """Whether hidden paths are what the user is after (OpenCode's rule)."""
        return any(t.text.startswith(".") or "/." in t.text for t in self.positive) or any(
            t.text.startswith(".") or "/." in t.text for t in self.alternatives if not t.negate)

    def insensitive(self) -> Query:
        """The same query with every term case-insensitive (smart case's fallback)."""
        return Query(self.raw, _insensitive(self.terms),
                     tuple(_insensitive(g) for g in self.groups))


def _insensitive(terms: tuple[Term, ...]) -> tuple[Term, ...]:
    return tuple(Term(t.kind, t.text, t.negate, False, t.accent_sensitive) for t in terms)


def _fold_char(c: str) -> str:
    d = unicodedata.normalize("NFD", c)[0].lower()
    return d if len(d) == 1 else c


@lru_cache(maxsize=4096)
def _fold_non_ascii(s: str) -> str:
    return "".join(c.lower() if c.isascii() else _fold_char(c) for c in s)


def fold(s: str) -> str:
    """Lowercase and strip accents, one code point for one code point (positions survive)."""
    if s.isascii():
        return s.lower()
    return _fold_non_ascii(s)


def lower1(s: str) -> str:
    """Lowercase, one code point for one code point."""
    if s.isascii():
        return s.lower()
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in s)


def strip_accents(s: str) -> str:
    """Strip accents, one code point for one code point."""
    if s.isascii():
        return s
    return "".join(c if c.isascii() else unicodedata.normalize("NFD", c)[0] for c in s)


def variant(s: str, lower: bool, strip: bool) -> str:
    if lower and strip:
        return fold(s)
    if lower:
        return lower1(s)
    if strip:
        return strip_accents(s)
    return s


def _has_accent(s: str) -> bool:
    return not s.isascii() and strip_accents(s) != s


def _term(word: str) -> Term | None:
    negate = False
    if word.startswith("!"):
        negate, word = True, word[1:]
    kind = Kind.FUZZY
    if len(word) > 2 and word.startswith("'") and word.endswith("'") and word[-2] != "\\":
        return _made(Kind.BOUNDARY, word[1:-1], negate)
    quoted = word.startswith("'")
    if quoted:
        kind, word = Kind.EXACT, word[1:]
    elif word.startswith("^"):
        kind, word = Kind.PREFIX, word[1:]
    if word.endswith("$") and not word.endswith("\\$") and len(word) > 1:
        word = word[:-1]
        kind = Kind.EQUAL if kind is Kind.PREFIX else Kind.SUFFIX
    elif word.endswith("\\$"):
        word = word[:-2] + "$"
    word = _unescaped(word)
    if not word:
        return None
    if negate and kind is Kind.FUZZY:
        kind = Kind.EXACT  # fzf: !foo excludes paths *containing* foo
    elif negate and quoted and kind is Kind.EXACT:
        kind = Kind.FUZZY  # fzf: the quote flips exactness, so !'foo excludes fuzzy matches
    return _made(kind, word, negate)


def _unescaped(word: str) -> str:
    if word.startswith("\\") and len(word) > 1 and word[1] in "!'^\\":
        return word[1:]
    return word


def _made(kind: Kind, word: str, negate: bool) -> Term:
    return Term(kind, word, negate, word != lower1(word), _has_accent(word))


@lru_cache(maxsize=256)
def parse(raw: str) -> Query:
    """Split ``raw`` into terms (space = AND; ``\\ `` is a literal space)."""
    words = _words(raw)
    if "|" not in words and not any(w.endswith("'") for w in words):
        return Query(raw, tuple(t for t in map(_term, words) if t is not None))
    return _grouped(raw, words)


def _words(raw: str) -> list[str]:
    """``raw`` split as ``parse`` splits it (space = AND; ``\\ `` is a literal space)."""
    words: list[str] = []
    cur: list[str] = []
    i = 0
    while i < len(raw):
        c = raw[i]
        if c == "\\" and i + 1 < len(raw) and raw[i + 1] == " ":
            cur.append(" ")
            i += 2
            continue
        if c == " ":
            if cur:
                words.append("".join(cur))
                cur = []
        else:
            cur.append(c)
        i += 1
    if cur:
        words.append("".join(cur))
    return words


def _sets(words: list[str]) -> list[list[tuple[str, Term]]]:
    """fzf's sets, each term with its word: a ``|`` after a term joins the next term to its set
    (a ``|`` first, or right after another, is a term; one at the end is ignored)."""
    sets: list[list[tuple[str, Term]]] = []
    joined = after_bar = False
    for w in words:
        if sets and not after_bar and w == "|":
            joined = after_bar = True
            continue
        after_bar = False
        t = _term(w)
        if t is None:
            continue
        if joined:
            sets[-1].append((w, t))
        else:
            sets.append([(w, t)])
        joined = False
    return sets


def _grouped(raw: str, words: list[str]) -> Query:
    """A query of fzf's sets (``_sets``): the sets of one term its plain terms, the others (and
    boundary terms) its groups."""
    sets = [[t for _, t in s] for s in _sets(words)]
    terms = tuple(s[0] for s in sets if len(s) == 1 and s[0].kind is not Kind.BOUNDARY)
    groups = tuple(tuple(s) for s in sets if len(s) > 1 or s[0].kind is Kind.BOUNDARY)
    return Query(raw, terms, groups)


def split_group(raw: str, most: int) -> tuple[str, ...] | None:
    """The plain queries a query of one OR group splits into, one per alternative (with the
    query's other terms), when its alternatives are all positive and none at word boundaries, its
    other terms all negated, and it has at most ``most`` alternatives; else None.  Each parses to
    the query's plain terms and that alternative, and no group (checked)."""
    q = parse(raw)
    if len(q.groups) != 1 or q.positive or len(q.groups[0]) > most or any(
            t.negate or t.kind is Kind.BOUNDARY for t in q.groups[0]):
        return None
    sets = _sets(_words(raw))
    others = [s[0][0].replace(" ", "\\ ") for s in sets if len(s) == 1]
    group = next(s for s in sets if len(s) > 1)
    out = []
    for w, t in group:
        plain = " ".join([*others, w.replace(" ", "\\ ")])
        got = parse(plain)
        if got.groups or set(got.terms) != {*q.terms, t} or got.positive != (t,):
            return None
        out.append(plain)
    return tuple(out)


def in_order(sub: str, text: str) -> bool:
    """True when ``sub`` is a subsequence of ``text`` (its characters in ``text``, in order)."""
    it = iter(text)
    return all(c in it for c in sub)


def implies(narrow: Term, wide: Term) -> bool:
    """True when every folded match of the positive term ``narrow`` also matches ``wide``."""
    a, b = narrow.folded, wide.folded
    if wide.kind is Kind.FUZZY:
        return in_order(b, a)
    if wide.kind is Kind.EXACT:
        return b in a and narrow.kind is not Kind.FUZZY
    if wide.kind is Kind.PREFIX:
        return narrow.kind in (Kind.PREFIX, Kind.EQUAL) and a.startswith(b)
    if wide.kind is Kind.SUFFIX:
        return narrow.kind in (Kind.SUFFIX, Kind.EQUAL) and a.endswith(b)
    return narrow.kind is Kind.EQUAL and a == b

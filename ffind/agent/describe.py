"""Ranking a description by words (``find_files`` for "image inspect size"): each query word
matches path words (folders, name split at case changes and ``_-.``) exactly, by stem, by
abbreviation, as a prefix, inside or one typo away, weighted by rarity (IDF) and position (a
generic name such as ``mod.rs`` is named by its folder); a path sums its best match per word,
and gains when a folder or its name is an identifier of the description (``bevy_remote``);
top-level files fill the places the words leave (a version bump points at the manifests).
``Describer(paths)`` builds the word tables once per listing; ``rank`` costs a few numpy
passes.  See ``docs/agents.md``."""

from __future__ import annotations

import math
import re
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import islice, pairwise
from typing import TYPE_CHECKING, NamedTuple, cast

from ffind.agent.loose import ABBREVIATIONS

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

STOP_WORDS = frozenset("""
a about after all also an and any are as at be been before being but by can could did do does
doing don done for from get gets got had has have how i if in into is it its just let like make
makes may me more most must my new no not now of off on once only or other our out over own same
should so some such than that the their them then there these they this those through to too
under up us use used uses using via was we were what when where which while who why will with
without would you your
add adds added adding fix fixes fixed fixing remove removes removed removing update updates
updated updating change changes changed changing improve improves improved allow allows allowed
avoid avoids ensure ensures handle handles correct correctly support supports properly
file files folder s t
""".split())  # noqa: SIM905
"""Words that say nothing about which file: English function words, the verbs of change
requests (``fix``, ``add``, ``update``) and words about files themselves."""

MANIFESTS = frozenset("""
pom.xml build.gradle build.gradle.kts cargo.toml cargo.lock package.json package-lock.json
yarn.lock pnpm-lock.yaml go.mod go.sum pyproject.toml setup.py setup.cfg requirements.txt
poetry.lock uv.lock pipfile pipfile.lock gemfile gemfile.lock composer.json composer.lock
deno.json deno.lock
""".split())  # noqa: SIM905
"""Package manifests and lock files of the common ecosystems: where a version bump lands."""

CACHED_WORDS = 4096  # query words whose matches a ``Describer`` remembers
MAX_INSIDE = 2000  # most occurrences of a query word inside the vocabulary looked at

_VERSION = re.compile(r"\b[vV]?\d+\.\d+(?:\.\d+)*\b")
_AREA = re.compile(r"^\s*([\w./\- ,()]+?):\s")
_WORD = re.compile(r"[A-Za-z0-9]+")
_IDENT = re.compile(r"[A-Za-z0-9_.\-]+")
_CAMEL = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
_SUFFIXES = ("ations", "ation", "ators", "ator", "ates", "ated", "ating", "ate", "ings", "ing",
             "ions", "ion", "ers", "er", "ies", "ied", "es", "ed", "s", "ly")
_ABBREV: dict[str, set[str]] = {}
for _full, _shorts in ABBREVIATIONS.items():
    for _short in _shorts:
        _ABBREV.setdefault(_full, set()).add(_short)
        _ABBREV.setdefault(_short, set()).add(_full)


@dataclass(frozen=True)
class Weights:
    """How much each kind of word match and each place in a path is worth."""

    exact: float = 0.7
    stem: float = 0.53
    abbrev: float = 0.38
    prefix: float = 0.42
    infix: float = 0.44
    typo: float = 0.16
    name: float = 1.0
    extension: float = 0.74
    parent: float = 0.47
    folder: float = 0.77
    repeat: float = 0.32  # share of a word's second match (name and folder both) added to its best
    phrase: float = 0.36
    """Share added for query words next to each other matching path words next to each other."""
    digits: float = 0.29
    rerank: int = 200  # how many of the best paths the phrase bonus may reorder
    coverage: float = 0.4  # exponent of the share of the description's weight a path covers
    length: float = 0.95  # how much a path's word count divides its score (BM25's ``b``)
    area: float = 0.5  # added to the folder places for words of a leading ``area:`` prefix
    compound: float = 0.49  # two query words written together (``dev container``: ``devcontainer``)
    generic: float = 0.005
    """Share of paths with one file name from which the name is generic (``mod.rs``): lower
    calls more names generic, so more files are found by their folder rather than their name."""
    stand_in: float = 0.75
    """Place weight of a generic name's parent folder (``parent`` otherwise): higher ranks
    ``entity/mod.rs`` above ``entity/spawn.rs`` for "entity", and above names that match."""
    ident: float = 1.0
    """Share of an identifier's words added again when a folder or the name is it: higher puts
    ``bevy_remote/*`` above ``remote.rs`` for "bevy_remote", and over the other words."""
    manifests: int = 2  # last places kept for the top-level manifests when a version is named
    top_level: int = 5  # most top-level files added after the paths that match a word


WEIGHTS = Weights()


class Described(NamedTuple):
    """One ranked path: its score and the query's words it matched, in query order."""

    path: str
    score: float
    words: list[str]


class Ranking(NamedTuple):
    """What ``Describer.rank`` found: the best paths, how many paths matched a word, and the
    words of the description that count (the ones not in ``STOP_WORDS``)."""

    matches: list[Described]
    total: int
    words: list[str]

    def summary(self) -> str:
        """How the first path matched: ``the first matched 3 of 4 words: image, inspect, size``
        (and ``; then top-level files`` when files that match no word follow)."""
        first = self.matches[0].words if self.matches else []
        noun = "word" if len(self.words) == 1 else "words"
        then = "; then top-level files" if self.matches and not self.matches[-1].words else ""
        return (f"the first matched {len(first)} of {len(self.words)} {noun}: "
                f"{', '.join(first)}{then}")


def reads_as_description(query: str) -> bool:
    """Whether ``query`` is a description rather than a fuzzy query: three words or more, none
    of them an fzf operator (``'exact``, ``^prefix``, ``suffix$``, ``!not``, ``|``)."""
    parts = query.split()
    return len(parts) >= 3 and _plain(parts)


def weak_fuzzy(query: str, top: str | None) -> bool:
    """Whether the fuzzy answer to ``query`` is weak: for two plain words, no exact match
    (``top`` is None) or a best path that does not hold both as words; for three words or more
    (quoted words in a sentence, ``'any'``, read as fzf operators), no exact match."""
    parts = query.split()
    if len(parts) >= 3:
        return top is None
    if len(parts) != 2 or not _plain(parts):
        return False
    if top is None:
        return True
    held = split_words(top)
    return not all(any(_same(q, p) for p in held) for q in split_words(query))


def held_words(query: str, path: str) -> int:
    """How many of ``query``'s words that count (not ``STOP_WORDS``) ``path`` holds as words
    (as ``Describer.matches`` matches them)."""
    held = split_words(path)
    plain = [q for q in dict.fromkeys(split_words(query)) if q not in STOP_WORDS]
    return sum(any(_same(q, p) for p in held) for q in plain)


def _plain(parts: list[str]) -> bool:
    return not any(p[0] in "'^!" or p.endswith("$") or p == "|" for p in parts)


def _same(word: str, other: str) -> bool:
    """Whether query word ``word`` matches path word ``other`` as ``Describer.matches`` does."""
    from rapidfuzz.distance import OSA

    if word == other:
        return True
    if len(word) < 3 or word.isdigit():
        return False
    return (stem(word) == stem(other) or other in _ABBREV.get(word, ())
            or other.startswith(word) or (len(other) >= 3 and word.startswith(other))
            or (len(word) >= 4 and word in other)
            or (len(word) >= 5 and OSA.distance(word, other, score_cutoff=1) <= 1))


def split_words(text: str) -> list[str]:
    """The lower-case words of ``text``: runs of letters and digits, split at case changes
    (``MemCacheStore`` -> ``mem cache store``, ``HTTPServer`` -> ``http server``)."""
    out = []
    for run in _WORD.findall(text):
        if run.islower() or run.isupper() or run.isdigit():
            out.append(run.lower())
        else:
            out.extend(w.lower() for w in _CAMEL.findall(run))
    return out


def stem(word: str) -> str:
    """A light stem, so that inflections meet: ``migrations``, ``migration`` and ``migrate``
    give ``migr``; ``cache``, ``caches`` and ``caching`` give ``cach``."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)] + ("y" if suffix in ("ies", "ied") else "")
            break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


class Describer:
    """The word tables of one listing, and ``rank`` over them (see the module docstring)."""

    def __init__(self, paths: Sequence[str], weights: Weights = WEIGHTS) -> None:
        import numpy as np

        self.paths = list(paths)
        self.weights = weights
        self.vocab: dict[str, int] = {}
        words, ids, places = array("i"), array("i"), array("b")
        lengths = array("H")
        folders: dict[str, dict[int, int]] = {}
        generic = self._generic_names()
        for i, path in enumerate(self.paths):
            folder, _, name = path.rpartition("/")
            up = folders.get(folder)
            if up is None:
                up = folders[folder] = self._folder_words(folder)
            if name.lower() in generic:
                up = {wid: 4 if place == 2 else place for wid, place in up.items()}
            mine = up | self._name_words(name)
            words.extend(mine)
            places.extend(mine.values())
            ids.extend([i] * len(mine))
            lengths.append(min(len(mine), 65535))
        word_arr = np.frombuffer(words, dtype=np.int32)
        order = np.argsort(word_arr, kind="stable")
        self.post_ids = np.frombuffer(ids, dtype=np.int32)[order]
        self.post_places = np.frombuffer(places, dtype=np.int8)[order]
        counts = np.bincount(word_arr, minlength=len(self.vocab))
        self.starts = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        self.lengths = np.frombuffer(lengths, dtype=np.uint16).astype(np.float32)
        self.words = list(self.vocab)
        self.stems: dict[str, list[int]] = {}
        for w, wid in self.vocab.items():
            self.stems.setdefault(stem(w), []).append(wid)
        self.joined = "\n" + "\n".join(self.words) + "\n"
        self.cache: dict[str, list[tuple[int, int, float]]] = {}
        self.offsets = np.cumsum([0] + [len(w) + 1 for w in self.words], dtype=np.int64)
        self.top = sorted((p for p in self.paths if "/" not in p),
                          key=lambda p: (p.startswith("."), len(p), p))
        self.manifests = [p for p in self.top if p.lower() in MANIFESTS]

    def _generic_names(self) -> set[str]:
        """The file names (lower case) that many folders hold (``mod.rs``, ``__init__.py``,
        ``package.json``): such a file is named by its folder."""
        from collections import Counter

        counts = Counter(p.rpartition("/")[2].lower() for p in self.paths)
        least = max(3.0, self.weights.generic * len(self.paths))
        return {name for name, k in counts.items() if k >= least}

    def _id(self, word: str) -> int:
        wid = self.vocab.get(word)
        if wid is None:
            wid = self.vocab[word] = len(self.vocab)
        return wid

    def _folder_words(self, folder: str) -> dict[int, int]:
        """(word id, place) of a folder's words: 2 in the parent folder, 3 further up."""
        best: dict[int, int] = {}
        parts = folder.split("/") if folder else []
        for depth, part in enumerate(reversed(parts)):
            for w in split_words(part):
                wid = self._id(w)
                best.setdefault(wid, 2 if depth == 0 else 3)
        return best

    def _name_words(self, name: str) -> dict[int, int]:
        """(word id -> place) of a file name's words: 0 in the name, 1 the extension."""
        base, _, ext = name.rpartition(".")
        if not base:
            base, ext = name, ""
        out: dict[int, int] = {}
        for w in split_words(ext):
            out[self._id(w)] = 1
        for w in split_words(base):
            out[self._id(w)] = 0
        return out

    def matches(self, word: str) -> dict[int, float]:
        """The vocabulary words ``word`` matches, with how well (``Weights``: exact .. typo)."""
        w = self.weights
        quality = (w.exact, w.stem, w.abbrev, w.prefix, w.infix, w.typo)
        found: dict[int, float] = {}
        for wid, kind, factor in self._kinds(word):
            q = quality[kind] * factor
            if found.get(wid, 0.0) < q:
                found[wid] = q
        return found

    def _kinds(self, word: str) -> list[tuple[int, int, float]]:
        """(word id, kind, factor) of each vocabulary word ``word`` matches; kinds: 0 exact,
        1 stem, 2 abbreviation, 3 prefix, 4 inside, 5 typo; a partial match's factor is the
        square root of the share of the longer word it covers.  Remembered per word."""
        known = self.cache.get(word)
        if known is not None:
            return known
        out: list[tuple[int, int, float]] = []
        if word in self.vocab:
            out.append((self.vocab[word], 0, 1.0))
        if len(word) >= 3 and not word.isdigit():
            out += [(wid, 1, 1.0) for wid in self.stems.get(stem(word), ())]
            for alt in _ABBREV.get(word, set()) | _ABBREV.get(stem(word), set()):
                if alt in self.vocab:
                    out.append((self.vocab[alt], 2, 1.0))
            for k in range(3, len(word)):
                if word[:k] in self.vocab:
                    out.append((self.vocab[word[:k]], 3, (k / len(word)) ** 0.5))
            out += self._inside(word)
            if len(word) >= 5:
                out += self._typos(word)
        if len(self.cache) >= CACHED_WORDS:
            self.cache.clear()
        self.cache[word] = out
        return out

    def _inside(self, word: str) -> list[tuple[int, int, float]]:
        """Vocabulary words that start with ``word`` or, from 4 letters, hold it."""
        import numpy as np

        hits = [m.start() for m in re.finditer(re.escape(word), self.joined)][:MAX_INSIDE]
        if not hits:
            return []
        wids = np.searchsorted(self.offsets, np.asarray(hits, dtype=np.int64), side="right") - 1
        out = []
        for p, wid in zip(hits, wids.tolist(), strict=True):
            factor = (len(word) / len(self.words[wid])) ** 0.5
            if p == self.offsets[wid] + 1:
                out.append((wid, 3, factor))
            elif len(word) >= 4:
                out.append((wid, 4, factor))
        return out

    def _typos(self, word: str) -> list[tuple[int, int, float]]:
        """Vocabulary words one edit away (two for 9 letters or more); swapping two letters
        next to each other is one edit."""
        from rapidfuzz import process
        from rapidfuzz.distance import OSA

        limit = 1 if len(word) < 9 else 2
        found = process.extract(word, self.words, scorer=OSA.distance,
                                score_cutoff=limit, limit=None)
        return [(wid, 5, 1.0 - 0.2 * (dist - 1)) for _, dist, wid in found if dist]

    def rank(self, description: str, limit: int) -> Ranking:
        """The ``limit`` paths that best cover ``description``'s words, best first, then
        top-level files (``_top_level``); nothing when no word matches."""
        import numpy as np

        w = self.weights
        n = len(self.paths)
        query = list(dict.fromkeys(split_words(description)))
        plain = [q for q in query if q not in STOP_WORDS]
        area = _AREA.match(description)
        in_area = set(split_words(area.group(1))) if area else set()
        total = np.zeros(n, dtype=np.float32)
        hit = np.zeros(n, dtype=bool)
        per_word: list[tuple[str, npt.NDArray[np.float32], dict[int, float]]] = []
        asked = 0.0
        places = np.array([w.name, w.extension, w.parent, w.folder, w.stand_in],
                          dtype=np.float32)
        hinted = places * np.array([1, 1, 1 + w.area, 1 + w.area, 1 + w.area], dtype=np.float32)
        for word, share in self._words(description, plain):
            found = self.matches(word)
            if not found:
                continue
            best = self._best(found, hinted if word in in_area else places) * share
            if word.isdigit():
                best *= w.digits
            asked += float(best.max())
            per_word.append((word, best, found))
            total += best
            hit |= best > 0
        if not per_word:
            return Ranking([], 0, plain)
        covered = np.minimum(total / asked, 1.0) if asked else total
        norm = 1 - w.length + w.length * self.lengths / max(1.0, float(self.lengths.mean()))
        score = total * np.power(covered, w.coverage) / norm
        score = np.where(hit, score, -np.inf)
        total_hits = int(hit.sum())
        k = min(max(limit, w.rerank), total_hits)
        top = np.argpartition(-score, k - 1)[:k] if k < n else np.flatnonzero(hit)
        named = self._identifiers(description, per_word)
        final = {i: float(score[i]) + self._phrases(i, per_word) + self._named(i, named)
                 for i in top.tolist()}
        order = sorted(final, key=lambda i: (-final[i], len(self.paths[i]), self.paths[i]))
        shown = [Described(self.paths[i], final[i],
                           [word for word, best, _ in per_word if best[i] > 0 and word in plain])
                 for i in order[:limit]]
        return Ranking(self._top_level(description, shown, limit), total_hits, plain)

    def _words(self, description: str, plain: list[str]) -> list[tuple[str, float]]:
        """The words to match with their share: ``plain`` whole, then two plain words next to
        each other written together when the tree has that word (``compound``)."""
        out = [(word, 1.0) for word in plain]
        said = split_words(description)
        for a, b in pairwise(said):
            joined = a + b
            if (joined in self.vocab and a not in STOP_WORDS and b not in STOP_WORDS
                    and joined not in said and all(joined != x for x, _ in out)):
                out.append((joined, self.weights.compound))
        return out

    def _top_level(self, description: str, shown: list[Described], limit: int
                   ) -> list[Described]:
        """``shown``, then the top-level files that match no word: the package manifests
        (``MANIFESTS``) in the last ``manifests`` places when the description names a version
        (``to 1.21``), and the other top-level files in the places left (at most
        ``top_level``; the shortest first, hidden ones last)."""
        have = {m.path for m in shown}
        if _VERSION.search(description):
            extra = [p for p in self.manifests[: self.weights.manifests] if p not in have]
            shown = (shown[: max(0, limit - len(extra))]
                     + [Described(p, 0.0, []) for p in extra])[:limit]
            have.update(extra)
        rest = (Described(p, 0.0, []) for p in self.top if p not in have)
        return shown + list(islice(rest, max(0, min(self.weights.top_level, limit - len(shown)))))

    def _identifiers(self, description: str, per_word: list[tuple[
            str, npt.NDArray[np.float32], dict[int, float]]]
                     ) -> list[tuple[str, list[npt.NDArray[np.float32]]]]:
        """The identifiers of ``description`` written as several words (``bevy_remote``,
        ``HttpUtil``, ``compiler-sfc``, ``pull.py``; each part of ``ActiveStorage.analyzers``):
        their letters and digits in lower case, with the per-path weights of their words."""
        best = {word: b for word, b, _ in per_word}
        out: dict[str, list[npt.NDArray[np.float32]]] = {}
        for token in _IDENT.findall(description):
            token = token.strip("._-")
            for piece in {token, *token.split(".")}:
                words = split_words(piece)
                if len(words) >= 2:
                    out["".join(words)] = [best[x] for x in dict.fromkeys(words) if x in best]
        return list(out.items())

    def _named(self, i: int, named: list[tuple[str, list[npt.NDArray[np.float32]]]]) -> float:
        """The bonus of path ``i`` when a folder or its name (whole, or before the first dot) is
        one of the description's identifiers (``_identifiers``), written any way."""
        if not named or self.weights.ident == 0:
            return 0.0
        parts = self.paths[i].split("/")
        parts.append(parts[-1].split(".")[0])
        keys = {"".join(_WORD.findall(p)).lower() for p in parts}
        return self.weights.ident * sum(float(sum(b[i] for b in bests))
                                        for key, bests in named if key in keys)

    def _phrases(self, i: int, per_word: list[tuple[str, npt.NDArray[np.float32],
                                                     dict[int, float]]]) -> float:
        """The bonus of path ``i`` for query words next to each other that match path words
        next to each other (``image inspect`` in ``image_inspect.go``, ``ext/node`` in
        ``ext/node/``)."""
        pairs = [(b1[i], f1, b2[i], f2) for (_, b1, f1), (_, b2, f2)
                 in pairwise(per_word) if b1[i] > 0 and b2[i] > 0]
        if not pairs or self.weights.phrase == 0:
            return 0.0
        seq = [self.vocab[x] for x in split_words(self.paths[i])]
        bonus = 0.0
        for w1, f1, w2, f2 in pairs:
            if any(a in f1 and b in f2 for a, b in pairwise(seq)):
                bonus += self.weights.phrase * float(min(w1, w2))
        return bonus

    def _best(self, found: dict[int, float], places: npt.NDArray[np.float32],
              ) -> npt.NDArray[np.float32]:
        """Per path, the weight of a query word's matches in it: the best one, plus ``repeat``
        times the best in the other part (name or folders)."""
        import numpy as np

        wids = np.fromiter(found, dtype=np.int64, count=len(found))
        quality = np.fromiter(found.values(), dtype=np.float32, count=len(found))
        starts, ends = self.starts[wids], self.starts[wids + 1]
        sizes = ends - starts
        idx = np.repeat(starts - np.concatenate(([0], np.cumsum(sizes)[:-1])), sizes)
        idx += np.arange(int(sizes.sum()))
        where = self.post_places[idx]
        ids = self.post_ids[idx]
        # A word's rarity counts its matches by their quality (a typo match, a fraction).
        each = np.repeat(quality, sizes)
        seen = np.zeros(len(self.paths), dtype=np.float32)
        np.maximum.at(seen, ids, each)
        gain = each * idf_of(float(seen.sum()), len(self.paths)) * places[where]
        in_name = where < 2
        name = np.zeros(len(self.paths), dtype=np.float32)
        np.maximum.at(name, ids[in_name], gain[in_name])
        folder = np.zeros(len(self.paths), dtype=np.float32)
        np.maximum.at(folder, ids[~in_name], gain[~in_name])
        return cast("npt.NDArray[np.float32]",
                    np.maximum(name, folder) + self.weights.repeat * np.minimum(name, folder))


def idf_of(df: float, n: int) -> float:
    """The rarity weight of a word in ``df`` of ``n`` paths (BM25's IDF)."""
    return math.log(1 + (n - df + 0.5) / (df + 0.5))

"""Which ignore files are in force in a folder, in what order, and the pre-checks merged across
them.  As ripgrep and git: the ``.ignore`` files decide first, deepest first, then (in a git work
tree, or with ``require_git=False``) ``.gitignore`` deepest first, info/exclude and
``core.excludesFile``; the first file with a match decides.  ``Ignores.for_root`` gathers
what applies above the root, ``Ignores.enter`` a folder's own (a nested repository starts over).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from ffind.fs.ignore.patterns import GITIGNORE_FILE, IGNORE_FILE, Leads, Rules, Warn, load_file
from ffind.state.git import (
    common_dir,
    config_files,
    excludes_file,
    find_git_dir,
    find_repo_top,
    ignore_case,
)

TYPE_CHECKING = False  # (not typing's: the walk's forked child imports this module)
if TYPE_CHECKING:
    from typing import Any

Level = tuple[Rules, str, int, int]
"""One ignore file in scope: its rules, ``lead`` and ``cut`` (an entry's path relative to its
folder is ``lead + path[cut:]``) and ``offset`` (an entry ``d`` deep is ``d + offset`` below)."""

def above_root_gitignores(top: str, root: str) -> list[tuple[str, str]]:
    """The ``.gitignore`` files from the repository top level down to the search root's parent,
    each with the path of the search root relative to the file's folder (ending in ``/``)."""
    out: list[tuple[str, str]] = []
    rel = os.path.relpath(root, top)
    if rel == ".":
        return out
    parts = rel.split(os.sep)
    for i in range(len(parts)):
        lead = "/".join(parts[i:]) + "/"
        out.append((os.path.join(top, *parts[:i], GITIGNORE_FILE), lead))
    return out


class Scope:
    """The ignore files in force in one folder (shared below until a folder has its own) and
    their merged pre-checks: ``ignores`` and ``gits`` deepest first, the first of ``levels``
    with a match decides; an entry can match only if a name, suffix or prefix set (``file_*``,
    ``dir_*``) or a regex of ``base_anys`` or ``path_checks`` says it may."""

    __slots__ = ("_at", "base_anys", "dir_names", "dir_prefixes", "dir_suffixes", "file_names",
                 "file_prefixes", "file_suffixes", "git_on", "gits", "ignores", "levels")

    def __init__(self, ignores: tuple[Level, ...], gits: tuple[Level, ...],
                 git_on: bool) -> None:
        self.ignores = ignores
        self.gits = gits
        self.git_on = git_on
        levels = ignores + gits if git_on else ignores
        self.levels = levels
        rules = [level[0] for level in levels]
        self.file_names: frozenset[str] = frozenset().union(*(r.names for r in rules))
        self.file_suffixes = tuple({x for r in rules for x in r.suffixes})
        self.file_prefixes = tuple({x for r in rules for x in r.prefixes})
        self.dir_names = self.file_names.union(*(r.dir_names for r in rules))
        # folders meet the folder-only patterns too
        self.dir_suffixes = tuple({*self.file_suffixes,
                                   *(x for r in rules for x in r.dir_suffixes)})
        self.dir_prefixes = tuple({*self.file_prefixes,
                                   *(x for r in rules for x in r.dir_prefixes)})
        # (regex, the first characters it can match or None): most names skip the regex
        self.base_anys = tuple((r.base_any, r.base_firsts) for r in rules
                               if r.base_any is not None)
        self._at: dict[int, tuple[tuple[Any, str, int, Leads, frozenset[str] | None], ...]] = {}

    def __reduce__(self) -> tuple[Any, ...]:
        return (Scope, (self.ignores, self.gits, self.git_on))

    def _path_checks(self, depth: int,
                     ) -> tuple[tuple[Any, str, int, Leads, frozenset[str] | None], ...]:
        """(regex fullmatch, lead, cut, leads, names) of the path patterns that can match at
        ``depth`` (``leads``: ``Rules.path_leads_at``; ``names``: ``Rules.path_names_at``)."""
        try:
            return self._at[depth]
        except KeyError:
            checks = []
            for rules, lead, cut, offset in self.levels:
                at = depth + offset
                parts = [""]
                if rules.path_leads_at(at) is None and rules.path_leads_at(at, "led"):
                    # one may match anywhere (``**/x``): the others are still tried only on
                    # the way to their folders
                    parts = ["led", "free"]
                for part in parts:
                    fm = rules.path_any_at(at, part)
                    if fm is not None:
                        checks.append((fm, lead, cut, rules.path_leads_at(at, part),
                                       rules.path_names_at(at, part)))
            found = self._at[depth] = tuple(checks)
            return found

    def path_checks(self, prefix: str, depth: int,
                    ) -> list[tuple[Any, str, int, frozenset[str] | None]]:
        """(fullmatch, lead, cut, names) of the path patterns that can match the entries of
        the folder ``prefix``: an entry's path ``p`` may match if ``fm(lead + p[cut:])`` does
        and its name is in ``names``; patterns under literal folders only on the way there."""
        at_depth = self._path_checks(depth)
        if not at_depth:
            return []
        checks = []
        for fm, lead, cut, leads, names in at_depth:
            if leads is not None:
                here = lead + prefix[cut:] if lead else prefix[cut:]
                if here not in leads[1] and not here.startswith(leads[0]):
                    continue
            checks.append((fm, lead, cut, names))
        return checks

    def decide(self, rel: str, name: str, is_dir: bool) -> bool | None:
        """The ordered decision once a pre-check matched: True (ignored), False (re-included
        by a ``!`` pattern) or None (no pattern matches after all)."""
        path = rel + "/" if is_dir else rel
        for rules, lead, cut, _ in self.levels:
            decision = rules.match(lead + path[cut:] if lead else path[cut:], name, is_dir)
            if decision is not None:
                return decision
        return None


class Ignores:
    """The ignore configuration of one walk (picklable for spawned workers): what nested
    repositories need (core.excludesFile's rules, core.ignoreCase)."""

    __slots__ = ("fold_case", "global_rules")

    def __init__(self, global_rules: Rules | None, fold_case: bool = False) -> None:
        self.global_rules = global_rules
        self.fold_case = fold_case

    def __reduce__(self) -> tuple[Any, ...]:
        return (Ignores, (self.global_rules, self.fold_case))

    @staticmethod
    def for_root(root: str, require_git: bool, warn: Warn | None = None,
                 inputs: list[str] | None = None) -> tuple[Ignores, Scope]:
        """The walk's configuration and the root's scope from the ignore files above it;
        ``inputs`` receives the other files this depends on (for ``ffind.fs.warm``)."""
        absroot = os.path.abspath(root)
        top = find_repo_top(absroot)
        git_dir = find_git_dir(top) if top is not None else None
        cdir = common_dir(git_dir) if git_dir is not None else None
        path = excludes_file(top or absroot, cdir)
        if inputs is not None:
            inputs.extend(config_files(cdir))
            if path:
                inputs.append(path)
            if git_dir is not None and cdir is not None:
                inputs.extend((os.path.join(git_dir, "commondir"),
                               os.path.join(cdir, "info", "exclude")))
        # core.ignoreCase folds the git sources' case; ``.ignore`` files stay case-sensitive
        fold = cdir is not None and ignore_case(cdir)
        global_rules = load_file(path, warn, ignore_case=fold) if path else None
        ignores = Ignores(global_rules, fold)
        gits: list[Level] = []
        git_on = not require_git
        lead = ""
        if top is not None and cdir is not None:
            git_on = True
            for gitignore, lead_i in reversed(above_root_gitignores(top, absroot)):
                rules = load_file(gitignore, warn, ignore_case=fold)
                if rules is not None:
                    gits.append((rules, lead_i, 0, lead_i.count("/")))
            rel = os.path.relpath(absroot, top)
            lead = "" if rel == "." else rel.replace(os.sep, "/") + "/"
            info = load_file(os.path.join(cdir, "info", "exclude"), warn, ignore_case=fold)
            if info is not None:
                gits.append((info, lead, 0, lead.count("/")))
        if global_rules is not None and git_on:
            gits.append((global_rules, lead, 0, lead.count("/")))
        return ignores, Scope(tuple(_ignores_above(absroot, warn)), tuple(gits), git_on)

    def _nested_repo(self, folder: str, cut: int, offset: int,
                     warn: Warn | None) -> tuple[Level, ...] | None:
        git_dir = find_git_dir(folder)
        if git_dir is None:
            return None
        levels: list[Level] = []
        info = load_file(os.path.join(common_dir(git_dir), "info", "exclude"), warn,
                         ignore_case=self.fold_case)
        if info is not None:
            levels.append((info, "", cut, offset))
        if self.global_rules is not None:
            levels.append((self.global_rules, "", cut, offset))
        return tuple(levels)

    def enter(self, scope: Scope, folder: str, prefix: str, depth: int,
              found: Mapping[str, str], warn: Warn | None = None) -> Scope:
        """The scope of ``folder`` (``prefix``: its path from the root + ``/``, ``depth``
        below the root), given the special entries ``found`` in it: name -> path to read
        (``.ignore``, a ``.gitignore`` that is not a symlink, ``.git``)."""
        if not found:
            return scope
        ignores, gits, git_on = scope.ignores, scope.gits, scope.git_on
        cut = len(prefix)
        if depth and ".git" in found:  # a nested repository
            tail = self._nested_repo(folder, cut, -depth, warn)
            if tail is not None:
                gits, git_on = tail, True
        gitignore = found.get(".gitignore")
        if gitignore is not None and git_on:
            rules = load_file(gitignore, warn, ignore_case=self.fold_case)
            if rules is not None:
                gits = ((rules, "", cut, -depth), *gits)
        ignore = found.get(IGNORE_FILE)
        if ignore is not None:
            rules = load_file(ignore, warn)
            if rules is not None:
                ignores = ((rules, "", cut, -depth), *ignores)
        if ignores is scope.ignores and gits is scope.gits and git_on == scope.git_on:
            return scope
        return Scope(ignores, gits, git_on)


def _ignores_above(absroot: str, warn: Warn | None) -> list[Level]:
    """The ``.ignore`` files above the root (ripgrep and fd read parents' ignore files too),
    nearest first."""
    levels: list[Level] = []
    folder = absroot
    while True:
        parent = os.path.dirname(folder)
        if parent == folder:
            return levels
        lead = os.path.relpath(absroot, parent).replace(os.sep, "/") + "/"
        rules = load_file(os.path.join(parent, IGNORE_FILE), warn)
        if rules is not None:
            levels.append((rules, lead, 0, lead.count("/")))
        folder = parent

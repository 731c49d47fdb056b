"""Looser forms of a query, for when ``find_files`` found nothing exact: agents write words in
full (``database migration``) where paths abbreviate or inflect them (``db/migrate/``)."""

from __future__ import annotations

import itertools

# Words agents write in full that paths abbreviate.
# the query itself found nothing exact.
ABBREVIATIONS: dict[str, tuple[str, ...]] = {
    "administration": ("admin",), "administrator": ("admin",), "application": ("app",),
    "argument": ("arg",), "arguments": ("args",), "authentication": ("auth",),
    "authorization": ("auth",), "button": ("btn",), "calculator": ("calc",),
    "command": ("cmd",), "commands": ("cmd",), "configuration": ("config", "conf", "cfg"),
    "config": ("conf", "cfg"), "controller": ("ctrl",), "database": ("db",),
    "databases": ("db",), "development": ("dev",), "directory": ("dir",),
    "directories": ("dir",), "document": ("doc",), "documents": ("docs",),
    "documentation": ("docs", "doc"), "environment": ("env",), "error": ("err",),
    "errors": ("err",), "function": ("func", "fn"), "functions": ("func", "fn"),
    "generator": ("gen",), "image": ("img",), "images": ("img",),
    "implementation": ("impl",), "index": ("idx",), "information": ("info",),
    "internationalization": ("i18n",), "javascript": ("js",), "kubernetes": ("k8s",),
    "library": ("lib",), "libraries": ("lib",), "localization": ("l10n",),
    "manager": ("mgr",), "message": ("msg",), "messages": ("msg",), "number": ("num",),
    "package": ("pkg",), "packages": ("pkg",), "parameter": ("param",),
    "parameters": ("params",), "production": ("prod",), "python": ("py",),
    "reference": ("ref",), "repository": ("repo",), "request": ("req",),
    "response": ("resp", "res"), "service": ("svc",), "source": ("src",),
    "specification": ("spec",), "statistics": ("stats",), "string": ("str",),
    "synchronization": ("sync",), "template": ("tmpl", "tpl"), "temporary": ("tmp", "temp"),
    "typescript": ("ts",), "utilities": ("utils", "util"), "utility": ("util",),
    "variable": ("var",), "variables": ("vars",),
}
_SUFFIXES = (("ations", "at"), ("ation", "at"), ("ings", ""), ("ing", ""), ("ions", ""),
             ("ion", ""), ("ers", ""), ("er", ""), ("ies", "y"), ("es", ""), ("s", ""),
             ("ed", ""))
MAX_LOOSE = 12
MAX_LOOSE_WORDS = 6  # queries with more words are not loosened: the forms multiply with every word


def stem(word: str) -> str | None:
    """A crude English stem that stays a prefix-ish of related names, at least 4 letters:
    ``migration`` -> ``migrat`` (finds ``migrate``), ``controllers`` -> ``controll``."""
    for suffix, repl in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) + len(repl) >= 4:
            return word[: -len(suffix)] + repl
    return None


def loose_queries(query: str) -> list[str]:
    """Looser forms of ``query`` (at most 12), most changed first: each plain word by its stem
    or a common abbreviation (``database migration`` -> ``db migrat``, ...)."""
    words = query.split()
    if len(words) > MAX_LOOSE_WORDS:
        return []
    options: list[list[str]] = []
    for word in words:
        alts = [word]
        if word.isalpha():
            low = word.lower()
            st = stem(low)
            singular = low[:-1] if low.endswith("s") else low
            for alt in (*ABBREVIATIONS.get(low, ()), *ABBREVIATIONS.get(singular, ()), st,
                        *(ABBREVIATIONS.get(st, ()) if st else ())):
                if alt and alt not in alts:
                    alts.append(alt)
        options.append(alts)
    combos = [" ".join(c) for c in itertools.product(*options)][1:]
    # Most changed words first: the abbreviation of every word is likeliest to find the file.
    combos.sort(key=lambda q: -sum(a != b for a, b in zip(q.split(), words, strict=True)))
    return combos[:MAX_LOOSE]



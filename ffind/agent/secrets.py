"""Which files usually hold secrets, and which queries ask for them: the agent tools list such
files only when the query names them, and last.  Case-insensitive; the rules are documented in
``docs/agents.md`` (keep the two in step)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class SecretRule:
    """One kind of secret file: which lower-cased file names it covers, and which query words
    ask for it (a word *containing* one of ``asks``)."""

    kind: str
    asks: tuple[str, ...]
    names: frozenset[str] = frozenset()
    prefixes: tuple[str, ...] = ()
    suffixes: tuple[str, ...] = ()

    def covers(self, name: str) -> bool:
        """Whether the lower-cased file ``name`` is of this kind."""
        return name in self.names or name.startswith(self.prefixes) or name.endswith(self.suffixes)


SSH_KEY_PREFIXES = ("id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_xmss")

SECRET_RULES: tuple[SecretRule, ...] = (
    SecretRule("env", asks=(".env", "envrc"), names=frozenset({".env", ".envrc"}),
               prefixes=(".env.",), suffixes=(".env",)),
    SecretRule("pem", asks=("pem",), suffixes=(".pem",)),
    SecretRule("key", asks=(".key", "ppk"), suffixes=(".key", ".ppk")),
    SecretRule("pkcs12", asks=("p12", "pfx"), suffixes=(".p12", ".pfx")),
    SecretRule("keystore", asks=("jks", "keystore"), suffixes=(".jks", ".keystore")),
    SecretRule("ssh", asks=SSH_KEY_PREFIXES, prefixes=SSH_KEY_PREFIXES),
    SecretRule("credentials", asks=("credentials",),
               names=frozenset({"credentials", "credentials.json", ".git-credentials"})),
    SecretRule("npmrc", asks=("npmrc",), names=frozenset({".npmrc"})),
    SecretRule("pypirc", asks=("pypirc",), names=frozenset({".pypirc"})),
    SecretRule("netrc", asks=("netrc",), names=frozenset({".netrc", "_netrc"})),
    SecretRule("pgpass", asks=("pgpass",), names=frozenset({".pgpass"})),
    SecretRule("htpasswd", asks=("htpasswd",), names=frozenset({".htpasswd"})),
)
"""Every kind of secret file, in the order ``secret_kind`` tries them."""

TEMPLATE_WORDS = frozenset({"example", "sample", "template", "dist"})
"""A ``.env`` file with one of these as a dot-separated part of its name (``.env.example``,
``example.env``, ``.env.local.sample``) is a template to copy, not a secret."""


_NAMES = frozenset().union(*(r.names for r in SECRET_RULES))
_PREFIXES = tuple(p for r in SECRET_RULES for p in r.prefixes)
_SUFFIXES = tuple(s for r in SECRET_RULES for s in r.suffixes)


def secret_kind(path: str) -> str | None:
    """The kind of secret a path's file name suggests (a ``SecretRule.kind``), or None."""
    name = path[path.rfind("/") + 1 :].lower()
    if not (name.endswith(_SUFFIXES) or name.startswith(_PREFIXES) or name in _NAMES):
        return None
    for rule in SECRET_RULES:
        if rule.covers(name):
            if rule.kind == "env" and TEMPLATE_WORDS.intersection(name.split(".")):
                return None
            return rule.kind
    return None


def wants_secrets(query: str) -> frozenset[str]:
    """The secret kinds a query (or glob) names: a word (not negated) holding one of a rule's
    ``asks`` (``.env``, ``pem``, ``id_rsa``...); ``env`` or ``key`` alone ask for nothing."""
    kinds: set[str] = set()
    for word in query.lower().split():
        if word.startswith("!"):
            continue
        word = word.lstrip("'^").rstrip("$")
        kinds.update(rule.kind for rule in SECRET_RULES if any(a in word for a in rule.asks))
    return frozenset(kinds)


def split_secrets(paths: Sequence[str]) -> tuple[Sequence[str], list[str]]:
    """``paths`` as (ordinary files, secret files), each in the order given."""
    kinds = [secret_kind(p) for p in paths]
    if not any(kinds):
        return paths, []
    return ([p for p, k in zip(paths, kinds, strict=True) if k is None],
            [p for p, k in zip(paths, kinds, strict=True) if k is not None])

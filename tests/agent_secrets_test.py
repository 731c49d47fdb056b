"""Which files the agent tools treat as secrets, and which queries ask for them."""

from __future__ import annotations

import pytest

from ffind.agent.glob import glob_wants_secrets
from ffind.agent.secrets import SECRET_RULES, secret_kind, split_secrets, wants_secrets


@pytest.mark.parametrize(("path", "kind"), [
    (".env", "env"),
    ("config/.ENV", "env"),
    ("app/.env.production", "env"),
    ("deploy/prod.env", "env"),
    (".envrc", "env"),
    ("certs/server.pem", "pem"),
    ("cert.PEM", "pem"),
    ("tls.key", "key"),
    ("certs/SERVER.KEY", "key"),
    ("putty.ppk", "key"),
    ("key.p12", "pkcs12"),
    ("store.PFX", "pkcs12"),
    ("android/release.jks", "keystore"),
    ("release.keystore", "keystore"),
    ("home/.ssh/id_ed25519", "ssh"),
    ("id_rsa", "ssh"),
    ("ID_RSA.pub", "ssh"),
    ("gcp/credentials.json", "credentials"),
    (".aws/credentials", "credentials"),
    (".git-credentials", "credentials"),
    (".npmrc", "npmrc"),
    (".pypirc", "pypirc"),
    (".netrc", "netrc"),
    ("_netrc", "netrc"),
    (".pgpass", "pgpass"),
    ("web/.htpasswd", "htpasswd"),
])
def test_secret_files(path: str, kind: str) -> None:
    assert secret_kind(path) == kind


@pytest.mark.parametrize("path", [
    ".env.example", ".env.sample", ".env.template", ".env.dist", ".ENV.EXAMPLE",
    "example.env", ".env.local.example", "environment.ts", "keyboard.py", "monkey",
    "src/env.rs", "docs/credentials.md", "keys/README", "pem/chapter1.md", "npmrc.md",
    "widget_id.py", "id_card.png",
])
def test_ordinary_files(path: str) -> None:
    assert secret_kind(path) is None


def test_every_kind_is_asked_for_by_its_own_words() -> None:
    for rule in SECRET_RULES:
        for word in rule.asks:
            assert rule.kind in wants_secrets(word), (rule.kind, word)


def test_queries_that_ask_for_secrets() -> None:
    assert wants_secrets(".env") == {"env"}
    assert wants_secrets("app/.env.local") == {"env"}
    assert wants_secrets("^.ENV") == {"env"}
    assert wants_secrets("prod.env") == {"env"}
    assert wants_secrets("server pem") == {"pem"}
    assert wants_secrets("tls.key$") == {"key"}
    assert wants_secrets("id_rsa") == {"ssh"}
    assert wants_secrets("gcp credentials") == {"credentials"}
    assert wants_secrets(".npmrc") == {"npmrc"}
    assert wants_secrets("key.P12") == {"pkcs12"}
    assert wants_secrets("env") == frozenset()
    assert wants_secrets("secret key") == frozenset()
    assert wants_secrets("config !.env") == frozenset()


def test_a_glob_names_secrets_alternative_by_alternative() -> None:
    assert glob_wants_secrets("**/*.{pem,key}") == {"pem", "key"}
    assert glob_wants_secrets("*.PEM") == {"pem"}
    assert glob_wants_secrets(".env*") == {"env"}
    assert glob_wants_secrets("**/*.{p12,pfx}") == {"pkcs12"}
    assert glob_wants_secrets("*") == frozenset()
    assert glob_wants_secrets("**/*.py") == frozenset()


def test_split_secrets_keeps_the_order() -> None:
    paths = ["a.py", "x/.ENV", "b.py", "c/server.key", "d.env.example"]
    assert split_secrets(paths) == (["a.py", "b.py", "d.env.example"], ["x/.ENV", "c/server.key"])
    plain = ["a.py", "b.py"]
    assert split_secrets(plain) == (plain, [])


def test_the_guide_lists_every_kind() -> None:
    from pathlib import Path

    guide = (Path(__file__).resolve().parent.parent / "docs" / "agents.md").read_text()
    for rule in SECRET_RULES:
        row = next(line for line in guide.splitlines() if line.startswith(f"| {rule.kind} |"))
        for name in (*rule.names, *rule.prefixes, *rule.suffixes):
            assert name in row, (rule.kind, name)

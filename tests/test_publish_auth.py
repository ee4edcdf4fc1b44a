"""Publishing to a store that asks for credentials and speaks TLS, and keeping the secret secret.

The store is the Oxigraph server of the publish tests, behind a loopback reverse proxy
(``authproxy.AuthProxy``) that answers 401 without the right ``Authorization`` header and serves
TLS with a certificate of a private CA made by ``trustme``. Whatever happens, the secret never
appears in what the command prints, nor in what is logged.
"""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from atlas import cli
from atlas.errors import CouldNotRunError
from atlas.publish import graphstore as publish
from atlas.publish._credentials import warnings_for
from atlas.query import store
from authproxy import AuthProxy, TestCA
from test_publish import OXIGRAPH, Oxigraph

PASSWORD = "pa55-w0rd-d0-not-print"  # noqa: S105 - a test secret, to look for in the output
TOKEN = "t0ken-d0-not-print.abc"  # noqa: S105
VARIABLE = "ATLAS_TEST_STORE_AUTH"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Oxigraph]:
    if not Path(OXIGRAPH).exists():
        pytest.skip("the oxigraph server (PyPI package 'oxigraph', test extra) is not installed")
    running = Oxigraph(tmp_path_factory.mktemp("oxigraph")).start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def ca(tmp_path_factory: pytest.TempPathFactory) -> TestCA:
    return TestCA(tmp_path_factory.mktemp("ca"))


@pytest.fixture
def basic(server: Oxigraph, ca: TestCA) -> Iterator[AuthProxy]:
    with AuthProxy(server.url, "basic", f"atlas:{PASSWORD}", tls=ca) as proxy:
        yield proxy


def _publish(*options: str, graph: str) -> list[str]:
    return ["publish", "--graph", graph, "--no-witness", *options]


def _said(capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> str:
    out, err = capsys.readouterr()
    return out + err + caplog.text


# --- through the proxy -------------------------------------------------------------------------


@pytest.mark.slow
def test_basic_credentials_from_a_variable_publish_over_tls_with_a_ca_bundle(
    server: Oxigraph,
    basic: AuthProxy,
    *,
    ca: TestCA,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv(VARIABLE, f"atlas:{PASSWORD}")
    graph = "https://example.org/basic"
    auth = ("--auth", "basic", "--auth-env", VARIABLE, "--ca-bundle", str(ca.bundle))
    assert cli.main(_publish("--store", basic.url, *auth, graph=graph)) == 0
    said = _said(capsys, caplog)
    assert f"triples to <{graph}>" in said
    assert PASSWORD not in said
    assert server.count(graph) == len(store.store())
    assert 401 not in basic.statuses


@pytest.mark.slow
def test_a_bearer_token_from_a_file_publishes(
    server: Oxigraph,
    ca: TestCA,
    *,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(f"{TOKEN}\nthe rest of the file is not read\n")
    graph = "https://example.org/bearer"
    with AuthProxy(server.url, "bearer", TOKEN, tls=ca) as proxy:
        auth = ("--auth", "bearer", "--auth-file", str(token_file), "--ca-bundle", str(ca.bundle))
        assert cli.main(_publish("--store", proxy.url, *auth, graph=graph)) == 0
        assert TOKEN not in "".join(capsys.readouterr())
        assert server.count(graph) == len(store.store())
        # standard input, as from a password manager: --auth-file -
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(f"{TOKEN}\n".encode())))
        auth = ("--auth", "bearer", "--auth-file", "-", "--ca-bundle", str(ca.bundle))
        assert cli.main(_publish("--store", proxy.url, *auth, graph=f"{graph}/stdin")) == 0
    assert TOKEN not in "".join(capsys.readouterr())
    assert server.count(f"{graph}/stdin") == len(store.store())


@pytest.mark.slow
@pytest.mark.parametrize(
    ("secret", "said"),
    [
        (f"atlas:wrong-{PASSWORD}", "refused the credentials given (HTTP 401)"),
        (None, "asks for credentials, none given (HTTP 401)"),
    ],
)
def test_wrong_or_missing_credentials_fail_in_one_line_without_the_secret(
    server: Oxigraph,
    basic: AuthProxy,
    *,
    ca: TestCA,
    secret: str | None,
    said: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    graph = "https://example.org/refused"
    options = ["--store", basic.url, "--ca-bundle", str(ca.bundle)]
    if secret is not None:
        monkeypatch.setenv(VARIABLE, secret)
        options += ["--auth", "basic", "--auth-env", VARIABLE]
    assert cli.main(_publish(*options, graph=graph)) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert f"the store at {basic.url}/query {said}" in err
    assert "the previous graph is intact" in err
    assert PASSWORD not in err + caplog.text
    assert server.count(graph) == 0


@pytest.mark.slow
def test_a_token_refused_with_403_says_so_without_the_token(
    server: Oxigraph,
    ca: TestCA,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(VARIABLE, f"wrong-{TOKEN}")
    with AuthProxy(server.url, "bearer", TOKEN, tls=ca, refusal=403) as proxy:
        options = ("--store", proxy.url, "--ca-bundle", str(ca.bundle))
        auth = ("--auth", "bearer", "--auth-env", VARIABLE)
        assert cli.main(_publish(*options, *auth, graph="https://example.org/403")) == 1
    out, err = capsys.readouterr()
    assert f"the store at {proxy.url}/query refused the credentials given (HTTP 403)" in err
    assert TOKEN not in out + err


@pytest.mark.slow
def test_the_program_refused_prints_no_traceback_and_no_secret(
    basic: AuthProxy, ca: TestCA
) -> None:
    environment = {**os.environ, VARIABLE: f"atlas:{PASSWORD}-but-wrong"}
    done = subprocess.run(
        [
            *(sys.executable, "-m", "atlas", "publish", "--store", basic.url, "--no-witness"),
            *("--auth", "basic", "--auth-env", VARIABLE, "--ca-bundle", str(ca.bundle)),
        ],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1
    assert PASSWORD not in done.stdout + done.stderr
    assert done.stderr.startswith("atlas publish: error: the store at https://127.0.0.1:")
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_an_untrusted_certificate_says_so_and_suggests_a_ca_bundle(
    basic: AuthProxy,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv(VARIABLE, f"atlas:{PASSWORD}")
    options = ("--store", basic.url, "--auth", "basic", "--auth-env", VARIABLE)
    assert cli.main(_publish(*options, graph="https://example.org/untrusted")) == 3
    out, err = capsys.readouterr()
    assert len(err.strip().splitlines()) == 1
    assert f"the TLS certificate of the store at {basic.url}/query could not be verified" in err
    assert "--ca-bundle" in err
    assert PASSWORD not in out + err
    assert basic.statuses == []  # no request got through


@pytest.mark.slow
def test_insecure_publishes_without_verifying_and_warns(
    server: Oxigraph,
    basic: AuthProxy,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv(VARIABLE, f"atlas:{PASSWORD}")
    graph = "https://example.org/insecure"
    options = ("--store", basic.url, "--auth", "basic", "--auth-env", VARIABLE, "--insecure")
    assert cli.main(_publish(*options, graph=graph)) == 0
    out, err = capsys.readouterr()
    assert err.startswith("atlas publish: warning: TLS certificates are not verified")
    assert PASSWORD not in out + err
    assert server.count(graph) == len(store.store())


@pytest.mark.slow
def test_the_python_api_takes_credentials_and_a_ca_bundle(
    server: Oxigraph, basic: AuthProxy, ca: TestCA
) -> None:
    graph = "https://example.org/api"
    credentials = publish.Credentials.basic("atlas", PASSWORD)
    done = publish.publish(
        basic.url, graph, credentials=credentials, ca_bundle=ca.bundle, witness=False
    )
    assert done.triples == server.count(graph) == len(store.store())
    with pytest.raises(publish.AuthError, match="refused the credentials") as refused:
        publish.publish(
            basic.url,
            graph,
            credentials=publish.Credentials.basic("atlas", "wrong"),
            ca_bundle=ca.bundle,
            witness=False,
        )
    assert refused.value.status == 401
    with pytest.warns(publish.InsecureWarning, match="not verified"):
        publish.publish(basic.url, graph, credentials=credentials, insecure=True, witness=False)
    with pytest.raises(publish.TLSError, match="--ca-bundle"):
        publish.publish(basic.url, graph, credentials=credentials, witness=False)


# --- credentials: read, checked, never shown -----------------------------------------------------


def test_the_credentials_repr_hides_the_secret() -> None:
    for made in (
        publish.Credentials.basic("atlas", PASSWORD),
        publish.Credentials.bearer(TOKEN),
        publish.Credentials.from_text("basic", f"atlas:{PASSWORD}\n", "a file"),
    ):
        assert PASSWORD not in repr(made) + str(made)
        assert TOKEN not in repr(made) + str(made)
        assert "secret=<hidden>" in repr(made)
        assert "hidden" in repr(made.auth()) or "object at" in repr(made.auth())
        assert PASSWORD not in repr(made.auth())
        assert TOKEN not in repr(made.auth())


@pytest.mark.parametrize(
    ("scheme", "text", "said"),
    [
        ("basic", PASSWORD, "holds no 'user:password'"),
        ("basic", "", "is empty"),
        ("bearer", f"{TOKEN} {PASSWORD}", "holds a space"),
        ("bearer", f"{PASSWORD}\x7f", "printable ASCII"),
        ("basic", f"atlas:{PASSWORD}\x00", "control character"),
    ],
)
def test_malformed_credentials_are_refused_without_showing_them(
    scheme: str, text: str, said: str
) -> None:
    with pytest.raises(publish.CredentialsError, match=said) as refused:
        publish.Credentials.from_text(scheme, text, "the test's text")  # type: ignore[arg-type]
    assert "the test's text" in str(refused.value)
    assert PASSWORD not in str(refused.value)
    assert TOKEN not in str(refused.value)


def test_a_store_url_with_a_password_is_refused_without_quoting_it() -> None:
    url = f"https://atlas:{PASSWORD}@127.0.0.1:1"
    with pytest.raises(publish.CredentialsError, match="never in the URL") as refused:
        publish.publish(url, witness=False)
    assert PASSWORD not in str(refused.value)


def test_an_unset_variable_and_an_unreadable_file_are_named_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv(VARIABLE, raising=False)
    store_url = "https://127.0.0.1:1"
    base = ["publish", "--store", store_url, "--auth", "basic"]
    assert cli.main([*base, "--auth-env", VARIABLE]) == 3
    err = capsys.readouterr().err
    assert err == f"atlas publish: error: the environment variable {VARIABLE} is not set\n"
    missing = tmp_path / "no-such-file"
    assert cli.main([*base, "--auth-file", str(missing)]) == 3
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1
    assert f"cannot read the auth file '{missing}'" in err
    with pytest.raises(CouldNotRunError, match="cannot read the auth file"):
        publish.Credentials.from_file("bearer", missing)


def test_a_value_given_as_a_variable_name_is_not_echoed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    options = ["--store", "https://127.0.0.1:1", "--auth", "bearer", "--auth-env", TOKEN]
    assert cli.main(["publish", *options]) == 1
    err = capsys.readouterr().err
    assert "not a value" in err
    assert TOKEN not in err


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--auth", "basic"], "--auth basic needs --auth-env NAME or --auth-file"),
        (["--auth-env", VARIABLE], "--auth-env and --auth-file need --auth"),
    ],
)
def test_auth_options_without_their_partner_are_a_usage_error(
    options: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["publish", "--store", "https://127.0.0.1:1", *options]) == 2
    assert said in capsys.readouterr().err


def test_a_ca_bundle_and_insecure_together_are_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as stopped:
        cli.main(["publish", "--store", "https://h", "--ca-bundle", "ca.pem", "--insecure"])
    assert stopped.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_an_unreadable_ca_bundle_could_not_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "not-pem").write_text("no certificate here\n")
    for bundle, said in ((tmp_path / "missing.pem", "cannot read"), (tmp_path / "not-pem", "PEM")):
        code = cli.main(["publish", "--store", "https://127.0.0.1:1", "--ca-bundle", str(bundle)])
        assert code == 3
        err = capsys.readouterr().err
        assert said in err
        assert str(bundle) in err


def test_credentials_over_plain_http_to_another_host_are_warned_of() -> None:
    other = ["http://store.example.org/query", "https://store.example.org/update"]
    said = warnings_for(other, credentials=True, insecure=False)
    plain = "http://store.example.org"
    assert said == [f"credentials are sent unencrypted over plain HTTP to {plain}: use https"]
    assert warnings_for(other, credentials=False, insecure=False) == []
    assert warnings_for(["http://127.0.0.1:7878/query"], credentials=True, insecure=False) == []

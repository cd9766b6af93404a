"""Shared helpers of the Python suite: the repository's fixtures (tests/fixtures/ of the crate)."""

import json
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"


def jsonl(path):
    """The JSON values of a JSON-lines file, one per non-blank line."""
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.fixture(scope="session")
def fixtures():
    """The crate's fixture directory."""
    if not FIXTURES.is_dir():
        pytest.skip("the crate's tests/fixtures/ is not beside this package")
    return FIXTURES

"""The examples in the docstrings run as written."""

from __future__ import annotations

import doctest
import unittest
from typing import Any

from authority_runtime import _canonical, _http, _jws, audit_entry, client, jwks, nonce_store, retry


def load_tests(loader: unittest.TestLoader, tests: unittest.TestSuite, pattern: Any) -> unittest.TestSuite:
    for module in (_canonical, _http, _jws, audit_entry, client, jwks, nonce_store, retry):
        tests.addTests(doctest.DocTestSuite(module))
    return tests

"""What the live tests share: the service named by AUTHORITY_URL, AUTHORITY_TENANT and
AUTHORITY_API_KEY (scripts/sdk-live-tests.sh starts one). Without them the live tests fail; they
never skip."""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass

from authority_runtime import AuthorityClient

NAMES = ("AUTHORITY_URL", "AUTHORITY_TENANT", "AUTHORITY_API_KEY")


@dataclass(frozen=True)
class Service:
    """The service under test and an admin key of one of its tenants."""

    url: str
    tenant: str
    api_key: str

    def client(self, api_key: str | None = None, **options: float) -> AuthorityClient:
        return AuthorityClient(self.url, self.tenant, api_key or self.api_key, **options)  # type: ignore[arg-type]

    @property
    def jwks_url(self) -> str:
        return f"{self.url.rstrip('/')}/.well-known/authority/{self.tenant}/jwks.json"


def service() -> Service:
    """The service of the environment; raises ``AssertionError`` naming what is missing."""
    missing = [name for name in NAMES if not os.environ.get(name)]
    if missing:
        raise AssertionError(
            f"the live tests need {', '.join(missing)}: run scripts/sdk-live-tests.sh, "
            "or point them at a running `authority serve`"
        )
    return Service(os.environ["AUTHORITY_URL"], os.environ["AUTHORITY_TENANT"], os.environ["AUTHORITY_API_KEY"])


def unique_target() -> str:
    """A target system of its own for each test, so that tests never see each other's intents."""
    return f"sdk-python/live-{uuid.uuid4().hex[:12]}"

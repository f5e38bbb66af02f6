"""The executor's side: verify the token before acting, and act at most once per token."""

import os
import sys

from authority_runtime import RemoteJwks, RemoteNonceStore, verify_authority_token

base, tenant = os.environ["AUTHORITY_URL"], os.environ["AUTHORITY_TENANT"]
target = os.environ.get("AUTHORITY_TARGET_SYSTEM", "acme/api")
jwks = RemoteJwks(f"{base}/.well-known/authority/{tenant}/jwks.json")
# One nonce store for every executor process of the tenant: the service's own (needs a key with
# the permission intent:token:consume).
nonces = RemoteNonceStore(base, tenant, os.environ["AUTHORITY_API_KEY"])

token = sys.stdin.readline().strip()
result = verify_authority_token(
    token, jwks, tenant_id=tenant, adapter_id="external", target_system=target, nonce_store=nonces
)
if not result.valid or result.claims is None:
    print(f"REFUSED {result.reason}")
    sys.exit(1)
print(f"VALID {result.claims['proposedAction']} on {result.claims['targetSystem']}")
# Only now perform exactly result.claims["proposedAction"] on result.claims["targetSystem"].

"""The service's guard at its edge (issue 39, found missing by the mutation run): a token is
taken as `Authorization: Bearer TOKEN` alone; a right token under another scheme, or the Bearer
scheme with no token, is 401 with the challenge saying how to send it."""

from __future__ import annotations

import httpx
import pytest

from .server import ADMIN, bearer


@pytest.mark.parametrize("authorization", [f"Basic {ADMIN}", f"Token {ADMIN}", "Bearer"])
def test_a_token_not_sent_as_bearer_is_401_with_the_challenge(
    client: httpx.Client, authorization: str
) -> None:
    refused = client.get("/fights", headers={"Authorization": authorization})
    assert refused.status_code == 401, refused.text
    assert refused.headers["www-authenticate"] == "Bearer"
    assert "Authorization: Bearer TOKEN" in refused.json()["detail"]
    assert (
        client.get("/fights", headers=bearer(ADMIN)).status_code == 200
    )  # the same token, sent so

"""Who a student is, for the workbook's fair share: cookies the server signs, issued sparingly.

The workbook shares its workers between clients (:mod:`derive.web.pool`). A cookie a client
could choose would let one script be a new student with every request (issue 37, H1), so the
server issues the cookie itself: a random nonce and its HMAC-SHA256 under a secret drawn when
the server starts (:meth:`Identities.issue`). A cookie the server did not sign is ignored and
its sender is its address alone (:meth:`Identities.verify`). An address gets at most
``per_minute`` new cookies a minute; past that, the page is served without one, so a script
that keeps asking for cookies shares one identity with itself.

An address is a share of its own, except that an IPv6 address counts as its /64 network
(:func:`network_of`): one host is usually given a whole /64, so it could otherwise be 2^64
students.

A restart draws a new secret: every browser then gets a new cookie with its next page load
(and until then counts as its address), which loses nothing, as the server keeps nothing per
student.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import secrets
import time
from collections import deque

_NONCE_BYTES = 16
_MAC_CHARS = 22  # 132 bits of the MAC, in URL-safe base64


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def network_of(host: str) -> str:
    """The share a peer's address counts in: an IPv6 address's /64, an IPv4 address itself.

    >>> network_of("2001:db8:0:1::5"), network_of("::ffff:10.0.0.1"), network_of("10.0.0.1")
    ('2001:db8:0:1::/64', '10.0.0.1', '10.0.0.1')
    """
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host
    if ip.version == 4:
        return host
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ipaddress.ip_network((ip, 64), strict=False))


class Rate:
    """At most ``count`` events in any ``seconds`` for each key (a sliding window)."""

    def __init__(self, count: int, seconds: float) -> None:
        self.count, self.seconds = count, seconds
        self._times: dict[str, deque[float]] = {}  # per key: when its events were

    def allow(self, key: str, now: float | None = None) -> bool:
        """Whether one more event of ``key`` is within the rate (it is counted if so)."""
        now = time.monotonic() if now is None else now
        if len(self._times) > 10_000:  # bounded memory: forget keys quiet for a window
            self._times = {k: q for k, q in self._times.items() if q and q[-1] > now - self.seconds}
        times = self._times.setdefault(key, deque())
        while times and times[0] <= now - self.seconds:
            times.popleft()
        if len(times) >= self.count:
            return False
        times.append(now)
        return True


class Identities:
    """Signed client cookies, at most ``per_minute`` new ones per address per minute."""

    def __init__(self, per_minute: int = 60, secret: bytes | None = None) -> None:
        self.per_minute = per_minute
        self._secret = secret if secret is not None else secrets.token_bytes(32)
        self._issued = Rate(per_minute, 60.0)  # per address

    def _mac(self, nonce: str) -> str:
        digest = hmac.new(self._secret, nonce.encode("ascii"), hashlib.sha256).digest()
        return _b64(digest)[:_MAC_CHARS]

    def verify(self, token: str) -> bool:
        """True when ``token`` is a cookie this server issued."""
        nonce, mac = token[:-_MAC_CHARS], token[-_MAC_CHARS:]
        if len(token) > 64 or len(nonce) != len(_b64(bytes(_NONCE_BYTES))) or not nonce.isascii():
            return False
        return hmac.compare_digest(mac, self._mac(nonce))

    def issue(self, address: str, now: float | None = None) -> str | None:
        """A new signed cookie for a client at ``address``, or None when it had its minute's share."""
        if not self._issued.allow(address, now):
            return None
        nonce = _b64(secrets.token_bytes(_NONCE_BYTES))
        return nonce + self._mac(nonce)

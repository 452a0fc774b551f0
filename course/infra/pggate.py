"""A door to PostgreSQL that lets in only the roles it was given: the way a sandbox reaches its database.

The gate serves on a listening socket it is handed (TCP on 127.0.0.1, made by the caller, who so knows
the port before anything starts) and, for each connection, reads the client's startup message — the
first thing a PostgreSQL client sends, in clear, naming the role it logs in as — before anything reaches
the server. A role not on the list gets PostgreSQL's own "FATAL 28000" error and the connection is
closed: the superuser is refused even to a client that somehow knows its password. Then the bytes flow
both ways untouched, and the server asks for the role's password as usual.

TLS and GSSAPI encryption requests are declined (the server is on this machine; the client then goes on
in clear), replication connections are refused, cancel requests pass (they carry only a secret key).

    gate = RoleGate(upstream=("/path/.course/run", 5432), roles={"course_grade_1a2b"})
    await asyncio.start_server(gate.serve, sock=listener)

It runs in the sandbox's warden, a trusted process outside the sandbox, and uses only the standard
library (the warden loads nothing else).
"""

from __future__ import annotations

import asyncio
import struct

SSL_REQUEST, GSSENC_REQUEST, CANCEL_REQUEST = 80877103, 80877104, 80877102
MAX_STARTUP_BYTES = 10_000  # PostgreSQL's own limit on a startup packet
CHUNK = 64 * 1024


def error_response(message: str) -> bytes:
    """A FATAL ErrorResponse, as PostgreSQL sends one: libpq shows `message` to the client."""
    fields = b"".join(kind + text.encode() + b"\0" for kind, text in
                      ((b"S", "FATAL"), (b"V", "FATAL"), (b"C", "28000"), (b"M", message)))
    body = fields + b"\0"
    return b"E" + struct.pack("!I", len(body) + 4) + body


def startup_parameters(body: bytes) -> dict[str, str]:
    """The key/value pairs of a StartupMessage's body (after its protocol version)."""
    parts = body[4:].split(b"\0")
    pairs = {}
    for key, value in zip(parts[0::2], parts[1::2]):
        if not key:
            break
        pairs[key.decode(errors="replace")] = value.decode(errors="replace")
    return pairs


class RoleGate:
    """Forwards PostgreSQL connections of the given roles to `upstream`: (socket folder, port) for a
    unix socket, (host, port) for TCP."""

    def __init__(self, upstream: tuple[str, int], roles: set[str]):
        self.upstream = upstream
        self.roles = set(roles)
        self._connections: set[asyncio.StreamWriter] = set()

    def abort_all(self) -> None:
        """Cut every connection still open (the sandbox is ending)."""
        for writer in list(self._connections):
            writer.transport.abort()

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """One client connection, from its first byte to its end (asyncio.start_server's callback)."""
        self._connections.add(writer)
        try:
            first = await self._startup(reader, writer)
            if first is not None:
                await self._forward(first, reader, writer)
        except (OSError, asyncio.IncompleteReadError, ValueError):
            pass
        finally:
            self._connections.discard(writer)
            writer.transport.abort()

    async def _startup(self, reader, writer) -> bytes | None:
        """The packet to send upstream, or None when the client is turned away."""
        while True:
            length, code = struct.unpack("!II", await reader.readexactly(8))
            if not 8 <= length <= MAX_STARTUP_BYTES:
                return None
            body = struct.pack("!I", code) + await reader.readexactly(length - 8)
            packet = struct.pack("!I", length) + body
            if code in (SSL_REQUEST, GSSENC_REQUEST):
                writer.write(b"N")  # no encryption here: the client goes on in clear
                await writer.drain()
                continue
            if code == CANCEL_REQUEST:
                return packet
            if code >> 16 != 3:
                return None
            parameters = startup_parameters(body)
            role = parameters.get("user", "")
            if role not in self.roles or parameters.get("replication", "false").lower() not in ("false", "0", "off", "no"):
                allowed = ", ".join(sorted(self.roles)) or "no role"
                writer.write(error_response(f"this sandbox may log in only as {allowed}, not as {role!r}"
                                            + (" (no replication)" if "replication" in parameters else "")))
                await writer.drain()
                return None
            return packet

    async def _forward(self, first: bytes, reader, writer) -> None:
        host, port = self.upstream
        if host.startswith("/"):
            up_reader, up_writer = await asyncio.open_unix_connection(f"{host}/.s.PGSQL.{port}")
        else:
            up_reader, up_writer = await asyncio.open_connection(host, port)
        self._connections.add(up_writer)
        try:
            up_writer.write(first)
            await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))
        finally:
            self._connections.discard(up_writer)
            up_writer.transport.abort()

    @staticmethod
    async def _pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        try:
            while chunk := await source.read(CHUNK):
                sink.write(chunk)
                await sink.drain()
        finally:
            if sink.can_write_eof():
                try:
                    sink.write_eof()
                except OSError:
                    pass

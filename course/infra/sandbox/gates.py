"""Doors from a sandbox to the outside, kept by its warden: a PostgreSQL gate that lets in only the roles
it was given, and a plain relay for the TCP ports the caller names.

The PostgreSQL gate reads each connection's startup message — the first thing a PostgreSQL client sends,
in clear, naming the role it logs in as and its database — before anything reaches the server. A role
(or, when the gate is given them, a database) not on the list gets PostgreSQL's own "FATAL 28000" error
and the connection is closed: the superuser is refused even to a client that somehow knows its
password. Then the bytes flow both ways untouched, and the server asks for the role's password as usual. TLS and GSSAPI encryption requests are declined (the server is on
this machine; the client then goes on in clear), replication connections are refused, cancel requests
pass (they carry only a secret key).

    gate = RoleGate(upstream=("/path/.course/run", 5432), roles={"course_grade_1a2b"})
    await asyncio.start_server(gate.serve, sock=listener)
    await asyncio.start_server(Relay(("127.0.0.1", 8025)).serve, sock=listener)

The listeners are handed in: made by the caller (so it knows the port before anything starts), or made
inside the sandbox's network namespace and passed out, so the sandbox connects to 127.0.0.1 as usual.
Only the standard library is used: the warden loads nothing else.
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

    def __init__(self, upstream: tuple[str, int], roles: set[str], databases: set[str] | None = None):
        """`databases`: the only ones a connection may name (None: any the role may reach). A role's own
        database keeps its LISTEN/NOTIFY channels and advisory locks from every other sandbox's."""
        self.upstream = upstream
        self.roles = set(roles)
        self.databases = None if databases is None else set(databases)
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
            database = parameters.get("database") or role  # libpq's default: the role's name
            if self.databases is not None and database not in self.databases:
                writer.write(error_response(f"this sandbox may reach only the database "
                                            f"{', '.join(sorted(self.databases))}, not {database!r}"))
                await writer.drain()
                return None
            return packet

    async def _forward(self, first: bytes, reader, writer) -> None:
        host, port = self.upstream
        await _splice(reader, writer, f"{host}/.s.PGSQL.{port}" if host.startswith("/") else (host, port),
                      self._connections, first)


class Relay:
    """Forwards every connection to `upstream` (host, port), bytes untouched."""

    def __init__(self, upstream: tuple[str, int]):
        self.upstream = upstream
        self._connections: set[asyncio.StreamWriter] = set()

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._connections.add(writer)
        try:
            await _splice(reader, writer, self.upstream, self._connections)
        except OSError:
            pass
        finally:
            self._connections.discard(writer)
            writer.transport.abort()

    def abort_all(self) -> None:
        for writer in list(self._connections):
            writer.transport.abort()


async def _splice(reader, writer, upstream: str | tuple[str, int], connections: set, first: bytes = b"") -> None:
    """Connect to `upstream` (a unix socket's path, or host and port), send `first`, then copy both ways."""
    if isinstance(upstream, str):
        up_reader, up_writer = await asyncio.open_unix_connection(upstream)
    else:
        up_reader, up_writer = await asyncio.open_connection(*upstream)
    connections.add(up_writer)
    try:
        up_writer.write(first)
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))
    finally:
        connections.discard(up_writer)
        up_writer.transport.abort()


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

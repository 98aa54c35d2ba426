"""``derive serve``: a workbook of a problem set in the browser, with instant checking.

::

    derive serve [SET.toml] [--host 127.0.0.1] [--port 8000] [--hide-expected] [--no-hints]
                 [--behind-proxy ADDR]

No set: the built-in rooflines set. Binds to 127.0.0.1 unless told otherwise and says
what it serves and where. A student's address is the connection's peer; only with
``--behind-proxy ADDR`` does ``X-Forwarded-For`` name it, and only on connections from ADDR
(uvicorn's own default trusts it from any loopback client, which let a script name itself
anew with every request). Needs the ``web`` extra (``pip install 'derive-roofline[web]'``).
"""

from __future__ import annotations

import argparse
import errno
import gc
import ipaddress
import socket
import sys
import time

from derive.commands.options import add_timeout_flag, check_timeout
from derive.errors import ProblemError
from derive.formula.decimals import ascii_int


def add_serve_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``derive serve`` on the CLI's subparsers."""
    p = sub.add_parser("serve", help="serve a problem set as a workbook in the browser")
    p.add_argument("set", nargs="?", metavar="SET.toml", help="problem set (default: built-in)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=ascii_int, default=8000, help="port (default 8000; 0: any free)")
    add_workbook_flags(
        p,
        hide_help="never send an expected value to students: verdicts without the answer or "
        "its side; a step of the solution that states an answer opens once it is right",
        trust_help="allow the set's Python operator files (they run as code)",
    )
    p.add_argument(
        "--workers", type=ascii_int, default=2, metavar="N", help="checking processes (default 2)"
    )
    add_timeout_flag(p, help="hard time limit of one check in seconds (default 5)")
    p.add_argument(
        "--address-checks",
        type=ascii_int,
        default=64,
        metavar="N",
        help="checks waiting or running for one network address (default 64; raise it for a "
        "large class behind one NAT address)",
    )
    p.add_argument(
        "--new-students-per-minute",
        type=ascii_int,
        default=60,
        metavar="N",
        help="new student cookies one network address gets a minute (default 60)",
    )
    p.add_argument(
        "--previews-per-second",
        type=ascii_int,
        default=30,
        metavar="N",
        help="live previews one network address may ask a second (default 30)",
    )
    p.add_argument(
        "--behind-proxy",
        metavar="ADDR",
        help="the reverse proxy's address (or addresses, networks, comma-separated): only its "
        "X-Forwarded-For names a student's address (default: the header is ignored)",
    )
    p.set_defaults(handler=run)
    return p


def proxy_options(behind_proxy: str | None) -> dict[str, object]:
    """uvicorn's settings for ``X-Forwarded-For``: honoured from ``behind_proxy`` only, else never."""
    if behind_proxy is None:
        return {"proxy_headers": False}
    for part in behind_proxy.split(","):
        try:
            ipaddress.ip_network(part.strip(), strict=False)
        except ValueError:
            raise ProblemError(
                f"--behind-proxy {behind_proxy}",
                f"{part.strip()!r} is not an IP address or network",
            ) from None
    return {"proxy_headers": True, "forwarded_allow_ips": behind_proxy}


def add_workbook_flags(p: argparse.ArgumentParser, hide_help: str, trust_help: str) -> None:
    """The flags of what a workbook shows and runs, shared by ``serve`` and ``publish``."""
    p.add_argument("--hide-expected", action="store_true", help=hide_help)
    p.add_argument("--no-hints", action="store_true", help="turn off hints and solutions")
    p.add_argument("--trust", action="store_true", help=trust_help)


def _bind(host: str, port: int) -> socket.socket:
    """A listening socket, or one line saying why not."""
    if not 0 <= port <= 65535:
        raise ProblemError(f"--port {port}", "must be 0 to 65535")
    try:
        family = socket.AF_INET6 if ipaddress.ip_address(host).version == 6 else socket.AF_INET
    except ValueError:
        family = socket.AF_INET
    # IPPROTO_TCP, so asyncio sets TCP_NODELAY on every connection: without it each
    # keep-alive response waited ~40 ms for a delayed ACK (issue 27's throughput)
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        why = (
            "already in use (try another --port)" if exc.errno == errno.EADDRINUSE else exc.strerror
        )
        raise ProblemError(f"--host {host} --port {port}", f"cannot listen: {why}") from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def run(args: argparse.Namespace) -> int:
    """Prepare the workbook, start the checking workers, serve until interrupted."""
    try:
        import uvicorn

        from derive.web.app import LOOPBACK_HOSTS, create_app
        from derive.web.book import build_workbooks, load_source
        from derive.web.identity import Identities
        from derive.web.pool import PoolSettings, WorkerPool
        from derive.web.protocol import TimedH11Protocol
    except ImportError as exc:
        raise ProblemError(
            "derive serve",
            f"needs the web extra ({exc.name} is missing): pip install 'derive-roofline[web]'",
        ) from None
    if not 1 <= args.workers <= 32:
        raise ProblemError(f"--workers {args.workers}", "must be 1 to 32")
    check_timeout(args)
    proxy = proxy_options(args.behind_proxy)
    if not 1 <= args.previews_per_second <= 100_000:
        raise ProblemError(
            f"--previews-per-second {args.previews_per_second}", "must be 1 to 100000"
        )
    if not 1 <= args.address_checks <= 100_000:
        raise ProblemError(f"--address-checks {args.address_checks}", "must be 1 to 100000")
    if not 1 <= args.new_students_per_minute <= 100_000:
        raise ProblemError(
            f"--new-students-per-minute {args.new_students_per_minute}", "must be 1 to 100000"
        )
    started = time.perf_counter()
    # a trusted file runs once, here; every worker holds what it declared
    source, pset = load_source(args.set, args.trust, pin_files=True)
    books = build_workbooks(pset, not args.no_hints, not args.hide_expected)
    sock = _bind(args.host, args.port)
    pool = WorkerPool(
        pset,
        PoolSettings(
            workers=args.workers,
            timeout=args.timeout,
            queue=max(256, args.address_checks),
            address_queue=args.address_checks,
        ),
        hide_expected=args.hide_expected,
    )
    try:
        gc.freeze()  # the set, its analysis and the workbook stay: collections walk only requests
        loopback = args.host in LOOPBACK_HOSTS
        app = create_app(
            books,
            pool,
            LOOPBACK_HOSTS if loopback else None,
            Identities(per_minute=args.new_students_per_minute),
            previews_per_second=args.previews_per_second,
            seed=pset.variants.seed if pset.variants else 0,
        )
        port = sock.getsockname()[1]
        shown = f"[{args.host}]" if ":" in args.host else args.host
        print(
            f"derive serve: {pset.title!r}, {len(books[0].pages)} problems from {source.origin}"
            f"{f' in {len(books)} variants (one per student: /?student=ID)' if pset.variants else ''}\n"
            f"  at http://{shown}:{port}/  (ready in {time.perf_counter() - started:.1f} s; Ctrl+C stops)\n"
            f"  hints and solutions {'off' if args.no_hints else 'on'}; expected answers "
            f"{'hidden' if args.hide_expected else 'shown'}; checks in {args.workers} worker "
            f"processes, at most {args.timeout:g} s each, shared fairly between students",
            flush=True,
        )
        if args.behind_proxy is not None:
            print(f"  students' addresses from X-Forwarded-For of {args.behind_proxy}", flush=True)
        if not loopback:
            where = socket.gethostname() if args.host in ("0.0.0.0", "::", "") else shown
            print(
                f"  students open http://{where}:{port}/ — listening on {args.host}: "
                "anyone who can reach this machine can use the workbook",
                flush=True,
            )
        config = uvicorn.Config(
            app,
            http=TimedH11Protocol,  # headers within 10 s; the app times bodies
            log_level="warning",
            access_log=False,
            timeout_keep_alive=30,
            **proxy,  # type: ignore[arg-type]
        )
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        pool.close()
        sock.close()
    sys.stdout.flush()
    return 0

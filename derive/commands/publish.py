"""``derive publish``: a workbook with no server, a static site that judges in the browser.

::

    derive publish [SET.toml] -o DIR [--pyodide PATH] [--hide-expected] [--no-hints] [--trust]

No set: the built-in rooflines set. The site (``DIR/index.html``) is the workbook of
``derive serve``; its answers are judged in the student's browser by derive's checker
running in Pyodide (:mod:`derive.web.site`). Any static file server serves it.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from derive.commands.options import add_timeout_flag, check_timeout
from derive.commands.serve import add_workbook_flags


def add_publish_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``derive publish`` on the CLI's subparsers."""
    p = sub.add_parser(
        "publish", help="write a problem set's workbook as a static site that checks in the browser"
    )
    p.add_argument("set", nargs="?", metavar="SET.toml", help="problem set (default: built-in)")
    p.add_argument("-o", "--output", required=True, metavar="DIR", help="the site's folder")
    p.add_argument(
        "--pyodide",
        metavar="PATH",
        help="a Pyodide runtime folder (npm's package/) to ship in the site, for offline use "
        "(default: the page loads Pyodide from a CDN)",
    )
    add_workbook_flags(
        p,
        hide_help="no file of the site states an expected value (the steps that state one are "
        "left out); the checker still runs in the browser",
        trust_help="allow the set's Python operator files (they run as code, in the browser)",
    )
    add_timeout_flag(p, help="time limit of one check in the browser in seconds (default 5)")
    p.set_defaults(handler=run)
    return p


def run(args: argparse.Namespace) -> int:
    """Prepare the workbook as ``derive serve`` does, then write it as a site."""
    from derive.web.book import build_workbooks, load_source
    from derive.web.site import build_site, pyodide_files, write_site

    check_timeout(args)
    started = time.perf_counter()
    runtime = pyodide_files(args.pyodide) if args.pyodide else None
    source, pset = load_source(args.set, args.trust)
    books = build_workbooks(pset, not args.no_hints, not args.hide_expected)
    site = build_site(source, pset, books, runtime, timeout=args.timeout)
    book = books[0]
    out = Path(args.output)
    write_site(site, out)
    where = "shipped in the site" if runtime else "loaded from a CDN by the page"
    print(
        f"derive publish: {pset.title!r}, {len(book.pages)} problems from {source.origin}"
        f"{f' in {len(books)} variants (one per student: ?student=ID)' if pset.variants else ''}\n"
        f"  into {out}/ ({len(site.files) + len(site.copies)} files, "
        f"{site.size() / 1e6:.1f} MB; {time.perf_counter() - started:.1f} s); Pyodide {where}\n"
        f"  hints and solutions {'off' if args.no_hints else 'on'}; expected answers "
        f"{'hidden (no file states one)' if args.hide_expected else 'shown'} (the checker "
        "runs in the browser: graded work belongs on derive serve)\n"
        f"  serve it with any static file server, e.g. python3 -m http.server -d {out}"
    )
    return 0

"""Writing one file atomically: a temporary file in the same folder, then ``os.replace``."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterable
from pathlib import Path

from derive.errors import OutputError
from derive.problem.input_files import file_kind


def write_atomic(path: Path, chunks: Iterable[bytes]) -> None:
    """Write the chunks to ``path`` through a temporary file in the same folder and ``os.replace``.

    A symbolic link or a folder at ``path`` is refused; a regular file is replaced (its
    permissions kept); a new file gets the usual 0666 less the umask. If producing a
    chunk fails, the temporary file is removed and ``path`` is untouched.
    """
    what = f"output file {str(path)!r}"
    if path.is_symlink():
        raise OutputError(what, "is a symbolic link; derive never writes through links")
    if path.exists() and not path.is_file():
        raise OutputError(
            what, f"is {file_kind(path.stat().st_mode)}; derive writes only regular files"
        )
    folder = path.parent
    if not folder.is_dir():
        raise OutputError(what, f"folder {str(folder)!r} does not exist")
    keep_mode = path.stat().st_mode & 0o777 if path.exists() else None
    tmp = folder / f".derive-{secrets.token_hex(8)}.tmp"
    try:
        fd = os.open(
            tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666
        )  # the kernel applies the umask
    except OSError as exc:
        raise OutputError(what, f"cannot write: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            for chunk in chunks:
                fh.write(chunk)
        if keep_mode is not None:
            os.chmod(tmp, keep_mode)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise OutputError(what, f"cannot write: {exc.strerror or exc}") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise

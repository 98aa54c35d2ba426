"""``python -m derive`` runs the command line."""

import sys

from derive.commands.cli import run

if __name__ == "__main__":
    sys.exit(run())

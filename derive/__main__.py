"""``python -m derive`` runs the command line."""

from derive.commands.cli import command

if __name__ == "__main__":
    command()

"""The command line: ``cli`` (argparse, ``main``) and one module per subcommand.

To add a subcommand, write ``derive/commands/<name>.py`` with ``add_<name>_parser`` and
register it in ``cli._LATER``. Only the command being run is imported.
"""

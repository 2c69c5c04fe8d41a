"""`python -m rulelang ...` is the same as the `rulelang` command."""
import sys

from rulelang.cli.main import command

sys.exit(command())

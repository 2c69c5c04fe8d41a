"""`python -m rulelang ...` is the same as the `rulelang` command."""
import sys

from .cli import command

sys.exit(command())

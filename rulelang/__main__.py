"""`python -m rulelang ...` is the same as the `rulelang` command."""
import sys

from .cli import main

sys.exit(main())

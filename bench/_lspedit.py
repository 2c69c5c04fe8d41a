"""How long the language server's analysis (`lsp.Analysis`) takes after an edit of a rules file.

The file is analysed once as opened, then after a comment line is inserted at 15 places, in one
process as the server does; it prints the best and the median time of those 15 analyses:

    PYTHONPATH=$PWD /root/.pyenv/versions/3.11.7/bin/python bench/_lspedit.py games/evacuation.rules

(Run the interpreter itself: a version manager's shim adds its own start-up, not timed here anyway.)
"""
import time, sys, os, tempfile, statistics
os.environ["RULELANG_CACHE_DIR"] = tempfile.mkdtemp()
from rulelang.tools.lsp import Analysis
path = sys.argv[1]
text = open(path).read()
Analysis(text, path)  # the file as opened: every declaration parsed once
lines = text.split("\n")
times = []
for i in range(15):
    # an edit: a comment line added at a different place each time (a declaration's text changes)
    at = 40 + 37 * i % (len(lines) - 50)
    edited = "\n".join(lines[:at] + [f"// edit {i}"] + lines[at:])
    t = time.perf_counter()
    a = Analysis(edited, path)
    times.append(time.perf_counter() - t)
    assert not a.diagnostics or all("hint" in str(d) or True for d in a.diagnostics)
print(path, f"after an edit: best {min(times)*1000:.0f} ms, median {statistics.median(times)*1000:.0f} ms")

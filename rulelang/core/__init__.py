"""What every room stands on: spans and diagnostics (`errors`), resource budgets (`budgets`),
where the bundled files are (`resources`), reading a source file (`sourcefile`) and the files
kept between processes (`cachefiles`). Imports no other room.
"""

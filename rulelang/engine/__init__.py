"""Running a compiled game: the `Program` the compiler makes, the VM's ops, values at run time,
the runtime (`VM`, `Game`, `Match`), what each seat sees (`visibility`) and saves.
"""

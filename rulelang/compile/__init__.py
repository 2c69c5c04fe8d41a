"""AST -> `Program`: the compiler, its closures for expressions and statements, the code
generator (`codegen` and its parts) and `load()`, which parses, checks and compiles a file
into a `Game` (`loader`).
"""

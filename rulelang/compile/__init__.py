"""AST -> `Program`: the compiler, its ops for statements, the code generator of expressions
and defs (`codegen` and its parts) and `load()`, which parses, checks and compiles a file
into a `Game` (`loader`).
"""

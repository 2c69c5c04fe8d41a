"""The language itself: text -> AST. The AST's models (`nodes`), the parser and its plain-words
syntax errors, the AST cache, variants overlaid on a game, data tables, and the helpers that
read a file fast (`chunks`, `fastcards`).
"""

"""The things of a match: cards, zones, players and the state (`things`), boards (`board`), the
built-in functions over them (`builtins`, with the boards' geometry) and a pending choice's
options (`options`).
"""

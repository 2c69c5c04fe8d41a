"""What is wrong with a game before it runs: the checker and its halves (`expressions`,
`statements`, `types`, `decks`), what expressions and defs depend on (`dependencies`), and the
verdicts kept for files that passed (`verdicts`).
"""

"""Tools around rules files: the language server (`lsp`), rulebook pages (`docgen`), board
pictures (`render`), designer scenarios (`scenario`), golden replays (`replay`), `rulelang
bench` (`bench`) and the Pygments lexer (`pygments_lexer`).
"""

"""Playing at a table: what one seat sees (`tableview`), the terminal (`terminal`) and the browser
table (`server`, with the page's files in `static/`).
"""

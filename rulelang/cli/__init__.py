"""The `rulelang` command: `main` (its commands and `command()`), argument types and readers
(`args`), the consoles it prints on (`console`) and the balance commands (`balance`).
"""

"""Many games played and measured: `simulate`, metrics with intervals, `compare`, `sweep`,
`tournament`, plots, the process pool (`parallel`), `simulate --profile` (`rulesprofile`) and
the docs' balance sections (`balance_docs`).
"""

"""Players that are programs: random, greedy and Monte Carlo bots (`agents`) and tree search
(`mcts`).
"""

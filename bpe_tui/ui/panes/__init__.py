"""The panes of the main screens, one per module with its .tcss beside it: corpus, pairs,
history, encode, detail, search, stats and the status line.
"""

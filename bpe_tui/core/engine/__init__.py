"""The engine: how BPE learns and how it applies what it learned.

``config`` holds every rule that decides the merges; ``trainer`` is the stepwise trainer (one
merge per ``step()``, exactly undoable) with its ``speed`` tricks; ``tiebreak`` decides which pair
wins a tie; ``events`` is the MergeEvent a step yields; ``merging`` is the one merge loop that
encodes a pre-token; ``units`` says what a token is (bytes or characters) and how to show it.
"""

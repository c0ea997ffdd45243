"""Measuring tables: what they hold that they never use (``audit``), how they fare on
corpora (``evaluate``), and how two tables split the same text (``compare``).
"""

"""Whole screens: the main screens over one shared layout (``main``), the small modal
dialogs (``dialogs``) and the training rules dialog (``settings``).
"""

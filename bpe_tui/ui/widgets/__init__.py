"""Small widgets the panes share: token chips (``render``, chips.tcss), the virtual list,
a check box that reads without colour, the work bar, and a footer of whole keys.
"""

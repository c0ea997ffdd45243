"""What the explorer has open, and the work done off the UI thread.

``sessions``: an ExploreSession (a trainer on a corpus) or an InspectSession (a saved table);
``loader``: opening corpora and tables in a worker; ``runner``: long moves and auto-play.
"""

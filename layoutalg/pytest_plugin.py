"""pytest plugin (entry point ``pytest11``), reserved for spec collection.

The plugin is registered so that ``pytest specs/`` can later collect each
claim as a test item (issue 7). Until then it adds nothing; it imports
nothing heavy so that every pytest run stays fast.
"""

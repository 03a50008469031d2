"""Enumeration oracles of the families (issue 12 item 5).

Each module is the brute-force twin of one family's checks: it answers the
same questions by enumerating every point of a concrete layout, so the Z3
checks are held to an independent answer in the differential tests. They
live with the tests, not in the package: production code does not depend on
them. The core's own twins (``layoutalg.verify.brute``) stay in the package
because pictures and padding counts of small layouts use them.
"""

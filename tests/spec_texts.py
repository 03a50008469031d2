"""Spec modules as text, for tests that write one to a temporary folder and then
prove, show or document it (the CLI's ``show``/``docs`` tests, the site's tests)."""

#: One spec PROVED (``row_major``) and one REFUTED on purpose (``overlap``).
TWO_SPECS = '''
import layoutalg as la


@la.spec(claims=["bijective"])
def row_major():
    """[4, 8] row-major."""
    return la.linearize(la.Space(i=4, j=8))


@la.spec(claims=["injective"], expect="REFUTED")
def overlap():
    """Row stride 4 instead of 8."""
    return la.strided((8, 4), (1, 4))
'''

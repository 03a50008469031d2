"""Guarded fixes of SymPy rules that change integer expressions as they are built.

SymPy evaluates an expression while it is built, so a rule changes the
user's formula before layoutalg sees it, and ``xreplace``/``subs`` (which
``compose`` and ``bind`` use) run the same rules again. The fixes therefore
sit in the rules themselves: importing ``layoutalg`` wraps them, each only
while a probe shows the installed SymPy still needs it, and clears SymPy's
cache so nothing built by the old rule is reused.

Wrong: ``Mod`` of a product holding a ``Mod`` (SymPy issues 24215, 28744,
29757). SymPy 1.14 pulls reduced factors out of the ``Mod``
(``Mod(2*Mod(a, 3), 3)`` becomes ``2*Mod(a, 3)``, 4 at a = 2, not 1) and,
when the moduli differ, appends each ``Mod`` factor twice
(``Mod(7*Mod(a, 4), 3)`` becomes ``Mod(Mod(a, 4)**2, 3)``, 1 at a = 2, not
2). The wrapper keeps only congruences that hold for integers and otherwise
leaves the ``Mod`` unevaluated.

Wrong: ``is_integer`` of a product with a fraction. SymPy 1.14 counts only
the factors 2 of the denominator, so ``Max(4, 2*y)/6`` is "an integer" (it
is 4/3 at y = 2) and ``Max(6, 2*y)/3`` is "not an integer" (it is 2 at
y = 3). Every rule that asks is misled: ``Mod(Max(4, 2*y), 6)`` became 0 and
``floor`` returned such a fraction as it stood. The fixed fact is decided by
divisibility: the factors 2 that even factors are known to supply.

Right, but out of the integer vocabulary (held as fractions that neither
NumPy nor Z3 reads as integer arithmetic):

- ``Piecewise`` divides each condition through by its leading coefficient
  (``5*x > Mod(x, 3)`` becomes ``x > Mod(x, 3)/5``): conditions over integer
  symbols are moved to one side instead (``5*x - Mod(x, 3) > 0``), which
  keeps every coefficient an integer and each relation its direction.
- ``floor``/``ceiling`` of an argument SymPy knows to be an integer returns
  the argument (``floor(Max(2, 4*x)/2)`` becomes ``Max(2, 4*x)/2``): the
  rounding is kept when dropping it would leave a fraction outside it.

>>> import sympy
>>> a = sympy.Symbol("a", integer=True)
>>> sympy.Mod(2 * sympy.Mod(a, 3), 3).subs(a, 2)
1
>>> sympy.Mod(7 * sympy.Mod(a, 4), 3).subs(a, 2)
2
>>> sympy.Piecewise((1, 5 * a > sympy.Mod(a, 3)), (0, True))
Piecewise((1, 5*a - Mod(a, 3) > 0), (0, True))
"""

from __future__ import annotations

import math

import sympy
from sympy.core.cache import clear_cache
from sympy.core.relational import Relational
from sympy.functions.elementary import piecewise
from sympy.functions.elementary.integers import RoundFunction

_SYMPY_MOD_EVAL = sympy.Mod.eval.__func__
_SYMPY_CANONICAL_COEFF = piecewise._canonical_coeff
_SYMPY_ROUND_EVAL = RoundFunction.eval.__func__


def mod_of_product_is_wrong() -> bool:
    """True when ``Mod`` of a product holding a ``Mod`` is wrong (the probe of the fix)."""
    a = sympy.Symbol("a", integer=True)
    probes = [  # (the Mod as SymPy holds it, its value at a = 2)
        (sympy.Mod(2 * sympy.Mod(a, 3), 3), (2 * (2 % 3)) % 3),
        (sympy.Mod(7 * sympy.Mod(a, 4), 3), (7 * (2 % 4)) % 3),
    ]
    return any(held.subs(a, 2) != truth for held, truth in probes)


def _fixed_mod_eval(cls, p, q):
    if (_product_with_mod(p) and q.is_integer and not q.is_zero  # Mod(p, 0): SymPy refuses
            and all(f.is_integer for f in p.args)):
        return _mod_of_product(cls, p, q)
    return _SYMPY_MOD_EVAL(cls, p, q)


def _product_with_mod(p: sympy.Basic) -> bool:
    # -Mod(x, k) is left to SymPy: its "-p is a Mod" rule runs first and is right.
    return (isinstance(p, sympy.Mul) and any(isinstance(f, sympy.Mod) for f in p.args)
            and not isinstance(-p, sympy.Mod))


def _mod_of_product(cls, p: sympy.Mul, q: sympy.Expr):
    """``Mod(p, q)`` rewritten by integer congruences only, or None (unevaluated).

    Each step replaces a factor by one congruent to it modulo ``q``, which
    keeps the product congruent: ``Mod(a, m)`` by ``a`` when ``q`` divides
    ``m``, and an integer coefficient by its residue. A factor that ``q``
    divides makes the whole ``Mod`` 0.
    """
    factors = []
    for factor in p.args:
        if (factor / q).is_integer:
            return sympy.Integer(0)
        if isinstance(factor, sympy.Mod) and (factor.args[1] / q).is_integer:
            factor = factor.args[0]
        elif factor.is_Integer and q.is_Integer:
            factor = factor % q
        factors.append(factor)
    return cls(sympy.Mul(*factors), q) if factors != list(p.args) else None


def product_integrality_is_wrong() -> bool:
    """True when SymPy decides ``is_integer`` of ``e/6`` or ``e/3``, ``e`` even (both unknown)."""
    e = sympy.Symbol("e", even=True)
    return (e / 6).is_integer is not None or (e / 3).is_integer is not None


def _fixed_mul_is_integer(mul: sympy.Mul) -> bool | None:
    """``mul.is_integer`` for a rational coefficient times integer factors, else unknown.

    ``p/q * f1 * f2 * ...`` (p/q in lowest terms, each ``f`` an integer) is an
    integer when ``q`` divides the product of the ``f``: certainly when ``q``
    is a power of 2 that the even factors cover, certainly not when ``q`` is
    even and every factor is odd. Anything else is unknown (None), which is
    always sound: SymPy then keeps the expression as it stands.
    """
    coeff, factors = sympy.S.One, []
    for arg in mul.args:
        if arg.is_Rational:
            coeff *= arg
        elif arg.is_integer:
            factors.append(arg)
        else:
            return None
    if coeff.q == 1:
        return True
    twos = (coeff.q & -coeff.q).bit_length() - 1
    if coeff.q == 1 << twos and sum(_known_twos(f) for f in factors) >= twos:
        return True
    return False if twos and factors and all(f.is_odd for f in factors) else None


def _known_twos(factor: sympy.Expr) -> int:
    """How many factors 2 ``factor`` is known to have (a lower bound)."""
    if factor.is_Pow and factor.exp.is_Integer and factor.exp > 0 and factor.base.is_even:
        return int(factor.exp)
    return 1 if factor.is_even else 0


def piecewise_divides_conditions() -> bool:
    """True when building a ``Piecewise`` turns a condition's integer coefficients to fractions."""
    x = sympy.Symbol("x", integer=True)
    held = piecewise.Piecewise((1, 2 * x < 3), (0, True)).args[0].cond
    return common_denominator(held) != 1


def _integer_canonical_coeff(rel: sympy.Basic) -> sympy.Basic:
    return integer_relation(_SYMPY_CANONICAL_COEFF(rel))


def integer_relation(rel: sympy.Basic) -> sympy.Basic:
    """A relation over integer symbols with its fractions multiplied away.

    >>> x = sympy.Symbol("x", integer=True)
    >>> integer_relation(sympy.Lt(x, sympy.Rational(3, 2)))
    2*x < 3
    """
    if not isinstance(rel, Relational) or not all(s.is_integer for s in rel.free_symbols):
        return rel
    scale = common_denominator(rel)
    if scale == 1:
        return rel
    if rel.rhs.free_symbols:
        # x <= -7*x/2 must not become 2*x <= -7*x, which SymPy divides back
        # (a Piecewise rebuilt itself without end): one side, 9*x <= 0.
        return rel.func(scale * rel.lhs - scale * rel.rhs, 0)
    return rel.func(scale * rel.lhs, scale * rel.rhs)


def common_denominator(rel: sympy.Basic) -> int:
    """The least common denominator of a relation's top-level coefficients (1 if none)."""
    if not isinstance(rel, Relational) or not all(isinstance(s, sympy.Expr) for s in rel.args):
        return 1
    coeffs = [term.as_coeff_Mul()[0] for side in rel.args for term in sympy.Add.make_args(side)]
    return math.lcm(1, *(int(c.q) for c in coeffs if c.is_Rational))


def rounding_drops_to_a_fraction() -> bool:
    """True when ``floor`` of an integer-valued quotient returns the fraction itself."""
    x = sympy.Symbol("x", integer=True)
    return has_fraction(sympy.floor(sympy.Max(2, 4 * x) / 2))


def _fixed_round_eval(cls, arg):
    result = _SYMPY_ROUND_EVAL(cls, arg)
    return None if result is not None and has_fraction(result) else result


def has_fraction(expr: sympy.Basic) -> bool:
    """True when a non-integer rational appears in ``expr`` outside every floor and ceiling."""
    if isinstance(expr, (sympy.floor, sympy.ceiling)):
        return False
    if isinstance(expr, sympy.Rational):
        return not expr.is_Integer
    return any(has_fraction(arg) for arg in expr.args)


def install() -> list[str]:
    """Install the fixes the installed SymPy needs; returns the names of those installed.

    Each probe runs on SymPy as it stands when its turn comes (so with the
    fixes before it), and the cache is cleared after each fix.
    """
    fixes = [
        ("is_integer of a product", product_integrality_is_wrong,
         lambda: _set_fact_handler(sympy.Mul, "integer", _fixed_mul_is_integer)),
        ("Mod of a product", mod_of_product_is_wrong,
         lambda: setattr(sympy.Mod, "eval", classmethod(_fixed_mod_eval))),
        ("Piecewise conditions", piecewise_divides_conditions,
         lambda: setattr(piecewise, "_canonical_coeff", _integer_canonical_coeff)),
        ("floor and ceiling of an integer", rounding_drops_to_a_fraction, _fix_rounding),
    ]
    installed = []
    for name, probe, fix in fixes:
        if probe():
            fix()
            clear_cache()
            installed.append(name)
    return installed


def _fix_rounding() -> None:
    sympy.floor.eval = classmethod(_fixed_round_eval)
    sympy.ceiling.eval = classmethod(_fixed_round_eval)


def _set_fact_handler(cls: type, fact: str, handler) -> None:
    # SymPy copies each _eval_is_<fact> into _prop_handler when a class is
    # made, so the class and every subclass still using the old one are set.
    old = getattr(cls, f"_eval_is_{fact}")
    stack = [cls]
    while stack:
        klass = stack.pop()
        stack.extend(klass.__subclasses__())
        if klass._prop_handler.get(fact) is old:
            klass._prop_handler[fact] = handler
        if klass.__dict__.get(f"_eval_is_{fact}") is old:
            setattr(klass, f"_eval_is_{fact}", handler)


INSTALLED = tuple(install())

"""The solver's pages: the optimal game against an adversary (``line``), the
classroom (``classroom``), every strategy compared (``compare``) and a
strategy's decision tree (``tree``), on the two blueprints of ``blueprints``.

Every view's URL carries its whole state, so a copied link reopens exactly
what was on screen; htmx swaps only the part that changes."""

"""Exact algebra on sympy's polynomial rings: rings, ratios in lowest terms, substitution."""

"""The crossover: where compute time equals memory time, solved exactly (records, solver, roots, bounds)."""

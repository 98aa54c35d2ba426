"""Problem sets: reading a TOML set (bounded), its tables of operators and models, checks and errors."""

"""``derive compare``'s documents: the table over chips (Markdown, LaTeX, JSON) and the ratios to a baseline."""

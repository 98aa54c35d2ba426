"""``derive sweep``'s CSV: the grid of dims (``--over``), the quantities evaluated on it, and their exact-decimal cells."""

"""The layout algebra: spaces, index maps and their combinators."""

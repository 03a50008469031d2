"""The spec runner: the spec DSL, the prover, its cache, reports, limits and workers."""

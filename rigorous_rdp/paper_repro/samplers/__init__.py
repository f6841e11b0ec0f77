"""The batch samplers of issue 25 (balls-and-bins, random allocation, shuffling) next to Poisson and fixed-size."""

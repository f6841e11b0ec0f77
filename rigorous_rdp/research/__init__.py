"""Research code: the seeds' claims, Conjecture 1, C(c1, c2), routes, peer audit.

Everything here is built on the certified core (:mod:`rigorous_rdp.arith`,
:mod:`rigorous_rdp.events`, :mod:`rigorous_rdp.curves`, the bound registry and
the accountant) and is not needed to account for a training run:

* :mod:`.blog` -- the claims of the two blog posts (part 1: Laplace/Gaussian,
  composition, subsampling; part 2: Renyi DP claims);
* :mod:`.composition`, :mod:`.gaussian_dp`, :mod:`.indistinguishability` --
  classical (epsilon, delta) composition, the analytic Gaussian mechanism and
  hockey-stick divergences used by those claims;
* :mod:`.conjecture`, :mod:`.constant`, :mod:`.routes`, :mod:`.abadi` --
  Conjecture 1 of ACGMMTZ16, the constant C(c1, c2), the three routes to a
  DP-SGD guarantee, and the moments accountant of Abadi et al.;
* :mod:`.chi_divergence` -- condition (4) of Zhu & Wang 2019;
* :mod:`.audit` -- comparison with peer accountants;
* :mod:`.parallel` -- ordered parallel map (processes or Dask).
"""

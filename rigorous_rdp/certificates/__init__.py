r"""Certificates: JSON records of certified claims, and their independent verification.

One table (:data:`rigorous_rdp.certificates.kinds.KINDS`) maps each certificate kind to
its writer and its verifier:

=============================  ====================================================================  ================================================
kind                           writer                                                                verifier
=============================  ====================================================================  ================================================
``rdp``                        :func:`rigorous_rdp.certificates.rdp.make_certificate`                :func:`rigorous_rdp.certificates.rdp.verify_rdp`
``pld``                        :func:`rigorous_rdp.certificates.pld.make_pld_certificate`            :func:`rigorous_rdp.certificates.pld.verify_pld`
``conjecture-violation``       ``research.conjecture_certificate``                                   ``research.conjecture_certificate``
``conjecture-holds``           ``research.conjecture_certificate``                                   ``research.conjecture_certificate``
``conjecture-proof``           ``research.conjecture_certificate`` (``holds-boxes``)                 ``research.conjecture_certificate``
``conjecture-region``          ``research.conjecture_certificate`` (``holds-region``)                ``research.conjecture_certificate``
``conjecture-region-scaled``   ``research.conjecture_certificate`` (``holds-region-scaled``)         ``research.conjecture_certificate``
``conjecture-order-interval``  ``research.conjecture_certificate`` (``holds-boxes-order-interval``)  ``research.conjecture_certificate``
``conjecture-order-sigma``     ``research.conjecture_certificate`` (``holds-boxes-order-sigma``)     ``research.conjecture_certificate``
=============================  ====================================================================  ================================================

Modules: :mod:`~rigorous_rdp.certificates.common` (the envelope: strict JSON parsing,
one number grammar, the content hash, exact event JSON, atomic writing, the result
type), :mod:`~rigorous_rdp.certificates.rdp`, :mod:`~rigorous_rdp.certificates.pld`
and :mod:`~rigorous_rdp.certificates.kinds` (the table and :func:`verify_certificate`).
The Conjecture 1 kinds are imported from ``research/`` only when such a certificate is
written or verified, so the core never imports ``research/``.

This package ``__init__`` imports nothing on purpose: ``research/`` imports
:mod:`~rigorous_rdp.certificates.common` (the result type), and the table imports
``research/`` lazily; an import here would close a cycle.  The historical module
:mod:`rigorous_rdp.certificate` re-exports the public names.
"""

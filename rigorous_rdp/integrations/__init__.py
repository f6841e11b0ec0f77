"""Adapters that plug the certified accountant into libraries people already run.

Each submodule imports its library on its own, so that importing
``rigorous_rdp`` never needs any of them:

* :mod:`rigorous_rdp.integrations.dp_accounting` -- subclasses of
  ``dp_accounting.PrivacyAccountant`` that take dp-accounting's own ``DpEvent``
  objects: ``CertifiedRdpAccountant`` (certified RDP bound) and
  ``CertifiedPldAccountant`` (certified PLD bracket of the optimal epsilon / delta)
  (needs ``dp-accounting``, extra ``[peers]``);
* :mod:`rigorous_rdp.integrations.opacus` -- ``opacus.accountants.IAccountant`` classes
  for ``PrivacyEngine`` (``"certified_rdp"`` and ``"certified_pld"``) and a certified
  ``get_noise_multiplier`` (needs ``opacus``, extra ``[opacus]``).
"""

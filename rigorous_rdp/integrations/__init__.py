"""Adapters that plug the certified accountant into libraries people already run.

Each submodule imports its library on its own, so that importing
``rigorous_rdp`` never needs any of them:

* :mod:`rigorous_rdp.integrations.dp_accounting` -- a subclass of
  ``dp_accounting.PrivacyAccountant`` that takes dp-accounting's own ``DpEvent``
  objects (needs ``dp-accounting``, extra ``[peers]``);
* :mod:`rigorous_rdp.integrations.opacus` -- an ``opacus.accountants.IAccountant``
  for ``PrivacyEngine`` and a certified ``get_noise_multiplier`` (needs
  ``opacus``, extra ``[opacus]``).
"""

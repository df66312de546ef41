"""Compact catalog -> instancetype families and preferences (issue 5).

Nothing is loaded or parsed at import time; the heavy modules are imported on first use.

* :mod:`.generate`: the ``InstancetypeCatalog`` generator (``CatalogSpec`` -> objects) and the renderer's lookup
  catalog (:class:`~.generate.FallbackObjects`, loaded when first iterated).
* :mod:`.load`: builtin catalogs and catalog files, resolved into a :class:`~krm_fn.catalog.model.Catalog`.
* :mod:`.docs`: the Markdown reference of a catalog (``kubevirt-krm catalog docs``).
* :mod:`.errors`: :class:`~.errors.CatalogError`, every problem of a catalog, each with file and key path.
"""

"""KubeVirt's OpenAPI schema per release, trimmed into the package (``tools/gen_schema.py``): ``kubevirt.json`` is
``main``'s, ``releases/<tag>.json`` each other tag's differences from it (the definitions that differ, whole).
Every function takes the release's ``tag`` (``krm_fn.kubevirt_versions.Release.tag``; default the newest
release's); a tag's document is read and compiled into :class:`Node` trees once per run, on first use, and tags
whose documents are equal share one compiled schema. Three uses of the same compiled definitions:

* :mod:`.validation` (:func:`~.validation.validate_vm`) reproduces the OpenAPI validator virt-api runs on a
  VirtualMachine (go-openapi ``validate`` with ``additionalProperties: false`` forced onto every spec definition):
  the same messages (``<path> in body is a forbidden property``, ``<path> in body is required``, ...). A boolean
  check compiled per node runs first (the hot path of a render); only when it finds something does the walker
  produce the messages.
* :mod:`.roundtrip` (:func:`~.roundtrip.encode_shared` / :func:`~.roundtrip.encode_object`) reproduces a Go round
  trip (``json.Unmarshal`` into the typed struct, then ``json.Marshal``): unknown fields vanish, ``omitempty`` zero
  values are dropped, non-pointer structs appear as ``{}``, quantities come out canonical. Compiled per node into
  closures on first use; ``encode_shared`` returns the very containers the round trip leaves unchanged,
  ``encode_object`` new ones.
* :mod:`.strict` validates an object as the API server stores it (the CRD's structural schema: our output,
  and the instancetypes and preferences a cluster is asked to store).
"""

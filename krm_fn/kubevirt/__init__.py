"""KubeVirt semantics, laid out like upstream ``pkg/instancetype`` (the target layout of issue 14; the rest of
the engine still lives at the top level of ``krm_fn``)."""

"""The only package that touches argv, the environment, stdin/stdout/stderr, files and exit codes.

Modes (shared/docs/krm-integration.md §1.7), detected from stdin first:

* KRM: stdin is a ``ResourceList`` (kpt, kustomize KRM functions) -> a ResourceList on stdout.
* kustomize legacy exec plugin: stdin is a plain stream (maybe empty), the config comes from the file in
  ``argv[1]`` or ``$KUSTOMIZE_PLUGIN_CONFIG_STRING`` -> a plain stream on stdout.
* standalone (Argo CD CMP, humans): ``kubevirt-krm CONFIG.yaml [FILE|DIR|-]...`` -> a plain stream.

Entry and exit codes: :mod:`main`; the modes: :mod:`modes`; what is written: :mod:`output`; how many
processes and which YAML lane: :mod:`resources`; subcommands: :mod:`subcommands`.
"""

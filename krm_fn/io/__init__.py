"""YAML and ResourceList I/O: an event-driven loader, a block-style emitter, source-text pass-through."""

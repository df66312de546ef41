"""KubeVirts ``pkg/dra``: devices backed by DRA resource claims."""

"""``kubevirt-krm upgrade-report``: what a KubeVirt upgrade (or a catalog version change) changes for each VM in
Git, before the upgrade (issue 27). The command line in ``command.py``, the renders and the comparison in ``report.py``, the
words in ``show.py``; ``krm_fn/cli`` reads the files and writes the report."""

"""The help texts of the command and its subcommands (``--help``)."""

USAGE = """\
usage: kubevirt-krm                                  KRM function: ResourceList on stdin -> stdout
       kubevirt-krm [--validate]                     (kpt fn render/eval, kustomize KRM functions)
       kubevirt-krm CONFIG.yaml [FILE|DIR|-]... [-o|--output FILE] [-v] [--allow-empty]
                                                     standalone / kustomize legacy exec plugin: plain YAML
                                                     stream in (files, dirs, or stdin), stream out (to stdout,
                                                     or to FILE: written to a temporary file next to it, then
                                                     renamed; only a regular file is created or replaced, and
                                                     it keeps its permission bits; a symlink, FIFO, directory
                                                     or device at FILE is refused, nothing written). Each
                                                     input is read on its own (errors: FILE line N); an
                                                     object given twice is refused; local-config objects,
                                                     function configs and kpt's file annotations are not
                                                     printed; a directory's kustomization.yaml is skipped
       kubevirt-krm catalog docs [--builtin NAME[@VERSION] | --path FILE]
                                                     Markdown reference of a catalog (a config file
                                                     named catalog: give it as ./catalog)
       kubevirt-krm catalog diff --builtin NAME[@VERSION|@auto] [--strict] FILE|DIR|-...
                                                     a bundle or cluster export vs a builtin catalog (exit 0
                                                     identical, 1 different, 2 unusable input or usage error);
                                                     @auto: which version (and KubeVirt release) it matches
       kubevirt-krm upgrade-report --from RELEASE --to RELEASE [--catalog-from V] [--catalog-to V]
                    [--output text|json] CONFIG.yaml FILE|DIR|-...
                                                     what a KubeVirt upgrade changes per VM: expanded specs
                                                     field by field, refusals, repins (exit 0 nothing
                                                     changes, 1 something does, 2 usage or unusable input)
       kubevirt-krm resources [--output text|json] [--complete-objects] CONFIG.yaml FILE|DIR|-...
                                                     what starting the VMs costs: each launcher pod's
                                                     requests and limits, per namespace against its
                                                     ResourceQuotas and LimitRanges (exit 0 every VM that
                                                     runs starts, 1 one does not, 2 usage or unusable input)
       kubevirt-krm check CONFIG.yaml FILE|DIR... --output FILE
                                                     a pull request's gate: FILE (committed) is what the
                                                     render gives (exit 0), else a unified diff (exit 1)
       kubevirt-krm install-plugin DIR               lay out a KUSTOMIZE_PLUGIN_HOME for kubectl kustomize
       kubevirt-krm --help | --version               (every subcommand takes -h/--help too)

Generate KubeVirt instancetypes/preferences from a compact catalog, and pre-render VirtualMachines that
reference them (pinned ControllerRevisions or fully expanded), exactly as KubeVirt would.

functionConfig (apiVersion: kubevirt-krm.dev/v1alpha1):
  kind: InstancetypeCatalog        generator
    spec.builtin: common-instancetypes | classic   (default common-instancetypes)
    spec.path: FILE                 a user catalog, relative to the package root and inside it (symlinks
                                    resolved): the kustomization dir (cwd), the config file's dir
                                    (standalone), or kpt's package; set builtin or path, not both
    spec.include / spec.exclude:    {series: [glob], sizes: [glob], preferences: [glob]}
    spec.scope: Cluster | Namespaced | Both         spec.namespace
    spec.version: v1.7.0 | main     common-instancetypes version (default: what the KubeVirt release deploys;
                                    also v1.6.0, v1.5.1, v1.4.1, v1.3.1: what KubeVirt v1.8 to v1.5 deploy)
    spec.parameters: [name=value]   catalog parameters (e.g. gpuDeviceName for classic)
    spec.kubevirtVersion: v1.9      the KubeVirt release the objects are for: its builtin version (default) and
                                    its schema (a field it does not know is an error)
  kind: VirtualMachineRenderer     transformer / validator
    spec.mode: revisions (default) | expand | validate | migrate
    spec.catalog: {builtin: NAME | none, path: FILE, version}  where types missing from the input are looked up
                  {scope: Cluster | Namespaced | Both}  the kinds it serves (default Cluster, as a cluster has)
    spec.kubevirtVersion: v1.5 to v1.10   the KubeVirt release the output is for (default v1.9)
    spec.revisions: {scope: per-vm | shared, repin: true|false, syncWave: N}
    spec.migrate: true              rewrite legacy flavor/v1alpha objects to v1beta1 first
    spec.validateOutput: true       validate every emitted object against the KubeVirt schema
    spec.templateParameters: [NAME=value]   values for VirtualMachineTemplate / OpenShift Template parameters
                                    (over the templates' own; the VMs they make are checked)
    spec.capacity: {report: true, completeObjects: true}   launcher pods per namespace against its quotas
    spec.stored: true               write what KubeVirt's VM mutating webhook stores on create (architecture,
                                    machine type, firmware uuid/serial from namespace/name, PCI topology)
    spec.cluster:                   the cluster's configuration, shorthand for a KubeVirt item's
                                    spec.configuration (defaults: a default KubeVirt CR)
      architecture: amd64 | arm64 | s390x | ppc64le   (default amd64)
      machineType: NAME                           (default: the architecture's own, e.g. q35)
      defaultNetworkInterface: bridge | masquerade | slirp              (default bridge)
      permitBridgeInterfaceOnPodNetwork: true | false                   (default true)
      evictionStrategy: None | LiveMigrate | LiveMigrateIfPossible | External   (default None)
      cpuRequest: QUANTITY                        (default 100m)
      featureGates: [GATE]                        gates on besides the release's (default none)
      disabledFeatureGates: [GATE]                Beta gates turned off, v1.9+ (default none)
      referencePolicy: reference | expand | expandAll                   (default reference)
      vmRolloutStrategy: Stage | LiveUpdate       (default: the release's, LiveUpdate from v1.6)
  A ConfigMap (kpt fn eval -- key=value) takes the same settings as flat keys: mode=expand,
  revisions.scope=shared, builtin=classic (an optional kind=InstancetypeCatalog|VirtualMachineRenderer
  key picks the kind).
  No functionConfig: render VMs in revisions mode with the builtin catalog.
  Every problem of a config is reported at once, one line each, with its field path.

Exit status:
  0    success
  1    an error result, or unusable input, config or catalog, or an output that cannot be written (the
       ResourceList with its results is still written in KRM mode; in stream modes nothing is written)
  2    a usage error (unknown option, missing argument), or an internal error (a bug: please report it);
       catalog diff, upgrade-report: also unusable input (their 1 means "different", "something changes")
  130  interrupted (Ctrl-C); 143 terminated (SIGTERM); a closed pipe on stdout ends the process by SIGPIPE
       (status 141 in a shell), quietly
  One line per error on stderr, "kubevirt-krm: error: ..." (a VM's unresolved reference first, with what was
  probably meant); warnings, "kubevirt-krm: warning: ...", in the stream modes too, never change the code;
  info results are counted in one line there ("N info results (-v shows them)"), each shown with -v. Named
  inputs that hold no manifest, when nothing is generated either, are an error (nothing would be checked);
  --allow-empty allows it.

Environment: KUBEVIRT_KRM_WORKERS=1 renders on one process (default: two when two CPUs are available and a
cgroup memory limit leaves room for two copies of a long input); KUBEVIRT_KRM_DEBUG=1 shows tracebacks of
internal errors.
"""

INSTALL_PLUGIN_USAGE = "usage: kubevirt-krm install-plugin DIR"
CATALOG_DOCS_USAGE = "usage: kubevirt-krm catalog docs [--builtin NAME[@VERSION] | --path FILE]"
CATALOG_USAGE = f"{CATALOG_DOCS_USAGE}\n       kubevirt-krm catalog diff --builtin NAME[@VERSION|@auto] [--strict] FILE|DIR|-..."
HELP = ("-h", "--help")

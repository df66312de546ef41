"""The package root: the directory a run may read catalog files from, and the one rule that may move it."""

from __future__ import annotations

from pathlib import Path

from krm_fn.errors import ConfigError, shown
from krm_fn.kube.api import ANN_PACKAGE_PATH
from krm_fn.kube.meta import annotations_of
from krm_fn.kube.paths import Obj, dotted


def package_root(root: Path | None, kpt: bool, fn_config: Obj | None) -> Path | None:
    """The run's root: ``root`` (where catalog paths are resolved and must stay), moved to the package the
    config's package-path annotation names; raises ConfigError. kpt runs exec functions in its own cwd and
    passes the package as an absolute path: in KRM mode (``kpt``) an absolute path naming a kpt package (a
    directory holding a ``Kptfile``) is taken as the root. Anything else may only name a directory inside
    the root, symlinks resolved: the annotation never widens what a config can read (docs/reliability.md)."""
    package = annotations_of(fn_config).get(ANN_PACKAGE_PATH)
    if not package or not isinstance(package, str):  # a non-string is refused by config.load
        return root
    where = dotted(("metadata", "annotations", ANN_PACKAGE_PATH))

    def refuse(message: str) -> ConfigError:
        return ConfigError([(where, f"{shown(package)} {message}")])

    try:
        given = Path(package)
        if given.is_absolute() and kpt and (given / "Kptfile").is_file():
            return given.resolve()
        if root is None:
            raise refuse("cannot be used: no package root is known for this run")
        base = root.resolve()
        target = (base / given).resolve()
        inside = target.is_relative_to(base)
        is_dir = inside and target.is_dir()
    except (OSError, RuntimeError, ValueError) as exc:  # a loop of symlinks, a name the file system refuses
        raise refuse(f"cannot be resolved: {exc.strerror if isinstance(exc, OSError) else exc}") from None
    if not inside:
        raise refuse(f"is outside the package root {str(root)!r} (symlinks resolved); "
                     f"only kpt's own package path (a directory with a Kptfile) may name another directory")
    if not is_dir:
        raise refuse("is not a directory")
    return target

"""The VMI spec's access credentials (``validateAccessCredentials`` in ``vmi-create-admitter.go``): one type each,
one source and one propagation method, and the cloud-init volume a method needs."""

from __future__ import annotations

from typing import Any

from krm_fn.kube.paths import as_map
from krm_fn.kube.status import INVALID, Cause


def validate_access_credentials(field: str, credentials: list[Any], volumes: list[Any]) -> list[Cause]:
    """Every credential's causes; ``field`` is ``spec.template.spec.accessCredentials``."""
    if not credentials:
        return []
    has = {kind: any(isinstance(v, dict) and v.get(kind) is not None for v in volumes)
           for kind in ("cloudInitNoCloud", "cloudInitConfigDrive")}
    causes: list[Cause] = []
    for idx, credential in enumerate(credentials):
        if not isinstance(credential, dict):
            continue
        at = f"{field}[{idx}]"
        kinds = 0
        ssh = credential.get("sshPublicKey")
        if isinstance(ssh, dict):
            kinds += 1
            causes += _ssh(at, ssh, has)
        password = credential.get("userPassword")
        if isinstance(password, dict):
            kinds += 1
            methods = as_map(password.get("propagationMethod"))
            causes += _counts(at, "userPassword", as_map(password.get("source")).get("secret") is not None,
                              int(methods.get("qemuGuestAgent") is not None))
        if kinds != 1:
            causes.append(Cause(INVALID, at, f"{at} must have exactly one access credential type set"))
    return causes


def _ssh(at: str, ssh: dict[str, Any], has: dict[str, bool]) -> list[Cause]:
    methods = as_map(ssh.get("propagationMethod"))
    causes = []
    count = 0
    for method, volume, words in (("noCloud", "cloudInitNoCloud", "noCloud"),
                                  ("configDrive", "cloudInitConfigDrive", "configDrive")):
        if methods.get(method) is not None:
            count += 1
            if not has[volume]:
                causes.append(Cause(INVALID, f"{at}.sshPublicKey.propagationMethod",
                                    f"{at} requires a {words} volume to exist when the {words} propagationMethod is "
                                    "in use."))
    agent = methods.get("qemuGuestAgent")
    if agent is not None:
        if not as_map(agent).get("users"):
            causes.append(Cause(INVALID, f"{at}.sshPublicKey.propagationMethod.qemuGuestAgent.users",
                                f"{at} requires at least one user to be present in the users list"))
        count += 1
    return causes + _counts(at, "sshPublicKey", as_map(ssh.get("source")).get("secret") is not None, count)


def _counts(at: str, kind: str, one_source: bool, methods: int) -> list[Cause]:
    causes = []
    if not one_source:
        causes.append(Cause(INVALID, f"{at}.{kind}.source", f"{at} must have exactly one source set"))
    if methods != 1:
        causes.append(Cause(INVALID, f"{at}.{kind}.propagationMethod", f"{at} must have exactly one propagationMethod set"))
    return causes

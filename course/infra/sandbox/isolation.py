"""What this machine offers a sandbox (course.infra.sandbox): probed once per process, said in one line.

    probe()                  an Isolation: what the sandbox will use here
    probe().line()           one line for people ("sandbox: as an unused uid, with Landlock ABI 7, ...")
    probe().enough           False when a guarantee cannot be kept: then grade only submissions you trust
    probe().guarantees()     each guarantee and how it is kept here (README's table, for this machine)

Tests take isolation away to try the fallbacks: COURSE_SANDBOX_WITHOUT=namespaces,userns,pidns,mountns,
netns,landlock,seccomp (any of them) and COURSE_SANDBOX_LANDLOCK_ABI=N (at most this kernel's). They only ever
remove: nothing here can give a sandbox more than the kernel does.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
from dataclasses import dataclass

from course.infra.sandbox import landlock, seccomp, warden


@dataclass(frozen=True)
class Isolation:
    """What `probe()` found. Each field is what the sandbox will use; `refused` says why a part is missing."""

    landlock_abi: int
    seccomp: bool
    other_uid: bool  # root: the sandbox runs as an unused uid
    pidns: bool  # a PID namespace (a user namespace too when not root)
    mountns: bool  # a mount namespace: /proc of its own, a tmpfs scratch, paths revealed under /root
    userns: bool
    netns: bool = False  # a network namespace (with a PID one): only loopback, the gate and the named ports
    refused: tuple[tuple[str, str], ...] = ()

    @property
    def guards_pids(self) -> bool:
        """Does the warden judge each call naming another process (course.infra.sandbox.pidguard)? Where nothing
        else keeps a sandbox sharing your uid from your processes: no PID namespace. (Landlock's scope,
        ABI 6, covers signals, not renice or prlimit.)"""
        return self.seccomp and seccomp.can_notify() and not self.other_uid and not self.pidns

    def guarantees(self) -> dict[str, str]:
        """Each guarantee and how it is kept here, or "NOT KEPT: why"."""
        abi, shared_uid = self.landlock_abi, not self.other_uid
        if not abi:
            files = "NOT KEPT: no Landlock in this kernel"
        elif shared_uid and not self.seccomp:
            files = "NOT KEPT: no seccomp to refuse chmod/utime on your files"
        else:
            files = f"Landlock ABI {abi}" + (", seccomp" if self.seccomp else "")
        if self.seccomp:
            database = "a gate admitting only its role; no unix sockets (seccomp)"
        elif shared_uid:
            database = "NOT KEPT: no seccomp to refuse unix sockets (your session bus, agents, servers)"
        else:
            database = "a gate admitting only its role; other unix sockets only as an unused uid may"
        if self.other_uid:
            processes = "an unused uid"
        elif not abi:
            processes = "NOT KEPT: no Landlock (ptrace, /proc)"
        elif self.pidns:
            processes = "a PID namespace; Landlock"
        elif self.guards_pids:
            processes = ("Landlock's ptrace rule" + (" and signal scope" if abi >= 6 else "")
                         + "; signals, renice, prlimit judged by the warden (seccomp)")
        else:
            processes = "NOT KEPT: signals, renice, prlimit to your processes (no PID namespace, no seccomp)"
        if self.pidns:
            lifetime = "a PID namespace"
        elif self.other_uid:
            lifetime = "kill(-1) as its uid"
        elif processes.startswith("NOT KEPT") or database.startswith("NOT KEPT"):
            lifetime = "NOT KEPT: it could kill the warden, or have your session start processes for it"
        else:
            lifetime = "the warden is their subreaper and sweeps them"
        if self.netns:
            network = "a network namespace: loopback, the gate and the named ports (relayed)"
        elif abi >= 4:
            network = f"Landlock ABI {abi}: TCP to the named ports only"
        else:
            network = "NOT KEPT: TCP to any port (no network namespace, Landlock ABI < 4)"
        disk = "a tmpfs" if self.mountns else "polled every 0.1 s"
        return {"files": files, "database": database, "network": network, "processes": processes,
                "lifetime": lifetime, "limits": f"rlimits; scratch size: {disk}; deadline; scrubbed environment"}

    def missing(self) -> list[str]:
        return [f"{part}: {how.split('NOT KEPT: ', 1)[1]}" for part, how in self.guarantees().items()
                if "NOT KEPT" in how]

    @property
    def enough(self) -> bool:
        """Every guarantee kept (else grade only submissions you trust)."""
        return not self.missing()

    def line(self) -> str:
        """One line for people: what the sandbox uses here, or what it lacks."""
        who = "as an unused uid" if self.other_uid else "as you"
        how = ", ".join(filter(None, [f"Landlock ABI {self.landlock_abi}" if self.landlock_abi else "",
                                      "seccomp" if self.seccomp else "",
                                      "a signal guard" if self.guards_pids else "",
                                      "a PID namespace" if self.pidns else "",
                                      "a network namespace" if self.netns else "",
                                      "a user namespace" if self.userns and self.pidns else ""]))
        if self.enough:
            return f"sandbox: {who}, with {how}"
        return f"sandbox: {who}, with {how or 'nothing'}; NOT isolated: " + "; ".join(self.missing())


def _without() -> set[str]:
    return {w.strip() for w in os.environ.get("COURSE_SANDBOX_WITHOUT", "").split(",") if w.strip()}


@functools.cache
def probe() -> Isolation:
    """What this machine offers the sandbox (asked once per process; a namespace try costs ~50 ms)."""
    without = _without()
    refused: dict[str, str] = {}
    abi = 0 if "landlock" in without else landlock.abi()
    if abi and os.environ.get("COURSE_SANDBOX_LANDLOCK_ABI"):
        abi = min(abi, int(os.environ["COURSE_SANDBOX_LANDLOCK_ABI"]))
    if not abi:
        refused["landlock"] = "disabled for this test" if "landlock" in without else "no Landlock in this kernel"
    has_seccomp = "seccomp" not in without and seccomp.available()
    root = os.geteuid() == 0
    userns = pidns = mountns = netns = False
    if "namespaces" not in without:
        if root:
            mountns = "mountns" not in without and _namespaces_work(user=False, pid=False) is None
            pidns = mountns and "pidns" not in without and _namespaces_work(user=False, pid=True) is None
        elif "userns" in without:
            refused["userns"] = "disabled for this test"
        else:
            said = _namespaces_work(user=True, pid=True)
            userns = pidns = mountns = said is None
            if said:
                refused["userns"] = said
        if pidns and "netns" not in without:
            said = _namespaces_work(user=userns, pid=True, net=True)
            netns = said is None
            if said:
                refused["netns"] = said
    return Isolation(abi, has_seccomp, root, pidns, mountns, userns, netns, tuple(refused.items()))


def _namespaces_work(user: bool, pid: bool, net: bool = False) -> str | None:
    """None when the warden can build its namespaces here; else what the kernel said."""
    argv = [*warden.command("probe_namespaces"), json.dumps({"user": user, "pid": pid, "net": net})]
    try:
        tried = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        return "the namespace probe did not answer within 30 s"
    return None if tried.returncode == 0 else (tried.stderr.strip().splitlines() or ["refused"])[-1]

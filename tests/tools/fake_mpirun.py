#!/usr/bin/python3
"""A stand-in for Open MPI's mpirun, used by tst_sweep on machines where the MPI-capable benchmark is not
built. It checks the argument vector `trainio-cli sweep --hostfile F --processes-per-host P` must give,

    mpirun --hostfile F --npernode P -np H*P --mca odls_base_sigkill_timeout 10 [--allow-run-as-root]
           EXE benchmark ... --accelerators-per-process K

(H = distinct hosts in F; --allow-run-as-root exactly when running as root), appends it to the file named
by $FAKE_MPIRUN_LOG, and runs the benchmark once in this process's place with H*P*K accelerator threads,
so that the sweep's child-process path (spawn, exit code, cancel, result folder) is tested for real.
Exit 99 when the arguments are not what mpirun would be given."""
import os
import sys


def refuse(why):
    print("fake mpirun: " + why + ": " + " ".join(sys.argv[1:]), file=sys.stderr)
    sys.exit(99)


args = sys.argv[1:]
if len(args) < 10 or args[0] != "--hostfile" or args[2] != "--npernode" or args[4] != "-np":
    refuse("expected --hostfile F --npernode P -np N first")
hosts = []
with open(args[1]) as f:
    for line in f:
        words = line.split("#")[0].split()
        if words and words[0] not in hosts:
            hosts.append(words[0])
per_host, np = int(args[3]), int(args[5])
if np != len(hosts) * per_host:
    refuse("-np %d is not hosts (%d) x processes per host (%d)" % (np, len(hosts), per_host))
rest = args[6:]
if rest[0:3] != ["--mca", "odls_base_sigkill_timeout", "10"]:
    refuse("expected --mca odls_base_sigkill_timeout 10 after -np (docs/mpi.md: process 0 needs time to write)")
rest = rest[3:]
if os.geteuid() == 0:
    if rest[0] != "--allow-run-as-root":
        refuse("running as root without --allow-run-as-root")
    rest = rest[1:]
elif rest[0] == "--allow-run-as-root":
    refuse("--allow-run-as-root as a normal user")
exe = rest[0]
if not os.path.isabs(exe) or rest[1] != "benchmark" or rest[-2] != "--accelerators-per-process":
    refuse("expected an absolute EXE, then benchmark ... --accelerators-per-process K")
per_process = int(rest[-1])
if os.environ.get("FAKE_MPIRUN_LOG"):
    with open(os.environ["FAKE_MPIRUN_LOG"], "a") as log:
        log.write(" ".join(sys.argv[1:]) + "\n")
os.execv(exe, [exe, "benchmark"] + rest[2:-2] + ["--accelerators", str(np * per_process)])

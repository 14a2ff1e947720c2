#!/usr/bin/python3
"""A stand-in for Open MPI's mpirun, used by tst_sweep on machines where the MPI-capable benchmark is not
built. It checks the argument vector `trainio-cli sweep --hostfile F --processes-per-host P` must give
(dist::mpirunOptions, the same options the GUI's launch starts with),

    mpirun [--allow-run-as-root] --mca odls_base_sigkill_timeout 10 --hostfile F --npernode P -np H*P
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
if os.geteuid() == 0:
    if not args or args[0] != "--allow-run-as-root":
        refuse("running as root without --allow-run-as-root")
    args = args[1:]
elif args and args[0] == "--allow-run-as-root":
    refuse("--allow-run-as-root as a normal user")
if args[0:3] != ["--mca", "odls_base_sigkill_timeout", "10"]:
    refuse("expected --mca odls_base_sigkill_timeout 10 first (docs/mpi.md: process 0 needs time to write)")
args = args[3:]
if len(args) < 8 or args[0] != "--hostfile" or args[2] != "--npernode" or args[4] != "-np":
    refuse("expected --hostfile F --npernode P -np N after the sigkill timeout")
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
exe = rest[0]
if not os.path.isabs(exe) or rest[1] != "benchmark" or rest[-2] != "--accelerators-per-process":
    refuse("expected an absolute EXE, then benchmark ... --accelerators-per-process K")
per_process = int(rest[-1])
if os.environ.get("FAKE_MPIRUN_LOG"):
    with open(os.environ["FAKE_MPIRUN_LOG"], "a") as log:
        log.write(" ".join(sys.argv[1:]) + "\n")
os.execv(exe, [exe, "benchmark"] + rest[2:-2] + ["--accelerators", str(np * per_process)])

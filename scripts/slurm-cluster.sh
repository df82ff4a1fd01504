#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for tests and trying the docs' batch scripts
# (docs/parallel.md#slurm): Debian's slurm-wlm 22.05 and munge (scripts/setup-deps.sh
# installs them), everything under one folder, nothing left running after `stop`.
#
#   slurm-cluster.sh start DIR   writes DIR/slurm.conf, starts munged, slurmctld and slurmd, waits
#                                until the node is idle, and prints `export SLURM_CONF=DIR/slurm.conf`
#   slurm-cluster.sh stop DIR    stops the three daemons it started (their pid files in DIR)
#
# The configuration: SlurmUser=root, proctrack/linuxproc, task/none, jobacct_gather/none, no
# accounting database, the node's real name and CPU count, MpiDefault=pmix (Debian's Open MPI
# ranks start under srun with pmix; pmi2 and none abort in MPI_Init). munged runs as the munge
# user (it refuses root with its default log file) on a socket in DIR/munge, or, when the munge user
# cannot reach DIR (a parent folder of mode 0700, e.g. from mktemp -d), in a folder of its own
# under /tmp (named in DIR/munge.dir, removed by `stop`).
set -euo pipefail
cmd="${1:-}"; dir="${2:-}"
[[ ( $cmd == start || $cmd == stop ) && -n $dir ]] || { echo "usage: slurm-cluster.sh start|stop DIR" >&2; exit 2; }
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
conf="$dir/slurm.conf"
mdir="$dir/munge"
[[ -f $dir/munge.dir ]] && mdir=$(cat "$dir/munge.dir")

stop_one() { # NAME
  local pidfile="$dir/$1.pid"
  [[ -f $pidfile ]] || return 0
  local pid
  pid=$(cat "$pidfile")
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$pidfile"
}

if [[ $cmd == stop ]]; then
  export SLURM_CONF="$conf"
  [[ -f $conf ]] && scancel --full --user=root >/dev/null 2>&1 || true
  stop_one slurmd
  stop_one slurmctld
  stop_one munged
  [[ -f $dir/munge.dir ]] && rm -rf "$(cat "$dir/munge.dir")" "$dir/munge.dir"
  echo "slurm-cluster: stopped (slurmd, slurmctld, munged of $dir)"
  exit 0
fi

for b in munged slurmctld slurmd sbatch srun sinfo; do
  command -v "$b" >/dev/null || { echo "slurm-cluster: $b not found: install slurm-wlm and munge (scripts/setup-deps.sh)" >&2; exit 1; }
done
host=$(hostname -s)
cpus=$(getconf _NPROCESSORS_ONLN) # (nproc would follow OMP_NUM_THREADS)
mem=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 * 9 / 10 ))
mkdir -p "$mdir" "$dir/ctld" "$dir/d" "$dir/log"
chown munge:munge "$mdir" 2>/dev/null || true
chmod 755 "$mdir" # the socket's folder: searchable by every user
if ! runuser -u munge -- test -x "$mdir"; then # a parent folder the munge user cannot search
  mdir=$(mktemp -d /tmp/fvproxy-munge.XXXXXX)
  echo "$mdir" >"$dir/munge.dir"
  chown munge:munge "$mdir" 2>/dev/null || true
  chmod 755 "$mdir"
fi
socket="$mdir/munge.socket"
# munge: its own key (the cluster is this machine), its socket and files in $mdir.
if [[ ! -f $mdir/munge.key ]]; then
  dd if=/dev/urandom of="$mdir/munge.key" bs=1024 count=1 status=none
  chown munge:munge "$mdir/munge.key" 2>/dev/null || true
  chmod 400 "$mdir/munge.key"
fi
cat >"$conf" <<CONF
# Written by scripts/slurm-cluster.sh: a one-node cluster in $dir
ClusterName=fvproxy
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmctldPort=$((6817 + RANDOM % 100 * 2))
SlurmdPort=$((6818 + RANDOM % 100 * 2))
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/d
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=pmix
ReturnToService=2
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
export SLURM_CONF="$conf"
# munged as the munge user (as root it refuses its default log file); a pid file we can stop.
runuser -u munge -- munged --socket="$socket" --key-file="$mdir/munge.key" \
  --pid-file="$mdir/munged.pid" --log-file="$mdir/munged.log" --seed-file="$mdir/munge.seed" \
  || { echo "slurm-cluster: munged did not start: $(tail -n 3 "$mdir/munged.log" 2>/dev/null)" >&2; exit 1; }
for _ in $(seq 1 50); do [[ -S $socket && -f $mdir/munged.pid ]] && break; sleep 0.1; done
cp "$mdir/munged.pid" "$dir/munged.pid"
slurmctld -D >"$dir/log/slurmctld.out" 2>&1 &
echo $! >"$dir/slurmctld.pid"
for _ in $(seq 1 100); do scontrol ping 2>/dev/null | grep -q UP && break; sleep 0.1; done
slurmd -D >"$dir/log/slurmd.out" 2>&1 &
echo $! >"$dir/slurmd.pid"
for _ in $(seq 1 200); do
  state=$(sinfo -h -n "$host" -o %t 2>/dev/null || true)
  [[ $state == idle ]] && break
  sleep 0.1
done
if [[ $state != idle ]]; then
  echo "slurm-cluster: node $host is '$state', not idle, after 20 s:" >&2
  tail -n 5 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 2>/dev/null || true
  bash "$0" stop "$dir" >/dev/null
  exit 1
fi
echo "slurm-cluster: node $host ($cpus CPUs) idle; slurmctld, slurmd, munged running from $dir"
echo "export SLURM_CONF=$conf"

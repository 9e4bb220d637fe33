#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Host-side test of cpuset-toss-prolog with a fake sysfs node tree, a fake
# scontrol, logger and cpuset-toss.  Runs it with sh (dash) and bash.
# Usage: test-cpuset-toss-prolog.sh [SHELL...]

here=$(cd "$(dirname "$0")" && pwd)
prolog=$here/cpuset-toss-prolog
t=$(mktemp -d /tmp/cpuset-toss-prolog-test.XXXXXX) || exit 1
trap 'rm -rf "$t"' EXIT
fails=0

mkdir -p "$t/node/node0" "$t/node/node1" "$t/node/node2" "$t/node/node3"
echo 0-3 > "$t/node/node0/cpulist"
echo 4-7 > "$t/node/node1/cpulist"
echo > "$t/node/node2/cpulist"		# no CPUs
echo 8-9 > "$t/node/node3/cpulist"	# CPUs, no memory
echo 0-2 > "$t/node/has_memory"

cat > "$t/scontrol" <<'EOF'
#!/bin/sh
if [ "$1 $2" = "show hostnames" ]; then
	case $3 in
	'n[1-3]') printf 'n1\nn2\nn3\n' ;;
	'm[10-11]') printf 'm10\nm11\n' ;;
	*) echo "$3" ;;
	esac
	exit 0
fi
[ -n "$FAKE_SCONTROL_FAIL" ] && { echo "slurm_load_jobs error: Invalid job id specified"; exit 1; }
cat <<EOT
JobId=$4 JobName=x
   UserId=u(1000) GroupId=u(1000) MCS_label=N/A
   NodeList=m[10-11],n[1-3],n5,n6
   BatchHost=n1
   NumNodes=7 NumCPUs=14 NumTasks=7 CPUs/Task=1 ReqB:S:C:T=0:0:*:*
   JOB_GRES=(null)
     Nodes=m[10-11] CPU_IDs=8-9 Mem=0 GRES=
     Nodes=n[1-3] CPU_IDs=4-5 Mem=1024 GRES=
     Nodes=n5 CPU_IDs=2,6 Mem=1024 GRES=
     Nodes=n6 CPU_IDs=x-y Mem=1024 GRES=
   MinCPUsNode=1 MinMemoryNode=1G MinTmpDiskNode=0
EOT
EOF
cat > "$t/cpuset-toss" <<'EOF'
#!/bin/sh
for a in "$@"; do printf '[%s]' "$a"; done > "$FAKE_ARGS"
exit "${FAKE_RC:-0}"
EOF
cat > "$t/logger" <<'EOF'
#!/bin/sh
shift 3
echo "$*" >> "$FAKE_LOG"
EOF
chmod +x "$t/scontrol" "$t/cpuset-toss" "$t/logger"

# run SHELL NODE WANT_ARGS WANT_LOG [VAR=VALUE...]
run() {
	sh=$1 node=$2 want=$3 wantlog=$4
	shift 4
	rm -f "$t/args" "$t/log"
	: > "$t/log"
	env SLURM_JOB_ID=77 SLURMD_NODENAME="$node" \
		SCONTROL="$t/scontrol" CPUSET_TOSS="$t/cpuset-toss" \
		LOGGER="$t/logger" CPUSET_TOSS_SYSFS_NODE="$t/node" \
		FAKE_ARGS="$t/args" FAKE_LOG="$t/log" "$@" \
		"$sh" "$prolog" 2> "$t/stderr"
	rc=$?
	got=$(cat "$t/args" 2>/dev/null)
	log=$(cat "$t/log")
	ok=1
	[ "$rc" = 0 ] || ok=
	[ "$got" = "$want" ] || ok=
	case $log in
	*"$wantlog"*) ;;
	*) ok= ;;
	esac
	[ -z "$wantlog" ] && [ -n "$log" ] && ok=
	if [ -n "$ok" ]; then
		echo "ok   $sh $node $* -> rc $rc args '$got' log '$log'"
	else
		echo "FAIL $sh $node $* -> rc $rc args '$got' (want '$want') log '$log' (want '$wantlog') stderr: $(cat "$t/stderr")"
		fails=$((fails + 1))
	fi
}

shells=${*:-sh bash}
for sh in $shells; do
	run "$sh" n2 '[--quiet][--nodes][1][/]' ''
	run "$sh" n5 '[--quiet][--nodes][0,1][/]' ''
	run "$sh" n5 '[--quiet][--write][512M free=1G nodes=0,1][/]' '' \
		CPUSET_TOSS_PROLOG_WHAT=512M:free=1G
	run "$sh" n1 '[--quiet][--write][1 scope=node nodes=1][/]' '' \
		CPUSET_TOSS_PROLOG_WHAT='1 scope=node'
	run "$sh" n5 '' 'names nodes=' CPUSET_TOSS_PROLOG_WHAT='1 nodes=0'
	run "$sh" m11 '' 'no NUMA node with memory'
	run "$sh" n6 '' 'is not a CPU list'
	run "$sh" n9 '' 'no '"'"'Nodes=... CPU_IDs=...'"'"' line for node n9'
	run "$sh" n2 '' 'scontrol show job -d 77 failed: slurm_load_jobs' \
		FAKE_SCONTROL_FAIL=1
	run "$sh" n2 '[--quiet][--nodes][1][/]' 'failed with exit code 4' \
		FAKE_RC=4
	run "$sh" n2 '[--quiet][--nodes][1][/]' 'less page cache' FAKE_RC=7
	run "$sh" n2 '' 'is not a job id' SLURM_JOB_ID=abc
	run "$sh" '' '' 'SLURMD_NODENAME is not set'
done
[ "$fails" = 0 ] && echo PASS || echo "FAIL: $fails"
[ "$fails" = 0 ]

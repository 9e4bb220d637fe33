# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# tap.sh: sourced by check.sh and kernel-debs-boot.sh.  Reads the TAP that
# vm/run-tests prints between "### BEGIN <suite>" and "### END <suite>
# <exit status>" in a VM's console log.

# The awk function that names a TAP result line's test: "ok 3 foo bar #
# SKIP why" and "ok 3 # SKIP foo bar (why)" both give "foo_bar".
TAP_NAME_AWK='
function tap_name(line) {
	sub(/^(not )?ok [0-9]+ /, "", line)
	if (line ~ /^# *(SKIP|skip) /) sub(/^# *(SKIP|skip) +/, "", line)
	sub(/ *#.*$/, "", line); sub(/ *\(.*\)$/, "", line); gsub(/ /, "_", line)
	return line
}'

# tap <log> <prefix>: print "<pass|fail|skip> <prefix>/<suite>/<test>" for
# every TAP result between ### BEGIN / ### END markers, and one result for
# a program that exited non-zero without any TAP failure (or printed none).
# A suite run several times gives one result per test: with "tap", passed
# if any run passed; with "tap_worst" (for the baseline), failed if any run
# failed, so that a test that is flaky on the baseline is known as such.
tap() {
	tap_raw "$@" | awk '
	{ st = $1; name = $2
	  if (!(name in res)) order[n++] = name
	  if (!(name in res) || st == "pass" || (st == "skip" && res[name] == "fail")) res[name] = st }
	END { for (i = 0; i < n; i++) print res[order[i]], order[i] }'
}

tap_worst() {
	tap_raw "$@" | awk '
	{ st = $1; name = $2
	  if (!(name in res)) order[n++] = name
	  if (!(name in res) || st == "fail") res[name] = st }
	END { for (i = 0; i < n; i++) print res[order[i]], order[i] }'
}

# tap_raw <log> <prefix>: the same, one line per result of every run.
tap_raw() {
	awk -v pfx="$2" "$TAP_NAME_AWK"'
	/^### BEGIN / { suite = $3; n = 0; bad = 0; next }
	/^### END /   { rc = $4
			if (n == 0) print (rc == 0 ? "pass" : (rc == 4 ? "skip" : "fail")), pfx "/" suite
			else if (rc != 0 && rc != 4 && !bad) print "fail", pfx "/" suite "/exit-status-" rc
			suite = ""; next }
	suite == "" { next }
	/^(not )?ok [0-9]+ / {
		st = "pass"
		if ($0 ~ /^not ok/) { st = "fail"; bad = 1 }
		if ($0 ~ /# *(SKIP|skip)/) st = "skip"
		n++; print st, pfx "/" suite "/" tap_name($0)
	}' "$1"
}

# tap_why <log> <suite> <test> <max>: the "#" lines <test> printed in
# <suite> of <log> before its "not ok" line, the last <max> of them.
tap_why() {
	awk -v s="$2" -v t="$3" -v max="$4" "$TAP_NAME_AWK"'
	/^### BEGIN / { on = ($3 == s); n = 0; next }
	/^### END /   { on = 0; next }
	!on { next }
	/^(not )?ok [0-9]+ / {
		if ($0 ~ /^not ok/ && tap_name($0) == t) {
			print "  --- " s "/" t ":"
			for (i = (n > max ? n - max : 0); i < n; i++)
				print "  " buf[i % max]
		}
		n = 0; next
	}
	/^#/ { buf[n % max] = $0; n++ }' "$1"
}

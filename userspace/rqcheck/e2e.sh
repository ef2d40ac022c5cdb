#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# End-to-end test of rqcheck on a regular file (no root, no kernel modules).
#
#   e2e.sh [--valgrind] [RQCHECK]
#
# Runs rqcheck with both engines and every order on a small file in a
# directory that supports O_DIRECT (${TMPDIR:-/var/tmp} first; tmpfs before
# Linux 6.6 does not, so other directories are tried, each probed with
# dd oflag=direct), then damages the file in each way
# rqcheck knows (an older generation over a block, a zeroed block, block A
# copied onto block B, one torn sector, the read poison on disk) and checks
# that --verify-only names each one.  With --valgrind, a few runs go under
# valgrind instead, which must report no error.
#
# Ends with "N passed, N failed"; exits non-zero if anything failed.

set -u

valgrind_mode=0
if [ "${1:-}" = "--valgrind" ]; then
	valgrind_mode=1
	shift
fi
here=$(cd "$(dirname "$0")" && pwd)
RQ=${1:-$here/rqcheck}
case $RQ in
/*) ;;
*) RQ=$PWD/$RQ ;;
esac

passed=0
failed=0
RUN=()		# wrapper command (valgrind) for rqcheck, if any

ok() {
	passed=$((passed + 1))
	echo "ok   - $*"
}

not_ok() {
	failed=$((failed + 1))
	echo "FAIL - $*"
	if [ -s "${LOG:-}" ]; then
		tail -n 30 "$LOG" | sed 's/^/     | /'
	fi
}

# expect EXIT DESCRIPTION ARGS...: run rqcheck, output in $LOG
expect() {
	local want=$1 desc=$2 rc
	shift 2
	"${RUN[@]}" "$RQ" "$@" >"$LOG" 2>&1
	rc=$?
	if [ "$rc" -eq "$want" ]; then
		ok "$desc (exit $rc)"
		return 0
	fi
	not_ok "$desc: exit $rc, expected $want"
	return 1
}

# has REGEX DESCRIPTION [FILE]: the last output (or FILE) matches
has() {
	local file=${3:-$LOG}
	if grep -Eq -- "$1" "$file"; then
		ok "$2"
	else
		not_ok "$2: /$1/ not found in $(basename "$file")"
	fi
}

hasnt() {
	local file=${3:-$LOG}
	if grep -Eq -- "$1" "$file"; then
		not_ok "$2: /$1/ found in $(basename "$file")"
	else
		ok "$2"
	fi
}

# json_ok FILE: well-formed JSON (checked if python3 or jq is there)
json_ok() {
	if command -v python3 >/dev/null 2>&1; then
		if python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$1"; then
			ok "$(basename "$1") is valid JSON"
		else
			not_ok "$(basename "$1") is not valid JSON"
		fi
	elif command -v jq >/dev/null 2>&1; then
		if jq . "$1" >/dev/null; then
			ok "$(basename "$1") is valid JSON"
		else
			not_ok "$(basename "$1") is not valid JSON"
		fi
	else
		echo "skip - no python3 or jq to check $(basename "$1")"
	fi
}

# jq_true FILE FILTER DESCRIPTION: FILTER (a jq expression) is true on FILE
jq_true() {
	if ! command -v jq >/dev/null 2>&1; then
		echo "skip - no jq to check $3"
		return
	fi
	if jq -e "$2" "$1" >/dev/null 2>&1; then
		ok "$3"
	else
		not_ok "$3: '$2' is not true on $(basename "$1")"
	fi
}

# same_file A B DESCRIPTION: the two files have the same bytes
same_file() {
	if cmp -s "$1" "$2"; then
		ok "$3"
	else
		not_ok "$3: $(basename "$1") and $(basename "$2") differ"
	fi
}

# a directory where O_DIRECT works
supports_odirect() {
	local d=$1 f rc
	[ -d "$d" ] && [ -w "$d" ] || return 1
	f=$(mktemp "$d/rqcheck-probe.XXXXXX" 2>/dev/null) || return 1
	dd if=/dev/zero of="$f" bs=4096 count=1 oflag=direct status=none \
		2>/dev/null
	rc=$?
	rm -f "$f"
	return $rc
}

if [ ! -x "$RQ" ]; then
	echo "e2e: $RQ is not an executable: build it first" >&2
	exit 1
fi

base=
for d in "${TMPDIR:-/var/tmp}" /var/tmp /tmp "$here"; do
	if supports_odirect "$d"; then
		base=$d
		break
	fi
	echo "e2e: $d does not support O_DIRECT, trying the next directory"
done
if [ -z "$base" ]; then
	echo "e2e: no directory with O_DIRECT support found" >&2
	echo "0 passed, 1 failed"
	exit 1
fi
work=$(mktemp -d "$base/rqcheck-e2e.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
echo "e2e: working in $work"

IMG=$work/disk.img
LOG=$work/out.txt
BS=4096
BLOCKS=256
SEED=4242

fresh_image() {
	rm -f "$IMG"
	truncate -s $((BS * BLOCKS)) "$IMG"
}

# copy COUNT UNIT-sized units from FILE at unit SRC to $IMG at unit DST
put() {
	dd if="$1" of="$IMG" bs="$2" skip="$3" seek="$4" count="${5:-1}" \
		conv=notrunc status=none
}

# the 512-byte read poison of rqcheck: "RQPOISO" plus 'N' ^ word index
poison_sector() {
	local i
	for ((i = 0; i < 64; i++)); do
		printf 'RQPOISO%b' "\\x$(printf %02x $((0x4e ^ i)))"
	done
}

# --- valgrind ------------------------------------------------------------------
if [ "$valgrind_mode" = 1 ]; then
	if ! command -v valgrind >/dev/null 2>&1; then
		echo "e2e: valgrind is not installed" >&2
		exit 1
	fi
	fresh_image
	RUN=(valgrind -q --error-exitcode=1 --leak-check=full
	     --errors-for-leak-kinds=definite)
	for engine in io_uring aio; do
		expect 0 "valgrind: $engine, 2 passes, prefill, interleave" \
			--engine "$engine" --seed $SEED --passes 2 --prefill \
			--order interleave --qd 8 --batch 4 --size 256k \
			--json "$work/vg.json" "$IMG"
	done
	expect 0 "valgrind: write generation 1" --seed $SEED --gen 1 "$IMG"
	cp "$IMG" "$work/old.img"
	expect 0 "valgrind: write generation 2" --seed $SEED --gen 2 "$IMG"
	put "$work/old.img" $BS 5 5
	put /dev/zero 512 $((9 * 8 + 3)) $((9 * 8 + 3))
	# exit 1 is corruption here: let valgrind errors exit 99
	RUN=(valgrind -q --error-exitcode=99 --leak-check=full
	     --errors-for-leak-kinds=definite)
	expect 1 "valgrind: verify-only finds the damage" --verify-only \
		--seed $SEED --gen 2 --json "$work/vg.json" "$IMG"
	has 'BAD \(stale 1, torn 1;' "valgrind: stale and torn reported"
	expect 1 "valgrind: verify-only with the seed from the headers" \
		--verify-only --json "$work/vg.json" "$IMG"
	has 'seed 4242 and generation 2 from the block headers' \
		"valgrind: identity from the headers"
	expect 3 "valgrind: --json into a missing directory" --seed $SEED \
		--json "$work/no/such/dir.json" "$IMG"
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
fi

# --- command line -------------------------------------------------------------
expect 0 "--help" --help
has 'Exit status' "--help documents the exit status"
has '--verify-only' "--help documents --verify-only"
expect 0 "--version" --version
has '^rqcheck [0-9]' "--version prints the version"
expect 2 "no target" 
has "^Try 'rqcheck --help'\.$" "usage error points to --help"
if [ "$(wc -l <"$LOG")" -eq 2 ]; then
	ok "usage error: one line and the --help hint"
else
	not_ok "usage error printed $(wc -l <"$LOG") lines, expected 2"
fi
expect 2 "unknown option" --frobnicate "$IMG"
has "unknown option '--frobnicate'" "unknown option named"
hasnt 'Usage:' "no usage text dumped on a usage error"
expect 2 "--bs not a multiple of 512" --bs 1000 "$IMG"
expect 2 "--batch above --qd" --batch 16 --qd 8 "$IMG"
expect 2 "--stride without interleave" --stride 3 "$IMG"

# --- setup failures -----------------------------------------------------------
expect 3 "missing target" "$work/does-not-exist"
has 'cannot open' "missing target explained"
expect 3 "directory as target" "$work"
fresh_image
cp "$IMG" "$work/untouched.img"
expect 3 "--json into a missing directory fails at once" --seed 9 \
	--json "$work/no/such/dir/r.json" "$IMG"
has "cannot (open|write|create) .*no/such/dir/r.json" "--json failure explained"
hasnt '^gen 1' "--json failure: no workload ran"
hasnt 'clean' "--json failure: nothing reported clean"
same_file "$IMG" "$work/untouched.img" "--json failure: the target was not written"
expect 3 "--verify-only --size beyond the end of the target" --verify-only \
	--seed 9 --size 2m "$IMG"
has 'beyond the end' "short target explained"
expect 3 "region beyond the end" --size 2m "$IMG"
expect 3 "offset beyond the end" --offset 4m "$IMG"
if [ -d /dev/shm ] && [ -w /dev/shm ] && ! supports_odirect /dev/shm; then
	shm=$(mktemp /dev/shm/rqcheck-e2e.XXXXXX)
	truncate -s 64k "$shm"
	expect 3 "file without O_DIRECT support (tmpfs)" "$shm"
	has 'O_DIRECT' "missing O_DIRECT support explained"
	rm -f "$shm"
fi

# --- clean runs: every engine and order ----------------------------------------
for engine in io_uring aio; do
	for order in desc asc random interleave; do
		fresh_image
		expect 0 "$engine $order: 2 passes, qd 8, batch 4" \
			--engine $engine --order $order --seed $SEED \
			--passes 2 --qd 8 --batch 4 "$IMG"
		has "^gen 2: .* 0 bad" "$engine $order: generation 2 clean"
	done
	expect 0 "$engine: qd 1, batch 1, bs 512" --engine $engine --qd 1 \
		--batch 1 --bs 512 --size 64k --seed 1 "$IMG"
	expect 0 "$engine: qd 32, batch 32, bs 8k, offset 64k" \
		--engine $engine --qd 32 --batch 32 --bs 8k --offset 64k \
		--size 512k --seed 2 "$IMG"
	has 'region 65536\+524288: 64 blocks of 8192' "$engine: region as asked"
	has '^gen 1: write .*\(2 submit calls\)' \
		"$engine: batch 32 submits 64 blocks in 2 calls"
	expect 0 "$engine: interleave stride 3, prefill, cpu 0" \
		--engine $engine --order interleave --stride 3 --prefill \
		--cpu 0 --seed 3 "$IMG"
	has '^prefill: generation 0 written' "$engine: prefill reported"
done

fresh_image
expect 0 "--time 1 runs generations until time is up" --time 1 --qd 4 \
	--json "$work/time.json" "$IMG"
json_ok "$work/time.json"
jq_true "$work/time.json" '.first_bad_seconds == null' \
	"clean run: first_bad_seconds is null"
jq_true "$work/time.json" '.workload_seconds >= 1 and .workload_seconds < 4' \
	"--time 1 lasted about a second"
jq_true "$work/time.json" '.result == "clean" and .exit_code == 0' "JSON result clean"
jq_true "$work/time.json" '.parameters.time == 1' "JSON parameters.time in seconds"

has '^rqcheck: seed [0-9]+|seed [0-9]+ \(0x' "default seed printed"

fresh_image
expect 0 "--time 500ms" --time 500ms --qd 4 --json "$work/ms.json" "$IMG"
jq_true "$work/ms.json" '.parameters.time == 0.5 and .workload_seconds >= 0.5' \
	"--time 500ms is half a second"
expect 0 "--time 0.01m" --time 0.01m --qd 4 --json "$work/ms.json" "$IMG"
jq_true "$work/ms.json" '.parameters.time == 0.6' "--time 0.01m is 0.6 s"
expect 0 "--force on a regular file" --force --seed 9 "$IMG"

expect 0 "--quiet" --quiet --seed 9 "$IMG"
if [ "$(wc -l <"$LOG")" -eq 1 ]; then
	ok "--quiet prints one line"
else
	not_ok "--quiet printed $(wc -l <"$LOG") lines"
fi
has '^rqcheck: clean; 1 generation, seed 9; exit 0$' "--quiet result line"

expect 0 "--json - puts JSON on stdout" --json - --seed 9 "$IMG"
has '"tool": "rqcheck"' "JSON on stdout"

expect 0 "--write-only --gen 5" --write-only --gen 5 --seed 77 "$IMG"
has 'not verified' "--write-only skips the read-back"
expect 0 "--verify-only finds generation 5" --verify-only --gen 5 \
	--seed 77 "$IMG"
expect 1 "--verify-only with the wrong seed" --verify-only --gen 5 \
	--seed 78 --max-report 2 --json "$work/seed.json" "$IMG"
has "256 BAD \\(stale 256;" "another seed's data is stale everywhere"
has '"bad_blocks_truncated": true' "--max-report 2 truncates the list" \
	"$work/seed.json"

# SIGINT stops a long run cleanly
"$RQ" --time 60 --seed 5 --json "$work/int.json" "$IMG" >"$LOG" 2>&1 &
pid=$!
sleep 1
kill -INT "$pid"
wait "$pid"
rc=$?
if [ "$rc" -eq 4 ]; then
	ok "SIGINT ends a --time run with exit 4 (incomplete)"
else
	not_ok "SIGINT: exit $rc, expected 4"
fi
has '"interrupted": true' "SIGINT recorded in JSON" "$work/int.json"
jq_true "$work/int.json" '.result == "interrupted" and .exit_code == 4' \
	"an interrupted run is not clean in JSON"
hasnt 'rqcheck: clean' "an interrupted run does not say clean"

# Read errors: shrink a (sparse, so all 'unwritten') file under a running
# --verify-only; the reads past the new end come back short.  I/O errors
# give exit 3 even though corruption was found too.
SPARSE=$work/sparse.img
truncate -s 1g "$SPARSE"
# Empty now: the background job's own redirection may come after the first
# look at the log, which would find the engine line of the run before.
: >"$LOG"
"$RQ" --verify-only --seed 1 --order asc --qd 1 --max-report 4 \
	--json "$work/ioerr.json" "$SPARSE" >"$LOG" 2>&1 &
pid=$!
for ((i = 0; i < 1000; i++)); do
	grep -q '^rqcheck: engine' "$LOG" && break
	sleep 0.01
done
truncate -s 1m "$SPARSE"
wait "$pid"
rc=$?
if [ "$rc" -eq 3 ]; then
	ok "short reads are I/O errors: exit 3 over corruption"
else
	not_ok "short reads: exit $rc, expected 3"
fi
has 'READ ERRORS' "read errors in the generation line"
has 'short read: 0 of 4096 bytes' "short read listed"
has '"result": "io_error"' "JSON result io_error" "$work/ioerr.json"
jq_true "$work/ioerr.json" '.io_errors[0] | .op == "read" and .result == 0 and .length == 4096' \
	"JSON I/O error entry"
jq_true "$work/ioerr.json" '.totals.classes.stale == 0 and .totals.classes.unwritten > 0' \
	"the holes still count as unwritten"
rm -f "$SPARSE"

# --- corruption, classified by --verify-only -----------------------------------
fresh_image
expect 0 "write generation 1" --seed $SEED --gen 1 "$IMG"
cp "$IMG" "$work/gen1.img"
expect 0 "write generation 2" --seed $SEED --gen 2 "$IMG"
cp "$IMG" "$work/gen2.img"

expect 1 "generation 1 expected, 2 found: everything is 'stale'" \
	--verify-only --seed $SEED --gen 1 --max-report 1 "$IMG"
has '256 BAD \(stale 256;' "all 256 blocks stale"
has 'warning: .*generation 2.*--gen 1' "--gen against the headers: warned"

# seed and generation from the block headers
expect 0 "--verify-only without --seed and --gen reads the headers" \
	--verify-only --json "$work/hdr.json" "$IMG"
has "seed $SEED and generation 2 from the block headers" "identity from the headers said"
hasnt 'warning' "headers only: no warning"
jq_true "$work/hdr.json" ".seed == $SEED and .parameters.first_generation == 2 and .identity.seed_from == \"headers\" and .identity.generation_from == \"headers\"" \
	"JSON: seed and generation from the headers"
expect 1 "--verify-only --seed against the headers: the option wins" \
	--verify-only --seed $((SEED + 1)) --max-report 1 "$IMG"
has "warning: .*seed $SEED.*--seed $((SEED + 1))" "--seed against the headers: warned"
has 'using --seed' "the warning says which seed was used"
expect 0 "--verify-only --gen 2 agrees with the headers" --verify-only --gen 2 "$IMG"
hasnt 'warning' "agreeing option: no warning"
cp "$IMG" "$work/keep.img"
put /dev/zero $BS 0 0 $BLOCKS
expect 3 "--verify-only without --seed on a region without headers" --verify-only "$IMG"
has 'no rqcheck block header' "missing headers explained"
cp "$work/keep.img" "$IMG"

# check_one ENGINE NAME CLASS BLOCK: verify-only must find exactly one
# CLASS block, BLOCK, on disk
check_one() {
	local engine=$1 name=$2 class=$3 block=$4 json=$work/$2.json
	expect 1 "$engine: $name is corruption" --engine "$engine" \
		--verify-only --seed $SEED --gen 2 --json "$json" "$IMG"
	has "^gen 2: verify .*: 1 BAD \\($class 1; on disk 1, read path 0\\)" \
		"$engine: $name counted as $class"
	has "^  gen 2 block $block lba [0-9]+-[0-9]+ \\(byte [0-9]+\\): $class, re-read $class: on disk" \
		"$engine: $name: block $block is $class on disk"
	json_ok "$json"
	has "\"class\": \"$class\"" "$engine: $name: JSON class" "$json"
	has "\"reread_class\": \"$class\"" "$engine: $name: JSON re-read class" "$json"
	jq_true "$json" ".bad_blocks[0].block == $block" "$engine: $name: JSON block"
	jq_true "$json" '.first_bad_seconds >= 0' "$engine: $name: first_bad_seconds set"
	jq_true "$json" '.exit_code == 1 and .result == "corruption"' "$engine: $name: JSON exit code"
}

for engine in io_uring aio; do
	cp "$work/gen2.img" "$IMG"
	expect 0 "$engine: generation 2 verifies clean" --engine $engine \
		--verify-only --seed $SEED --gen 2 "$IMG"

	# a lost write: the older generation's block 5 back in place
	cp "$work/gen2.img" "$IMG"
	put "$work/gen1.img" $BS 5 5
	check_one $engine lost-write stale 5
	has 'sectors 0-7: stale: generation 1$' "$engine: stale found generation 1"

	# never written: zeros
	cp "$work/gen2.img" "$IMG"
	put /dev/zero $BS 0 7
	check_one $engine zeroed unwritten 7
	has 'sectors 0-7: unwritten: zero' "$engine: unwritten shows zeros"

	# block 3 copied onto block 9
	cp "$work/gen2.img" "$IMG"
	put "$work/gen2.img" $BS 3 9
	check_one $engine copied misplaced 9
	has 'sectors 0-7: misplaced: carries lba 24-31, block 3 sectors 0-7 of 8, generation 2' \
		"$engine: misplaced names the source block"

	# one sector of block 11 from the older generation
	cp "$work/gen2.img" "$IMG"
	put "$work/gen1.img" 512 $((11 * 8 + 2)) $((11 * 8 + 2))
	check_one $engine torn-sector torn 11
	has '^    sector 2: stale: generation 1$' "$engine: torn names the stale sector"

	# one sector of block 12 overwritten with garbage
	cp "$work/gen2.img" "$IMG"
	head -c 512 /dev/urandom >"$work/garbage"
	put "$work/garbage" 512 0 $((12 * 8 + 5))
	check_one $engine garbage-sector torn 12
	has '^    sector 5: unwritten: garbage$' "$engine: torn names the garbage sector"

	# the read poison on disk: the classifier says unfilled
	cp "$work/gen2.img" "$IMG"
	for i in 0 1 2 3 4 5 6 7; do
		poison_sector
	done >"$work/poison"
	put "$work/poison" $BS 0 13
	check_one $engine poison unfilled 13
done

# everything at once
cp "$work/gen2.img" "$IMG"
put "$work/gen1.img" $BS 5 5
put /dev/zero $BS 0 7
put "$work/gen2.img" $BS 3 9
put "$work/gen1.img" 512 $((11 * 8 + 2)) $((11 * 8 + 2))
expect 1 "all four kinds at once" --verify-only --seed $SEED --gen 2 \
	--json "$work/all.json" "$IMG"
has '4 BAD \(stale 1, unwritten 1, misplaced 1, torn 1; on disk 4, read path 0\)' \
	"each kind counted once"
json_ok "$work/all.json"
jq_true "$work/all.json" '.totals.classes == {"stale": 1, "unwritten": 1, "misplaced": 1, "torn": 1, "unfilled": 0}' \
	"JSON totals per class"
hasnt '"result": "clean"' "JSON result is not clean" "$work/all.json"

# a fresh write over the damage is clean again
expect 0 "rewriting repairs the region" --seed $SEED --gen 3 "$IMG"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

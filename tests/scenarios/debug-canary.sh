# shellcheck shell=sh
# rqpath scenario: debug-canary
# summary: the debug kernel's lockdep, kmemleak and KASAN each catch a report rqpath-canary makes on purpose, and the suite's own readers see all three
# expect: clean
# boot: own
# variant: debug
# timeout: 120

# The debug pass says "no report" of every other scenario.  That is worth
# something only if the detectors were on and the readers that turn a
# report into `warned` (rq_kernel_reports, rq_kmemleak_scan) see what they
# print.  rqpath-canary makes one report of each kind; each must reach
# those readers (trigger evidence, family "canary"), and is then allowed.
# A boot of its own: lockdep and, without kasan_multi_shot, KASAN report
# only once per boot, and a KASAN report turns lockdep off, so the order is
# lockdep, leak, KASAN.

DC_FIRE=/sys/kernel/debug/rqpath-canary/fire
DC_LOCKDEP_RE='WARNING: possible circular locking dependency detected'
DC_KASAN_RE='BUG: KASAN: slab-out-of-bounds in canary_kasan'
DC_KMEMLEAK_RE='kmemleak: [0-9]+ new suspected memory leaks'
# kmemleak reports an object older than 5 s (MSECS_MIN_AGE) that a scan
# found unreferenced with the checksum an earlier scan recorded.
DC_LEAK_AGE=6
DC_SCANS=3

scenario_run() {
	rq_modprobe rqpath-canary || { rq_result error "rqpath-canary did not load"; return; }
	rq_phase workload
	for kind in lockdep leak kasan; do
		echo "$kind" > "$DC_FIRE" 2> /tmp/dc-fire.err ||
			rq_fail "firing $kind failed: $(cat /tmp/dc-fire.err)"
	done
	rq_sleep "$DC_LEAK_AGE" "the leaked object ages"
	rq_phase evidence
	leaks=0 scans=0
	: > /tmp/dc-kmemleak.txt
	while [ "$leaks" = 0 ] && [ "$scans" -lt "$DC_SCANS" ]; do
		scans=$((scans + 1))
		leaks=$(rq_kmemleak_scan)
		cat /tmp/rq-kmemleak.txt >> /tmp/dc-kmemleak.txt 2>/dev/null
	done
	rq_detail_json kmemleak_scans "$scans"
	rq_detail_file kmemleak_report /tmp/dc-kmemleak.txt 20
	grep -q canary_leak /tmp/dc-kmemleak.txt ||
		rq_fail "kmemleak listed no object allocated by canary_leak"
	rq_kernel_reports
	rq_detail_file kernel_reports_seen "$RQ_REPORTS" 20
	rq_trigger canary lockdep "$(grep -c -E "$DC_LOCKDEP_RE" "$RQ_REPORTS")" 1
	rq_trigger canary kmemleak "${leaks:-0}" 1
	rq_trigger canary kasan "$(grep -c -E "$DC_KASAN_RE" "$RQ_REPORTS")" 1
	rq_allow_report "$DC_LOCKDEP_RE" "rqpath-canary's AB-BA lock order, on purpose"
	rq_allow_report "$DC_KASAN_RE" "rqpath-canary's out-of-bounds read, on purpose"
	rq_allow_report "$DC_KMEMLEAK_RE" "rqpath-canary's leak, on purpose"
	rq_unload rqpath_canary
	rq_finish clean "lockdep, kmemleak and KASAN each reported rqpath-canary's fault"
}

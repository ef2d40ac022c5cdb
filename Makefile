# rqpath: see README.md.
#
#   make matrix   the main job: install what is missing, build every stage
#                 of every tree, boot each, run every scenario, print the
#                 matrix and write out/matrix.json and out/report.html
#   make check    the tests: host tests, userspace unit tests, then the
#                 matrix (on 6.1 the stage-defining scenarios on every
#                 stage and the rest on stock, most also on ffe81d45322c,
#                 the other trees' declared subset: tests/check-selection
#                 says which), which must come out
#                 as every scenario expects; BLKTESTS=DIR also runs the
#                 blktests export
#                 (.ci/run passes the pinned copy when it is there)
#   make debug    every scenario on the debug kernels (KASAN, lockdep,
#                 kmemleak) of every stage
#   make bench    the figures of README.md and Documentation/figures.md
#                 (repeated boots; slow)
#   make mutate   the suite on every mutant (patches/mutants) of every tree:
#                 each built as an extra stage, the kill matrix printed and
#                 written to out/matrix.json ("mutants"); not part of matrix
#   make blktests-series
#                 the blktests patch series on the pinned checkout, with
#                 blktests' own make check there (BLKTESTS=DIR)

.PHONY: all check matrix debug bench mutate blktests-series userspace clean

all: userspace

userspace:
	$(MAKE) -C userspace

check:
	tests/check $(if $(BLKTESTS),--blktests $(BLKTESTS))

# The blktests series (blktests/make-series) applied to the pinned
# checkout and blktests' own make check run there: minutes of shellcheck,
# so not part of make check.
blktests-series:
	RQPATH_BLKTESTS_MAKE_CHECK=1 BLKTESTS_DIR=$(or $(BLKTESTS),../shared/blktests) tests/host/run blktests-series

matrix:
	tests/setup
	tests/run

debug:
	tests/setup
	tests/run --debug

bench:
	tests/setup
	tests/bench

mutate:
	tests/setup
	tests/run --mutants

clean:
	$(MAKE) -C userspace clean
	rm -rf out

# rqpath: see README.md.
#
#   make matrix   the main job: install what is missing, build every stage,
#                 boot each, run every scenario, print the stage-by-scenario
#                 matrix and write out/matrix.json
#   make check    the tests: host tests, userspace unit tests, then the
#                 matrix, which must come out as every scenario expects
#   make bench    the figures in README.md (repeated boots; slow)

.PHONY: all check matrix bench userspace clean

all: userspace

userspace:
	$(MAKE) -C userspace

check:
	tests/check

matrix:
	tests/setup
	tests/run

bench:
	tests/setup
	tests/bench

clean:
	$(MAKE) -C userspace clean
	rm -rf out

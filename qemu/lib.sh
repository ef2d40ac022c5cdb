# shellcheck shell=bash
# Common helpers for the rqpath host scripts.  Sourced, never executed.
#
# This file is the one place that knows the trees, their series and stages,
# the config fragments and the layout of the cache; the Python harness asks
# it (qemu/build-kernel --describe) instead of knowing any of it itself.
#
# Layout of the cache (never inside the repository):
#   $RQPATH_CACHE/src/<tree-key>/linux       pristine tree from the tarball
#   $RQPATH_CACHE/work/<tree-key>/linux      the one tree every stage is built from
#   $RQPATH_CACHE/obj/<tree-key>-<cfg>/      its O= build directory (incremental),
#                                            one per config (normal, debug)
#   $RQPATH_CACHE/stages/<tree>-<stage>[-debug]-<key>/
#                                            bzImage, modules/, dm-rqpath/<key>/
#   $RQPATH_CACHE/initramfs/<key>.cpio       guest images
#   $RQPATH_CACHE/accel                      cached answer of the KVM probe
#
# Environment: RQPATH_TREE (a tree of patches/trees, default the first),
# RQPATH_VARIANT (normal or debug), RQPATH_CACHE.

RQPATH_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RQPATH_CACHE=${RQPATH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rqpath}
# Bump when the layout or meaning of cached build products changes.
RQPATH_CACHE_SCHEMA=2

msg() { printf '%s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

sha() { sha256sum | cut -c1-16; }

# --- trees, series, stages -------------------------------------------------

tree_names() { awk '!/^#/ && NF >= 3 { print $1 }' "$RQPATH_TOP/patches/trees"; }

# tree_field N: column N of this tree's line in patches/trees.
tree_field() {
	local v
	v=$(awk -v t="$RQPATH_TREE" -v f="$1" '!/^#/ && $1 == t { print $f }' "$RQPATH_TOP/patches/trees")
	[ -n "$v" ] || die "unknown tree '$RQPATH_TREE' (trees: $(tree_names | tr '\n' ' '))"
	echo "$v"
}

# select_tree T: make T the tree every function below works on.
select_tree() {
	RQPATH_TREE=$1
	RQPATH_TARBALL=$(tree_field 2)
	RQPATH_SERIES=$RQPATH_TOP/$(tree_field 3)
}

select_tree "${RQPATH_TREE:-$(tree_names | head -n1)}"
RQPATH_VARIANT=${RQPATH_VARIANT:-normal}
case $RQPATH_VARIANT in
normal|debug) ;;
*) die "unknown build variant '$RQPATH_VARIANT' (normal or debug)" ;;
esac

# The Debian package that installs this tree's tarball.
tree_package() { basename "$RQPATH_TARBALL" .tar.xz; }

stage_names() { awk '!/^#/ && NF == 2 { print $1 }' "$RQPATH_SERIES/stages"; }

# Mutants (patches/mutants/TREE/NAME.patch, issue 30): each is stage
# `mutant:NAME`, the stock stage plus that one patch.  They are not in
# stage_names: the matrix's stages stay the series'.
mutant_dir() { echo "$RQPATH_TOP/patches/mutants/$RQPATH_TREE"; }

mutant_names() {
	local p
	for p in "$(mutant_dir)"/*.patch; do
		[ -e "$p" ] && basename "$p" .patch
	done | LC_ALL=C sort
}

mutant_patch() { echo "$(mutant_dir)/$1.patch"; }

# The mutant a stage name names, or nothing for a series stage.
stage_mutant() {
	case $1 in mutant:*) echo "${1#mutant:}" ;; esac
}

# Number of series patches a stage applies (a mutant: those of stock).
stage_depth() {
	local n m
	m=$(stage_mutant "$1")
	if [ -n "$m" ]; then
		[ -e "$(mutant_patch "$m")" ] ||
			die "unknown mutant '$m' of tree $RQPATH_TREE (mutants: $(mutant_names | tr '\n' ' '))"
		stage_depth stock
		return
	fi
	n=$(awk -v s="$1" '!/^#/ && $1 == s { print $2 }' "$RQPATH_SERIES/stages")
	[ -n "$n" ] || die "unknown stage '$1' of tree $RQPATH_TREE (stages: $(stage_names | tr '\n' ' '))"
	echo "$n"
}

series_patches() { grep -v -e '^#' -e '^$' "$RQPATH_SERIES/series"; }

series_patch() { echo "$RQPATH_SERIES/$1"; }

# The patch files a stage applies, in order: the first stage_depth
# patches of the series, then a mutant's patch.
stage_patches() {
	local depth p m
	depth=$(stage_depth "$1") || exit 1
	# Not head -n: under pipefail, series_patches may die of SIGPIPE.
	series_patches | awk -v n="$depth" 'NR <= n' | while read -r p; do
		series_patch "$p"
	done
	m=$(stage_mutant "$1")
	[ -z "$m" ] || mutant_patch "$m"
}

# Files a patch touches, relative to the tree top.
patch_files() { sed -n 's|^+++ b/||p' "$@"; }

# Files some stage of this tree changes, relative to the tree top: those
# of the series and of every mutant.  A stage switch rewrites all of them
# (to the pristine file where its stage leaves one alone), so a file a
# mutant changes is never kept by the next stage.
series_files() {
	local p m
	{
		series_patches | while read -r p; do
			patch_files "$(series_patch "$p")"
		done
		mutant_names | while read -r m; do
			patch_files "$(mutant_patch "$m")"
		done
	} | sort -u
}

# Identity of the kernel tree: Debian package version and tarball content.
tree_key() {
	[ -r "$RQPATH_TARBALL" ] ||
		die "$RQPATH_TARBALL not found: install Debian's $(tree_package) (tests/setup does)"
	local stamp="$RQPATH_CACHE/tree-key-$RQPATH_TREE"
	local id
	id=$(stat -c '%s %Y %i' "$RQPATH_TARBALL")
	if [ -r "$stamp" ] && [ "$(head -1 "$stamp")" = "$id" ]; then
		sed -n 2p "$stamp"
		return
	fi
	mkdir -p "$RQPATH_CACHE"
	local key
	key=linux-$(sha256sum < "$RQPATH_TARBALL" | cut -c1-12)
	printf '%s\n%s\n' "$id" "$key" > "$stamp"
	echo "$key"
}

# Unpack the tarball once; print the pristine tree's path.
pristine_tree() {
	local key dir
	# Called as $(pristine_tree), where set -e does not reach: a failure
	# must end it here, or the caller gets a cascade of errors after it.
	key=$(tree_key) || exit 1
	dir="$RQPATH_CACHE/src/$key"
	if [ ! -e "$dir/.unpacked" ]; then
		msg "unpacking $RQPATH_TARBALL into $dir"
		rm -rf "$dir"
		mkdir -p "$dir"
		tar -C "$dir" -xf "$RQPATH_TARBALL" || die "cannot unpack $RQPATH_TARBALL"
		mv "$dir"/linux-source-* "$dir/linux" || die "$RQPATH_TARBALL holds no linux-source-* directory"
		touch "$dir/.unpacked"
	fi
	echo "$dir/linux"
}

# "6.1.192" from a tree's Makefile.
tree_version() {
	awk '/^VERSION =/ { v = $3 } /^PATCHLEVEL =/ { p = $3 }
	     /^SUBLEVEL =/ { s = $3 } END { print v "." p "." s }' "$1/Makefile"
}

# The config fragments merged onto allnoconfig, in order: the common one,
# the tree's own (if any), the debug options for the debug variant.
config_fragments() {
	echo "$RQPATH_TOP/qemu/rqpath.config"
	[ ! -e "$RQPATH_TOP/qemu/rqpath-$RQPATH_TREE.config" ] ||
		echo "$RQPATH_TOP/qemu/rqpath-$RQPATH_TREE.config"
	[ "$RQPATH_VARIANT" != debug ] || echo "$RQPATH_TOP/qemu/rqpath-debug.config"
}

config_key() { config_fragments | xargs cat | sha; }

# Key of a stage's build products: tree, config, the patches it applies.
stage_key() {
	local stage=$1 p
	{
		echo "schema $RQPATH_CACHE_SCHEMA"
		tree_key
		config_key
		stage_patches "$stage" | while read -r p; do
			cat "$p"
		done
	} | sha
}

variant_suffix() { [ "$RQPATH_VARIANT" = normal ] || echo "-$RQPATH_VARIANT"; }

# A stage's name as a file name: mutant:NAME -> mutant-NAME.
stage_file_name() { echo "${1//:/-}"; }

stage_dir() { echo "$RQPATH_CACHE/stages/$RQPATH_TREE-$(stage_file_name "$1")$(variant_suffix)-$(stage_key "$1")"; }

# The directories of guest module sources, as Kbuild names them.
module_dirs() {
	sed -n 's/^obj-m *+= *//p' "$RQPATH_TOP/Kbuild" | tr ' ' '\n' | sed -n 's|/$||p'
}

# Key of the guest module sources.
module_key() {
	{
		cat "$RQPATH_TOP/Kbuild"
		module_dirs | while read -r d; do
			find "$RQPATH_TOP/$d" -name Kbuild -o -name '*.[ch]'
		done | LC_ALL=C sort | xargs cat
	} | sha
}

elapsed() { echo $(( $(date +%s) - $1 )); }

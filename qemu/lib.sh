# shellcheck shell=bash
# Common helpers for the rqpath host scripts.  Sourced, never executed.
#
# Layout of the cache (never inside the repository):
#   $RQPATH_CACHE/src/<tree-key>/linux       pristine tree from the tarball
#   $RQPATH_CACHE/work/<tree-key>/linux      the one tree every stage is built from
#   $RQPATH_CACHE/obj/<tree-key>-<cfg>/      its O= build directory (incremental)
#   $RQPATH_CACHE/stages/<stage-key>/        bzImage, modules/, dm-rqpath/<key>/
#   $RQPATH_CACHE/initramfs/<key>.cpio       guest base image
#   $RQPATH_CACHE/accel                      cached answer of the KVM probe

RQPATH_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RQPATH_CACHE=${RQPATH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rqpath}
RQPATH_TARBALL=${RQPATH_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
# Bump when the layout or meaning of cached build products changes.
RQPATH_CACHE_SCHEMA=1

msg() { printf '%s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

sha() { sha256sum | cut -c1-16; }

stage_names() { awk '!/^#/ && NF == 2 { print $1 }' "$RQPATH_TOP/patches/stages"; }

# Number of series patches a stage applies.
stage_depth() {
	local n
	n=$(awk -v s="$1" '!/^#/ && $1 == s { print $2 }' "$RQPATH_TOP/patches/stages")
	[ -n "$n" ] || die "unknown stage '$1' (stages: $(stage_names | tr '\n' ' '))"
	echo "$n"
}

series_patches() { grep -v -e '^#' -e '^$' "$RQPATH_TOP/patches/series"; }

# Files the series touches, relative to the tree top.
series_files() {
	local p
	series_patches | while read -r p; do
		sed -n 's|^+++ b/||p' "$RQPATH_TOP/patches/$p"
	done | sort -u
}

# Identity of the kernel tree: Debian package version and tarball content.
tree_key() {
	[ -r "$RQPATH_TARBALL" ] ||
		die "$RQPATH_TARBALL not found: install Debian's linux-source-6.1 (tests/setup does)"
	local stamp="$RQPATH_CACHE/tree-key"
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
	key=$(tree_key)
	dir="$RQPATH_CACHE/src/$key"
	if [ ! -e "$dir/.unpacked" ]; then
		msg "unpacking $RQPATH_TARBALL into $dir"
		rm -rf "$dir"
		mkdir -p "$dir"
		tar -C "$dir" -xf "$RQPATH_TARBALL"
		mv "$dir"/linux-source-* "$dir/linux"
		touch "$dir/.unpacked"
	fi
	echo "$dir/linux"
}

# "6.1.192" from a tree's Makefile.
tree_version() {
	awk '/^VERSION =/ { v = $3 } /^PATCHLEVEL =/ { p = $3 }
	     /^SUBLEVEL =/ { s = $3 } END { print v "." p "." s }' "$1/Makefile"
}

config_key() { sha < "$RQPATH_TOP/qemu/rqpath.config"; }

# Key of a stage's build products: tree, config, the patches it applies.
stage_key() {
	local stage=$1 depth p
	depth=$(stage_depth "$stage")
	{
		echo "schema $RQPATH_CACHE_SCHEMA"
		tree_key
		config_key
		series_patches | head -n "$depth" | while read -r p; do
			cat "$RQPATH_TOP/patches/$p"
		done
	} | sha
}

stage_dir() { echo "$RQPATH_CACHE/stages/$1-$(stage_key "$1")"; }

# Key of the dm-rqpath sources.
module_key() {
	{
		cat "$RQPATH_TOP/Kbuild"
		find "$RQPATH_TOP/dm-target" -name Kbuild -o -name '*.[ch]' | LC_ALL=C sort |
			xargs cat
	} | sha
}

elapsed() { echo $(( $(date +%s) - $1 )); }

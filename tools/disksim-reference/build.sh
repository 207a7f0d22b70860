#!/usr/bin/env bash
# Builds DiskSim 4.0 (CMU PDL) from a source tree you point it at, with idlewise's patches, on a
# modern 64-bit Linux and gcc: tools/disksim-reference/build.sh SRC_DIR [BUILD_DIR]
#
# SRC_DIR is an unmodified DiskSim 4.0 tree (the one with memsmodel/, src/, libparam/ ...; the
# public copies of the release tarball are fine). It is copied to BUILD_DIR (default
# ./disksim-build), the patches in patches/ are applied there, and the simulator is built; the
# last line printed is the path of the `disksim` binary. Needs gcc, make, bison and flex
# (Debian: apt-get install build-essential bison flex). OPTIMIZE, when set (e.g. OPTIMIZE=-O2),
# is added to every compile: DiskSim's own Makefiles build with -g only, which is what the
# fixtures use; speed comparisons (benchmarks/mems_cli.py) use -O2.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="${1:?usage: build.sh SRC_DIR [BUILD_DIR]}"
build="${2:-$PWD/disksim-build}"
[ -f "$src/memsmodel/mems_event.c" ] || { echo "build.sh: $src does not look like a DiskSim 4.0 tree (no memsmodel/mems_event.c)" >&2; exit 2; }
for tool in gcc make bison flex patch; do
    command -v "$tool" >/dev/null || { echo "build.sh: needs $tool (Debian: apt-get install build-essential bison flex patch)" >&2; exit 2; }
done
rm -rf "$build"
cp -r "$src" "$build"
for p in "$here"/patches/*.patch; do
    patch -s -p1 -d "$build" < "$p"
done
# -fcommon: DiskSim defines globals in headers; -fgnu89-inline: its INLINE functions must be
# emitted out of line; the forced include declares loaders the generated code calls undeclared
# (an implicit int would truncate their 64-bit pointers).
make -s -C "$build" CC="gcc ${OPTIMIZE:-} -fcommon -fgnu89-inline -w -include $build/src/lp64_prototypes.h" >"$build/build.log" 2>&1 \
    || { tail -20 "$build/build.log" >&2; echo "build.sh: the build failed; the whole log is $build/build.log" >&2; exit 1; }
echo "$build/src/disksim"

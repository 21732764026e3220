#!/bin/sh
# Installs what sessfs needs to build and test, when it is missing.
# Checks with pkg-config and the headers first; runs apt-get only if
# something is absent (with sudo when not root).
set -eu

PKGS="libfuse3-dev fuse3 libcjson-dev uthash-dev libcmocka-dev pkg-config attr"

missing=""
have_pc() { pkg-config --exists "$1" 2>/dev/null; }
command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"
have_pc fuse3 || missing="$missing libfuse3-dev"
have_pc libcjson || missing="$missing libcjson-dev"
have_pc cmocka || missing="$missing libcmocka-dev"
[ -f /usr/include/uthash.h ] || missing="$missing uthash-dev"
command -v fusermount3 >/dev/null 2>&1 || missing="$missing fuse3"
command -v getfattr >/dev/null 2>&1 || missing="$missing attr"

if [ -z "$missing" ]; then
	echo "deps: all present"
	exit 0
fi
echo "deps: missing:$missing; installing $PKGS"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq $PKGS >/dev/null
echo "deps: installed"

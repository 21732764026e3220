#!/bin/bash
# The request loop (fs/loop.h), on a file system of its own
# (build/tests/loopfs: "fast" answers at once, "slow" takes 1.5 s to look
# up): a request is served while another is long, but for one thread;
# SIGTERM ends it while a request is served; an idle mount has no thread
# awake, spin or not.
. "$(dirname "$0")/lib.sh"
LOOPFS=$BUILD/tests/loopfs

# mount_loop MNT THREADS SPIN: sets PID.
mount_loop() {
	mkdir -p "$1"
	"$LOOPFS" "$1" "$2" "$3" 2>"$1.err" &
	PID=$!
	DAEMONS="$DAEMONS $PID"
	MOUNTS="$MOUNTS $1"
	wait_until "$MOUNT_WAIT" mounted_or_dead "$1" "$PID" && mountpoint -q "$1"
}

# ms_of CMD...: how long CMD took, in milliseconds.
ms_of() {
	local t0=$(now_us)
	"$@" >/dev/null 2>&1
	echo $((($(now_us) - t0) / 1000))
}

# cpu_ticks PID: user and system time of the daemon, in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# slow_started MNT: the lookup of "slow" is in the daemon (its stat waits).
slow_started() { pgrep -f "stat $1/slow" >/dev/null; }

beside() {	# beside THREADS SPIN: fast while slow, with THREADS threads
	local mnt=$T/m$1 ms pid
	mount_loop "$mnt" "$1" "$2" || { bad "loopfs mount: $(cat "$mnt.err")"; return; }
	stat "$mnt/fast" >/dev/null
	stat "$mnt/slow" >/dev/null &
	pid=$!
	wait_until 5 slow_started "$mnt"
	sleep 0.1	# the lookup is being served
	ms=$(ms_of stat "$mnt/fast")
	if [ "$1" -gt 1 ]; then
		[ "$ms" -lt 700 ] && ok "$1 threads, spin $2: served while a 1.5 s request is (${ms} ms)" ||
			bad "$1 threads, spin $2: waited ${ms} ms behind a 1.5 s request"
	else
		[ "$ms" -ge 700 ] && ok "one thread: waits behind a 1.5 s request (${ms} ms)" ||
			bad "one thread: served beside a 1.5 s request (${ms} ms)"
	fi
	wait "$pid"
	fusermount3 -u "$mnt" && wait_until 10 gone "$PID" && wait "$PID" &&
		ok "$1 threads: unmounted, exit 0" || bad "$1 threads: unmount"
}

term_while_served() {
	local mnt=$T/term rc pid
	mount_loop "$mnt" 10 50 || { bad "loopfs mount: $(cat "$mnt.err")"; return; }
	stat "$mnt/slow" >/dev/null 2>&1 &
	pid=$!
	wait_until 5 slow_started "$mnt"
	kill -TERM "$PID"
	if wait_until 10 gone "$PID"; then
		wait "$PID"
		rc=$?
		[ "$rc" -eq 0 ] && ! mountpoint -q "$mnt" && ok "SIGTERM while a request is served: unmounted, exit 0" ||
			bad "SIGTERM: exit $rc, mounted: $(mountpoint "$mnt")"
	else
		bad "SIGTERM while a request is served: still running after 10 s"
	fi
	wait "$pid"
}

idle() {	# idle SPIN: no CPU once requests stop
	local mnt=$T/idle$1 i before after
	mount_loop "$mnt" 10 "$1" || { bad "loopfs mount: $(cat "$mnt.err")"; return; }
	for i in $(seq 200); do stat "$mnt/fast"; done >/dev/null
	sleep 1.5	# the watcher sleeps once no request came for a second
	before=$(cpu_ticks "$PID")
	sleep 2
	after=$(cpu_ticks "$PID")
	[ $((after - before)) -le 1 ] && ok "spin $1: idle for 2 s, $((after - before)) ticks of CPU" ||
		bad "spin $1: idle for 2 s, $((after - before)) ticks of CPU"
	fusermount3 -u "$mnt" && wait_until 10 gone "$PID" && wait "$PID" || bad "idle: unmount"
}

[ -x "$LOOPFS" ] || { bad "$LOOPFS not built"; finish; exit 1; }
run_parts "$@"
beside 10 50
beside 10 0
beside 1 50
term_while_served
idle 50
idle 1000
finish

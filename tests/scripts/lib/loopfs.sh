# Shared by tests/scripts/*.sh that run Steady's mysqld through
# harness/server.py (--no-defaults) with files on loop-device file systems
# (harness/device.py). Source it after defining HARNESS, W, skip() and fail();
# it defines:
#   loop_up ID MOUNT [device.py up options...]
#       a loop device with a file system mounted at MOUNT (image in $W);
#       sets LOOP, MAJMIN, MOUNT and CGROUP; skip() where the host cannot
#       make one (no root, no loop device, no blkio for --write-iops)
#   server_init   initialise the datadir of the caller's arrays srv
#                 (server.py options) and opts (mysqld options)
#   server_start  start that server on $W/s.sock and wait until it answers;
#                 sets pid; fail() if it exits or does not answer in 90 s

loop_up() {
  local id=$1 mount=$2 out rc=0
  shift 2
  out=$(python3 "$HARNESS/device.py" up --id "$id" --owner-pid $$ --image "$W/$id.img" \
          --mount "$mount" "$@" 2>"$W/$id.up.err") || rc=$?
  case $rc in
    0) eval "$out" ;;
    77) skip "$(sed 's/^device.py: cannot make the device here: //' "$W/$id.up.err")" ;;
    *) grep -q 'no free loop device' "$W/$id.up.err" && skip "no free loop device"
       fail "loop device $id: $(cat "$W/$id.up.err")" ;;
  esac
}

server_init() {
  python3 "$HARNESS/server.py" init "${srv[@]}" -- "${opts[@]}" >/dev/null 2>&1 || fail "initialize"
}

server_start() {
  local out rc=0
  out=$(python3 "$HARNESS/server.py" start "${srv[@]}" --socket "$W/s.sock" --timeout 90 -- "${opts[@]}") || rc=$?
  case $rc in
    0) eval "$out"; pid=$PID ;;
    1) fail "mysqld exited during startup" ;;
    *) fail "mysqld did not start" ;;
  esac
}

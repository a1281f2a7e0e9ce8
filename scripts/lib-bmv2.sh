# Shell helpers for the PTF suite and the benches: veth pairs and a BMv2 switch
# that the caller owns and tears down. Source it; every helper is bounded in time.

# veth_up PREFIX N: pairs PREFIX<i>s (switch side) <-> PREFIX<i>h (host side), i=1..N.
veth_up() {
  local prefix=$1 count=$2 i
  for ((i = 1; i <= count; i++)); do
    ip link show "${prefix}${i}s" >/dev/null 2>&1 && ip link del "${prefix}${i}s"
    ip link add "${prefix}${i}s" type veth peer name "${prefix}${i}h"
    for end in s h; do
      ip link set "${prefix}${i}${end}" mtu 9500 up
      # No IPv6 router solicitations or other kernel chatter on the test wires.
      sysctl -qw "net.ipv6.conf.${prefix}${i}${end}.disable_ipv6=1" || true
      ethtool -K "${prefix}${i}${end}" tx off rx off >/dev/null 2>&1 || true
    done
  done
}

veth_down() {
  local prefix=$1 count=$2 i
  for ((i = 1; i <= count; i++)); do
    ip link del "${prefix}${i}s" >/dev/null 2>&1 || true
  done
}

# switch_start RUNDIR GRPC_PORT THRIFT_PORT PORTS...: PORTS are "n@iface".
# Starts simple_switch_grpc without a program (the test pushes one) and waits
# until its gRPC port listens.
switch_start() {
  local rundir=$1 grpc_port=$2 thrift_port=$3
  shift 3
  local ifaces=() p
  for p in "$@"; do ifaces+=(-i "$p"); done
  mkdir -p "$rundir"
  # BMv2's log level defaults to trace: every packet's log lines are formatted
  # even with no sink, which costs most of its time. Logs only when asked for.
  local log_args=(--log-level off)
  if [ -n "${P4T_SWITCH_LOG:-}" ]; then
    log_args=(--log-level trace --log-file "$rundir/switch" --log-flush)
  fi
  simple_switch_grpc --device-id 0 "${ifaces[@]}" --thrift-port "$thrift_port" \
    "${log_args[@]}" --no-p4 -- --grpc-server-addr "127.0.0.1:$grpc_port" --cpu-port 510 \
    >"$rundir/switch.out" 2>&1 &
  echo $! >"$rundir/switch.pid"
  local tries
  for ((tries = 0; tries < 100; tries++)); do
    if ss -ltn "sport = :$grpc_port" | grep -q LISTEN; then return 0; fi
    if ! kill -0 "$(cat "$rundir/switch.pid")" 2>/dev/null; then
      echo "simple_switch_grpc exited at start:" >&2; cat "$rundir/switch.out" >&2; return 1
    fi
    sleep 0.1
  done
  echo "simple_switch_grpc did not listen on 127.0.0.1:$grpc_port within 10 s" >&2
  return 1
}

switch_stop() {
  local rundir=$1 pid
  [ -f "$rundir/switch.pid" ] || return 0
  pid=$(cat "$rundir/switch.pid")
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$rundir/switch.pid"
}

have_p4_toolchain() {
  command -v p4c-bm2-ss >/dev/null 2>&1 && command -v simple_switch_grpc >/dev/null 2>&1
}

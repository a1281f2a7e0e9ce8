#!/usr/bin/env bash
# seed001-iperf.sh [SECONDS] [PAYLOAD]: seed 001's method on this host, for comparison with
# the eBPF tester's NDR of the same router (topologies/ebpf-router-capacity.yaml): iperf (2)
# floods UDP (-b 10G: iperf 2.1 refuses -b 0) through a Linux router in a namespace set up
# as the lab's (IPv4 forwarding, no qdisc), and the router's forwarding rate is the
# datagrams the server received per second. PAYLOAD 18 (default) makes 64-byte Ethernet frames (RFC 2544's size: IP total
# length 46); the seed's -l36 makes IP packets of 64 B (82-byte frames).
# Makes namespaces p4t-ipc (client), p4t-ipr (router), p4t-ips (server) and links p4lic*/p4lis*;
# removes exactly those on exit. Needs root and iperf.
set -euo pipefail
seconds=${1:-5}
payload=${2:-18}
command -v iperf >/dev/null || { echo "seed001-iperf: iperf is not installed (apt-get install iperf)" >&2; exit 1; }
client=p4t-ipc router=p4t-ipr server=p4t-ips
cleanup() {
  [ -n "${server_pid:-}" ] && kill "$server_pid" 2>/dev/null || true
  for ns in $client $router $server; do ip netns del $ns 2>/dev/null || true; done
}
trap cleanup EXIT
cleanup
for ns in $client $router $server; do ip netns add $ns; ip -n $ns link set lo up; done
ip link add p4lic0 netns $client type veth peer name p4lic1 netns $router
ip link add p4lis0 netns $server type veth peer name p4lis1 netns $router
ip -n $client addr add 192.0.2.1/24 dev p4lic0
ip -n $router addr add 192.0.2.254/24 dev p4lic1
ip -n $router addr add 198.51.100.254/24 dev p4lis1
ip -n $server addr add 198.51.100.1/24 dev p4lis0
for pair in "$client p4lic0" "$router p4lic1" "$router p4lis1" "$server p4lis0"; do
  set -- $pair; ip -n "$1" link set "$2" up
done
ip -n $client route add default via 192.0.2.254
ip -n $server route add default via 198.51.100.254
ip netns exec $router sysctl -qw net.ipv4.ip_forward=1
ip netns exec $server iperf -s -u -l "$payload" > /tmp/seed001-iperf-server.$$ 2>&1 &
server_pid=$!
sleep 1
ip netns exec $client iperf -c 198.51.100.1 -u -l "$payload" -b 10G -P 2 -t "$seconds" > /dev/null 2>&1 || true
sleep 1
kill -INT "$server_pid" 2>/dev/null || true
wait "$server_pid" 2>/dev/null || true
server_pid=
# Server reports: "... jitter ms  lost/total (pct)" per stream: received = total - lost.
grep -v SUM /tmp/seed001-iperf-server.$$ | grep -oE '[0-9]+/ *[0-9]+ +\(' | tr -d '(' | tr '/' ' ' |
  awk -v seconds="$seconds" -v payload="$payload" '
  { lost += $1; total += $2 }
  END {
    if (total == 0) { print "seed001-iperf: no server report (iperf failed?)" > "/dev/stderr"; exit 1 }
    frame = payload + 8 + 20 + 14 + 4
    printf "iperf -u -l%d (%d-B frames), %d s: %d of %d datagrams received, %.0f frames/s forwarded\n",
      payload, frame, seconds, total - lost, total, (total - lost) / seconds
  }'
rm -f /tmp/seed001-iperf-server.$$

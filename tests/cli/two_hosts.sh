#!/usr/bin/env bash
# two_hosts.sh SACCADE_CLI: data-parallel training between two hosts, not one loopback. Two
# network namespaces joined by a veth pair stand in for two machines (10.231.N.1 and .2), each
# rank bound to its own interface with GLOO_SOCKET_IFNAME. The ranks train together to the same
# parameters; then, in a longer run, one side's link goes down and the other rank stops with one
# line within the group timeout. Needs root, iproute2 and a root that is a mount point (as CI runs);
# otherwise it is skipped (exit 77), as in scripts/check-debian13.sh's chroot.
set -u
cli=$1
if [ "$(id -u)" -ne 0 ] || ! command -v ip > /dev/null; then echo "skipped: needs root and iproute2"; exit 77; fi
tag=$(( $$ % 200 + 20 ))  # a subnet and names of this run's own
a=saccade-a$tag; b=saccade-b$tag; va=sva$tag; vb=svb$tag
ip_a=10.231.$tag.1; ip_b=10.231.$tag.2
dir=$(mktemp -d)
cleanup() { kill $(jobs -p) 2>/dev/null; ip netns del "$a" 2>/dev/null; ip netns del "$b" 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
cd "$dir"
fail() { echo "FAIL: $*"; for f in *.log; do echo "--- $f"; cat "$f"; done; exit 1; }
ip netns add "$a" && ip netns add "$b" || { echo "skipped: network namespaces cannot be made here"; exit 77; }
# In a chroot, / is no mount point and "ip netns exec" cannot enter a namespace.
ip netns exec "$a" true 2>/dev/null || { echo "skipped: network namespaces cannot be entered here (a chroot?)"; exit 77; }
ip link add "$va" netns "$a" type veth peer name "$vb" netns "$b" || fail "veth pair"
ip -n "$a" addr add "$ip_a/24" dev "$va"; ip -n "$b" addr add "$ip_b/24" dev "$vb"
for ns in "$a" "$b"; do ip -n "$ns" link set lo up; done
ip -n "$a" link set "$va" up; ip -n "$b" link set "$vb" up
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE
args=(train patch --dataset digits28 --grid 7 --steps 2 --batch 16 --seed 5 --master-addr "$ip_a" --master-port 29500
      --world-size 2)
on() { local ns=$1 dev=$2; shift 2; ip netns exec "$ns" env GLOO_SOCKET_IFNAME="$dev" "$cli" "$@"; }

on "$b" "$vb" "${args[@]}" --rank 1 --iterations 8 --eval-every 4 --out two.pt > r1.log 2>&1 &
pid1=$!
on "$a" "$va" "${args[@]}" --rank 0 --iterations 8 --eval-every 4 --out two.pt > r0.log 2>&1 || fail "rank 0"
wait "$pid1" || fail "rank 1"
crc0=$(grep -o 'CRC-32 [0-9a-f]*' r0.log | head -1); crc1=$(grep -o 'CRC-32 [0-9a-f]*' r1.log | head -1)
[ -n "$crc0" ] && [ "$crc0" = "$crc1" ] || fail "parameters differ between the hosts: '$crc0' vs '$crc1'"
echo "ok: two hosts trained together, parameters $crc0"

# A link that goes down mid-run: rank 0 stops with one line within the group timeout.
rm -f *.log
timeout_s=10
on "$b" "$vb" "${args[@]}" --rank 1 --minutes 5 --eval-every 100000 --group-timeout "$timeout_s" --out long.pt > r1.log 2>&1 &
on "$a" "$va" "${args[@]}" --rank 0 --minutes 5 --eval-every 100000 --group-timeout "$timeout_s" --out long.pt > r0.log 2>&1 &
pid0=$!
# Joined: rank 1 holds the store connection and Gloo's pair with rank 0 (2+ connections across the
# link); then a moment of training. Polled, not slept, so a loaded machine has the time it needs.
for _ in $(seq 600); do
  [ "$(ip netns exec "$b" ss -Htn state established "( dst $ip_a )" | grep -c .)" -ge 2 ] && break
  kill -0 "$pid0" 2>/dev/null || break
  sleep 0.2
done
sleep 2
kill -0 "$pid0" 2>/dev/null || fail "rank 0 ended before the link went down"
[ "$(ip netns exec "$b" ss -Htn state established "( dst $ip_a )" | grep -c .)" -ge 2 ] || fail "the ranks never joined"
ip -n "$b" link set "$vb" down
down=$SECONDS
wait "$pid0"; rc=$?
took=$((SECONDS - down))
[ "$rc" -ne 0 ] || fail "rank 0 exited 0 after losing its peer"
[ "$(grep -c . r0.log)" -eq 1 ] || fail "rank 0 printed more than one line"
grep -q "lost the training group" r0.log || fail "rank 0's line does not say the group was lost"
[ "$took" -le $((timeout_s + 20)) ] || fail "rank 0 stopped $took s after the link went down (group timeout $timeout_s s)"
echo "ok: the link went down and rank 0 stopped in $took s: $(cat r0.log)"
echo "two hosts: all checks passed"

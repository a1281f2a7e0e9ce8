/* The host's own ceiling for the eBPF tester's loopback (make bench): the same path
 * as the tester's generator and checker, TC ingress of the generator interface ->
 * k clones redirected to the TX interface -> its veth peer's TC ingress, with none of
 * the P4 program's work: no parsing, tables, stamping or checking. Written for this
 * project's bench; loaded by tc like the tester (control/p4tester/bench/ebpf_loopback.py). */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

#define MAX_COPIES 64

/* [0]: the TX ifindex, [1]: copies per template (1..MAX_COPIES). Written by the bench. */
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __type(key, __u32);
    __type(value, __u32);
    __uint(max_entries, 2);
    __uint(pinning, LIBBPF_PIN_BY_NAME);
} replicate_config SEC(".maps");

/* [0]: frames the RX interface received. */
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __type(key, __u32);
    __type(value, __u64);
    __uint(max_entries, 1);
    __uint(pinning, LIBBPF_PIN_BY_NAME);
} replicate_received SEC(".maps");

SEC("classifier/replicate")
int replicate(struct __sk_buff *skb)
{
    __u32 key = 0;
    __u32 *ifindex = bpf_map_lookup_elem(&replicate_config, &key);
    key = 1;
    __u32 *copies = bpf_map_lookup_elem(&replicate_config, &key);
    if (!ifindex || !copies)
        return TC_ACT_SHOT;
    for (int i = 0; i < MAX_COPIES; i++) {
        if (i >= *copies)
            break;
        bpf_clone_redirect(skb, *ifindex, 0);
    }
    return TC_ACT_SHOT;
}

SEC("classifier/count")
int count(struct __sk_buff *skb)
{
    __u32 key = 0;
    __u64 *received = bpf_map_lookup_elem(&replicate_received, &key);
    if (received)
        __sync_fetch_and_add(received, 1);
    return TC_ACT_SHOT;
}

char _license[] SEC("license") = "GPL";

"""The eBPF target: the tester's P4 program compiled by p4c-ebpf (PSA) and run
on the Linux kernel's TC hook, driven through its BPF maps."""

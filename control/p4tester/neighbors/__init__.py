"""ARP and IPv6 neighbour discovery for the tester's ports (docs/neighbors.md).

frames: the requests the controller sends and the replies it reads (bytes, no I/O);
resolve: the port addresses written to the switch, and `dst_mac: resolve` turned
into the gateway's MAC before any trial.
"""

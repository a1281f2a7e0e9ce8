"""Capture: frames the tester received, copied to the controller and written as pcap."""

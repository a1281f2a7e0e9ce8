"""`p4tester tofino-check`: first contact with a Tofino switch (docs/tofino.md, "First
contact"). Each module checks a group of the assumptions docs/tofino.md lists under
"Assumed and unverified" by a small experiment over BfRt, with ports in the MAC's
internal loopback; findings.py is what every check returns."""

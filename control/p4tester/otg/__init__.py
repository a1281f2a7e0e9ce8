"""Open Traffic Generator (OTG) API server: `p4tester otg` lets snappi / gosnappi
scripts and the OTG conformance suite drive the tester (docs/otg.md)."""

"""P4 data-plane tester: controller package."""

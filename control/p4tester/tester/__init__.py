"""The tester on a real switch: session set-up and the trial runner."""

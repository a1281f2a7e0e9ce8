"""The application layer under every front end (issue 22).

The CLI, the web server and the OTG server are thin adapters over it: they parse what
a user gave (argv, JSON) into the typed requests of `requests`, and this layer opens a
trial runner for the topology (`trial_runners`), checks the loads (`loads`), runs the
experiment through one path with progress and a stop signal (`execute`), and writes
the results (`outputs`). It imports `experiments/`, `tester/`, `results/` and below;
nothing here imports a front end.
"""

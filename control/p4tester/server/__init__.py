"""`p4tester serve`: a REST API, a dashboard and Prometheus metrics over one tester
switch (or the simulated one), on top of the same experiments the CLI runs."""

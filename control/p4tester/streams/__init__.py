"""Stream definitions and the frames (templates) the generator replicates."""
